"""PDF tables that run on to the next page: fixtures written with PyMuPDF, each with the rows it
prints on both pages."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from pipeline.extract.pdf.document import extract_pdf
from pipeline.extract.tables import markdown_rows
from pipeline.rules import Rules, load_rules

BODY = (
    "The trial enrolled adults from three clinics and followed them for a year; every visit "
    "recorded weight, blood pressure and serum lipids as the protocol required. "
)
COLUMNS = (72, 250, 350, 450)
HEADER = ["Event", "Treated", "Control", "P"]


@pytest.fixture(scope="module")
def rules() -> Rules:
    return load_rules(overrides={"pdf": {"layout": {"mode": "rules"}}})


def _row(page: pymupdf.Page, y: float, cells: list[str]) -> None:
    for x, text in zip(COLUMNS, cells):
        page.insert_text((x, y), text, fontsize=8)


def _rule(page: pymupdf.Page, y: float) -> None:
    page.draw_line((70, y), (530, y), width=0.5)


def _event(number: int) -> list[str]:
    return [f"Event {number}", str(10 + number), str(20 + number), f"0.{number:02d}"]


def _long_table(path: Path, above_header: str, header: list[str] = HEADER) -> Path:
    """`Table 2` from the middle of page 1 to its foot (rows `Event 1` to `Event 30`), then on
    page 2 `above_header` (a line such as `Continued`, or none), `header` again between rules, and
    rows `Event 31` to `Event 34` over running text."""
    doc = pymupdf.open()
    first = doc.new_page()
    first.insert_textbox(pymupdf.Rect(72, 60, 530, 200), BODY * 4, fontsize=10)
    first.insert_text((72, 230), "Table 2. Adverse events by arm.", fontsize=9)
    _rule(first, 238)
    _row(first, 250, HEADER)
    _rule(first, 255)
    for number in range(1, 31):
        _row(first, 256 + 16 * number, _event(number))
    first.insert_text((290, 800), "7", fontsize=8)  # the page number in the foot
    second = doc.new_page()
    second.insert_text((72, 40), "Clinical Examples 2026; 12: 1-9", fontsize=8)  # the running head
    if above_header:
        second.insert_text((72, 70), above_header, fontsize=9)
    _rule(second, 78)
    _row(second, 90, header)
    _rule(second, 95)
    for index, number in enumerate(range(31, 35)):
        _row(second, 110 + 16 * index, _event(number))
    _rule(second, 168)
    second.insert_textbox(pymupdf.Rect(72, 200, 530, 700), BODY * 10, fontsize=10)
    doc.save(path)
    return path


def test_rows_after_the_repeated_header_on_the_next_page_are_the_tables_own(tmp_path: Path, rules: Rules) -> None:
    """No caption over the rows on page 2: the header printed again says they carry the table on,
    and is no body row of it."""
    (table,) = extract_pdf(path := _long_table(tmp_path / "continued.pdf", ""), path.name, rules).tables
    assert markdown_rows(table.markdown) == [_event(number) for number in range(1, 35)]
    assert table.pages == [1, 2]
    assert [box.page for box in table.boxes] == [1, 2]


def test_a_continued_line_over_the_repeated_header_is_neither_caption_nor_row(tmp_path: Path, rules: Rules) -> None:
    (table,) = extract_pdf(path := _long_table(tmp_path / "continued.pdf", "(Continued)"), path.name, rules).tables
    assert markdown_rows(table.markdown)[-5:] == [_event(number) for number in range(30, 35)]


def test_rows_under_another_header_at_the_top_of_the_next_page_are_not_the_tables(tmp_path: Path, rules: Rules) -> None:
    (table,) = extract_pdf(path := _long_table(tmp_path / "other.pdf", "", ["Site", "Cases", "Deaths", "Rate"]), path.name, rules).tables
    assert len(markdown_rows(table.markdown)) == 30
    assert table.pages == [1]
