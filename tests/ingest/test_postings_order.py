"""A run writes its postings into the library once, in term order: not unordered, to be rewritten
in order at its end or by a later run."""

from __future__ import annotations

import pytest

from pipeline.index.database import open_readonly
from pipeline.ingest import IngestOptions, ingest_folder


def _postings_in_stored_order(db, table: str, key: str) -> tuple[list, int]:
    connection = open_readonly(db)
    try:
        rows = connection.execute(f"SELECT term, {key} FROM rows.{table} ORDER BY rowid").fetchall()
        unsorted = connection.execute("SELECT unsorted_rows FROM search_index_state").fetchone()[0]
    finally:
        connection.close()
    return rows, unsorted


@pytest.mark.parametrize(("table", "key"), [("chunk_postings", "chunk_id"), ("paragraph_postings", "paragraph_key")])
def test_a_run_writes_its_postings_in_term_order_and_leaves_none_to_order(tmp_path, rules, table, key):
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "b.md").write_text("# Zebra studies\n\n## Results\n\nZebras graze while antelopes watch the cytokine assay.\n")
    (folder / "a.md").write_text("# Apple orchards\n\n## Methods\n\nWe counted apples and measured interleukin levels.\n")
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, IngestOptions(workers=1))
    stored, unsorted = _postings_in_stored_order(db, table, key)
    assert stored and stored == sorted(stored)
    assert unsorted == 0
