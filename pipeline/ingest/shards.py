"""Papers' rows as Parquet shards, and one step that loads shards into the database.

Where the stages run on a cluster (`pipeline.ingest.cluster`), each task writes its papers' rows
as one shard a table: `<folder>/<table>/<key>.parquet`, with the columns and types of the table
(`chunk_postings` already one row a term, as the table holds them). The key is a digest of what
the task was given (each file's path, id and bytes, the rules, the pipeline version), so a task
Ray runs again after its worker died writes the very same files, and a shard is written under a
temporary name and renamed, so a half-written one is never read. `documents` is written last:
where its shard is there, the task's other shards are complete.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
from collections.abc import Iterable, Sequence
from pathlib import Path

import duckdb

from pipeline import __version__
from pipeline.errors import IndexingError, PipelineError
from pipeline.index.database import Transaction
from pipeline.index.layout import ROWS_SCHEMA
from pipeline.index.rows import PaperRows
from pipeline.index.schema import COLUMNS, POSTINGS_TABLES, TABLES_BY_DOCUMENT
from pipeline.index.writer import run_over_json_lines
from pipeline.ingest.task import Task
from pipeline.rules import Rules

SHARD_SUFFIX = ".parquet"
# What a shard holds of each table, and how its staged rows become them.
# A postings table (chunk_postings, paragraph_postings) is staged a row per chunk or paragraph,
# with its terms and frequencies as lists, and held a row per term.
def _postings_select(table: str) -> str:
    key = POSTINGS_TABLES[table][1]
    return f"unnest(terms) AS term, {key}, unnest(frequencies) AS tf"


def shard_key(tasks: Sequence[Task], rules: Rules) -> str:
    """The name every shard of a task with these files gets: the same files, rules and pipeline
    give the same name, so a task run again overwrites its own shards."""
    digest = hashlib.sha256(f"{__version__}\0{rules.sha256}".encode())
    for task in tasks:
        reused = "re-chunked" if task.raw_document is not None else "read"
        digest.update(f"\0{task.path}\0{task.doc_id}\0{task.sha256}\0{reused}".encode())
    return digest.hexdigest()[:32]


def shard_path(folder: Path, table: str, key: str) -> Path:
    return folder / table / f"{key}{SHARD_SUFFIX}"


def new_run_folder(shards_dir: Path, name: str) -> Path:
    """A new, empty folder for one run's shards in `shards_dir` (created if missing), under a
    name no other run gets: the run deletes this folder and nothing else in `shards_dir`."""
    # Absolute, as every Ray worker is given it: a worker's working folder is not the driver's.
    shards_dir = shards_dir.absolute()
    if shards_dir.exists() and not shards_dir.is_dir():
        raise PipelineError(f"--shards-dir {shards_dir} is a file; pass a folder on storage that every Ray worker can write")
    folder = shards_dir / f"{name}.{secrets.token_hex(8)}.shards"
    try:
        shards_dir.mkdir(parents=True, exist_ok=True)
        folder.mkdir()
    except OSError as error:
        raise PipelineError(
            f"--shards-dir {shards_dir} cannot be created or written ({error.strerror}); pass a folder on shared "
            "storage that this machine and every Ray worker can write"
        ) from None
    return folder


def shards_complete(folder: Path, key: str) -> bool:
    """Whether a task with this key wrote all its shards (its documents shard, written last, is there)."""
    return shard_path(folder, "documents", key).exists()


def write_shards(papers: Sequence[PaperRows], folder: Path, key: str) -> None:
    """Write these papers' rows as one shard a table that has any, documents last."""
    longest = max((rows.longest_line for rows in papers), default=0)
    connection = duckdb.connect(config={"threads": 1})
    try:
        for table in TABLES_BY_DOCUMENT:  # documents last
            lines = b"".join(rows.lines.get(table, b"") for rows in papers)
            if lines:
                _write_shard(connection, folder, table, key, lines, longest)
    finally:
        connection.close()


def _write_shard(connection: duckdb.DuckDBPyConnection, folder: Path, table: str, key: str, lines: bytes, longest: int) -> None:
    target = shard_path(folder, table, key)
    # Unique to this attempt: a retried task may run while a worker thought dead still writes.
    writing = target.with_name(f"{target.name}.writing-{os.getpid()}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if table in POSTINGS_TABLES:
            types, select = POSTINGS_TABLES[table][2], _postings_select(table)
        else:
            types, select = COLUMNS[table], ", ".join(COLUMNS[table])
        quoted = str(writing).replace("'", "''")
        statement = f"COPY ({{rows}}) TO '{quoted}' (FORMAT parquet, COMPRESSION zstd)"
        run_over_json_lines(connection, statement, table, types, select, lines, longest)
        os.replace(writing, target)
    except (OSError, duckdb.Error) as error:
        _discard_half_written(writing)
        cause = " ".join(str(error).split())
        raise IndexingError(
            f"cannot write the shard {target}: {cause}; check that {folder} is writable, has room and is "
            "the same folder on every node of the cluster"
        ) from None


def _discard_half_written(writing: Path) -> None:
    """Remove what a failed shard write left, if anything. Looked for first, and a failure to remove
    it passed over: on a read-only folder, removing a name that is not there fails with EROFS, which
    would hide the error that says why the shard was not written (the next run's cleanup removes
    what is left)."""
    if os.path.lexists(writing):
        with contextlib.suppress(OSError):
            writing.unlink()


def shard_columns(table: str) -> tuple[str, ...]:
    return ("term", POSTINGS_TABLES[table][1], "tf") if table in POSTINGS_TABLES else tuple(COLUMNS[table])


def load_shards(connection: duckdb.DuckDBPyConnection, folder: Path, keys: Iterable[str]) -> int:
    """Insert the rows of the shards with these keys into the database's tables, in one
    transaction, one `read_parquet` a table, the postings in term order as the local writer
    appends a run's (so that neither counts them as unsorted); return the postings loaded."""
    keys = sorted(set(keys))
    postings = 0
    with Transaction(connection):
        for table in reversed(TABLES_BY_DOCUMENT):  # documents first, as a reader would expect
            files = [str(path) for path in (shard_path(folder, table, key) for key in keys) if path.exists()]
            if not files:
                continue
            columns = ", ".join(shard_columns(table))
            order = f" ORDER BY term, {POSTINGS_TABLES[table][1]}" if table in POSTINGS_TABLES else ""
            loaded = connection.execute(f"INSERT INTO {ROWS_SCHEMA}.{table} ({columns}) SELECT {columns} FROM read_parquet(?){order}", [files])
            if table in POSTINGS_TABLES:
                postings += loaded.fetchone()[0]
    return postings


def remove_other_shards(folder: Path, keep: Iterable[str]) -> int:
    """Delete the shards under `folder` whose key is not in `keep` (papers no longer in the
    folder, or written under other rules), and any a killed task left half-written; return how
    many."""
    kept = set(keep)
    removed = 0
    for table in TABLES_BY_DOCUMENT:
        for path in (folder / table).glob(f"*{SHARD_SUFFIX}*"):
            if path.name.endswith(SHARD_SUFFIX) and path.name.removesuffix(SHARD_SUFFIX) in kept:
                continue
            path.unlink(missing_ok=True)
            removed += 1
    return removed
