"""PDF table labels that span rows: fixtures written with PyMuPDF, each with the rows the
publisher's markup gives (a label that spans rows is the first row's)."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from pipeline.extract.pdf.document import extract_pdf
from pipeline.extract.tables import markdown_rows
from pipeline.rules import Rules, load_rules

BODY = (
    "The primers amplified every accession in both directions, and the sequences were read twice "
    "on each strand before they were aligned against the reference for each of the species. "
)
COLUMNS = (50, 80, 230, 300, 400)


@pytest.fixture(scope="module")
def rules() -> Rules:
    return load_rules(overrides={"pdf": {"layout": {"mode": "rules"}}})


def _table(path: Path, header: list[str], lines: list[list[str]], pitch: float = 11, columns: tuple[float, ...] = COLUMNS) -> Path:
    """A captioned table across the page, its lines `pitch` points apart, each line its cells by
    column (`""` leaves the column empty)."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(50, 50, 545, 120), BODY * 2, fontsize=10)
    page.insert_text((50, 140), "Table 3. Sequences read for each accession.", fontsize=9)
    for x, text in zip(columns, header):
        page.insert_text((x, 160), text, fontsize=8)
    y = 160 + pitch + 4
    for line in lines:
        for x, text in zip(columns, line):
            if text:
                page.insert_text((x, y), text, fontsize=8)
        y += pitch
    page.insert_textbox(pymupdf.Rect(50, y + 20, 545, y + 120), BODY * 2, fontsize=10)
    doc.save(path)
    return path


def _rows(path: Path, rules: Rules) -> list[list[str]]:
    (table,) = extract_pdf(path, path.name, rules).tables
    return markdown_rows(table.markdown)


def test_a_label_that_spans_two_rows_wrapped_across_them_is_the_upper_rows(tmp_path: Path, rules: Rules) -> None:
    """`Ocimum tenuiflorum` over `var. Ram tulsi`, beside the `Forward` and `Reverse` rows it names:
    the label's second line carries it on, and `Reverse` starts a row under it."""
    lines = [
        ["1", "Ocimum tenuiflorum", "Forward", "KT338799.1", "328"],
        ["", "var. Ram tulsi", "Reverse", "KU666421.1", "372"],
        ["2", "Ocimum basilicum", "Forward", "KT338801.1", "323"],
        ["", "", "Reverse", "KU666423.1", "368"],
    ]
    path = _table(tmp_path / "spans.pdf", ["No.", "Species", "Primer", "Accession", "Length"], lines)
    assert _rows(path, rules) == [
        ["1", "Ocimum tenuiflorum var. Ram tulsi", "Forward", "KT338799.1", "328"],
        ["", "", "Reverse", "KU666421.1", "372"],
        ["2", "Ocimum basilicum", "Forward", "KT338801.1", "323"],
        ["", "", "Reverse", "KU666423.1", "368"],
    ]


def test_a_label_closed_by_its_bracket_or_a_citation_given_its_year_on_the_next_row_is_carried_up(tmp_path: Path, rules: Rules) -> None:
    """`Attack rate (95%` left open, `CI)` on the line of the next scenario closes it; the year of
    `Hall-Mendelin et al.` is set there too."""
    lines = [
        ["Attack rate (95%", "Hall-Mendelin et al.", "Best case", "0.0", "0.0"],
        ["CI)", "(2016)", "Worst case", "0.3", "1.2"],
    ]
    path = _table(tmp_path / "bracket.pdf", ["Parameter", "Source", "Scenario", "Brisbane", "Cairns"], lines, columns=(50, 150, 260, 340, 420))
    assert _rows(path, rules) == [
        ["Attack rate (95% CI)", "Hall-Mendelin et al. (2016)", "Best case", "0.0", "0.0"], ["", "", "Worst case", "0.3", "1.2"],
    ]


def test_a_unit_in_brackets_under_a_label_with_values_of_its_own_labels_a_row(tmp_path: Path, rules: Rules) -> None:
    """`(% DM)` under `Protein`, each beside its values: the protein content as fed, then in dry
    matter, two rows."""
    lines = [["", "Protein", "18.92", "0.308", "0.004"], ["", "(% DM)", "83.86", "88.18", "0.004"]]
    path = _table(tmp_path / "unit.pdf", ["", "Component", "Control", "Treated", "P"], lines)
    assert _rows(path, rules) == [["Protein", "18.92", "0.308", "0.004"], ["(% DM)", "83.86", "88.18", "0.004"]]


def test_a_row_with_a_label_of_its_own_keeps_a_value_in_lower_case(tmp_path: Path, rules: Rules) -> None:
    """`Ficus carica` labels its row: `flowers` under `leaves` is that row's value, not the line
    above's, and `n` opens a row of its own."""
    lines = [
        ["1", "Euphorbia esula", "leaves", "20 nm", "[56]"],
        ["2", "Ficus carica", "flowers", "48 nm", "[69]"],
        ["", "n", "", "2", "2"],
    ]
    path = _table(tmp_path / "values.pdf", ["No.", "Species", "Part", "Size", "Ref."], lines)
    assert _rows(path, rules) == [
        ["1", "Euphorbia esula", "leaves", "20 nm", "[56]"], ["2", "Ficus carica", "flowers", "48 nm", "[69]"], ["", "n", "", "2", "2"],
    ]


def test_a_line_under_a_cell_left_open_carries_a_row_of_text_on_whole(tmp_path: Path, rules: Rules) -> None:
    """`Alignments: See above` under `Trees: Newick, NEXUS;` goes on with the row's text: the line
    starts no row of its own, so `preparation` is not carried apart from it."""
    lines = [["4", "Selective pressure", "Gene trees", "Trees: Newick, NEXUS;", ""], ["", "preparation", "", "Alignments: See above", ""]]
    path = _table(tmp_path / "text.pdf", ["Step", "Task", "Input", "Formats", ""], lines, columns=(50, 80, 200, 300, 500))
    assert _rows(path, rules) == [["4", "Selective pressure preparation", "Gene trees", "Trees: Newick, NEXUS; Alignments: See above"]]
