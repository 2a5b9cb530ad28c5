"""Normalize: characters, line joining, heading keys and levels, page furniture."""

from __future__ import annotations

import pytest

from pipeline.extract.markdown import extract_markdown_text
from pipeline.normalize import count_words, heading_key, normalize


def _document(source, rules):
    return normalize(extract_markdown_text(source, "paper.md", rules.page_markers), "paper", rules)


def _texts(document):
    return [document.text[b.char_start : b.char_end] for b in document.blocks]


def test_a_line_end_hyphen_goes_when_the_paper_writes_the_word_whole(rules):
    document = _document("The diag-\nnosis was late.\n\nA diagnosis.\n", rules)
    assert _texts(document)[0] == "The diagnosis was late."


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
def test_heading_keys_drop_numbering_markup_punctuation_and_case(rules, heading, key):
    assert heading_key(heading, rules) == key


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
