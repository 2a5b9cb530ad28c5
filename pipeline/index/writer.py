"""Writing papers' rows (built by the workers, `pipeline.index.rows`) into DuckDB, removing
papers' rows, recording a run, and keeping the BM25 postings in order for search.

Values always travel as parameters; each batch of papers is written in one transaction.

The BM25 index is a table of postings (term, chunk, frequency) that grows and shrinks paper by
paper, with terms counted by pool workers (`pipeline.index.terms`). DuckDB's fts extension can
only rebuild its index over every chunk, which every nightly run that changes one paper would
pay in full.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import duckdb

from pipeline.errors import IndexingError
from pipeline.index.database import Transaction
from pipeline.index.layout import ROWS_SCHEMA, hide_in_base
from pipeline.index.rows import PaperRows
from pipeline.index.schema import COLUMNS, POSTINGS_TABLES, TABLES_BY_DOCUMENT, UNIT_KEYS

# A search scans every postings row written since the table was last put in term order, so the
# table is rewritten in order once a million rows have piled up (a search then still scans them
# in milliseconds), not after every small nightly run, whose rewrite would cost seconds.
UNSORTED_POSTINGS_LIMIT = 1_000_000
# A batch is written once this many bytes of rows wait: bytes, not rows, since a statement costs
# milliseconds whatever its size, and a paper has thousands of small rows (citations, links) and
# a few large ones (its text, its extraction). Two batches at most are held in memory.
BATCH_BYTES = 32 * 2**20


def remove_documents(connection: duckdb.DuckDBPyConnection, doc_ids: list[str], keep_extractions_of: Collection[str] = ()) -> None:
    """Delete every row of these papers in one transaction, one statement a table, and hide their
    rows in the library's base (`pipeline.index.layout`): the catalog's rows are deleted, the
    base's never rewritten. The stored extractions of `keep_extractions_of` stay (papers
    re-chunked from them)."""
    if not doc_ids:
        return
    kept = set(keep_extractions_of)
    with Transaction(connection):
        for table in TABLES_BY_DOCUMENT:
            if table in UNIT_KEYS:
                key = UNIT_KEYS[table]
                units = "chunks" if key == "chunk_id" else "paragraphs"
                connection.execute(
                    f"DELETE FROM {ROWS_SCHEMA}.{table} WHERE {key} IN "
                    f"(SELECT {key} FROM {ROWS_SCHEMA}.{units} WHERE doc_id IN (SELECT unnest(?)))",
                    [doc_ids],
                )
            else:
                removed = [doc_id for doc_id in doc_ids if doc_id not in kept] if table == "extractions" else doc_ids
                connection.execute(f"DELETE FROM {ROWS_SCHEMA}.{table} WHERE doc_id IN (SELECT unnest(?))", [removed])
        hide_in_base(connection, doc_ids, kept)


class DocumentWriter:
    """Writes papers' rows in batches: each batch is one transaction with one bulk insert per
    table, since a DuckDB statement costs milliseconds whatever its size: written paper by paper,
    the statements would cost more than the stages.

    A full batch is written by a thread of its own while `add` goes on queueing the next one:
    written in the caller's thread, a batch (slow when DuckDB checkpoints) would hold up the loop
    that hands files to the workers, and they would sit idle. DuckDB lets go of the GIL while it
    works. One batch is written at a time, so at most two are held in memory.

    It only adds: the caller removes the old rows of papers it writes again (`remove_documents`,
    once for all of them). Rows are buffered by `add` and written when `max_bytes` of them are waiting
    and by `flush`, which the caller must call at the end: it writes what is left, waits, and
    raises any batch's error. `in_background=False` writes every batch in the caller's thread.
    """

    def __init__(
        self, connection: duckdb.DuckDBPyConnection, max_bytes: int = BATCH_BYTES, in_background: bool = True, postings_in_order: bool = False
    ) -> None:
        self.connection = connection
        self.max_bytes = max_bytes
        self.in_background = in_background
        # Where each batch's postings go: the catalog's tables, or (`postings_in_order`) an
        # in-memory database that `flush` writes into them once, in term order.
        self.postings_into = _stage_postings(connection) if postings_in_order else ROWS_SCHEMA
        self._queued: list[PaperRows] = []
        self._queued_bytes = 0
        self._writing: _BatchWrite | None = None

    def add(self, rows: PaperRows) -> None:
        """Queue one paper's rows."""
        self._queued.append(rows)
        self._queued_bytes += rows.byte_count
        if self._queued_bytes >= self.max_bytes:
            self._write_queued()

    def flush(self) -> None:
        """Write everything queued and wait until it is written; postings kept in order, in
        term order."""
        self._write_queued()
        self._wait()
        if self.postings_into != ROWS_SCHEMA:
            _write_staged_postings(self.connection, self.postings_into)
            self.postings_into = ROWS_SCHEMA

    def __enter__(self) -> DocumentWriter:
        return self

    def __exit__(self, kind, error, traceback) -> None:
        """On an error, let a batch being written finish before the caller closes the connection
        under it; its own error, if any, is the lesser news."""
        if kind is not None and self._writing is not None:
            self._writing.join()
            self._writing = None

    def _write_queued(self) -> None:
        self._wait()
        if not self._queued:
            return
        batch, self._queued, self._queued_bytes = self._queued, [], 0
        self._writing = _BatchWrite(self.connection, batch, self.postings_into)
        if self.in_background:
            self._writing.start()
        else:
            self._writing.run()

    def _wait(self) -> None:
        if self._writing is None:
            return
        writing, self._writing = self._writing, None
        if writing.is_alive():
            writing.join()
        if writing.error is not None:
            raise writing.error


class _BatchWrite(threading.Thread):
    """One batch of papers' rows written in one transaction, on a cursor of its own (a DuckDB
    connection is not to be shared between threads); the error, if any, kept for the caller."""

    def __init__(self, connection: duckdb.DuckDBPyConnection, batch: list[PaperRows], postings_into: str) -> None:
        super().__init__(name="DocumentWriter", daemon=True)
        self.connection = connection
        self.batch = batch
        self.postings_into = postings_into
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            cursor = self.connection.cursor()
            try:
                _write_batch(cursor, self.batch, self.postings_into)
            finally:
                cursor.close()
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread, raised there
            self.error = error


def _write_batch(connection: duckdb.DuckDBPyConnection, batch: list[PaperRows], postings_into: str = ROWS_SCHEMA) -> None:
    longest = max(rows.longest_line for rows in batch)
    staged = postings_into != ROWS_SCHEMA
    if staged:  # a transaction writes to one database only; nothing is published if either fails
        with Transaction(connection):
            _insert_postings(connection, batch, postings_into, longest)
    with Transaction(connection):
        if not staged:
            _insert_postings(connection, batch, ROWS_SCHEMA, longest)
        for table in reversed(TABLES_BY_DOCUMENT):  # documents first, as a reader would expect
            if table not in POSTINGS_TABLES:
                lines = b"".join(rows.lines.get(table, b"") for rows in batch)
                _insert_json_lines(connection, table, COLUMNS[table], ", ".join(COLUMNS[table]), lines, longest)
        unsorted = 0 if staged else sum(rows.posting_count for rows in batch)
        connection.execute("UPDATE search_index_state SET unsorted_rows = unsorted_rows + ?", [unsorted])


def _insert_postings(connection: duckdb.DuckDBPyConnection, batch: list[PaperRows], schema: str, longest: int) -> None:
    for table, (_, key, staged) in POSTINGS_TABLES.items():
        lines = b"".join(rows.lines.get(table, b"") for rows in batch)
        _insert_json_lines(connection, table, staged, f"unnest(terms), {key}, unnest(frequencies)", lines, longest, schema)


_STAGED_POSTINGS = "run_postings"


def _stage_postings(connection: duckdb.DuckDBPyConnection) -> str:
    """An in-memory database, beside the catalog in the writer's DuckDB (its memory limit, its
    spill folder), with an empty table for each postings table; return its name. Written in
    order once at the end, a run's postings are not written into the file twice, unordered and
    then rewritten in order (`order_search_index`)."""
    connection.execute(f"ATTACH ':memory:' AS {_STAGED_POSTINGS}")
    for table, (columns, _, _) in POSTINGS_TABLES.items():
        connection.execute(f"CREATE TABLE {_STAGED_POSTINGS}.{table} ({columns})")
    return _STAGED_POSTINGS


def _write_staged_postings(connection: duckdb.DuckDBPyConnection, staged: str) -> None:
    """Append the staged postings to the catalog's, in term order, in one transaction; the
    catalog's postings are then runs each in term order, each found by its row groups' terms."""
    with Transaction(connection):
        for table, (_, key, _) in POSTINGS_TABLES.items():
            connection.execute(f"INSERT INTO {ROWS_SCHEMA}.{table} SELECT * FROM {staged}.{table} ORDER BY term, {key}")
    connection.execute(f"DETACH {staged}")


@dataclass(frozen=True)
class RunRecord:
    """One row of the `runs` table."""

    started_at: datetime
    finished_at: datetime
    folder: str
    seen: int
    added: int
    updated: int
    unchanged: int
    removed: int
    failed: int
    pages: int
    chunks: int
    duration_seconds: float
    pipeline_version: str
    rules_sha256: str


def record_run(connection: duckdb.DuckDBPyConnection, run: RunRecord, after_run_id: int = 0) -> int:
    """Append a run to the `runs` table and return its id: the next after the last one there, and
    after `after_run_id` (the last run of a database this one rebuilt)."""
    run_id = connection.execute("SELECT greatest(coalesce(max(run_id), 0), ?) + 1 FROM runs", [after_run_id]).fetchone()[0]
    connection.execute(
        "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [run_id, *run.__dict__.values()],
    )
    return run_id


_DEFAULT_OBJECT_BYTES = 16 * 2**20  # read_json's own default maximum_object_size


def _insert_json_lines(
    connection: duckdb.DuckDBPyConnection, table: str, types: dict[str, str], select: str, lines: bytes, longest_line: int,
    schema: str = ROWS_SCHEMA,
) -> None:
    """`INSERT INTO schema.table SELECT select` over newline-delimited JSON rows with these column
    types, none longer than `longest_line` bytes: DuckDB reads JSON two orders of magnitude faster
    than `executemany` binds parameters."""
    if lines:
        run_over_json_lines(connection, f"INSERT INTO {schema}.{table} {{rows}}", table, types, select, lines, longest_line)


def run_over_json_lines(
    connection: duckdb.DuckDBPyConnection,
    statement: str,
    table: str,
    types: dict[str, str],
    select: str,
    lines: bytes,
    longest_line: int,
    parameters: Sequence = (),
) -> None:
    """Run `statement` with `{rows}` standing for `SELECT select` over newline-delimited JSON rows
    of `table` with these column types, none longer than `longest_line` bytes: an insert here, a
    Parquet shard's `COPY` in `pipeline.ingest.shards`, both reading the rows alike. `parameters`
    are those of the statement's placeholders after `{rows}`."""
    columns = ", ".join(f"{name}: '{data_type}'" for name, data_type in types.items())
    # One row holds a whole paper's text, which can be far over read_json's 16 MB default. The
    # reader takes a buffer of twice the size it is told to expect, counted against DuckDB's
    # memory limit, so it is told the longest line there is: told a generous fixed size, it would
    # fail on every machine whose limit (80% of memory by default) is smaller than twice that.
    object_bytes = max(_DEFAULT_OBJECT_BYTES, longest_line + 1)
    staging = None
    try:
        try:
            with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False) as staging:
                staging.write(lines)
        except OSError as error:
            raise IndexingError(
                f"cannot stage {table} rows for loading in {tempfile.gettempdir()}: {error.strerror}; "
                "free space there, or point TMPDIR at a folder with room, and run again"
            ) from None
        rows = (
            f"SELECT {select} FROM read_json(?, columns = {{{columns}}}, "
            f"format = 'newline_delimited', maximum_object_size = {object_bytes})"
        )
        connection.execute(statement.replace("{rows}", rows), [staging.name, *parameters])
    finally:
        if staging is not None:
            Path(staging.name).unlink(missing_ok=True)


def order_search_index(connection: duckdb.DuckDBPyConnection, unsorted_limit: int = UNSORTED_POSTINGS_LIMIT) -> bool:
    """Rewrite the catalog's own chunk_postings and paragraph_postings (`pipeline.index.layout`: a
    base's are in order) in term order, in one transaction, once more than `unsorted_limit` rows
    were written to them since they last were; return whether it did."""
    unsorted = connection.execute("SELECT unsorted_rows FROM search_index_state").fetchone()[0]
    if unsorted <= unsorted_limit:
        return False
    with Transaction(connection):
        for table, (columns, key, _) in POSTINGS_TABLES.items():
            rows = f"{ROWS_SCHEMA}.{table}"
            connection.execute(f"DROP TABLE IF EXISTS {rows}_in_order")
            connection.execute(f"CREATE TABLE {rows}_in_order ({columns})")
            connection.execute(f"INSERT INTO {rows}_in_order SELECT * FROM {rows} ORDER BY term, {key}")
            connection.execute(f"DROP TABLE {rows}")
            connection.execute(f"ALTER TABLE {rows}_in_order RENAME TO {table}")
        connection.execute("UPDATE search_index_state SET unsorted_rows = 0")
    return True
