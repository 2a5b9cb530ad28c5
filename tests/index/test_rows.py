"""A paper's rows are written by column name: every row names its table's columns, all of them,
in the schema's order, and a row that does not is refused rather than loaded into wrong columns."""

from __future__ import annotations

import json

import pytest

from conftest import chunk_markdown
from pipeline.errors import IndexingError
from pipeline.index.rows import RECORD_TABLES, DocumentRow, in_column_order, paper_rows, row_columns
from pipeline.index.terms import TermCounter, count_paper_terms

BOX = {"chunk_id": "paper:1", "page": 1, "x0": 0.0, "y0": 1.0, "x1": 2.0, "y1": 3.0}


def test_a_row_naming_every_column_in_order_is_kept():
    assert in_column_order("chunk_boxes", [BOX]) == [BOX]


def test_a_row_with_two_columns_swapped_is_refused():
    swapped = {"chunk_id": "paper:1", "page": 1, "y0": 1.0, "x0": 0.0, "x1": 2.0, "y1": 3.0}
    with pytest.raises(IndexingError, match=r"^a row for the table chunk_boxes does not match the schema \(its columns out of the schema's order\)"):
        in_column_order("chunk_boxes", [swapped])


def test_a_row_missing_a_column_is_refused():
    missing = {name: value for name, value in BOX.items() if name != "page"}
    with pytest.raises(IndexingError, match=r"chunk_boxes does not match the schema \(missing \['page'\], unknown \[\]\)"):
        in_column_order("chunk_boxes", [missing])


def test_a_row_with_a_column_the_table_lacks_is_refused():
    with pytest.raises(IndexingError, match=r"missing \[\], unknown \['page_number'\]"):
        in_column_order("chunk_boxes", [{**BOX, "page_number": 1}])


def test_every_line_of_a_paper_s_rows_names_its_table_s_columns_in_order(rules):
    chunked = chunk_markdown("# T\n\n## Results\n\nIL-6 rose [1].\n\n## References\n\n1. Park J. One. 2019\n", rules)
    row = DocumentRow(
        doc_id="paper", path="paper.md", format="markdown", sha256="0" * 64, bytes=1, status="ingested", error=None,
        rules_sha256="r", pipeline_version="0",
    )
    rows = paper_rows(row, chunked, ("key", "{}"), count_paper_terms(chunked, TermCounter()))
    written = {table: [json.loads(line) for line in lines.splitlines()] for table, lines in rows.lines.items()}
    assert written["chunks"] and written["sections"] and written["chunk_postings"]
    # A record table's row is its record serialized whole, in the record's field order: the
    # writer loads by name, so its names are what must match.
    for table, table_rows in written.items():
        as_named = set if table in RECORD_TABLES else tuple
        assert all(as_named(line) == as_named(row_columns(table)) for line in table_rows), table
