"""A table's caption is the table's own chunk: typed `table`, named by its `paper_tables` row, and
where a `Table 2` cross-reference leads."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from pipeline.ingest import ingest_folder
from pipeline.ingest.process import process
from pipeline.records.base import SectionType
from pipeline.rules import load_rules

PAPER = """# Lipids in a fictional trial

## Results

Serum lipids differed between the groups (Table 2), and Figure 1 shows the weights.

Table 2. Serum lipids by group.

| Lipid | Normal | HC |
|---|---|---|
| Total cholesterol | 38 ± 2 | 133 ± 5 |

Figure 1. Body weight by week.
"""


def _chunked(tmp_path: Path):
    file = tmp_path / "paper.md"
    file.write_text(PAPER, encoding="utf-8")
    return process(file, "paper.md", "paper.md", load_rules()).chunked


def test_a_table_caption_is_a_chunk_of_type_table_and_a_figure_caption_stays_one(tmp_path: Path) -> None:
    chunked = _chunked(tmp_path)
    types = {chunk.text.split(".")[0]: chunk.section_type for chunk in chunked.chunks if chunk.split.value == "caption"}
    assert types == {"Table 2": SectionType.table, "Figure 1": SectionType.figure_caption}
    (table,) = chunked.tables
    assert next(c for c in chunked.chunks if c.chunk_id == table.chunk_id).text == "Table 2. Serum lipids by group."


def test_a_table_cross_reference_leads_to_the_tables_chunk(tmp_path: Path) -> None:
    chunked = _chunked(tmp_path)
    (reference,) = [link for link in chunked.links if link.label == "Table 2"]
    assert reference.target_chunk_id == chunked.tables[0].chunk_id


def test_ingest_stores_a_paper_tables_row_beside_the_tables_chunk(tmp_path: Path) -> None:
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "paper.md").write_text(PAPER, encoding="utf-8")
    ingest_folder(folder, tmp_path / "papers.duckdb", load_rules())
    with duckdb.connect(str(tmp_path / "papers.duckdb"), read_only=True) as connection:
        label, markdown, cells, section_type = connection.execute(
            "SELECT t.label, t.markdown, t.cells, c.section_type FROM paper_tables t JOIN chunks c USING (chunk_id)"
        ).fetchone()
    assert (label, section_type) == ("Table 2", "table")
    assert markdown.splitlines()[2] == "| Total cholesterol | 38 ± 2 | 133 ± 5 |"
    assert {"row": 1, "col": 1, "row_span": 1, "col_span": 1, "header": False, "text": "38 ± 2"} in json.loads(cells)


@pytest.mark.parametrize(
    ("reference", "caption"),
    [("Tabela 2", "Tabela 2. Lipídios séricos por grupo."), ("Tabla 2", "Tabla 2: Lípidos séricos por grupo."), ("Table 2", "Table-2: Serum lipids by group.")],
)
def test_a_cross_reference_in_the_papers_own_words_leads_to_the_tables_chunk(reference: str, caption: str, tmp_path: Path) -> None:
    paper = PAPER.replace("(Table 2)", f"({reference})").replace("Table 2. Serum lipids by group.", caption)
    file = tmp_path / "paper.md"
    file.write_text(paper, encoding="utf-8")
    chunked = process(file, "paper.md", "paper.md", load_rules()).chunked
    (link,) = [link for link in chunked.links if link.label == reference]
    assert link.target_chunk_id == chunked.tables[0].chunk_id is not None


def _pdf_with_a_table_under(caption: str, tmp_path: Path) -> Path:
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 60, 523, 180), "The trial enrolled adults from three clinics. " * 12, fontsize=10)
    page.insert_text((72, 210), caption, fontsize=9)
    for y, cells in ((235, ["Drug", "Dose", "Arm"]), (250, ["Aspirin", "75 mg", "A"]), (265, ["Statin", "20 mg", "B"])):
        for x, text in zip((72, 220, 360), cells):
            page.insert_text((x, y), text, fontsize=9)
    page.insert_textbox(pymupdf.Rect(72, 300, 523, 700), "The doses were kept through the year. " * 20, fontsize=10)
    path = tmp_path / "paper.pdf"
    doc.save(path)
    return path


@pytest.mark.parametrize(
    "caption", ["Tabela 1. Doses por grupo.", "Table-1: Doses by arm.", "Tabla 1: Dosis por grupo.", "TABLE II. Doses by arm."]
)
def test_a_pdf_table_whose_caption_is_labelled_in_another_style_gets_its_chunk(caption: str, tmp_path: Path) -> None:
    path = _pdf_with_a_table_under(caption, tmp_path)
    chunked = process(path, "paper.pdf", "paper.pdf", load_rules(overrides={"pdf": {"layout": {"mode": "rules"}}})).chunked
    (table,) = chunked.tables
    chunk = next(c for c in chunked.chunks if c.chunk_id == table.chunk_id)
    assert (chunk.text, chunk.section_type) == (caption, SectionType.table)


def test_show_draws_a_pdf_table_chunks_grid_beside_its_captions_lines(tmp_path: Path) -> None:
    import pymupdf

    from pipeline.index.database import open_readonly
    from pipeline.report.show import read_shown_chunk

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 60, 523, 180), "The trial enrolled adults from three clinics. " * 12, fontsize=10)
    page.insert_text((72, 210), "Table 1. Doses by arm.", fontsize=9)
    for y, cells in ((235, ["Drug", "Dose", "Arm"]), (250, ["Aspirin", "75 mg", "A"]), (265, ["Statin", "20 mg", "B"])):
        for x, text in zip((72, 220, 360), cells):
            page.insert_text((x, y), text, fontsize=9)
    page.insert_textbox(pymupdf.Rect(72, 300, 523, 700), "The doses were kept through the year. " * 20, fontsize=10)
    folder = tmp_path / "papers"
    folder.mkdir()
    doc.save(folder / "paper.pdf")
    ingest_folder(folder, tmp_path / "papers.duckdb", load_rules(overrides={"pdf": {"layout": {"mode": "rules"}}}))
    connection = open_readonly(tmp_path / "papers.duckdb")
    chunk_id, boxes = connection.execute("SELECT chunk_id, boxes FROM paper_tables").fetchone()
    shown = read_shown_chunk(connection, chunk_id)
    connection.close()
    grid = json.loads(boxes)[0]
    assert shown.boxes[-1].model_dump() == grid
    assert shown.boxes[0].y1 <= grid["y0"]  # the caption's line, then the grid under it


def test_search_finds_a_table_chunk_by_what_its_cells_hold(tmp_path: Path) -> None:
    from pipeline.index.database import open_readonly
    from pipeline.index.search import search

    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "paper.md").write_text(PAPER.replace("| Total cholesterol |", "| Triglyceride |"), encoding="utf-8")
    ingest_folder(folder, tmp_path / "papers.duckdb", load_rules())
    connection = open_readonly(tmp_path / "papers.duckdb")
    hits = search(connection, "triglyceride", limit=5)
    connection.close()
    assert any(hit.chunk_id == _table_chunk_id(tmp_path / "papers.duckdb") for hit in hits)


def _table_chunk_id(db: Path) -> str:
    with duckdb.connect(str(db), read_only=True) as connection:
        return connection.execute("SELECT chunk_id FROM paper_tables").fetchone()[0]
