"""Build a new database state apart and publish it atomically; one ingest at a time.

DuckDB allows one read-write process *or* many read-only ones on a file, never both, so an
ingest never opens the published file for writing. Once it knows it has something to write, it
copies it to a building file beside it (`papers.duckdb.building-<pid>`, `Publication.build`),
writes there, checkpoints, and `os.replace`s the copy over the published path. A run with
nothing to write makes no copy and leaves the published file as it was. Readers (`pipeline sql`, `search`, the duckdb CLI with `-readonly`) keep the file
they opened and see the new state on their next connection; they are never locked out. A run
killed at any moment leaves the published file as it was; the next run deletes the leftovers.
A lock file (`papers.duckdb.lock`, flock) keeps a second ingest out; the kernel releases it when
the holder dies, even by `kill -9`.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path
from types import TracebackType

from pipeline.errors import IngestBusyError, PipelineError
from pipeline.index.database import building_file, building_files_pattern, lock_file, wal_file


def _fsync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


class Publication:
    """The exclusive right to build the next state of `db`, and the file it is built in: a copy
    of `db` once `build` is called."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.lock_path = lock_file(db)
        self.building = building_file(db, os.getpid())
        self.leftovers_removed = 0
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
        """Copy the published database (and any write-ahead log beside it) to the building file,
        to write the next state in; with no published database, there is nothing to copy. A copy
        that fails halfway (a full disk) is deleted on leaving, as the building file always is
        unless published."""
        if self.db.exists():
            shutil.copyfile(self.db, self.building)
            wal = wal_file(self.db)
            if wal.exists():  # left by someone who opened the published file read-write
                shutil.copyfile(wal, wal_file(self.building))

    def _remove_leftovers(self) -> None:
        """Delete building files of earlier runs: we hold the lock, so their runs are dead.

        Besides the file and its WAL, a run killed while DuckDB spilled to disk (a sort or join
        larger than its memory limit) leaves the folder DuckDB spills into, `<building>.tmp`."""
        for leftover in self.db.parent.glob(building_files_pattern(self.db)):
            if leftover.is_dir() and not leftover.is_symlink():
                shutil.rmtree(leftover, ignore_errors=True)
            else:
                leftover.unlink(missing_ok=True)
            self.leftovers_removed += 1

    def publish(self) -> None:
        """Make the building file the published database, atomically."""
        with open(self.building, "rb+") as building:
            os.fsync(building.fileno())
        os.replace(self.building, self.db)
        _fsync_folder(self.db.parent)
        self._published = True

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if not self._published:
            self.building.unlink(missing_ok=True)
        wal_file(self.building).unlink(missing_ok=True)
        if self._lock_file is not None:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()
