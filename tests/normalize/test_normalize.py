"""Normalize: characters, line joining, heading keys and levels, page furniture."""

from __future__ import annotations

import re

import pytest

from pipeline.extract.markdown.document import extract_markdown_text
from pipeline.records.base import SourceFormat
from pipeline.text.heading_key import heading_key
from pipeline.normalize.stage import normalize
from pipeline.normalize.words import count_words
from pipeline.rules import DEFAULT_RULES_PATH, load_rules
from pipeline.rules.heading_matcher import HeadingMatcher


def _document(source, rules):
    return normalize(extract_markdown_text(source, "paper.md", rules.page_markers), "paper", rules)


def _texts(document):
    return [document.text[b.char_start : b.char_end] for b in document.blocks]


def test_a_line_end_hyphen_goes_when_the_paper_writes_the_word_whole(rules):
    document = _document("The diag-\nnosis was late.\n\nA diagnosis.\n", rules)
    assert _texts(document)[0] == "The diagnosis was late."


def test_a_line_end_hyphen_goes_before_a_fragment_the_paper_never_writes_alone(rules):
    document = _document("It was previ-\nously seen and com-\npared.\n", rules)
    assert _texts(document)[0] == "It was previously seen and compared."


def test_a_soft_hyphen_that_ends_a_line_mends_the_word_it_breaks(rules):
    document = _document("A new perspec\u00ad\ntive on some\u00ad\ntimes.\n\nAt times.\n", rules)
    assert _texts(document)[0] == "A new perspective on sometimes."


def test_a_line_end_hyphen_stays_between_two_words_the_paper_writes(rules):
    document = _document("A well-\nknown fact.\n\nIt is known.\n", rules)
    assert _texts(document)[0] == "A well-known fact."


def test_a_line_end_hyphen_stays_where_the_paper_writes_the_compound_inside_a_line(rules):
    document = _document("The beta-\ncatenin level.\n\nBeta-catenin binds.\n", rules)
    assert _texts(document)[0] == "The beta-catenin level."


def test_real_compounds_keep_their_hyphen_across_a_line_end(rules):
    document = _document("In non-small-\ncell cancer and IL-\n6 levels.\n", rules)
    assert _texts(document)[0] == "In non-small-cell cancer and IL-6 levels."


def test_a_converters_anchors_go_and_its_links_to_them_keep_their_text(rules):
    source = (
        '## <span id="page-3-0"></span>2. Switch Transformer\n\n'
        "A Transformer [(Vaswani et al.,](#page-39-1) [2017)](#page-39-1), code at [mesh](https://github.com/t/mesh).\n\n"
        '```html\n<span id="keep"></span>\n```\n'
    )
    assert _texts(_document(source, rules)) == [
        "2. Switch Transformer",
        "A Transformer (Vaswani et al., 2017), code at [mesh](https://github.com/t/mesh).",
        '```html\n<span id="keep"></span>\n```',
    ]


def test_ligatures_and_odd_spaces_are_normalized(rules):
    document = _document("ﬁbrosis\u00a0and\u2009the e\u0301tude\n", rules)
    assert _texts(document)[0] == "fibrosis and the étude"


@pytest.mark.parametrize(
    ("heading", "key"),
    [
        ("2. Methods", "methods"),
        ("METHODS:", "methods"),
        ("2.1 **Patient cohort**:", "patient cohort"),
        ("II. Results", "results"),
        ("A. Statistical analysis.", "statistical analysis"),
        ("Materials  and   methods", "materials and methods"),
        ("Authors’ contributions", "authors' contributions"),
    ],
)
def test_heading_keys_drop_numbering_markup_punctuation_and_case(heading, key):
    assert heading_key(heading) == key


@pytest.mark.parametrize(
    ("heading", "key"),
    [("2.1 Authors’ Data", "authorsdata"), ("A B S T R A C T", "abstract"), ("II. Results", "results"), ("ii. results", "iiresults")],
)
def test_a_letters_and_digits_key_drops_all_but_letters_and_digits_after_the_pdf_numbering(heading, key):
    assert heading_key(heading, letters_and_digits=True) == key


def test_a_heading_key_without_numbering_keeps_the_number():
    assert heading_key("2. Methods:", keep_numbering=True) == "2. methods"


def test_a_heading_matcher_answers_as_its_rules_do_the_second_time_too(rules):
    matcher = HeadingMatcher(rules)
    first = [(matcher.anchor_for(key), matcher.classify_heading(key)) for key in ("methods", "statistical analysis", "outlook")]
    again = [(matcher.anchor_for(key), matcher.classify_heading(key)) for key in ("methods", "statistical analysis", "outlook")]
    expected = [(rules.anchor_for(key), rules.classify_heading(key)) for key in ("methods", "statistical analysis", "outlook")]
    assert first == again == expected
    assert expected[0][0] is not None  # "methods" is an anchor: the comparison is not of Nones alone


def test_the_display_heading_keeps_its_original_text(rules):
    document = _document("# T\n\n## 2. METHODS:\n\ntext\n", rules)
    assert _texts(document)[1] == "2. METHODS:"
    assert document.blocks[1].heading_key == "methods"


def test_sections_written_as_h1_after_the_title_become_top_level(rules):
    document = _document("# Title\n\n# Introduction\n\n## Background\n", rules)
    assert [b.level for b in document.blocks] == [1, 2, 3]


def test_numbered_headings_at_one_level_nest_by_their_numbers(rules):
    document = _document("# T\n\n## 2. Methods\n\n## 2.1 Design\n\n## 2.1.1 Sites\n\n## 3. Results\n", rules)
    assert [b.level for b in document.blocks] == [1, 2, 3, 4, 2]


def test_repeated_running_heads_and_bare_page_numbers_are_dropped_and_counted(rules):
    body = "\n\n".join(f"Paragraph {index} of the body text." for index in range(4))
    head = "J Fict Radiol 2020;14:201-215"
    document = _document(f"{head}\n\n{body}\n\n{head}\n\n202\n\n{head}\n", rules)
    assert head not in document.text and "202" not in document.text
    assert document.removed_running_lines == 4


def test_running_heads_that_carry_their_page_number_at_either_end_are_dropped_and_counted(rules):
    source = "\n\n".join(
        ["# LayoutParser", "## Introduction", "Deep learning.", "2 Z. Shen et al.", "More text.",
         "LayoutParser: A Toolkit 3", "4 Z. Shen et al.", "Even more.", "LayoutParser: A Toolkit 5",
         "6 Z. Shen et al.", "LayoutParser: A Toolkit 7"]
    )
    document = _document(source + "\n", rules)
    assert _texts(document) == ["LayoutParser", "Introduction", "Deep learning.", "More text.", "Even more."]
    assert document.removed_running_lines == 6


def test_a_running_head_a_converter_wrote_as_a_heading_is_dropped_and_the_section_goes_on(rules):
    source = "# T\n\n## Introduction\n\nPage one.\n\n## 2 Z. Shen et al.\n\nPage two.\n\n4 Z. Shen et al.\n\n6 Z. Shen et al.\n\n8 Z. Shen et al.\n"
    document = _document(source, rules)
    assert _texts(document) == ["T", "Introduction", "Page one.", "Page two."]


def test_a_heading_that_names_a_section_stays_though_running_heads_repeat_its_words(rules):
    running = ["4 Results and discussion", "Text.", "6 Results and discussion", "8 Results and discussion"]
    source = "\n\n".join(["# T", "## 3 Results and discussion", "IL-6 rose.", *running]) + "\n"
    assert _texts(_document(source, rules)) == ["T", "3 Results and discussion", "IL-6 rose.", "Text."]


@pytest.mark.parametrize(
    "lines",
    [
        ["Supplementary Figure 1", "Supplementary Figure 2", "Supplementary Figure 3"],  # a caption's label
        ["n = 362", "n = 364", "n = 127"],  # one word left: a flow chart's counts
    ],
)
def test_numbered_lines_that_are_not_running_heads_stay(lines, rules):
    assert _texts(_document("\n\n".join(lines) + "\n", rules)) == lines


def test_rules_written_before_the_page_number_pattern_existed_keep_numbered_running_heads(tmp_path):
    default = DEFAULT_RULES_PATH.read_text(encoding="utf-8")
    (tmp_path / "older.toml").write_text(re.sub(r"(?m)^running_line_page_number = .*\n", "", default), encoding="utf-8")
    older = load_rules(tmp_path / "older.toml")
    lines = ["2 Z. Shen et al.", "Text.", "4 Z. Shen et al.", "6 Z. Shen et al."]
    assert _texts(_document("\n\n".join(lines) + "\n", older)) == lines


def test_in_a_pdf_running_lines_with_page_numbers_are_left_to_extract(rules):
    raw = extract_markdown_text("\n\n".join(["2 Z. Shen et al.", "Text.", "4 Z. Shen et al.", "6 Z. Shen et al."]), "paper.md", [])
    document = normalize(raw.model_copy(update={"format": SourceFormat.pdf}), "paper", rules)
    assert document.removed_running_lines == 0


def test_captions_are_placed_after_the_body_but_listed_in_reading_order(rules):
    document = _document("First.\n\nFigure 1. A plot.\n\nSecond.\n", rules)
    assert document.text == "First.\n\nSecond.\n\nFigure 1. A plot."
    assert [b.kind.value for b in document.blocks] == ["paragraph", "caption", "paragraph"]


def test_section_numbers_override_converter_levels_guessed_from_font_sizes(rules):
    source = "# T\n\n### 1. Introduction\n\n## 2. Method\n\n#### 2.1 Design\n\n#### **Data split**\n\n### 3. Results\n\n### Acknowledgments\n"
    document = _document(source, rules)
    assert [b.level for b in document.blocks] == [1, 2, 2, 3, 3, 2, 2]


def test_a_paper_that_numbers_nothing_keeps_its_levels(rules):
    document = _document("# T\n\n## Methods\n\n### 2020 in review\n\n## Results\n", rules)
    assert [b.level for b in document.blocks] == [1, 2, 3, 2]


def test_numbers_local_to_one_section_do_not_reshape_the_paper(rules):
    source = "# T\n\n## Introduction\n\n## Results\n\n### 1. Selection of studies\n\n### 2. Trial data\n\n## Discussion\n"
    document = _document(source, rules)
    assert [b.level for b in document.blocks] == [1, 2, 2, 3, 3, 2]


@pytest.mark.parametrize(
    ("text", "count"),
    [("IL-6 rose in p53 cells.", 5), ("| Stage | Description |\n|---|---|", 2), ("a — b", 2), ("_ __ x_y", 1), ("정확도가 높다", 2),
     (" a  —\n=\tb_c _ x ", 3), ("", 0), (" \n ", 0)],
)
def test_words_are_whitespace_tokens_with_a_letter_or_digit(text, count):
    assert count_words(text) == count


def test_display_maths_keeps_its_lines_as_written(rules):
    document = _document("Text.\n\n$$\nE = mc^2 \\\\\n  + \\delta\n$$\n", rules)
    assert _texts(document) == ["Text.", "$$\nE = mc^2 \\\\\n  + \\delta\n$$"]


def test_a_footnotes_lines_are_joined_as_a_paragraphs_are(rules):
    document = _document("A claim.[^1]\n\n[^1]: Measured in 2019,\n    as before.\n", rules)
    assert _texts(document) == ["A claim.[^1]", "[^1]: Measured in 2019, as before."]
