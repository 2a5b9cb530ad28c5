"""Opening the database, its schema, and reading what it holds of the papers stored so far.

Readers open it read-only (`open_readonly`); an ingest opens its working copy for writing
(`open_for_writing`) and then brings the schema to this pipeline's version (`ensure_schema`),
which says when it had to rebuild a database an older pipeline wrote.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import duckdb

from pipeline.errors import IndexingError
from pipeline.index.layout import LAYOUT_SCHEMA, ROWS_SCHEMA, attach_base, create_views, has_layout, stored_base
from pipeline.index.schema import READABLE_SCHEMA_VERSIONS, SCHEMA_VERSION, TABLES_BY_DOCUMENT, UPGRADED_IN_PLACE

# What DuckDB says of a file that is not, or no longer, a whole DuckDB database.
_DAMAGED = ("not a valid DuckDB database file", "Corrupt database file", "Could not read enough bytes")
_NO_DATABASE_ADVICE = (
    "the file is damaged or no DuckDB database: move it aside and run `pipeline ingest`, which rebuilds it from the papers, "
    "or pass another --db"
)
# Every DuckDB database file, of any version, has these bytes after its header's checksum.
_DUCKDB_MAGIC = b"DUCK"
_DUCKDB_MAGIC_OFFSET = 8
# Nothing is fetched or loaded behind the pipeline's back.
_CONFIG = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
# A reader touches nothing but the library it reads: once its base is attached, no file is
# written, attached, exported, read (`read_csv`) or listed, and no extension installed or loaded
# (`enable_external_access` off); `pipeline sql` runs users' text on it. DuckDB refuses to switch
# external access back on, or to widen the paths it may reach, while a database is open.
# (`lock_configuration` would add nothing to that, and would break every later connection to the
# same file in the process, which share DuckDB's instance.)


# What the reader's config does not keep in: with file access off, DuckDB fails inside itself on
# a profiler's output file (a traceback) and aborts the process when logging to a file. Named as
# the statement may name them: the settings, and the pragmas and functions that set them.
_PROFILING_AND_LOGGING = frozenset({
    "custom_profiling_settings", "enable_profiling", "enable_profile", "disable_profiling", "disable_profile",
    "profiling_output", "profile_output", "profiling_mode", "profiling_coverage", "all_profiling_output",
    "enable_logging", "disable_logging", "logging_storage", "logging_level", "logging_mode", "enabled_log_types",
    "disabled_log_types", "enable_http_logging", "http_logging_output", "log_query_path",
})
_IDENTIFIER = re.compile(r'"((?:[^"]|"")*)"|([^\W\d][\w$]*)')


def profiling_or_logging(statement: str) -> str | None:
    """The first of DuckDB's profiling or logging settings (or the pragmas and functions that set
    them) that `statement` names, outside its strings and comments; None where it names none."""
    for position, kind in duckdb.tokenize(statement):
        if kind != duckdb.token_type.identifier:
            continue
        found = _IDENTIFIER.match(statement, position)
        name = found and (found.group(2) or found.group(1).replace('""', '"'))
        if name and name.lower() in _PROFILING_AND_LOGGING:
            return name.lower()
    return None


def wal_file(db: Path) -> Path:
    """DuckDB's write-ahead log beside the database `db`."""
    return db.with_name(db.name + ".wal")


def lock_file(db: Path) -> Path:
    """The lock an ingest holds beside `db` (`pipeline.ingest.publish`)."""
    return db.with_name(db.name + ".lock")


def checks_file(db: Path) -> Path:
    """The log of the ingests that found nothing to change in `db` (`pipeline.index.checks`)."""
    return db.with_name(db.name + ".checks.jsonl")


_BUILDING = ".building-"


def building_file(db: Path, pid: int) -> Path:
    """The copy of `db` that process `pid`'s ingest builds the next state in."""
    return db.with_name(f"{db.name}{_BUILDING}{pid}")


def building_files_pattern(db: Path) -> str:
    """A glob, in `db`'s folder, of every ingest's building copy of `db` and its files."""
    return f"{db.name}{_BUILDING}*"


def is_base_file(path: Path, db: Path) -> bool:
    """Whether `path` is a base of the library `db` (`pipeline.index.layout`), or a file beside one."""
    return path.parent == db.parent and path.name.startswith(db.name + ".base-")


def is_building_file(path: Path, db: Path) -> bool:
    """Whether `path` is an ingest's building copy of `db`, or a file beside one (its WAL)."""
    return path.parent == db.parent and path.name.startswith(db.name + _BUILDING)


def open_readonly(db: Path) -> duckdb.DuckDBPyConnection:
    """Open a published database for reading, and for nothing else (see above), its base
    attached."""
    if db.is_dir():
        raise IndexingError(f"{db} is a folder, not a database; pass the database file with --db (e.g. {db / 'papers.duckdb'})")
    if not db.exists():
        raise IndexingError(f"no database at {db}; run `pipeline ingest` first or pass --db")
    # File access is on until the library's base is attached (`pipeline.index.layout`), and off
    # for good after: DuckDB refuses to switch it back on.
    connection = _open(db, read_only=True, shown_as=db, config=_CONFIG)
    try:
        attach_base(connection, db)
        connection.execute("SET enable_external_access = false")
    except BaseException:
        connection.close()
        raise
    return connection


def refuse_non_database_file(db: Path) -> None:
    """Refuse a file at `db` that is not a DuckDB database, before anything is written beside it
    (DuckDB says so only once it is opened: after an ingest has made its lock file)."""
    try:
        with open(db, "rb") as file:
            header = file.read(len(_DUCKDB_MAGIC) + _DUCKDB_MAGIC_OFFSET)
    except FileNotFoundError:
        return
    except OSError as error:
        raise IndexingError(f"cannot read {db}: {error.strerror}; check the path and its permissions") from None
    if header[_DUCKDB_MAGIC_OFFSET:] != _DUCKDB_MAGIC:
        raise IndexingError(
            f"cannot open database {db}: it is not a DuckDB database file (it does not start with DuckDB's header); {_NO_DATABASE_ADVICE}"
        )


# The name a writer's connection attaches a published database under (`published_beside`).
_PUBLISHED = "published_before_run"


@contextmanager
def published_beside(connection: duckdb.DuckDBPyConnection, db: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """The published database `db`, read-only, as a connection of the writer's own DuckDB whose
    tables are `db`'s. Attached there, its pages share the writer's buffer pool and so its
    memory limit: opened apart, a database gets a buffer pool of its own, which may grow to 80%
    of the machine's memory whatever the writer's limit."""
    quoted = str(db).replace("'", "''")
    connection.execute(f"ATTACH '{quoted}' AS {_PUBLISHED} (READ_ONLY)")
    try:
        reader = connection.cursor()
        try:
            reader.execute(f"USE {_PUBLISHED}")
            yield reader
        finally:
            reader.close()
    finally:
        connection.execute(f"DETACH {_PUBLISHED}")


_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMGT])(i?)B", re.IGNORECASE)
_POWERS = {"K": 1, "M": 2, "G": 3, "T": 4}
# What a writer's process holds besides DuckDB's buffer pool (docs/performance.md, "Memory"): the
# interpreter, its imports and DuckDB's library before any data; and DuckDB's own work outside
# the pool, which its memory_limit does not bound (a sort's and an insert's buffers, freed pages
# its allocator has not yet given back), and which grows with what the pool holds.
PROCESS_RESERVE_BYTES = 192 * 2**20
DUCKDB_SHARE = 0.8
# Below this DuckDB cannot run a writer's statements at all: a tiny limit still gets this much.
DUCKDB_FLOOR_BYTES = 128 * 2**20


def memory_bytes(size: str) -> int:
    """Bytes in a size as DuckDB's memory_limit takes it (`4GB` is 4 * 1000**3, `4GiB` 4 * 1024**3)."""
    found = _SIZE.fullmatch(size.strip())
    if found is None:
        raise ValueError(f"{size!r} is not a size such as 4GB or 512MiB")
    number, unit, binary = found.groups()
    return int(float(number) * (1024 if binary else 1000) ** _POWERS[unit.upper()])


def duckdb_memory_limit(process_limit: str) -> str:
    """DuckDB's memory_limit for a writer whose whole process is to stay within `process_limit`:
    what is left after the process's own reserve, less DuckDB's work outside its buffer pool, and
    never under the floor DuckDB needs to work."""
    share = int((memory_bytes(process_limit) - PROCESS_RESERVE_BYTES) * DUCKDB_SHARE)
    return f"{max(share, DUCKDB_FLOOR_BYTES) // 1024}KiB"


def open_for_writing(db: Path, shown_as: Path | None = None, memory_limit: str | None = None) -> duckdb.DuckDBPyConnection:
    """Open (or create) a database file for writing, its folder too; errors name `shown_as`
    where `db` is a working copy of it. The schema is `ensure_schema`'s to set up. `memory_limit`
    (`4GB`) is the most the whole process should hold: DuckDB gets its `duckdb_memory_limit` of it,
    past which it spills to a temporary folder beside the file instead of growing the process."""
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise IndexingError(f"cannot create the folder of {shown_as or db}: {error.strerror}; check the path") from None
    config = {**_CONFIG, "memory_limit": duckdb_memory_limit(memory_limit)} if memory_limit else _CONFIG
    connection = _open(db, read_only=False, shown_as=shown_as or db, config=config)
    try:
        attach_base(connection, db, shown_as)
    except BaseException:
        connection.close()
        raise
    return connection


def _open(db: Path, read_only: bool, shown_as: Path, config: dict | None = None) -> duckdb.DuckDBPyConnection:
    try:
        connection = duckdb.connect(str(db), read_only=read_only, config=config or _CONFIG)
    except (duckdb.Error, OSError) as error:
        cause = " ".join(str(error).split()).replace(str(db), str(shown_as))
        if any(sign in cause for sign in _DAMAGED):
            advice = _NO_DATABASE_ADVICE
        else:
            advice = "check the path, or whether another process holds it open for writing"
        raise IndexingError(f"cannot open database {shown_as}: {cause}; {advice}") from None
    # DuckDB's Python client draws a progress bar on standard output, whatever that is, for any
    # statement over two seconds in a session it takes for an interactive one (a main module with
    # no file: `python -c`, a notebook), so output redirected to a log got its bytes; a run's
    # progress is the caller's to show. (A session setting: DuckDB refuses it in the config.)
    connection.execute("SET enable_progress_bar = false")
    return connection


class SchemaChange(str, Enum):
    """What `ensure_schema` had to do."""

    created = "created"
    """A new database: every table was created."""
    current = "current"
    """The database already had this pipeline's schema."""
    upgraded = "upgraded"
    """An older pipeline wrote it, with every table but some only an ingest reads
    (`UPGRADED_IN_PLACE`): those were added, and no paper is read again."""
    rebuilt = "rebuilt"
    """An older pipeline wrote it: every table was dropped and created anew, and the run
    re-reads every paper."""


def schema_change(found: int | None) -> SchemaChange:
    """What `ensure_schema` does to a database of schema version `found` (None: a new one)."""
    if found is None:
        return SchemaChange.created
    if found == SCHEMA_VERSION:
        return SchemaChange.current
    return SchemaChange.upgraded if found in UPGRADED_IN_PLACE else SchemaChange.rebuilt


def ensure_schema(connection: duckdb.DuckDBPyConnection) -> tuple[SchemaChange, int | None]:
    """Bring the database to this pipeline's schema; return what was done and the schema version
    it had before (None for a new database)."""
    found = stored_schema_version(connection)
    change = schema_change(found)
    if change is SchemaChange.rebuilt:
        _drop_everything(connection)
    elif found is not None and not has_layout(connection):
        _move_rows_out_of_main(connection)
    connection.execute(LAYOUT_SCHEMA)
    create_views(connection, stored_base(connection))
    if change is SchemaChange.upgraded:
        connection.execute("UPDATE pipeline_schema SET version = ?", [SCHEMA_VERSION])
    return change, found


def _move_rows_out_of_main(connection: duckdb.DuckDBPyConnection) -> None:
    """Lay out, in place, a database of the layout before bases, every table in `main`: its
    papers' rows move to `rows`. (An ingest does not: it keeps such a file whole as its base.)"""
    with Transaction(connection):
        connection.execute(f"CREATE SCHEMA IF NOT EXISTS {ROWS_SCHEMA}")
        connection.execute("DROP VIEW IF EXISTS chunk_pages")
        for table in _main_tables(connection) & set(TABLES_BY_DOCUMENT):
            connection.execute(f'CREATE TABLE {ROWS_SCHEMA}."{table}" AS SELECT * FROM main."{table}"')
            connection.execute(f'DROP TABLE main."{table}"')


def _main_tables(connection: duckdb.DuckDBPyConnection) -> set[str]:
    rows = connection.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main'"
    ).fetchall()
    return {name for (name,) in rows}


def last_run_id(connection: duckdb.DuckDBPyConnection) -> int:
    """The id of the last run recorded in the database, whatever its schema; 0 where none is."""
    try:
        return connection.execute("SELECT coalesce(max(run_id), 0) FROM runs").fetchone()[0]
    except duckdb.Error:
        return 0


@dataclass(frozen=True)
class LastRun:
    """The last run recorded in a database: the state a run that changes nothing leaves as it is."""

    run_id: int
    folder: str
    pipeline_version: str
    rules_sha256: str


def last_run(connection: duckdb.DuckDBPyConnection) -> LastRun | None:
    """The last run recorded in a database of a readable schema; None where it records none."""
    row = connection.execute(
        "SELECT run_id, folder, pipeline_version, rules_sha256 FROM runs ORDER BY run_id DESC LIMIT 1"
    ).fetchone()
    return LastRun(*row) if row else None


def readable_schema(connection: duckdb.DuckDBPyConnection) -> bool:
    """Whether this pipeline reads the database as it is: its schema, or one the next ingest
    upgrades in place (`READABLE_SCHEMA_VERSIONS`)."""
    return stored_schema_version(connection) in READABLE_SCHEMA_VERSIONS


def require_search_index(connection: duckdb.DuckDBPyConnection) -> None:
    """Refuse to search a database that an older pipeline wrote, saying how to rebuild it."""
    if not readable_schema(connection):
        raise IndexingError(
            "the database has no search index of this pipeline's version; run `pipeline ingest`, which rebuilds it"
        )


def stored_schema_version(connection: duckdb.DuckDBPyConnection) -> int | None:
    """The schema version of an existing database: None for a new one, 1 before versions were kept."""
    # Every search asks, so the table itself is read first: faster than asking information_schema.
    try:
        return connection.execute("SELECT max(version) FROM pipeline_schema").fetchone()[0]
    except duckdb.CatalogException:
        tables = {name for (name,) in connection.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        return 1 if "documents" in tables else None


def _drop_everything(connection: duckdb.DuckDBPyConnection) -> None:
    with Transaction(connection):
        connection.execute("DROP SCHEMA IF EXISTS fts_main_chunk_terms CASCADE")
        connection.execute(f"DROP SCHEMA IF EXISTS {ROWS_SCHEMA} CASCADE")
        for (name,) in connection.execute(
            "SELECT view_name FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal"
        ).fetchall():
            connection.execute(f'DROP VIEW "{name}"')
        for name in _main_tables(connection):
            connection.execute(f'DROP TABLE "{name}"')


class Transaction:
    """`with Transaction(connection):` commits on success and rolls back on any error."""

    def __init__(self, connection: duckdb.DuckDBPyConnection) -> None:
        self.connection = connection

    def __enter__(self) -> None:
        self.connection.execute("BEGIN TRANSACTION")

    def __exit__(self, kind, error, traceback) -> None:
        self.connection.execute("COMMIT" if kind is None else "ROLLBACK")


# ---------------------------------------------------------------- what is stored


@dataclass(frozen=True)
class StoredDocument:
    """What the database holds of a file, to tell whether it changed."""

    doc_id: str
    sha256: str
    rules_sha256: str
    pipeline_version: str
    status: str
    error: str | None = None


def stored_documents(connection: duckdb.DuckDBPyConnection) -> dict[str, StoredDocument]:
    """Stored papers by their path relative to the ingested folder."""
    rows = connection.execute(
        "SELECT path, doc_id, sha256, rules_sha256, pipeline_version, status, error FROM documents"
    ).fetchall()
    return {path: StoredDocument(*rest) for path, *rest in rows}


def stored_extractions(connection: duckdb.DuckDBPyConnection, extract_key: str) -> dict[str, str]:
    """doc_id → sha256 of the file, for every paper whose stored extraction this extractor made."""
    return dict(connection.execute("SELECT doc_id, sha256 FROM extractions WHERE extract_key = ?", [extract_key]).fetchall())


def read_extraction(connection: duckdb.DuckDBPyConnection, doc_id: str) -> str | None:
    """The RawDocument JSON stored for a paper, if any."""
    row = connection.execute("SELECT raw_document FROM extractions WHERE doc_id = ?", [doc_id]).fetchone()
    return row[0] if row else None


def has_table(connection: duckdb.DuckDBPyConnection, table: str) -> bool:
    """Whether the database has the table, as a table or as the view a library's catalog reads
    it through (`pipeline.index.layout`)."""
    row = connection.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = $table", {"table": table}).fetchone()
    return row[0] > 0
