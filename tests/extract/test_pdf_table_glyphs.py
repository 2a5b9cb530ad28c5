"""Glyphs a PDF's text layer names otherwise than they are drawn, read in a table's cells as drawn."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from pipeline.extract.pdf.document import extract_pdf
from pipeline.extract.tables import markdown_rows
from pipeline.rules import Rules, load_rules

BODY = (
    "The structures were assigned from one- and two-dimensional spectra recorded in deuterated "
    "methanol, and the shifts of the sugar units were compared with those reported before. "
)


@pytest.fixture(scope="module")
def rules() -> Rules:
    return load_rules(overrides={"pdf": {"layout": {"mode": "rules"}}})


def _raised_ones(page: pymupdf.Page, x: float, y: float, count: int, width: float) -> None:
    """`count` raised `1`s after x on the line at y, each squeezed to `width` of its own width:
    a math font's prime drawn narrow under the name of a digit."""
    for _ in range(count):
        page.insert_text((x, y - 3), "1", fontsize=6, morph=(pymupdf.Point(x, y - 3), pymupdf.Matrix(width, 1)))
        x += pymupdf.get_text_length("1", fontsize=6) * width


def _shifts_table(path: Path, width: float) -> Path:
    """A table of NMR shifts whose positions carry primes: `GlcA-1′`, `Gal-1′′`, `4′`."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(50, 50, 545, 120), BODY * 2, fontsize=10)
    page.insert_text((50, 140), "Table 1. NMR data of the sugar units.", fontsize=9)
    for x, text in ((60, "Position"), (200, "δC"), (320, "δH")):
        page.insert_text((x, 160), text, fontsize=8)
    for index, (position, primes, carbon, proton) in enumerate(
        [("GlcA-1", 1, "103.9", "4.80 d (7.2)"), ("Gal-1", 2, "103.1", "5.79 d (7.8)"), ("4", 1, "37.0", "1.52 m"), ("5", 0, "55.5", "1.60 m")]
    ):
        y = 175 + 12 * index
        page.insert_text((60, y), position, fontsize=8)
        _raised_ones(page, 60 + pymupdf.get_text_length(position, fontsize=8), y, primes, width)
        page.insert_text((200, y), carbon, fontsize=8)
        page.insert_text((320, y), proton, fontsize=8)
    page.insert_textbox(pymupdf.Rect(50, 240, 545, 340), BODY * 2, fontsize=10)
    doc.save(path)
    return path


def test_a_raised_one_narrower_than_a_digit_is_read_as_a_prime(tmp_path: Path, rules: Rules) -> None:
    path = _shifts_table(tmp_path / "primes.pdf", width=0.4)
    (table,) = extract_pdf(path, path.name, rules).tables
    assert [row[0] for row in markdown_rows(table.markdown)] == ["GlcA-1′", "Gal-1′′", "4′", "5"]


def test_a_raised_one_as_wide_as_a_digit_stays_a_one(tmp_path: Path, rules: Rules) -> None:
    """A footnote mark or an exponent is a digit of its own width: `GlcA-11` is what it prints."""
    path = _shifts_table(tmp_path / "ones.pdf", width=1.0)
    (table,) = extract_pdf(path, path.name, rules).tables
    assert [row[0] for row in markdown_rows(table.markdown)] == ["GlcA-11", "Gal-111", "41", "5"]
