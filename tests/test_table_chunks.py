"""A table's caption is the table's own chunk: typed `table`, named by its `paper_tables` row, and
where a `Table 2` cross-reference leads."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from pipeline.ingest import ingest_folder
from pipeline.ingest.task import process_file
from pipeline.models import SectionType
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
    return process_file(file, "paper.md", "paper.md", load_rules())


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
