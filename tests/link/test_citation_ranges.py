"""Citation ranges printed with any dash a typesetter sets between their bounds: the non-breaking
hyphen (`[3‑6]`, U+2011), the other hyphens and dashes (U+2010–U+2015), the minus sign (U+2212),
and spaces about it (`3 - 6`). Every member of the range is cited, in brackets, parentheses and
superscripts, in Markdown and in a PDF, alone or in a list (`[1, 3‑5, 8]`)."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from conftest import chunk_markdown
from pipeline.ingest.process import process

DASHES = {
    "hyphen-minus": "-",
    "hyphen": "\u2010",
    "non-breaking hyphen": "\u2011",
    "figure dash": "\u2012",
    "en dash": "\u2013",
    "em dash": "\u2014",
    "horizontal bar": "\u2015",
    "minus sign": "\u2212",
    "spaced hyphen-minus": " - ",
    "spaced en dash": " – ",
}
ENTRIES = "\n".join(f"{number}. Park J. Study number {number}. J Med. 2019;{number}:1-9." for number in range(1, 10))


def _cited(introduction: str, rules) -> list[tuple[str, str | None]]:
    paper = f"# A paper\n\n## Introduction\n\n{introduction}\n\n## References\n\n{ENTRIES}\n"
    return [(citation.marker, citation.ref_id) for citation in chunk_markdown(paper, rules).citations]


def _each(marker: str, numbers: list[int]) -> list[tuple[str, str]]:
    return [(marker, f"R{number}") for number in numbers]


@pytest.mark.parametrize("dash", DASHES.values(), ids=DASHES.keys())
def test_a_range_in_brackets_cites_every_member_whatever_its_dash(rules, dash):
    marker = f"[3{dash}6]"
    assert _cited(f"Most trials agree {marker}.", rules) == _each(marker, [3, 4, 5, 6])


@pytest.mark.parametrize("dash", DASHES.values(), ids=DASHES.keys())
def test_a_list_of_numbers_and_ranges_cites_every_member_whatever_the_dash(rules, dash):
    marker = f"[1, 3{dash}5, 8]"
    assert _cited(f"Most trials agree {marker}.", rules) == _each(marker, [1, 3, 4, 5, 8])


@pytest.mark.parametrize("dash", ["\u2011", "\u2212", " \u2013 "], ids=["non-breaking hyphen", "minus sign", "spaced en dash"])
def test_two_markers_joined_by_a_dash_cite_the_members_between_them(rules, dash):
    cited = _cited(f"Most trials agree [2]{dash}[5].", rules)
    assert [ref_id for _, ref_id in cited] == ["R2", "R3", "R4", "R5"]


@pytest.mark.parametrize("dash", ["\u2011", "\u2010", "\u2212"], ids=["non-breaking hyphen", "hyphen", "minus sign"])
def test_a_range_in_parentheses_cites_every_member_where_the_paper_cites_in_parentheses(rules, dash):
    marker = f"(2{dash}4)"
    cited = _cited(f"Most trials agree (1). Others do too {marker}. The last ones (9).", rules)
    assert cited == [("(1)", "R1"), *_each(marker, [2, 3, 4]), ("(9)", "R9")]


@pytest.mark.parametrize("dash", ["\u2011", "\u2012", "\u2212"], ids=["non-breaking hyphen", "figure dash", "minus sign"])
@pytest.mark.parametrize("markup", ["<sup>{}</sup>", "^{}^"], ids=["html", "pandoc"])
def test_a_range_in_written_out_superscripts_cites_every_member(rules, dash, markup):
    marker = markup.format(f"3{dash}5")
    first = markup.format("1,2")
    cited = _cited(f"Most trials agree{first} and the reviews{marker} too.", rules)
    assert cited == [*_each(first, [1, 2]), *_each(marker, [3, 4, 5])]


@pytest.mark.parametrize("dash", ["\u2011", "\u2212"], ids=["non-breaking hyphen", "minus sign"])
def test_a_flattened_superscript_range_cites_every_member(rules, dash):
    introduction = f"Potassium is given with care.1 Most trials2 agree.3,4 Later trials5{dash}7 and wards8 too."
    cited = _cited(introduction, rules)
    assert [ref_id for _, ref_id in cited] == ["R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8"]
    assert cited[4][0] == f"5{dash}7"


def test_a_dash_between_words_or_a_negative_number_in_brackets_is_no_range(rules):
    assert _cited("The interval [−3, 4] and the wards [north‑south] were read.", rules) == []


# ---------------------------------------------------------------- in a PDF

_FONT = pymupdf.Font("helv")
_BODY, _SUPERSCRIPT, _RAISE, _LEADING = 10.0, 6.5, 3.5, 12.5


def _write_pdf(path: Path, lines: list[list[tuple[str, bool]]]) -> Path:
    """A one-page paper: a title, an Introduction of `lines` (each a list of runs, raised or
    not) with body lines about it, and a References list of nine numbered entries."""
    body = [[(f"Line {n} of the ward notes recorded the dose, the weight and the pulse of each patient.", False)] for n in range(6)]
    page_lines = [
        ([("Ranges Cited With Any Dash", False)], 16.0),
        ([("Introduction", False)], 12.0),
        *[(line, _BODY) for line in [*body[:3], *lines, *body[3:]]],
        ([("References", False)], 12.0),
        *[([(entry, False)], _BODY) for entry in ENTRIES.splitlines()],
    ]
    document = pymupdf.open()
    page = document.new_page()
    y = 72.0
    for runs, size in page_lines:
        writer = pymupdf.TextWriter(page.rect)
        x = 60.0
        for text, raised in runs:
            run_size = _SUPERSCRIPT if raised else size
            writer.append((x, y - (_RAISE if raised else 0.0)), text, font=_FONT, fontsize=run_size)
            x += _FONT.text_length(text, fontsize=run_size)
        writer.write_text(page)
        y += _LEADING + (8.0 if size > _BODY else 0.0)
    document.save(path)
    return path


def _pdf_cited(tmp_path: Path, rules, lines: list[list[tuple[str, bool]]]) -> list[tuple[str, str | None]]:
    path = _write_pdf(tmp_path / "ranges.pdf", lines)
    chunked = process(path, path.name, "ranges", rules).chunked
    return [(citation.marker, citation.ref_id) for citation in chunked.citations]


@pytest.mark.parametrize("dash", ["\u2011", "\u2010", "\u2212", " - "], ids=["non-breaking hyphen", "hyphen", "minus sign", "spaced"])
def test_a_pdf_range_in_brackets_cites_every_member(tmp_path, rules, dash):
    lines = [[(f"Dosing schedules were compared in many trials [1, 3{dash}5] and in reviews [9].", False)]]
    cited = _pdf_cited(tmp_path, rules, lines)
    assert [ref_id for _, ref_id in cited] == ["R1", "R3", "R4", "R5", "R9"]


@pytest.mark.parametrize("dash", ["\u2011", "\u2212", "\u2013"], ids=["non-breaking hyphen", "minus sign", "en dash"])
def test_a_pdf_range_in_superscripts_cites_every_member(tmp_path, rules, dash):
    lines = [
        [("Dosing schedules were compared in many earlier trials of this kind", False), ("1,2", True), (" and", False)],
        [("the reviews that pooled them agreed on the main points of the method", False), (f"3{dash}6", True), (".", False)],
        [("Later trials agreed with the first ones on every count that was read", False), ("7", True), (".", False)],
    ]
    cited = _pdf_cited(tmp_path, rules, lines)
    assert [ref_id for _, ref_id in cited] == ["R1", "R2", "R3", "R4", "R5", "R6", "R7"]


@pytest.mark.parametrize("dash", ["\u2011", "\u2013"], ids=["non-breaking hyphen", "en dash"])
def test_a_pdf_superscript_range_whose_dash_is_set_at_body_size_cites_every_member(tmp_path, rules, dash):
    """Some fonts lack a raised dash: the typesetter raises the bounds and sets the dash between
    them at body size (`³‑⁶`)."""
    lines = [
        [("Dosing schedules were compared in many earlier trials of this kind", False), ("1,2", True), (" and", False)],
        [("the reviews that pooled them agreed on the main points of the method", False), ("3", True), (dash, False), ("6", True), (".", False)],
        [("Later trials agreed with the first ones on every count that was read", False), ("7", True), (".", False)],
    ]
    cited = _pdf_cited(tmp_path, rules, lines)
    assert [ref_id for _, ref_id in cited] == ["R1", "R2", "R3", "R4", "R5", "R6", "R7"]
