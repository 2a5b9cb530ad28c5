"""A preprint with a number before every line: the numbers are page furniture, dropped before
headings are read, whether they stand in the margin, close before the line in a type of their own,
or open the line's own run of text (`32 Methods`); a table's index column stays."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from pdf_helpers import heading_key
from pipeline.extract.pdf.document import extract_pdf
from pipeline.extract.pdf.line_numbers import drop_line_numbers
from pipeline.extract.pdf.page_reading import read_page
from pipeline.records.base import BlockKind
from pipeline.rules import load_rules

_WORDS = "the cohort was followed for weeks and serum sodium was measured twice in each ward before every visit".split()
_LEFT, _PAGE_END = 90.0, 770.0
_TITLE = "Serum sodium in a cohort followed ward by ward"
_SECTIONS = [(2, "Abstract", 0), (3, "Background", 1), (3, "Findings", 1), (2, "Introduction", 3), (2, "Methods", 3),
             (3, "Participants", 2), (2, "Results", 3), (2, "Discussion", 2)]
"""(level, heading, paragraphs): the abstract's label stands right above its first sub-heading."""
_STYLES = {1: ("hebo", 15.0), 2: ("hebo", 12.0), 3: ("hebo", 10.5), 0: ("tiro", 10.0)}
"""Font and size by heading level; 0 is the body's."""


def _paragraph(seed: int) -> list[str]:
    words = [_WORDS[(seed * 7 + index * 5) % len(_WORDS)] for index in range(48)]
    text = " ".join(words).capitalize() + "."
    return [" ".join(text.split()[start : start + 12]) for start in range(0, 48, 12)]


def _preprint(path: Path, placement: str) -> list[tuple[int, str]]:
    """A two-page preprint, every line numbered, the count running on across the page break; the
    numbers stand in the margin (`margin`), a space before the line in a smaller face of their
    own (`close`), or open the line's own run of text (`inline`). Returns the headings' truth."""
    doc = pymupdf.open()
    lines = [(1, _TITLE, 0.0)]
    for level, heading, paragraphs in _SECTIONS:
        lines.append((level, heading, 0.0 if level == 3 and heading == "Background" else 10.0))
        for count in range(paragraphs):
            lines.extend((0, text, 4.0 if index == 0 and count else 0.0) for index, text in enumerate(_paragraph(len(lines))))
    page, y = doc.new_page(), 60.0
    for number, (level, text, space) in enumerate(lines, start=1):
        font, size = _STYLES[level]
        if y + space + 15.0 > _PAGE_END:
            page, y = doc.new_page(), 60.0
        y += space + 15.0
        label = str(number)
        if placement == "margin":
            page.insert_text((_LEFT - 20.0 - pymupdf.get_text_length(label, "helv", 7.0), y), label, fontname="helv", fontsize=7.0)
            page.insert_text((_LEFT, y), text, fontname=font, fontsize=size)
        elif placement == "close":
            page.insert_text((_LEFT, y), label, fontname="helv", fontsize=8.0)
            page.insert_text((_LEFT + pymupdf.get_text_length(label + " ", "helv", 8.0), y), text, fontname=font, fontsize=size)
        else:
            page.insert_text((_LEFT, y), f"{label} {text}", fontname=font, fontsize=size)
    doc.save(path)
    return [(level, heading) for level, heading, _ in _SECTIONS]


@pytest.fixture(scope="module")
def preprints(tmp_path_factory) -> dict[str, tuple[list[tuple[int, str]], list]]:
    folder = tmp_path_factory.mktemp("line_numbers")
    rules = load_rules(overrides={"pdf": {"layout": {"mode": "rules"}}})
    made = {}
    for placement in ("margin", "close", "inline"):
        truth = _preprint(folder / f"{placement}.pdf", placement)
        made[placement] = (truth, extract_pdf(folder / f"{placement}.pdf", f"{placement}.pdf", rules).blocks)
    return made


def _text(block) -> str:
    return " ".join(segment.text for segment in block.segments)


@pytest.mark.parametrize("placement", ["margin", "close", "inline"])
def test_numbered_lines_give_their_headings_without_the_numbers(preprints, placement):
    truth, blocks = preprints[placement]

    found = [(block.level, heading_key(_text(block))) for block in blocks if block.kind is BlockKind.heading and (block.level or 0) >= 2]

    assert found == [(level, heading_key(text)) for level, text in truth]


@pytest.mark.parametrize("placement", ["margin", "close", "inline"])
def test_numbered_lines_keep_their_title(preprints, placement):
    _, blocks = preprints[placement]

    assert [_text(block) for block in blocks if block.kind is BlockKind.heading and block.level == 1] == [_TITLE]


@pytest.mark.parametrize("placement", ["margin", "close", "inline"])
def test_the_stored_text_keeps_no_line_number(preprints, placement):
    _, blocks = preprints[placement]

    assert [_text(block)[:40] for block in blocks if re.search(r"\d", _text(block))] == []


def test_a_tables_index_column_is_no_line_numbering(tmp_path):
    doc = pymupdf.open()
    page = doc.new_page()
    y = 60.0
    for line in _paragraph(1) * 4:
        y += 14.0
        page.insert_text((_LEFT, y), line, fontname="tiro", fontsize=10.0)
    for row in range(1, 9):
        y += 14.0
        for x, cell in ((_LEFT + 4.0, str(row)), (_LEFT + 40.0, f"V{row}"), (_LEFT + 90.0, "Ocimum basilicum"), (_LEFT + 250.0, "Tamil Nadu")):
            page.insert_text((x, y), cell, fontname="tiro", fontsize=8.0)
    for line in _paragraph(2) * 6:
        y += 14.0
        page.insert_text((_LEFT, y), line, fontname="tiro", fontsize=10.0)
    pieces, _ = read_page(page, 1, {})

    _, removed = drop_line_numbers([pieces])

    assert removed == []
