"""PDF table rows whose cells wrap onto a second line: fixtures written with PyMuPDF, each with
the rows it prints, and the row model's loader."""

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
COLUMNS = (50, 150, 230, 330, 420)


@pytest.fixture(scope="module")
def rules() -> Rules:
    return load_rules(overrides={"pdf": {"layout": {"mode": "rules"}}})


def _table(path: Path, rows: list[list[list[str]]], line_pitch: float, row_gap: float) -> Path:
    """A captioned table across the page: each row a list of lines, each line its cells by column
    (`""` leaves the column empty); a row's lines `line_pitch` apart, rows `row_gap` further."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(50, 50, 545, 120), BODY * 2, fontsize=10)
    page.insert_text((50, 140), "Table 1. Copper nanoparticles made with plant extracts.", fontsize=9)
    for x, text in zip(COLUMNS, ["Plant", "Salt", "Conditions", "Size", "Ref."]):
        page.insert_text((x, 160), text, fontsize=8)
    y = 160 + line_pitch + row_gap
    for row in rows:
        for line in row:
            for x, text in zip(COLUMNS, line):
                if text:
                    page.insert_text((x, y), text, fontsize=8)
            y += line_pitch
        y += row_gap
    page.insert_textbox(pymupdf.Rect(50, y + 20, 545, y + 120), BODY * 2, fontsize=10)
    doc.save(path)
    return path


WRAPPED = [
    [["Euphorbia esula", "Copper", "Temp 120 °C, pH 9, time", "20-", "[56]"], ["", "Chloride", "20 min", "110 nm", ""]],
    [["Punica granatum", "Copper", "Temp 80 °C, 10 min and", "15-", "[57]"], ["", "Sulfate", "40 °C for 4 h", "20 nm", ""]],
    [["Citrus limon and", "Copper", "Room temp", "60-", "[67]"], ["Turmeric curcumin", "Chloride", "", "100 nm", ""]],
    [["Ficus carica", "Copper sulfate", "Room temp", "48 nm", "[69]"]],
]


def test_a_row_wrapped_onto_a_line_that_opens_with_a_capital_or_a_digit_is_one_row_where_rows_stand_apart(tmp_path: Path, rules: Rules) -> None:
    """Rows 8 points apart, a cell's lines set close: the second line of each row carries it on,
    though `Chloride` and `20 min` read as the start of something new."""
    path = _table(tmp_path / "wrapped.pdf", WRAPPED, line_pitch=9, row_gap=8)
    (table,) = extract_pdf(path, path.name, rules).tables
    assert markdown_rows(table.markdown) == [
        ["Euphorbia esula", "Copper Chloride", "Temp 120 °C, pH 9, time 20 min", "20-110 nm", "[56]"],
        ["Punica granatum", "Copper Sulfate", "Temp 80 °C, 10 min and 40 °C for 4 h", "15-20 nm", "[57]"],
        ["Citrus limon and Turmeric curcumin", "Copper Chloride", "Room temp", "60-100 nm", "[67]"],
        ["Ficus carica", "Copper sulfate", "Room temp", "48 nm", "[69]"],
    ]


def test_rows_set_at_one_pitch_keep_lines_that_start_with_a_capital_as_rows_of_their_own(tmp_path: Path, rules: Rules) -> None:
    """Without a wider gap between rows, nothing tells a wrapped line from a row but its words:
    a line that opens with a capital starts a row."""
    rows = [[line] for row in WRAPPED[:2] for line in row]
    path = _table(tmp_path / "even.pdf", rows, line_pitch=9, row_gap=0)
    (table,) = extract_pdf(path, path.name, rules).tables
    assert len(markdown_rows(table.markdown)) == 4


def test_a_line_that_sets_numbers_under_numbers_is_a_row_of_its_own_under_a_label_that_spans_rows(tmp_path: Path, rules: Rules) -> None:
    """A group's rows set close, groups apart: `UnB` and its counts are a row, not the row above's
    second line, though only the group's label above is missing from it."""
    rows = [
        [["University", "UFSC", "192", "9,6", "1"], ["", "UnB", "162", "8,1", "1"], ["", "PUC", "108", "5,4", "2"]],
        [["Publisher", "Elsevier", "97", "4,8", "11"]],
        [["Society", "ISAST", "5", "0,2", "1"]],
    ]
    path = _table(tmp_path / "groups.pdf", rows, line_pitch=9, row_gap=6)
    (table,) = extract_pdf(path, path.name, rules).tables
    assert markdown_rows(table.markdown) == [
        ["University", "UFSC", "192", "9,6", "1"], ["", "UnB", "162", "8,1", "1"], ["", "PUC", "108", "5,4", "2"],
        ["Publisher", "Elsevier", "97", "4,8", "11"], ["Society", "ISAST", "5", "0,2", "1"],
    ]


def test_a_note_set_across_the_columns_under_the_last_row_stays_a_note(tmp_path: Path, rules: Rules) -> None:
    """The note under a table whose rows stand apart is set at a cell's own spacing, but across
    the row's columns: it is no second line of the last row."""
    rows = [
        [["Ash", "0.87", "0.84", "0.445", "0.12"], ["(% DM)", "", "", "", ""]],
        [["Protein", "3.50", "3.96", "0.005", "0.31"], ["(% DM)", "", "", "", ""]],
        [["n6 / n3", "3.88", "3.34", "0.001", "0.05"], ["*Sum of the cis and trans isomers; SFA: saturated fatty acids, all measured twice.", "", "", "", ""]],
    ]
    path = _table(tmp_path / "note.pdf", rows, line_pitch=9, row_gap=8)
    (table,) = extract_pdf(path, path.name, rules).tables
    assert markdown_rows(table.markdown) == [
        ["Ash (% DM)", "0.87", "0.84", "0.445", "0.12"], ["Protein (% DM)", "3.50", "3.96", "0.005", "0.31"], ["n6 / n3", "3.88", "3.34", "0.001", "0.05"],
    ]


def _unruled_table_with_notes(path: Path, notes: list[list[tuple[float, str]]]) -> Path:
    """A table without rules, in 8-point print, with `notes` (each a line's texts by x) in
    7-point print right under its last row, at the rows' own pitch."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(50, 50, 545, 120), BODY * 2, fontsize=10)
    page.insert_text((50, 140), "Table 1. Outcomes by arm.", fontsize=9)
    for y, cells in ((160, ["Outcome", "Treated", "Control", "P"]), *((172 + 12 * i, [f"Outcome {i + 1}", str(10 + i), str(20 + i), "0.5"]) for i in range(3))):
        for x, text in zip(COLUMNS, cells):
            page.insert_text((x, y), text, fontsize=8)
    for index, line in enumerate(notes):
        for x, text in line:
            page.insert_text((x, 205 + 10 * index), text, fontsize=7)
    page.insert_textbox(pymupdf.Rect(50, 260, 545, 400), BODY * 2, fontsize=10)
    doc.save(path)
    return path


def test_a_note_in_smaller_print_right_under_the_last_row_is_no_line_of_it(tmp_path: Path, rules: Rules) -> None:
    """The note's mark `a` reads as lower case, under the first column, as a wrapped label would."""
    path = _unruled_table_with_notes(tmp_path / "note.pdf", [[(50, "a p < 0.05 against control.")]])
    (table,) = extract_pdf(path, path.name, rules).tables
    assert markdown_rows(table.markdown)[-1] == ["Outcome 3", "12", "22", "0.5"]


def test_notes_in_smaller_print_set_apart_like_cells_are_no_rows(tmp_path: Path, rules: Rules) -> None:
    path = _unruled_table_with_notes(tmp_path / "notes.pdf", [[(50, "Adjusted for age and sex.")], [(50, "*P < 0.05"), (150, "**P < 0.01")]])
    (table,) = extract_pdf(path, path.name, rules).tables
    assert [row[0] for row in markdown_rows(table.markdown)] == ["Outcome 1", "Outcome 2", "Outcome 3"]


def test_the_shipped_row_model_joins_a_wrapped_row_where_rows_stand_apart(tmp_path: Path) -> None:
    """`[pdf.tables] rows = "model"`: the trees trained on the even half of pdf_jats read the
    wrapped rows as one row each, as the rules do."""
    pytest.importorskip("lightgbm", reason="the row model needs LightGBM (the headings-model extra)")
    rules = load_rules(overrides={"pdf": {"layout": {"mode": "rules"}, "tables": {"rows": "model"}}})
    path = _table(tmp_path / "wrapped.pdf", WRAPPED, line_pitch=9, row_gap=8)
    (table,) = extract_pdf(path, path.name, rules).tables
    assert [row[0] for row in markdown_rows(table.markdown)] == ["Euphorbia esula", "Punica granatum", "Citrus limon and Turmeric curcumin", "Ficus carica"]
