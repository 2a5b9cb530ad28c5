"""The `file_stats` table: what the last ingest that read each paper's file saw of it, so that
the next one need not read a file whose stat is as it was (`pipeline.ingest.scan`)."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import duckdb

from pipeline.index.database import Transaction
from pipeline.index.schema import COLUMNS
from pipeline.index.writer import run_over_json_lines


@dataclass(frozen=True)
class FileStatRow:
    """A row of `file_stats`: a file's stat, taken before the bytes `sha256` is of were read."""

    doc_id: str
    sha256: str
    size: int
    mtime_ns: int
    inode: int


def stored_file_stats(connection: duckdb.DuckDBPyConnection) -> dict[str, FileStatRow]:
    """doc_id → its file's stored stat; empty where the database has no `file_stats` (schema 11,
    which the next ingest upgrades: every file is then read and hashed, as before)."""
    try:
        rows = connection.execute("SELECT doc_id, sha256, size, mtime_ns, inode FROM file_stats").fetchall()
    except duckdb.CatalogException:
        return {}
    return {row[0]: FileStatRow(*row) for row in rows}


def store_file_stats(connection: duckdb.DuckDBPyConnection, rows: Sequence[FileStatRow], forgotten: Collection[str]) -> None:
    """Replace the stats of these rows' papers with theirs, and delete those of `forgotten`
    (papers removed), in one transaction. Both read as JSON lines: bound as lists of parameters,
    DuckDB converts the values one at a time (seconds for 50,000 files)."""
    replaced = sorted({row.doc_id for row in rows} | set(forgotten))
    if not replaced:
        return
    with Transaction(connection):
        _over_lines(connection, "DELETE FROM file_stats WHERE doc_id IN ({rows})", [{"doc_id": doc_id} for doc_id in replaced])
        if rows:
            _over_lines(connection, "INSERT INTO file_stats {rows}", [row.__dict__ for row in rows])


def _over_lines(connection: duckdb.DuckDBPyConnection, statement: str, rows: list[dict]) -> None:
    types = {name: COLUMNS["file_stats"][name] for name in rows[0]}
    lines = [json.dumps(row, ensure_ascii=False).encode() for row in rows]
    run_over_json_lines(connection, statement, "file_stats", types, ", ".join(types), b"\n".join(lines) + b"\n", max(map(len, lines)))
