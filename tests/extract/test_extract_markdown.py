"""Markdown extraction: blocks, true source lines, code fences, front matter, pages, encodings."""

from __future__ import annotations

import codecs

import pytest

from pipeline.errors import ExtractError
from pipeline.extract.markdown import parse as markdown_parse
from pipeline.extract.markdown.document import extract_markdown, extract_markdown_text
from pipeline.records.base import BlockKind


def _blocks(source, rules):
    return extract_markdown_text(source, "paper.md", rules.page_markers).blocks


def _kinds_and_lines(source, rules):
    return [(b.kind, b.line_start, b.line_end) for b in _blocks(source, rules)]


def test_blocks_carry_their_inclusive_source_lines(rules):
    assert _kinds_and_lines("# Title\n\nFirst line\nsecond line\n\n- a\n- b\n", rules) == [
        (BlockKind.heading, 1, 1), (BlockKind.paragraph, 3, 4), (BlockKind.list, 6, 7)
    ]


def test_a_hash_line_inside_a_code_fence_is_not_a_heading(rules):
    blocks = _blocks("## Methods\n\n```r\n# fit the model\nlm(y ~ x)\n```\n", rules)
    assert [b.kind for b in blocks] == [BlockKind.heading, BlockKind.code]
    assert "# fit the model" in blocks[1].text


def test_yaml_front_matter_is_a_block_of_its_own(rules):
    assert _kinds_and_lines("---\ntitle: X\n---\n\n# X\n", rules) == [(BlockKind.front_matter, 1, 3), (BlockKind.heading, 5, 5)]


def test_tables_are_one_block(rules):
    assert _kinds_and_lines("| a | b |\n|---|---|\n| 1 | 2 |\n", rules) == [(BlockKind.table, 1, 3)]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("x | y\n--|--\n", [(BlockKind.table, 1, 2)]),  # a table's first row starts with a letter
        ("# a | b\n--- | ---\n1 | 2\n", [(BlockKind.table, 1, 3)]),  # or with `#`
        ("#hashtag and more\n", [(BlockKind.paragraph, 1, 1)]),
        ("Title\n=====\n", [(BlockKind.heading, 1, 2)]),
        ("    indented code\n", [(BlockKind.code, 1, 1)]),
        ("- item\n\n  # heading in it\n", [(BlockKind.list, 1, 3)]),
    ],
)
def test_lines_starting_with_a_letter_or_a_hash_are_read_as_commonmark_reads_them(source, expected, rules):
    # Such a line tries only the rules that can take it (`_by_first_character_rule`).
    assert _kinds_and_lines(source, rules) == expected


def test_an_html_table_on_one_line_ends_at_that_line_without_a_blank_line_after_it(rules):
    # Unstructured writes its Markdown without blank lines; CommonMark would run the HTML block on
    # to the end of the file, headings and all.
    assert _kinds_and_lines("<table><tr><td>1</td></tr></table>\n## 3.1 Models\nA model takes an image.\n", rules) == [
        (BlockKind.paragraph, 1, 1), (BlockKind.heading, 2, 2), (BlockKind.paragraph, 3, 3)
    ]


def test_an_html_element_over_several_lines_ends_at_its_closing_tag(rules):
    assert _kinds_and_lines("<table>\n<tr><td>1</td></tr>\n</table>\nTable 1: Models.\n\n## Next\n", rules) == [
        (BlockKind.paragraph, 1, 3), (BlockKind.paragraph, 4, 4), (BlockKind.heading, 6, 6)
    ]


def test_every_html_block_that_runs_on_is_ended_and_the_lines_after_keep_their_numbers(rules):
    source = '<img src="f1.png">\nFigure 1: A.\n<table><tr><td>1</td></tr></table>\n# Results\nText.\n'
    blocks = _blocks(source, rules)
    assert [(b.kind, b.line_start, b.text) for b in blocks] == [
        (BlockKind.paragraph, 1, '<img src="f1.png">'),
        (BlockKind.paragraph, 2, "Figure 1: A."),
        (BlockKind.paragraph, 3, "<table><tr><td>1</td></tr></table>"),
        (BlockKind.heading, 4, "Results"),
        (BlockKind.paragraph, 5, "Text."),
    ]


def test_a_lone_tag_inside_a_paragraph_stays_in_it_as_commonmark_has_it(rules):
    source = '<table><tr><td>1</td></tr></table>\nTable 1: Sizes.\n<img src="f.png">\nmore text\n\n## Next\n'
    assert _kinds_and_lines(source, rules) == [
        (BlockKind.paragraph, 1, 1), (BlockKind.paragraph, 2, 4), (BlockKind.heading, 6, 6)
    ]


def test_html_blocks_that_each_swallow_the_next_are_all_ended_in_one_more_parse(rules, monkeypatch):
    parses = []
    parse = markdown_parse._parse_with_blank_lines_after
    monkeypatch.setattr(markdown_parse, "_parse_with_blank_lines_after", lambda *args: parses.append(1) or parse(*args))
    source = "# T\n\n" + "<table><tr><td>1</td></tr></table>\nA caption.\n" * 50
    assert len(_blocks(source, rules)) == 1 + 100
    # One more parse for all of them, not one a table: each parse reads the whole paper, so a parse
    # a table grows with the square of the tables.
    assert len(parses) == 2


def test_a_file_without_blank_lines_is_read_a_block_a_line(rules):
    # Unstructured's Markdown: one element a line, running heads included.
    source = "# Title\nFirst paragraph.\nShen et al.\nSecond paragraph.\n- a\n- b\n"
    assert _kinds_and_lines(source, rules) == [
        (BlockKind.heading, 1, 1), (BlockKind.paragraph, 2, 2), (BlockKind.paragraph, 3, 3),
        (BlockKind.paragraph, 4, 4), (BlockKind.list, 5, 6),
    ]


def test_a_file_without_blank_lines_keeps_table_rows_setext_headings_and_quotes_whole(rules):
    source = "| a | b |\n|---|---|\n| 1 | 2 |\nResults\n=======\n> one\n> two\nAfter.\n"
    assert _kinds_and_lines(source, rules) == [
        (BlockKind.table, 1, 3), (BlockKind.heading, 4, 5), (BlockKind.blockquote, 6, 7), (BlockKind.paragraph, 8, 8)
    ]


def test_a_file_without_blank_lines_keeps_a_word_broken_at_a_hyphen_together(rules):
    blocks = _blocks("Results of the non-small-\ncell cohort.\nTable 1: Cohorts.\n", rules)
    assert [(b.line_start, b.line_end) for b in blocks] == [(1, 2), (3, 3)]


def test_a_document_says_where_it_was_read_otherwise_than_commonmark_would(rules):
    def notes(source):
        return extract_markdown_text(source, "paper.md", rules.page_markers).reading_notes

    assert notes("# T\n\n<table><tr><td>1</td></tr></table>\nTable 1: x.\n") == [
        "1 HTML block(s) ended where the element closes (line 3), not at the next blank line"
    ]
    assert notes("# T\nText.\n") == ["a block a line, since the file has no blank line (Unstructured writes Markdown so)"]
    assert notes("# T\n\nText.\n") == []


def test_a_file_with_blank_lines_joins_a_paragraphs_lines_as_commonmark_does(rules):
    assert _kinds_and_lines("# Title\n\nA paragraph wrapped\nover two lines.\n", rules) == [(BlockKind.heading, 1, 1), (BlockKind.paragraph, 3, 4)]


def test_markdown_without_page_markers_has_no_pages(rules):
    blocks = _blocks("# T\n\ntext\n", rules)
    assert all(segment.page is None for block in blocks for segment in block.segments)


def test_html_comment_page_markers_give_pages(rules):
    blocks = _blocks("<!-- page 1 -->\n\nfirst\n\n<!-- page 2 -->\n\nsecond\n", rules)
    assert [(b.text, b.segments[0].page) for b in blocks] == [("first", 1), ("second", 2)]


def test_a_page_marker_after_a_list_is_no_part_of_the_list(rules):
    # The parser runs a list on over the blank lines after it, where the marker was blanked for it.
    blocks = _blocks("- a\n- b\n\n<!-- page 2 -->\n\nnext\n", rules)
    assert [(b.kind, b.line_start, b.line_end, b.text) for b in blocks] == [
        (BlockKind.list, 1, 2, "- a\n- b"), (BlockKind.paragraph, 6, 6, "next")
    ]


def test_a_list_ends_before_a_line_indented_less_than_its_item(rules):
    blocks = _blocks("1. first\n\n  next\n", rules)
    assert [(b.kind, b.line_start, b.text) for b in blocks] == [(BlockKind.list, 1, "1. first"), (BlockKind.paragraph, 3, "  next")]


def test_a_heading_is_its_text_without_the_hash_sequences_or_the_underline(rules):
    blocks = _blocks("# C#\n\n## Methods ##\n\nResults  \n-------\n", rules)
    assert [(b.level, b.text, b.line_start, b.line_end) for b in blocks] == [(1, "C#", 1, 1), (2, "Methods", 3, 3), (2, "Results", 5, 6)]


def test_marker_paginated_output_counts_pages_from_zero(rules):
    blocks = _blocks("{0}" + "-" * 48 + "\n\nfirst\n\n{1}" + "-" * 48 + "\n\nsecond\n", rules)
    assert [(b.text, b.segments[0].page) for b in blocks] == [("first", 1), ("second", 2)]


def test_a_utf8_bom_is_read_and_recorded(tmp_path, rules):
    file = tmp_path / "bom.md"
    file.write_bytes("\ufeff# Título\n".encode("utf-8"))
    raw = extract_markdown(file, "bom.md", rules.page_markers)
    assert (raw.blocks[0].text, raw.encoding) == ("Título", "utf-8-sig")


def test_latin1_markdown_is_read_as_cp1252_and_recorded(tmp_path, rules):
    file = tmp_path / "latin.md"
    file.write_bytes("# Études\n\nr\xe9sum\xe9\n".encode("latin-1"))
    raw = extract_markdown(file, "latin.md", rules.page_markers)
    assert (raw.blocks[1].text, raw.encoding) == ("résumé", "cp1252")


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_with_a_byte_order_mark_are_read_and_recorded(tmp_path, rules, codec):
    # Windows' "Unicode" text files are UTF-16 little-endian behind a byte-order mark.
    file = tmp_path / "wide.md"
    text = "# Título\n\nnaïve 정확도\n"
    file.write_bytes((codecs.BOM_UTF16_BE + text.encode(codec)) if codec == "utf-16-be" else text.encode(codec))
    raw = extract_markdown(file, "wide.md", rules.page_markers)
    assert ([block.text for block in raw.blocks], raw.encoding) == (["Título", "naïve 정확도"], codec[:6])


def test_utf16_without_a_byte_order_mark_fails_saying_it_may_be_that(tmp_path, rules):
    file = tmp_path / "wide.md"
    file.write_bytes("# Title\n".encode("utf-16-le"))
    with pytest.raises(ExtractError, match="or it is UTF-16 without a byte-order mark; .* re-save it as UTF-8"):
        extract_markdown(file, "wide.md", rules.page_markers)


@pytest.mark.parametrize(
    ("content", "cause"),
    [(b"", "the file is empty"), (b"  \n\n", "the file is empty"), (b"# a\x00b", "NUL byte at offset 3")],
)
def test_unreadable_markdown_fails_naming_the_file_and_cause(tmp_path, rules, content, cause):
    file = tmp_path / "bad.md"
    file.write_bytes(content)
    with pytest.raises(ExtractError, match=f"^bad.md: {cause}"):
        extract_markdown(file, "bad.md", rules.page_markers)


def test_display_maths_between_dollars_is_one_block_across_a_blank_line(rules):
    # CommonMark would read two paragraphs, the blank line cutting the equation in two.
    blocks = _blocks("Text.\n\n$$\na = b\n\n+ c\n$$\n\nAfter.\n", rules)
    assert [(b.kind, b.line_start, b.line_end) for b in blocks] == [
        (BlockKind.paragraph, 1, 1), (BlockKind.equation, 3, 7), (BlockKind.paragraph, 9, 9)
    ]
    assert blocks[1].text == "$$\na = b\n\n+ c\n$$"


def test_a_one_line_equation_ends_at_its_line_and_the_text_after_it_is_a_paragraph(rules):
    # Marker writes the equation, then the PDF's own text of it, with no blank line between.
    source = "The gate:\n\n$$y=\\sum_{i}p_{i}(x)E_{i}(x).$$\npi(x)Ei(x). (2)\nShazeer et al. (2017) conjectured that\n"
    assert _kinds_and_lines(source, rules) == [(BlockKind.paragraph, 1, 1), (BlockKind.equation, 3, 3), (BlockKind.paragraph, 4, 5)]


def test_display_maths_in_brackets_and_with_a_number_after_it_is_one_block(rules):
    # Nougat writes `\[ … \]`, a number after it where the paper numbers the equation.
    source = "\\[\\mathbf{y}=\\sum_{i}g(x)_{i}\\]\n\n\\[\nL = \\alpha\n\\] (4)\n\nText.\n"
    assert _kinds_and_lines(source, rules) == [(BlockKind.equation, 1, 1), (BlockKind.equation, 3, 5), (BlockKind.paragraph, 7, 7)]


def test_a_footnote_definition_is_a_block_where_the_file_writes_it(rules):
    source = "A claim.[^1]\n\n[^1]: Measured in 2019,\n    as before.\n\n## Next\n"
    blocks = _blocks(source, rules)
    assert [(b.kind, b.line_start, b.line_end) for b in blocks] == [
        (BlockKind.paragraph, 1, 1), (BlockKind.footnote, 3, 4), (BlockKind.heading, 6, 6)
    ]
    assert blocks[1].text == "[^1]: Measured in 2019,\n    as before."


def test_a_page_marker_inside_a_fenced_code_block_is_code_not_a_page(rules):
    source = "<!-- page 2 -->\n\nText.\n\n```html\n<!-- page 99 -->\n```\n\nAfter.\n"
    blocks = _blocks(source, rules)
    assert [(b.kind, b.text, [s.page for s in b.segments]) for b in blocks] == [
        (BlockKind.paragraph, "Text.", [2]), (BlockKind.code, "```html\n<!-- page 99 -->\n```", [2]), (BlockKind.paragraph, "After.", [2])
    ]


def test_a_page_marker_in_a_fence_inside_a_list_item_or_in_indented_code_is_code(rules):
    source = "<!-- page 1 -->\n\n- item\n\n  ```\n  <!-- page 7 -->\n  ```\n\nText.\n\n    <!-- page 8 -->\n\nEnd.\n"
    blocks = _blocks(source, rules)
    assert [(b.kind, [s.page for s in b.segments]) for b in blocks] == [
        (BlockKind.list, [1]), (BlockKind.paragraph, [1]), (BlockKind.code, [1]), (BlockKind.paragraph, [1])
    ]
