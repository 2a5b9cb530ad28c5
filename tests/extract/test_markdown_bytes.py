"""What a Markdown file's bytes may hold that its text must not: a stray byte that is not UTF-8
in a UTF-8 file, a PDF under a Markdown name, an image's bytes written inline."""

from __future__ import annotations

import base64

import pytest

from conftest import chunk_markdown
from pipeline.errors import ExtractError
from pipeline.extract.markdown.decoding import decode_markdown
from pipeline.extract.markdown.document import extract_markdown_bytes, extract_markdown_text
from pipeline.normalize.stage import normalize

UTF8_WITH_A_LATIN1_BYTE = "# Café\n\n정확도 of the café\n".encode() + b"na\xefve\n"


def test_a_utf8_file_with_a_stray_latin1_byte_stays_utf8():
    decoded = decode_markdown(UTF8_WITH_A_LATIN1_BYTE, "paper.md")
    assert (decoded.text, decoded.encoding) == ("# Café\n\n정확도 of the café\nna\ufffdve\n", "utf-8")


def test_the_replaced_bytes_are_counted_with_where_the_first_is():
    decoded = decode_markdown(UTF8_WITH_A_LATIN1_BYTE, "paper.md")
    first = UTF8_WITH_A_LATIN1_BYTE.index(b"\xef")
    assert (decoded.replaced, decoded.first_replaced, decoded.first_line) == (1, first, 4)


def test_the_replaced_bytes_are_a_warning_note_on_the_extraction(rules):
    raw = extract_markdown_bytes(UTF8_WITH_A_LATIN1_BYTE, "paper.md", rules.page_markers)
    assert raw.reading_notes[0].startswith("warning: 1 run(s) of bytes that are not UTF-8 replaced by U+FFFD")


def test_latin1_text_is_still_read_as_cp1252():
    decoded = decode_markdown("# Études\n\nr\xe9sum\xe9 of the caf\xe9\n".encode("latin-1"), "paper.md")
    assert (decoded.text, decoded.encoding, decoded.replaced) == ("# Études\n\nrésumé of the café\n", "cp1252", 0)


def test_a_clean_utf8_file_carries_no_warning():
    assert decode_markdown("# Café\n".encode(), "paper.md").warning is None


def test_a_pdf_named_md_fails_naming_the_file_and_cause():
    with pytest.raises(ExtractError, match=r"^inbox/paper.md: the file is a PDF .*rename it to .pdf"):
        decode_markdown(b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer\n%%EOF\n", "inbox/paper.md")


def test_a_pdf_header_after_junk_with_the_end_marker_is_a_pdf():
    with pytest.raises(ExtractError, match="the file is a PDF"):
        decode_markdown(b"junk before\n%PDF-1.4\nstream\n%%EOF\n", "paper.md")


def test_markdown_that_quotes_a_pdf_header_is_markdown():
    text = "# PDF headers\n\nEvery PDF opens with `%PDF-1.7`, a version.\n"
    assert decode_markdown(text.encode(), "paper.md").text == text


FIGURE = "![Figure 1](data:image/png;base64," + base64.b64encode(bytes(range(256)) * 1200).decode() + ")"
WITH_FIGURE = f"# Paper\n\n## Results\n\nThe cells grew.\n\n{FIGURE}\n\nThey stopped at day 3.\n"


def test_an_inline_image_keeps_its_alt_text_and_loses_its_bytes(rules):
    raw = extract_markdown_text(WITH_FIGURE, "paper.md", rules.page_markers)
    figure = [block for block in raw.blocks if "Figure 1" in block.text]
    assert [(block.text, block.line_start, block.line_end) for block in figure] == [("![Figure 1](data:…)", 7, 7)]
    assert raw.reading_notes == ["1 inline data URI(s) (an image's bytes in the file) shown as `data:…`, from line 7"]


def test_an_inline_image_leaves_every_chunk_small_and_offsets_exact(rules):
    chunked = chunk_markdown(WITH_FIGURE, rules)
    assert max(len(chunk.text) for chunk in chunked.chunks) < 200
    assert all(chunked.document.text[c.char_start : c.char_end] == c.text for c in chunked.chunks)
    assert [c.line_end for c in chunked.chunks if "day 3" in c.text] == [9]


def test_a_short_data_uri_stays_as_written(rules):
    raw = extract_markdown_text("# Paper\n\nA dot: ![](data:image/gif;base64,R0lGOD).\n", "paper.md", rules.page_markers)
    assert raw.blocks[1].text == "A dot: ![](data:image/gif;base64,R0lGOD)."


def test_the_stored_text_of_a_file_with_an_inline_image_is_short(rules):
    raw = extract_markdown_bytes(WITH_FIGURE.encode(), "paper.md", rules.page_markers)
    assert len(normalize(raw, "paper", rules).text) < 200
