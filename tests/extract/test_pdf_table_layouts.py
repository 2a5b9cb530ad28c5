"""PDF tables where the page's layout, not the grid, decides where the table is: fixtures written
with PyMuPDF, each with the rows it prints."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from pipeline.extract.pdf.document import extract_pdf
from pipeline.extract.tables import markdown_rows
from pipeline.rules import Rules, load_rules

BODY = (
    "Forty-nine patients had an objective response after induction, and the response was complete "
    "in twenty-nine of them; eight had residual disease in the nervous system only. "
)


@pytest.fixture(scope="module")
def rules() -> Rules:
    return load_rules(overrides={"pdf": {"layout": {"mode": "rules"}}})


def _cells(page: pymupdf.Page, y: float, cells: list[tuple[float, str]], size: float = 7) -> None:
    for x, text in cells:
        page.insert_text((x, y), text, fontsize=size)


def _rows(path: Path, rules: Rules) -> dict[str, list[list[str]]]:
    return {table.label: markdown_rows(table.markdown) if table.markdown else [] for table in extract_pdf(path, path.name, rules).tables}


def test_two_halves_of_a_long_table_set_side_by_side_under_their_captions_are_read_apart(tmp_path: Path, rules: Rules) -> None:
    """The second half's caption (`Table 5 (Continued)`) stands level with the first's, in the
    other column: it is no second line of the first caption."""
    doc = pymupdf.open()
    page = doc.new_page()
    halves = {50: ("Table 5 Habitats named in the village laws.", ["hatar", "mezo", "erdo"]),
              310: ("Table 5 Habitats named in the village laws (Continued).", ["ret", "patak", "szolo"])}
    for left, (caption, names) in halves.items():
        page.insert_textbox(pymupdf.Rect(left, 60, left + 235, 200), BODY * 2, fontsize=10)
        page.insert_textbox(pymupdf.Rect(left, 215, left + 235, 240), caption, fontsize=9)
        _cells(page, 250, [(left, "Habitat"), (left + 100, "Records")], size=9)
        for index, name in enumerate(names):
            _cells(page, 265 + 14 * index, [(left, name), (left + 100, str(10 + index))], size=9)
        page.insert_textbox(pymupdf.Rect(left, 330, left + 235, 760), BODY * 6, fontsize=10)
    path = tmp_path / "halves.pdf"
    doc.save(path)
    tables = extract_pdf(path, path.name, rules).tables
    assert [markdown_rows(table.markdown) for table in tables] == [
        [["hatar", "10"], ["mezo", "11"], ["erdo", "12"]],
        [["ret", "10"], ["patak", "11"], ["szolo", "12"]],
    ]


def _table_with_notes(page: pymupdf.Page, top: float, labels: list[str], caption: str) -> float:
    """A tight table in the right column (values 6 points after the longest label, a fifth of a
    font size between words), its notes set across it in small print, its caption under them."""
    value_x = 262 + pymupdf.get_text_length(max(labels, key=len), fontsize=7) + 6
    _cells(page, top, [(value_x, "Whole series"), (value_x + 50, "CNS disease")])
    for index, label in enumerate(labels):
        _cells(page, top + 11 * (index + 1), [(262, label), (value_x, f"{20 + index} ({27 + index}%)"), (value_x + 50, f"{30 + index} ({40 + index}%)")])
    bottom = top + 11 * (len(labels) + 1)
    notes = "Data are n (%). Whole series column shows all responses in all patients, and the CNS column those in the brain only."
    page.insert_textbox(pymupdf.Rect(262, bottom, 478, bottom + 30), notes, fontsize=6)
    page.insert_text((262, bottom + 38), caption, fontsize=8, fontname="hebo")
    return bottom + 80  # a float set under a caption stands further off than the caption from its table


def test_tables_captioned_under_their_notes_in_a_column_set_off_the_page_middle_keep_their_own_rows(tmp_path: Path, rules: Rules) -> None:
    """A wide outer margin sets the gutter left of the page's middle; each caption is under its
    table's notes, and the table under one caption is the next caption's, not its own."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=800)
    page.insert_textbox(pymupdf.Rect(37, 60, 253, 760), BODY * 14, fontsize=9)
    below = _table_with_notes(page, 80, ["Complete response", "Partial response", "Progressive disease"], "Table 2: Responses by site")
    below = _table_with_notes(page, below, ["Neutropenia", "Anaemia", "Infections"], "Table 3: Adverse events")
    page.insert_textbox(pymupdf.Rect(262, below, 478, 760), BODY * 4, fontsize=9)
    path = tmp_path / "offset.pdf"
    doc.save(path)
    rows = _rows(path, rules)
    assert rows["Table 2"] == [
        ["Complete response", "20 (27%)", "30 (40%)"], ["Partial response", "21 (28%)", "31 (41%)"], ["Progressive disease", "22 (29%)", "32 (42%)"],
    ]
    assert rows["Table 3"] == [["Neutropenia", "20 (27%)", "30 (40%)"], ["Anaemia", "21 (28%)", "31 (41%)"], ["Infections", "22 (29%)", "32 (42%)"]]


def test_halves_of_a_table_side_by_side_on_a_page_whose_running_text_keeps_to_one_column_are_read_apart(tmp_path: Path, rules: Rules) -> None:
    """The running text stands only under the second half, in the right column: the page is still
    set in two columns, and the middle of that one column of text is not the page's."""
    doc = pymupdf.open()
    page = doc.new_page()
    halves = {50: ("Table 5 Habitats named in the village laws.", ["hatar", "mezo", "erdo"]),
              310: ("Table 5 Habitats named in the village laws (Continued).", ["ret", "patak", "szolo"])}
    for left, (caption, names) in halves.items():
        page.insert_textbox(pymupdf.Rect(left, 60, left + 235, 85), caption, fontsize=9)
        _cells(page, 100, [(left, "Habitat"), (left + 150, "Records")], size=9)
        for index, name in enumerate(names):
            _cells(page, 115 + 14 * index, [(left, name), (left + 150, str(10 + index))], size=9)
    page.insert_textbox(pymupdf.Rect(310, 200, 545, 760), BODY * 6, fontsize=10)
    path = tmp_path / "halves_one_text_column.pdf"
    doc.save(path)
    tables = extract_pdf(path, path.name, rules).tables
    assert [markdown_rows(table.markdown) for table in tables] == [
        [["hatar", "10"], ["mezo", "11"], ["erdo", "12"]],
        [["ret", "10"], ["patak", "11"], ["szolo", "12"]],
    ]


def test_the_page_number_under_a_table_that_ends_the_page_makes_no_column_of_its_own(tmp_path: Path, rules: Rules) -> None:
    """The number stands in the foot, between two of the table's columns, well below its last
    row: it is not one of the table's lines, and the rows keep their four cells."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 60, 530, 200), BODY * 4, fontsize=10)
    page.insert_text((72, 230), "Table 2. Adverse events by arm.", fontsize=9)
    columns = (72, 250, 350, 450)
    _cells(page, 250, list(zip(columns, ["Event", "Treated", "Control", "P"])), size=8)
    for number in range(1, 31):
        _cells(page, 256 + 16 * number, list(zip(columns, [f"Event {number}", str(10 + number), str(20 + number), "0.5"])), size=8)
    page.insert_text((290, 800), "7", fontsize=8)
    path = tmp_path / "foot.pdf"
    doc.save(path)
    rows = _rows(path, rules)["Table 2"]
    assert rows[-1] == ["Event 30", "40", "50", "0.5"]
    assert {len(row) for row in rows} == {4}


def test_a_caption_set_in_the_margin_beside_its_table_heads_the_rows_level_with_it(tmp_path: Path, rules: Rules) -> None:
    """`Table 2` and its title in three short lines left of the table, its header and first rows
    level with them: those rows are the table's too, not only the rows under the caption."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(50, 50, 545, 110), BODY * 2, fontsize=10)
    page.insert_textbox(pymupdf.Rect(50, 122, 150, 170), "Table 2 Pathological characteristics and outcomes", fontsize=8.5)
    rows = [("Variables", "LAR", "APER", "p value"), ("Median tumour size, mm", "36 (25-50)", "35 (27-40)", "0.253"),
            ("Number of lymph nodes", "17 (12-22)", "12 (8-18)", "< 0.001"), ("Post-operative chemotherapy", "46 (27.1)", "20 (21.7)", "0.374"),
            ("Post-operative radiation", "2 (1.2)", "2 (2.2)", "0.614"), ("Local recurrence", "7 (4.1)", "4 (4.3)", "1.000")]
    for index, cells in enumerate(rows):
        _cells(page, 130 + 12.5 * index, list(zip((170, 390, 450, 510), cells)), size=8.5)
    page.insert_textbox(pymupdf.Rect(50, 220, 545, 400), BODY * 3, fontsize=10)
    path = tmp_path / "beside.pdf"
    doc.save(path)
    assert _rows(path, rules)["Table 2"] == [list(cells) for cells in rows[1:]]
