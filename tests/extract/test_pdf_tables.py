"""PDF tables as cells: fixtures written with PyMuPDF, each with the cells it prints."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from pipeline.extract.pdf.document import extract_pdf
from pipeline.extract.pdf.layout_model import layout_model_installed
from pipeline.extract.tables import grid_cells, markdown_rows
from pipeline.records.extract import Table, TableParse
from pipeline.rules import Rules, load_rules

BODY = (
    "The trial enrolled adults from three clinics and followed them for a year; every visit "
    "recorded weight, blood pressure and serum lipids as the protocol required. "
)
COLUMNS = (72, 200, 300, 400)
"""Left edge of each column of the fixture tables, in points."""


@pytest.fixture(scope="module")
def rules() -> Rules:
    return load_rules(overrides={"pdf": {"layout": {"mode": "rules"}}})


def _row(page: pymupdf.Page, y: float, cells: list[str], size: float = 9) -> None:
    for x, text in zip(COLUMNS, cells):
        if text:
            page.insert_text((x, y), text, fontsize=size)


def _rule(page: pymupdf.Page, y: float, x0: float = 70, x1: float = 480) -> None:
    page.draw_line((x0, y), (x1, y), width=0.6)


def _paper(tmp_path: Path, draw) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "A Trial of Examples", fontsize=16, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 80, 523, 180), BODY * 4, fontsize=10)
    draw(page)
    page.insert_textbox(pymupdf.Rect(72, 560, 523, 760), BODY * 5, fontsize=10)
    path = tmp_path / "paper.pdf"
    doc.save(path)
    return path


def _only_table(path: Path, rules: Rules) -> Table:
    tables = extract_pdf(path, path.name, rules).tables
    assert len(tables) == 1
    return tables[0]


def test_an_unruled_table_under_its_caption_keeps_every_body_row_apart(tmp_path: Path, rules: Rules) -> None:
    def draw(page: pymupdf.Page) -> None:
        page.insert_text((72, 210), "Table 2 Serum lipids by diet group.", fontsize=9)
        _row(page, 235, ["Lipid", "Normal", "HC", "HC + OS"])
        _row(page, 255, ["Total cholesterol", "38 ± 2a", "133 ± 5b", "96 ± 9c"])
        _row(page, 270, ["Triglyceride", "25 ± 1a", "50 ± 7b", "26 ± 4a"])

    table = _only_table(_paper(tmp_path, draw), rules)
    assert (table.label, table.parse) == ("Table 2", TableParse.cells)
    assert table.caption == "Table 2 Serum lipids by diet group."
    assert markdown_rows(table.markdown) == [
        ["Total cholesterol", "38 ± 2a", "133 ± 5b", "96 ± 9c"],
        ["Triglyceride", "25 ± 1a", "50 ± 7b", "26 ± 4a"],
    ]
    assert table.markdown.splitlines()[0] == "| Lipid | Normal | HC | HC + OS |"


def test_rules_across_a_table_part_a_two_row_header_that_is_joined_per_column(tmp_path: Path, rules: Rules) -> None:
    def draw(page: pymupdf.Page) -> None:
        page.insert_text((72, 210), "Table 1. Outcomes at one year.", fontsize=9)
        _rule(page, 222)
        _row(page, 235, ["", "Treated", "", "Control"])
        _row(page, 248, ["Outcome", "n", "%", "n"])
        _rule(page, 253)
        _row(page, 268, ["Death", "3", "1.5", "9"])
        _row(page, 283, ["Stroke", "5", "2.5", "4"])
        _rule(page, 290)
        page.insert_text((72, 302), "n: number of patients.", fontsize=7)

    table = _only_table(_paper(tmp_path, draw), rules)
    assert table.header_rows == 2
    assert table.markdown.splitlines()[0] == "| Outcome | Treated n | % | Control n |"
    assert markdown_rows(table.markdown) == [["Death", "3", "1.5", "9"], ["Stroke", "5", "2.5", "4"]]
    assert table.footnotes == "n: number of patients."


def test_lines_then_words_reads_a_fully_ruled_grid_by_its_lines(tmp_path: Path) -> None:
    rules = load_rules(overrides={"pdf": {"layout": {"mode": "rules"}, "tables": {"strategy": "lines_then_words"}}})

    def draw(page: pymupdf.Page) -> None:
        page.insert_text((72, 210), "Table 3 Doses.", fontsize=9)
        for y in (220, 240, 260, 280):
            _rule(page, y, 70, 330)
        for x in (70, 198, 298, 330):
            page.draw_line((x, 220), (x, 280), width=0.6)
        _row(page, 234, ["Drug", "Dose", ""])
        _row(page, 254, ["Aspirin", "75 mg", ""])
        _row(page, 274, ["Statin", "20 mg", ""])

    table = _only_table(_paper(tmp_path, draw), rules)
    assert table.parse is TableParse.cells
    assert [row[:2] for row in markdown_rows(table.markdown)] == [["Aspirin", "75 mg"], ["Statin", "20 mg"]]
    assert table.boxes[0].page == 1 and table.boxes[0].y0 == pytest.approx(220, abs=1)


def test_a_caption_with_no_grid_beside_it_is_recorded_as_text(tmp_path: Path, rules: Rules) -> None:
    def draw(page: pymupdf.Page) -> None:
        page.insert_text((72, 210), "Table 4 Not reproduced here.", fontsize=9)

    table = _only_table(_paper(tmp_path, draw), rules)
    assert (table.parse, table.cells, table.markdown) == (TableParse.text, [], None)


def test_a_sentence_that_opens_with_table_is_no_caption(tmp_path: Path, rules: Rules) -> None:
    def draw(page: pymupdf.Page) -> None:
        page.insert_text((72, 210), "Table 2 shows the lipids of each group.", fontsize=10)

    assert extract_pdf(_paper(tmp_path, draw), "paper.pdf", rules).tables == []


def test_a_table_wider_than_its_captions_column_is_read_across_the_page(tmp_path: Path, rules: Rules) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    for left in (50, 310):
        page.insert_textbox(pymupdf.Rect(left, 60, left + 235, 300), BODY * 3, fontsize=10)
    page.insert_text((50, 330), "Table 1. Sites.", fontsize=9)
    for y, cells in ((350, ["Site", "Country", "Adults", "Visits"]), (365, ["North", "Chile", "120", "4"]), (380, ["South", "Peru", "118", "5"])):
        for x, text in zip((50, 200, 380, 480), cells):
            page.insert_text((x, y), text, fontsize=9)
    for left in (50, 310):
        page.insert_textbox(pymupdf.Rect(left, 420, left + 235, 760), BODY * 4, fontsize=10)
    path = tmp_path / "two_columns.pdf"
    doc.save(path)
    table = _only_table(path, rules)
    assert markdown_rows(table.markdown) == [["North", "Chile", "120", "4"], ["South", "Peru", "118", "5"]]


def test_a_table_printed_sideways_is_read_along_its_lines(tmp_path: Path, rules: Rules) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    # Every line runs up the page (rotate=90): the reader turns the page to read the table.
    lines = [(60, "Table 3. Doses by arm.", []), (90, "", ["Drug", "Dose", "Arm"]), (110, "", ["Aspirin", "75 mg", "A"]), (130, "", ["Statin", "20 mg", "B"])]
    for x, caption, cells in lines:
        if caption:
            page.insert_text((x, 760), caption, fontsize=9, rotate=90)
        for y, text in zip((760, 600, 450), cells):
            page.insert_text((x, y), text, fontsize=9, rotate=90)
    page.insert_textbox(pymupdf.Rect(160, 60, 560, 780), BODY * 12, fontsize=10, rotate=90)
    path = tmp_path / "sideways.pdf"
    doc.save(path)
    table = _only_table(path, rules)
    assert markdown_rows(table.markdown) == [["Aspirin", "75 mg", "A"], ["Statin", "20 mg", "B"]]
    box = table.boxes[0]
    assert box.x0 < 90 and box.x1 > 130  # the box in the page's own coordinates: the rows side by side


def test_a_table_continued_on_the_next_page_keeps_its_rows_under_the_header_rule(tmp_path: Path, rules: Rules) -> None:
    def draw(page: pymupdf.Page) -> None:
        page.insert_text((72, 210), "Table 5 (continued). Adverse events.", fontsize=9)
        _rule(page, 222)
        _row(page, 235, ["Event", "Treated", "Control"])
        _rule(page, 240)
        for index, y in enumerate(range(255, 520, 15)):
            _row(page, y, [f"Event {index + 1}", str(index), str(index + 2)])

    table = _only_table(_paper(tmp_path, draw), rules)
    assert len(markdown_rows(table.markdown)) == 18


@pytest.mark.skipif(not layout_model_installed(), reason="PyMuPDF's layout model (pymupdf-layout) is not installed")
def test_in_the_models_reading_a_table_without_caption_is_found_by_its_table_box(tmp_path: Path) -> None:
    def draw(page: pymupdf.Page) -> None:
        _rule(page, 222)
        rows = [["Lipid", "Normal", "HC", "HC + OS"], ["Total cholesterol", "38 ± 2a", "133 ± 5b", "96 ± 9c"],
                ["Triglyceride", "25 ± 1a", "50 ± 7b", "26 ± 4a"], ["HDL-C", "20 ± 0a", "17 ± 1b", "20 ± 1a"]]
        _rule(page, 240)
        for index, cells in enumerate(rows):
            _row(page, 235 + index * 15, cells)
        _rule(page, 287)

    path = _paper(tmp_path, draw)
    assert extract_pdf(path, path.name, load_rules(overrides={"pdf": {"layout": {"mode": "rules"}}})).tables == []
    table = _only_table(path, load_rules(overrides={"pdf": {"layout": {"mode": "model"}}}))
    assert (table.label, table.caption) == (None, None)
    assert markdown_rows(table.markdown)[0] == ["Total cholesterol", "38 ± 2a", "133 ± 5b", "96 ± 9c"]


def test_a_caption_given_in_two_languages_heads_one_table(tmp_path: Path, rules: Rules) -> None:
    def draw(page: pymupdf.Page) -> None:
        page.insert_text((72, 200), "Tabela 1. Doses por grupo.", fontsize=9)
        page.insert_text((72, 212), "Table 1. Doses by arm.", fontsize=9)
        _row(page, 235, ["Drug", "Dose", "Arm"])
        _row(page, 250, ["Aspirin", "75 mg", "A"])

    table = _only_table(_paper(tmp_path, draw), rules)
    assert table.caption == "Tabela 1. Doses por grupo. Table 1. Doses by arm."
    assert markdown_rows(table.markdown) == [["Aspirin", "75 mg", "A"]]


def test_a_cell_leaves_out_the_soft_hyphens_the_pdf_prints_nothing_for() -> None:
    cells = grid_cells([["Variety", "Code"], ["Ocimum tenuiflorum var. CIM-\u00adAyu", "V12"]], header_rows=1)
    assert [cell.text for cell in cells if not cell.header] == ["Ocimum tenuiflorum var. CIM-Ayu", "V12"]


def test_a_row_label_centred_on_its_two_rows_names_the_upper_one(tmp_path: Path, rules: Rules) -> None:
    def draw(page: pymupdf.Page) -> None:
        page.insert_text((72, 210), "Table 1. Share of stems by growth form.", fontsize=9)
        _row(page, 235, ["Form", "Measure", "Plot A", "Plot B"])
        _row(page, 250, ["", "ST (%)", "11.4", "15.2"])
        _row(page, 257, ["Herb"])  # centred between the lines of the two rows it names
        _row(page, 264, ["", "P (%)", "0.3", "9.7"])
        _row(page, 278, ["Tree", "ST (%)", "59.5", "39.9"])

    table = _only_table(_paper(tmp_path, draw), rules)
    assert markdown_rows(table.markdown) == [
        ["Herb", "ST (%)", "11.4", "15.2"],
        ["", "P (%)", "0.3", "9.7"],
        ["Tree", "ST (%)", "59.5", "39.9"],
    ]


def test_a_group_label_on_a_line_of_its_own_stays_a_row_above_a_centred_label(tmp_path: Path, rules: Rules) -> None:
    def draw(page: pymupdf.Page) -> None:
        page.insert_text((72, 210), "Table 1. Share of stems by growth form.", fontsize=9)
        _row(page, 235, ["Form", "Measure", "Plot A", "Plot B"])
        _row(page, 250, ["Individuals"])
        _row(page, 264, ["", "ST (%)", "11.4", "15.2"])
        _row(page, 271, ["Herb"])
        _row(page, 278, ["", "P (%)", "0.3", "9.7"])

    table = _only_table(_paper(tmp_path, draw), rules)
    assert [row[0] for row in markdown_rows(table.markdown)] == ["Individuals", "Herb", ""]


def test_a_row_label_wrapped_round_its_centred_values_is_one_row(tmp_path: Path, rules: Rules) -> None:
    def draw(page: pymupdf.Page) -> None:
        page.insert_text((72, 210), "Table 2. Diversity indices by plot.", fontsize=9)
        _row(page, 235, ["Index", "Plot A", "Plot B", "Plot C"])
        _row(page, 250, ["Simpson's evenness", "0.55", "0.52", "0.70"])
        _row(page, 264, ["Pielou-Simpson's"])
        _row(page, 271, ["", "2.81", "2.67", "0.90"])  # centred between the label's two lines
        _row(page, 278, ["evenness"])
        _row(page, 292, ["Gini-Simpson's evenness", "0.97", "0.96", "0.79"])

    table = _only_table(_paper(tmp_path, draw), rules)
    assert markdown_rows(table.markdown) == [
        ["Simpson's evenness", "0.55", "0.52", "0.70"],
        ["Pielou-Simpson's evenness", "2.81", "2.67", "0.90"],
        ["Gini-Simpson's evenness", "0.97", "0.96", "0.79"],
    ]


def test_header_lines_over_the_rule_under_them_may_span_the_columns_of_a_dense_table(tmp_path: Path, rules: Rules) -> None:
    def draw(page: pymupdf.Page) -> None:
        page.insert_text((72, 200), "Table 3. Papers by country and year.", fontsize=9)
        _rule(page, 208)
        _row(page, 220, ["", "Brazil China Brazil China Brazil China"])
        _row(page, 232, ["Country", "papers in each year of the study"])
        _rule(page, 237)
        _row(page, 250, ["ENG", "36", "50", "41"])
        _row(page, 263, ["EU", "22", "41", "34"])
        _row(page, 276, ["NL", "10", "10", "8,2"])
        _rule(page, 281)

    table = _only_table(_paper(tmp_path, draw), rules)
    assert markdown_rows(table.markdown) == [["ENG", "36", "50", "41"], ["EU", "22", "41", "34"], ["NL", "10", "10", "8,2"]]
