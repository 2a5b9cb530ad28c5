"""Markdown tables as cells: pipe tables as markdown-it-py reads them, HTML tables with their spans."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.extract.markdown.document import extract_markdown_text
from pipeline.extract.markdown.tables import pipe_table_grid
from pipeline.extract.tables import markdown_rows

SHARED_MARKDOWN = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "markdown"
_WITH_PIPE_TABLES = sorted(
    path for path in SHARED_MARKDOWN.rglob("*.md")
    if any(line.lstrip().startswith("|") for line in path.read_text(encoding="utf-8", errors="replace").splitlines())
) if SHARED_MARKDOWN.is_dir() else []


def _tables(text: str):
    return extract_markdown_text(text, "paper.md", []).tables


def test_a_pipe_table_under_its_caption_paragraph_gets_its_label_and_cells() -> None:
    text = (
        "## Results\n\n**Table 2.** Serum lipids by group.\n\n"
        "| Lipid | Normal | HC |\n|---|---|---|\n| Total cholesterol | 38 ± 2 | 133 ± 5 |\n| HDL-C | 20 ± 0 | 17 ± 1 |\n"
    )
    (table,) = _tables(text)
    assert (table.label, table.caption) == ("Table 2", "**Table 2.** Serum lipids by group.")
    assert (table.line_start, table.line_end, table.header_rows) == (5, 8, 1)
    assert markdown_rows(table.markdown) == [["Total cholesterol", "38 ± 2", "133 ± 5"], ["HDL-C", "20 ± 0", "17 ± 1"]]


def test_an_html_table_keeps_its_spans_and_joins_its_two_header_rows_per_column() -> None:
    text = (
        "<table><caption>Table 1. Outcomes.</caption>\n"
        "<thead><tr><th rowspan=\"2\">Outcome</th><th colspan=\"2\">Treated</th></tr>\n"
        "<tr><th>n</th><th>%</th></tr></thead>\n"
        "<tbody><tr><td>Death</td><td>3</td><td>1.5</td></tr></tbody></table>\n"
    )
    (table,) = _tables(text)
    assert (table.label, table.header_rows) == ("Table 1", 2)
    spans = {(cell.row, cell.col): (cell.row_span, cell.col_span) for cell in table.cells}
    assert spans[0, 0] == (2, 1) and spans[0, 1] == (1, 2)
    assert table.markdown.splitlines()[0] == "| Outcome | Treated n | Treated % |"
    assert markdown_rows(table.markdown) == [["Death", "3", "1.5"]]


def test_a_pipe_in_a_cell_is_escaped_in_the_rendering() -> None:
    (table,) = _tables("| a | b |\n|---|---|\n| x \\| y | z |\n")
    assert table.markdown.splitlines()[2] == "| x \\| y | z |"
    assert pipe_table_grid(table.markdown) == ([["a", "b"], ["x | y", "z"]], 1)


@pytest.mark.skipif(not _WITH_PIPE_TABLES, reason="../shared/corpus/markdown is absent (or holds no pipe table)")
@pytest.mark.parametrize("path", _WITH_PIPE_TABLES, ids=lambda path: path.name)
def test_every_pipe_table_of_the_shared_corpus_round_trips_cell_for_cell(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    raw = extract_markdown_text(text, path.name, [])
    lines = text.splitlines()
    pipe_tables = [table for table in raw.tables if lines[table.line_start - 1].lstrip().startswith("|")]
    assert pipe_tables
    for table in pipe_tables:
        source = pipe_table_grid("\n".join(lines[table.line_start - 1 : table.line_end]))
        assert pipe_table_grid(table.markdown) == source
