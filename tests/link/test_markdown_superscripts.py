"""Superscript citations in Markdown: written out as markup (`<sup>3</sup>`, `^3^`, `[^3]`), or
flattened into the text by a conversion that lost the raising (`previously3,5–7`,
`administration.24–31`). Flattened digits are read only where nothing else they could be fits
and the paper is seen to cite this way; a number that cannot be told apart stays unread."""

from __future__ import annotations

import pytest

from conftest import chunk_markdown

ENTRIES = "\n".join(f"{number}. Park J. Study number {number}. J Med. 2019;{number}:1-9." for number in range(1, 9))
FLATTENED = (
    "Potassium is given with care.1 Most trials2 agree, as reviews did,3,4 that the dose\n"
    "matters. Phosphate was added to the infusion.5–7 Authors usually agree on it, as reported\n"
    "previously3,5–7. {sentence} The last trials8 agree."
)

READ = [
    ("1", "R1"), ("2", "R2"), ("3,4", "R3"), ("3,4", "R4"), ("5–7", "R5"), ("5–7", "R6"), ("5–7", "R7"),
    ("3,5–7", "R3"), ("3,5–7", "R5"), ("3,5–7", "R6"), ("3,5–7", "R7"), ("8", "R8"),
]
"""What `FLATTENED` cites, with no sentence put in."""
IN_ORDER = "Potassium is given with care.1 Most trials2 agree.3,4 Later trials5–7 and wards8 too."


def _paper(introduction: str) -> str:
    return f"# A paper\n\n## Introduction\n\n{introduction}\n\n## References\n\n{ENTRIES}\n"


def _cited(introduction: str, rules) -> list[tuple[str, str | None]]:
    return [(citation.marker, citation.ref_id) for citation in chunk_markdown(_paper(introduction), rules).citations]


def _flattened(sentence: str, rules) -> list[tuple[str, str | None]]:
    return _cited(FLATTENED.format(sentence=sentence), rules)


# ---------------------------------------------------------------- written out as markup


@pytest.mark.parametrize(
    ("text", "cited"),
    [
        ("Known<sup>1</sup> and more<sup>2,3</sup>.", [("<sup>1</sup>", "R1"), ("<sup>2,3</sup>", "R2"), ("<sup>2,3</sup>", "R3")]),
        ("Known^1^ and more^2-3^.", [("^1^", "R1"), ("^2-3^", "R2"), ("^2-3^", "R3")]),
        ("Known[^1] and more[^2].", [("[^1]", "R1"), ("[^2]", "R2")]),
    ],
)
def test_a_superscript_written_out_as_markup_is_a_citation(rules, text, cited):
    assert _cited(text, rules) == cited


@pytest.mark.parametrize("text", ["In 10<sup>5</sup> cells of 2 cm<sup>2</sup>, known<sup>1</sup>.", "In 10^5^ cells of 2 cm^2^, known^1^."])
def test_an_exponent_written_out_as_markup_is_no_citation(rules, text):
    assert [marker for marker, _ in _cited(text, rules)] in (["<sup>1</sup>"], ["^1^"])


@pytest.mark.parametrize(
    "formula",
    [
        "the sum 2s<sup>2</sup> of the spins",  # a one-letter symbol after a coefficient
        "the cost (a + b)<sup>2</sup> − c of it",  # a sign right after it: `x² − y`
        "the norm |y|<sup>2</sup>, summed",  # a closing bar right before it: `|y|²`
        "the term 1/<sup>4</sup> of it",  # a fraction's slash right before it
        "the angle cos<sup>2</sup>(x) of it",  # a function's power
        "the mass fν <sup>4</sup> F ν of it",  # a sign of a formula on either side, set apart
    ],
)
def test_an_exponent_in_a_formula_is_no_citation(rules, formula):
    assert _cited(f"Known<sup>1</sup>, with {formula}.", rules) == [("<sup>1</sup>", "R1")]


def test_a_greek_letter_on_one_side_of_a_superscript_is_prose(rules):
    assert _cited("Known in γδ T cells<sup>1</sup>, and in rats.", rules) == [("<sup>1</sup>", "R1")]


def test_a_footnote_the_paper_defines_is_no_citation(rules):
    text = "Known[^1] and more[^2] and[^3].\n\n[^2]: A note of the authors.\n\n<sup>3</sup> Another note."
    assert _cited(text, rules) == [("[^1]", "R1")]


# ---------------------------------------------------------------- flattened into the text


def test_digits_glued_to_a_word_or_after_punctuation_in_order_of_first_citation_are_citations(rules):
    assert _flattened("", rules) == READ


def test_a_flattened_citation_after_a_unit_that_ends_a_sentence_is_read(rules):
    cited = _flattened("It is given if serum potassium is below 4.5 mmol/l.2 The rate", rules)
    assert ("2", "R2") in cited[cited.index(("3,5–7", "R7")) :]


@pytest.mark.parametrize(
    "sentence",
    [
        "Serum potassium was 4.5 on day 3.",  # a decimal and a count
        "Wards of 20 m2 held beds of 3 cm3 each.",  # units
        "Doses of 10-3 and 10–2 mol were given.",  # exponents
        "The CO2 and H2O and CaCl2 were measured.",  # formulae
        "Its Ser15 and Thr18 were phosphorylated.",  # residues
        "As in Fig.2 and Eq.3, the log2 ratio of x1 rose.",  # abbreviations, functions, symbols
        "Skp2 binds Jag1, and Skp2 and Jag1 rise.",  # names with a number, written again
    ],
)
def test_digits_that_can_be_something_else_than_a_citation_stay_unread(rules, sentence):
    assert _flattened(sentence, rules) == READ


def test_flattened_digits_that_do_not_fit_the_order_of_first_citation_stay_unread(rules):
    """`8` is first written before 5–7 are: out of order, so neither it nor its later runs are read."""
    cited = _cited("Potassium is given with care.1 Most trials2 agree.3,4 Early trials8 and later5–7 too.", rules)
    assert [marker for marker, _ in cited] == ["1", "2", "3,4", "3,4", "5–7", "5–7", "5–7"]


def test_no_flattened_digits_are_read_where_most_do_not_fit_the_order_of_first_citation(rules):
    assert _cited(IN_ORDER, rules) != []
    assert _cited("Ward7 held beds8 and trolleys2, as rooms1 and halls3 did.6 Also tables5 and chairs4.", rules) == []


def test_no_flattened_digits_are_read_without_a_numbered_bibliography(rules):
    source = _paper(IN_ORDER)
    assert chunk_markdown(source, rules).citations != []
    unnumbered = source.replace(ENTRIES, "\n".join(f"Park, J. (20{number:02}). Study {number}. J Med 1." for number in range(1, 9)))
    assert chunk_markdown(unnumbered, rules).citations == []


def test_no_flattened_digits_are_read_where_they_name_few_of_the_bibliography_s_entries(rules):
    """Two entries named of eight: the digits are something else (names, counts)."""
    assert _cited(IN_ORDER, rules) != []
    assert _cited("Potassium is given with care.1 Most trials2 agree.1 Other trials1 and wards2 too.", rules) == []


def test_no_flattened_digits_are_read_in_a_paper_that_cites_in_brackets(rules):
    assert _cited(IN_ORDER, rules) != []
    text = IN_ORDER + "\n\nAs [1], [2], [3], [4], [5], [6] and [7] say, [8] and [4] agree."
    assert all(marker.startswith("[") for marker, _ in _cited(text, rules))


def test_flattened_digits_that_are_a_footnote_the_paper_defines_stay_unread(rules):
    text = FLATTENED.format(sentence="") + "\n\n[^8]: A note of the authors."
    assert _cited(text, rules) == READ[:-1]
