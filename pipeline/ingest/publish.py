"""Build a new state of the library apart and publish it atomically; one ingest at a time.

DuckDB allows one read-write process *or* many read-only ones on a file, never both, so an
ingest never opens the published file for writing. The library is a small published file, the
catalog, over a large base that is never written again (`pipeline.index.layout`). Once it knows
it has something to write, a run copies the catalog to a building file beside it
(`papers.duckdb.building-<pid>`, `Publication.build`), writes there, checkpoints, and
`os.replace`s the copy over the published path; the base is only read. Where the catalog has
outgrown its share of the base, `publish` first makes a new base and a fresh catalog over it
(`papers.duckdb.base-<token>`), each written whole and synced before the catalog that names it
is published. A database of the layout before bases, every table in one file, becomes the base
as it is, through a hard link: nothing is copied. A run with nothing to write makes no copy and
leaves the published file as it was. Readers (`pipeline sql`, `search`, the duckdb CLI with
`-readonly`) keep the files they opened and see the new state on their next connection; they are
never locked out. A run killed at any moment leaves the published files as they were; the next
run deletes the leftovers: building files, and bases the published catalog does not name.
A lock file (`papers.duckdb.lock`, flock) keeps a second ingest out; the kernel releases it when
the holder dies, even by `kill -9`.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import shutil
from pathlib import Path
from types import TracebackType

import duckdb

from pipeline.errors import IngestBusyError, PipelineError
from pipeline.index.database import (
    Transaction,
    building_file,
    building_files_pattern,
    ensure_schema,
    lock_file,
    open_for_writing,
    open_readonly,
    readable_schema,
    wal_file,
)
from pipeline.index.layout import (
    BASE,
    MIN_BASE_CHUNKS,
    REWRITE_FRACTION,
    ROWS_SCHEMA,
    SMALL_TABLES,
    Base,
    attach_base,
    create_views,
    has_layout,
    own_chunks,
    stored_base,
)
from pipeline.index.schema import POSTINGS_TABLES, TABLES_BY_DOCUMENT


def _fsync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _fsync(path: Path) -> None:
    with open(path, "rb+") as file:
        os.fsync(file.fileno())


def base_file(db: Path) -> Path:
    """A new name for a base of `db`, beside it."""
    return db.with_name(f"{db.name}.base-{secrets.token_hex(8)}")


def _base_files(db: Path) -> list[Path]:
    return sorted(db.parent.glob(f"{db.name}.base-*"))


class Publication:
    """The exclusive right to build the next state of `db`, and the file it is built in: a copy
    of `db`'s catalog once `build` is called."""

    def __init__(self, db: Path, memory_limit: str | None = None) -> None:
        self.db = db
        self.memory_limit = memory_limit
        self.lock_path = lock_file(db)
        self.building = building_file(db, os.getpid())
        self.catalog = self.building.with_name(self.building.name + ".catalog")
        self.leftovers_removed = 0
        self._new_base: Path | None = None
        self._lock_file = None
        self._published = False

    def __enter__(self) -> Publication:
        try:
            self.db.parent.mkdir(parents=True, exist_ok=True)
            self._lock_file = open(self.lock_path, "a+")
        except OSError as error:
            raise PipelineError(f"cannot create {self.lock_path}: {error.strerror}; check that the database folder is writable") from None
        try:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock_file.close()
            raise IngestBusyError(
                f"another ingest is running on {self.db} (it holds {self.lock_path}); wait for it to finish"
            ) from None
        try:
            self._remove_leftovers()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def build(self) -> None:
        """Copy the published catalog (and any write-ahead log beside it) to the building file, to
        write the next state in; with no published database, there is nothing to copy. A
        database of the layout before bases, or a catalog without base past `MIN_BASE_CHUNKS`,
        becomes the base of a new catalog instead, linked, not copied; one this pipeline cannot
        read is copied, to be rebuilt. A copy that fails halfway (a full disk) is deleted on
        leaving, as the building file always is unless published."""
        if not self.db.exists():
            return
        rows_schema = _published_as_base(self.db)
        if rows_schema is not None:
            self._new_base = base_file(self.db)
            os.link(self.db, self._new_base)
            _write_catalog(self.building, self.db, self._new_base, rows_schema, self.memory_limit)
            return
        shutil.copyfile(self.db, self.building)
        wal = wal_file(self.db)
        if wal.exists():  # left by someone who opened the published file read-write
            shutil.copyfile(wal, wal_file(self.building))

    def _remove_leftovers(self) -> None:
        """Delete building files of earlier runs (we hold the lock, so their runs are dead), and
        bases the published catalog does not name (made by a run killed before it published,
        or replaced by a later base).

        Besides the file and its WAL, a run killed while DuckDB spilled to disk (a sort or join
        larger than its memory limit) leaves the folder DuckDB spills into, `<building>.tmp`."""
        leftovers = list(self.db.parent.glob(building_files_pattern(self.db)))
        bases = _base_files(self.db)
        if bases and (named := _named_base(self.db)) is not None:
            leftovers += [path for path in bases if path.name != named]
        for leftover in leftovers:
            if leftover.is_dir() and not leftover.is_symlink():
                shutil.rmtree(leftover, ignore_errors=True)
            else:
                leftover.unlink(missing_ok=True)
            self.leftovers_removed += 1

    def publish(self) -> None:
        """Make the building file the published catalog, atomically; where it has outgrown its
        share of the base, a fresh catalog over a new base made from it."""
        published = self._settle_base()
        if self._new_base is not None:
            _fsync(self._new_base)
        _fsync(published)
        os.replace(published, self.db)
        _fsync_folder(self.db.parent)
        self._published = True

    def _settle_base(self) -> Path:
        """The file to publish: the building file, or a fresh catalog over a new base, which is
        the building file itself where the library had none, or else written from it."""
        connection = open_for_writing(self.building, self.db, self.memory_limit)
        try:
            base, own = stored_base(connection), own_chunks(connection)
            if own < (MIN_BASE_CHUNKS if base is None else max(1, base.chunks * REWRITE_FRACTION)):
                return self.building
            self._new_base = base_file(self.db)
            if base is not None:
                _write_base(connection, self._new_base)
        finally:
            connection.close()
        if base is None:
            os.replace(self.building, self._new_base)
        source = self._new_base if base is None else self.building
        _write_catalog(self.catalog, source, self._new_base, ROWS_SCHEMA, self.memory_limit)
        return self.catalog

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        for path in (self.building, self.catalog):
            path.unlink(missing_ok=True)
            wal_file(path).unlink(missing_ok=True)
        if not self._published and self._new_base is not None:
            self._new_base.unlink(missing_ok=True)
        if self._lock_file is not None:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()


def _published_as_base(db: Path) -> str | None:
    """The schema of the published database's papers' rows where it is to become a base as it is:
    one of the layout before bases (`main`) or a catalog without base (`rows`), either past
    `MIN_BASE_CHUNKS`; None where it is copied (a catalog, one to rebuild, or one with a write-ahead log
    beside it, which a link would leave behind)."""
    if wal_file(db).exists():
        return None
    connection = open_readonly(db)
    try:
        if not readable_schema(connection):
            return None
        if not has_layout(connection):
            # A small one is copied and laid out in place (`ensure_schema`), as a new library of
            # its size would be: a base would only make its readers attach a second file.
            return "main" if _main_chunks(connection) >= MIN_BASE_CHUNKS else None
        return ROWS_SCHEMA if stored_base(connection) is None and own_chunks(connection) >= MIN_BASE_CHUNKS else None
    finally:
        connection.close()


def _main_chunks(connection: duckdb.DuckDBPyConnection) -> int:
    """Chunks of a database of the layout before bases (every table in `main`)."""
    try:
        return connection.execute("SELECT count(*) FROM main.chunks").fetchone()[0]
    except duckdb.CatalogException:
        return 0


def _named_base(db: Path) -> str | None:
    """The file name of the base the published catalog names ("" where it names none); None
    where the published file cannot be read, so that no base is taken for a leftover."""
    if not db.exists():
        return ""
    try:
        connection = duckdb.connect(str(db), read_only=True, config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    except duckdb.Error:
        return None
    try:
        base = stored_base(connection)
    finally:
        connection.close()
    return base.file if base else ""


def _write_base(connection: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Write every paper's rows as the library holds them (its base's, less the hidden, and the
    catalog's) into a new base file, each postings table in term order."""
    quoted = str(path).replace("'", "''")
    connection.execute(f"ATTACH '{quoted}' AS next_base")
    try:
        connection.execute(f"CREATE SCHEMA next_base.{ROWS_SCHEMA}")
        for table in TABLES_BY_DOCUMENT:
            order = f" ORDER BY term, {POSTINGS_TABLES[table][1]}" if table in POSTINGS_TABLES else ""
            connection.execute(f"CREATE TABLE next_base.{ROWS_SCHEMA}.{table} AS SELECT * FROM main.{table}{order}")
        connection.execute(f"CREATE INDEX chunks_by_id ON next_base.{ROWS_SCHEMA}.chunks (chunk_id)")
        connection.execute("CHECKPOINT next_base")
    finally:
        connection.execute("DETACH next_base")


def _write_catalog(target: Path, source: Path, base: Path, rows_schema: str, memory_limit: str | None) -> None:
    """Write a fresh catalog at `target` over the base at `base` (its papers' rows in
    `rows_schema`), with no rows of its own and the small tables of the database at `source`."""
    connection = open_for_writing(target, memory_limit=memory_limit)
    try:
        ensure_schema(connection)
        quoted = str(source).replace("'", "''")
        connection.execute(f"ATTACH '{quoted}' AS source_catalog (READ_ONLY)")
        found = {name for (name,) in connection.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = 'source_catalog' AND schema_name = 'main'"
        ).fetchall()}
        with Transaction(connection):
            for table in SMALL_TABLES:
                if table in found:
                    connection.execute(f"DELETE FROM main.{table}")
                    connection.execute(f"INSERT INTO main.{table} SELECT * FROM source_catalog.main.{table}")
            connection.execute("UPDATE main.search_index_state SET unsorted_rows = 0")
        connection.execute("DETACH source_catalog")
        connection.execute(f"INSERT INTO {ROWS_SCHEMA}.library_base VALUES (?, ?, 0)", [base.name, rows_schema])
        attached = attach_base(connection, target)
        chunks = connection.execute(f"SELECT count(*) FROM {BASE}.{rows_schema}.chunks").fetchone()[0]
        connection.execute(f"UPDATE {ROWS_SCHEMA}.library_base SET chunks = ?", [chunks])
        create_views(connection, Base(attached.file, attached.rows_schema, chunks))
        connection.execute("CHECKPOINT")
    finally:
        connection.close()
