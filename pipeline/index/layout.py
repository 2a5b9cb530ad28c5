"""How a library is laid out on disk: a small published file (the catalog) over a large
immutable base, so that a run rewrites what it changed and not the whole library.

The published file (`papers.duckdb`) holds, in schema `rows`, the rows of every paper written
since the base was made, and in `main` the small tables a run rewrites whole (`runs`,
`run_changes`, `file_stats`, `paper_links`, ...). Where the library has a base,
`rows.library_base` names it: a DuckDB file beside it (`papers.duckdb.base-<token>`) that is never written again once
published, whose papers' rows are in the schema `library_base.rows_schema` names. Each table of
papers' rows is a view in `main`, under its own name, over the base's rows (less those of papers
written or removed since, listed in `rows.hidden_documents`, `rows.hidden_extractions` and
`rows.hidden_units`) and the catalog's own: readers and users' SQL read `chunks`, `documents`, ...
as before. A reader attaches the base when it opens the catalog (`attach_base`); the duckdb CLI
needs `ATTACH 'papers.duckdb.base-…' AS base (READ_ONLY)` first.

A run copies the catalog only, writes its papers' rows into `rows`, hides the base's rows of the
papers it rewrote or removed, and publishes the copy by `os.replace`. Once the catalog's own rows
outgrow a share of the base's (`REWRITE_FRACTION`), or a library without base passes
`MIN_BASE_CHUNKS`, the run makes a new base (`pipeline.ingest.publish`) and a fresh catalog.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pipeline.errors import IndexingError
from pipeline.index.schema import COLUMNS, SCHEMA, TABLES_BY_DOCUMENT, UNIT_KEYS

ROWS_SCHEMA = "rows"
BASE = "base"
"""The name a connection attaches the base under; the views name it."""
# A library smaller than this keeps all its rows in the published file, copied whole by each run
# that changes something (as a few hundred MB copy in about a second); past it, a run makes a base.
MIN_BASE_CHUNKS = 20_000
# A run makes a new base once the catalog holds rows of more chunks than this share of the base's:
# the catalog is copied by every run that changes something, the base rewritten only then.
REWRITE_FRACTION = 0.125

# The tables a run rewrites whole or appends to: real tables of the catalog, in `main`.
SMALL_TABLES = tuple(table for table in COLUMNS if table not in TABLES_BY_DOCUMENT)
# The layout's own tables, in `rows`, beside the papers' rows.
LAYOUT_TABLES = ("hidden_documents", "hidden_extractions", "hidden_units", "library_base")
_HIDDEN = """
CREATE TABLE IF NOT EXISTS rows.hidden_documents (doc_id VARCHAR NOT NULL);    -- the base's rows of these papers are hidden
CREATE TABLE IF NOT EXISTS rows.hidden_extractions (doc_id VARCHAR NOT NULL);  -- ... and their extractions (kept where re-chunked)
CREATE TABLE IF NOT EXISTS rows.hidden_units (key VARCHAR NOT NULL);           -- the base's chunk_ids and paragraph_keys of those papers
-- The base this library's views read beside the catalog's rows; no row where it has none.
CREATE TABLE IF NOT EXISTS rows.library_base (
    file VARCHAR NOT NULL,             -- its name, in the catalog's folder: papers.duckdb.base-<token>
    rows_schema VARCHAR NOT NULL,      -- the schema its papers' rows are in
    chunks BIGINT NOT NULL             -- the chunks it holds
);
"""


def _layout_schema(schema: str) -> str:
    """The schema with each table of papers' rows in `rows` and its views left to `create_views`."""
    moved = re.sub(
        r"CREATE TABLE IF NOT EXISTS (\w+) \(",
        lambda found: f"CREATE TABLE IF NOT EXISTS {ROWS_SCHEMA}.{found[1]} (" if found[1] in TABLES_BY_DOCUMENT else found[0],
        schema,
    )
    moved = moved.replace("ON chunks (chunk_id)", f"ON {ROWS_SCHEMA}.chunks (chunk_id)")
    moved = re.sub(r"CREATE VIEW IF NOT EXISTS chunk_pages AS[^;]*;", "", moved)
    return f"CREATE SCHEMA IF NOT EXISTS {ROWS_SCHEMA};\n{moved}\n{_HIDDEN}"


LAYOUT_SCHEMA = _layout_schema(SCHEMA)


@dataclass(frozen=True)
class Base:
    """A library's base, as `rows.library_base` names it."""

    file: str
    rows_schema: str
    chunks: int


def stored_base(connection: duckdb.DuckDBPyConnection) -> Base | None:
    """The base of the catalog `connection` has open; None where it has none (or is of the layout
    before bases, one file with every table in `main`)."""
    try:
        row = connection.execute(f"SELECT file, rows_schema, chunks FROM {ROWS_SCHEMA}.library_base").fetchone()
    except duckdb.CatalogException:
        return None
    return Base(*row) if row else None


def has_layout(connection: duckdb.DuckDBPyConnection) -> bool:
    """Whether the database is laid out as this module says (a `rows` schema), not as one file
    with every table in `main`."""
    found = connection.execute("SELECT count(*) FROM duckdb_schemas() WHERE schema_name = ? AND database_name = current_database()", [ROWS_SCHEMA])
    return found.fetchone()[0] > 0


def base_path(db: Path, base: Base) -> Path:
    return db.with_name(base.file)


def attach_base(connection: duckdb.DuckDBPyConnection, db: Path, shown_as: Path | None = None) -> Base | None:
    """Attach, read-only, the base of the catalog at `db` that `connection` has open, if it has one."""
    base = stored_base(connection)
    if base is None:
        return None
    path = base_path(db, base)
    if not path.is_file():
        raise IndexingError(
            f"the library {shown_as or db} is incomplete: its base {path.name} is missing from {path.parent}; "
            "put it back, or move the library aside and run `pipeline ingest`, which rebuilds it from the papers"
        )
    quoted = str(path).replace("'", "''")
    try:
        connection.execute(f"ATTACH IF NOT EXISTS '{quoted}' AS {BASE} (READ_ONLY)")
    except duckdb.Error as error:
        cause = " ".join(str(error).split())
        raise IndexingError(
            f"cannot read the base {path.name} of the library {shown_as or db}: {cause}; move the library and its "
            "base files aside and run `pipeline ingest`, which rebuilds it from the papers"
        ) from None
    return base


def _base_tables(connection: duckdb.DuckDBPyConnection, base: Base | None) -> set[str]:
    if base is None:
        return set()
    rows = connection.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = ? AND schema_name = ?", [BASE, base.rows_schema]
    ).fetchall()
    return {name for (name,) in rows}


def _hidden_by(table: str) -> tuple[str, str, str]:
    """The column that says whose a row of `table` is, and the hidden table and its column."""
    if table in UNIT_KEYS:
        return UNIT_KEYS[table], "hidden_units", "key"
    if table == "extractions":
        return "doc_id", "hidden_extractions", "doc_id"
    return "doc_id", "hidden_documents", "doc_id"


def create_views(connection: duckdb.DuckDBPyConnection, base: Base | None) -> None:
    """(Re)create each table of papers' rows as a view in `main` over the base's rows, less the
    hidden ones, and the catalog's; `base` must be attached."""
    in_base = _base_tables(connection, base)
    for table in TABLES_BY_DOCUMENT:
        columns = ", ".join(COLUMNS[table])
        own = f"SELECT {columns} FROM {ROWS_SCHEMA}.{table}"
        if table in in_base:
            key, hidden, hidden_key = _hidden_by(table)
            rows_of_base = (
                f"SELECT {columns} FROM {BASE}.{base.rows_schema}.{table} "
                f"WHERE {key} NOT IN (SELECT {hidden_key} FROM {ROWS_SCHEMA}.{hidden})"
            )
            own = f"{rows_of_base} UNION ALL {own}"
        connection.execute(f"CREATE OR REPLACE VIEW main.{table} AS {own}")
    connection.execute("CREATE OR REPLACE VIEW main.chunk_pages AS SELECT chunk_id, doc_id, unnest(pages) AS page FROM main.chunks")


def hide_in_base(connection: duckdb.DuckDBPyConnection, doc_ids: list[str], keep_extractions_of: set[str]) -> None:
    """Hide the base's rows of these papers (their extractions too, unless kept), in the caller's
    transaction; nothing where the library has no base."""
    base = stored_base(connection)
    if base is None or not doc_ids:
        return
    extractions = [doc_id for doc_id in doc_ids if doc_id not in keep_extractions_of]
    for hidden, ids in (("hidden_documents", doc_ids), ("hidden_extractions", extractions)):
        connection.execute(
            f"INSERT INTO {ROWS_SCHEMA}.{hidden} SELECT DISTINCT unnest(?::VARCHAR[]) AS doc_id "
            f"EXCEPT SELECT doc_id FROM {ROWS_SCHEMA}.{hidden}",
            [ids],
        )
    in_base = _base_tables(connection, base)
    units = [
        f"SELECT {UNIT_KEYS[table]} FROM {BASE}.{base.rows_schema}.{units_table} WHERE doc_id IN (SELECT unnest($ids::VARCHAR[]))"
        for table, units_table in (("chunk_postings", "chunks"), ("paragraph_postings", "paragraphs"))
        if units_table in in_base
    ]
    if units:
        connection.execute(
            f"INSERT INTO {ROWS_SCHEMA}.hidden_units ({' UNION '.join(units)} EXCEPT SELECT key FROM {ROWS_SCHEMA}.hidden_units)",
            {"ids": doc_ids},
        )


def own_chunks(connection: duckdb.DuckDBPyConnection) -> int:
    """Chunks whose rows the catalog itself holds (written since its base was made)."""
    return connection.execute(f"SELECT count(*) FROM {ROWS_SCHEMA}.chunks").fetchone()[0]
