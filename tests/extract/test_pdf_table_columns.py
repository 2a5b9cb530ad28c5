"""PDF table columns that the body alone does not show: fixtures written with PyMuPDF, each with
the rows it prints."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from pipeline.extract.pdf.document import extract_pdf
from pipeline.extract.tables import markdown_rows
from pipeline.rules import Rules, load_rules

BODY = (
    "Patients are assigned at random to the intervention or the control group, forty-five in each, "
    "and are assessed at baseline and after twelve weeks by a nurse who does not know the group. "
)


@pytest.fixture(scope="module")
def rules() -> Rules:
    return load_rules(overrides={"pdf": {"layout": {"mode": "rules"}}})


def _write(page: pymupdf.Page, y: float, cells: list[tuple[float, str]]) -> None:
    for x, text in cells:
        page.insert_text((x, y), text, fontsize=8)


def _rows(path: Path, rules: Rules) -> list[list[str]]:
    (table,) = extract_pdf(path, path.name, rules).tables
    return markdown_rows(table.markdown)


OUTCOMES = [
    "Physical well-being", "Social well-being", "Emotional well-being", "Functional well-being", "Overall quality of life",
    "Anxiety subscale", "Normal", "Mild", "Moderate", "Severe", "Depression subscale", "Normal", "Mild", "Moderate", "Severe",
]


def _shell(path: Path, header_rule: bool) -> Path:
    """A protocol's table to be filled in: a header over four columns, the outcomes under it in
    the first column, the other columns left empty."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(50, 50, 545, 120), BODY * 2, fontsize=10)
    page.insert_text((50, 140), "Table 1. Quality of life and mood in both groups.", fontsize=9)
    page.draw_line((50, 146), (545, 146))
    _write(page, 160, [(50, "Outcomes"), (220, "Study group (n=45)"), (340, "Control group (n=45)"), (480, "P value")])
    if header_rule:
        page.draw_line((50, 166), (545, 166))
    for index, outcome in enumerate(OUTCOMES):
        _write(page, 180 + 11 * index, [(50, outcome)])
    page.draw_line((50, 350), (545, 350))
    page.insert_textbox(pymupdf.Rect(50, 370, 545, 470), BODY * 2, fontsize=10)
    doc.save(path)
    return path


def test_a_table_whose_body_prints_only_its_row_labels_keeps_them_as_rows_under_the_headers_columns(tmp_path: Path, rules: Rules) -> None:
    """The header's own gaps are the columns, the body leaves them empty: each label is a row."""
    rows = _rows(_shell(tmp_path / "shell.pdf", header_rule=True), rules)
    assert rows == [[outcome, "", "", ""] for outcome in OUTCOMES]


def test_without_a_rule_under_the_header_lines_of_one_phrase_under_it_are_no_rows(tmp_path: Path, rules: Rules) -> None:
    """Nothing sets the header off from the lines under it: they may be notes, and the header
    alone is no table."""
    path = _shell(tmp_path / "unruled.pdf", header_rule=False)
    (table,) = extract_pdf(path, path.name, rules).tables
    assert table.markdown is None


def test_a_column_only_a_few_rows_fill_is_a_column_of_its_own(tmp_path: Path, rules: Rules) -> None:
    """`COSY` is filled in two rows of twenty, too few to part the columns by themselves: its cells
    stand clear of the columns on either side, so they are not read into the `δH` column's."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(50, 50, 545, 120), BODY * 2, fontsize=10)
    page.insert_text((50, 140), "Table 2. NMR data of compound 2.", fontsize=9)
    _write(page, 160, [(50, "No."), (100, "δC"), (150, "Type"), (200, "δH"), (300, "COSY"), (360, "HMBC")])
    for index in range(20):
        proton = "6.74, br s" if index in (3, 7) else ""
        cosy = "12" if index in (3, 7) else ""
        hmbc = "8, 9, 12" if index in (3, 7) else ""
        _write(page, 175 + 11 * index, [(50, str(index + 1)), (100, f"{100 + index}.5"), (150, "C"), (200, proton), (300, cosy), (360, hmbc)])
    page.insert_textbox(pymupdf.Rect(50, 420, 545, 520), BODY * 2, fontsize=10)
    path = tmp_path / "sparse.pdf"
    doc.save(path)
    rows = _rows(path, rules)
    assert rows[3] == ["4", "103.5", "C", "6.74, br s", "12", "8, 9, 12"]
    assert rows[4] == ["5", "104.5", "C", "", "", ""]


def test_a_label_wrapped_round_its_values_in_the_column_after_a_group_label_is_one_row(tmp_path: Path, rules: Rules) -> None:
    """The first column holds one group label (`CS, HR`); the plant's name in the second wraps
    onto two lines with its row's values centred between them: the three lines are one row."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(50, 50, 545, 120), BODY * 2, fontsize=10)
    page.insert_text((50, 140), "Table 2. Elicitors tested in plant cell cultures.", fontsize=9)
    _write(page, 160, [(50, "Culture"), (120, "Plant"), (260, "Compounds"), (380, "Class"), (480, "Ref.")])
    lines = [
        [(120, "Taxus globosa"), (260, "Taxanes"), (380, "Diterpene alkaloid"), (480, "[138]")],
        [(120, "Morinda citrifolia")],
        [(260, "Anthraquinones"), (380, "Phenolic compounds"), (480, "[182]")],
        [(120, "and Rubia tinctorum")],
        [(50, "CS, HR"), (120, "Taxus media"), (260, "Taxanes"), (380, "Diterpene alkaloid"), (480, "[55]")],
        [(120, "Vitis vinifera"), (260, "Trans-resveratrol"), (380, "Stilbenes"), (480, "[60]")],
    ]
    tops = [175, 187, 192.5, 198, 210, 222]
    for top, cells in zip(tops, lines):
        _write(page, top, cells)
    page.insert_textbox(pymupdf.Rect(50, 250, 545, 350), BODY * 2, fontsize=10)
    path = tmp_path / "wrapped_label.pdf"
    doc.save(path)
    assert _rows(path, rules)[1] == ["", "Morinda citrifolia and Rubia tinctorum", "Anthraquinones", "Phenolic compounds", "[182]"]


def test_one_line_under_the_closing_rule_of_a_table_of_values_is_its_note_not_a_row(tmp_path: Path, rules: Rules) -> None:
    """A rule under the last row of values, then one short line in the first column and a rule
    under it: a note, not the first label of a table to be filled in."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(50, 50, 545, 120), BODY * 2, fontsize=10)
    page.insert_text((50, 140), "Table 1. Characteristics of the patients.", fontsize=9)
    _write(page, 160, [(50, "Characteristic"), (220, "Study group"), (340, "Control group")])
    page.draw_line((50, 166), (545, 166))
    for index, (label, study, control) in enumerate([("Age, years", "58", "61"), ("Women", "21", "24"), ("Smokers", "9", "7")]):
        _write(page, 180 + 11 * index, [(50, label), (220, study), (340, control)])
    page.draw_line((50, 208), (545, 208))
    _write(page, 218, [(50, "* P < 0.05")])
    page.draw_line((50, 224), (545, 224))
    page.insert_textbox(pymupdf.Rect(50, 250, 545, 350), BODY * 2, fontsize=10)
    path = tmp_path / "note.pdf"
    doc.save(path)
    assert _rows(path, rules) == [["Age, years", "58", "61"], ["Women", "21", "24"], ["Smokers", "9", "7"]]
