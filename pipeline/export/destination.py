"""Writing the file a user named (`export --out`, `report --html`, `show --out`) as a shell's `>`
would: a regular file (or a new one) is replaced whole, and anything else is written through.

Replacing whatever is at the path would put a regular file where /dev/null was, and swap a link
or a FIFO for a file that nothing reads.
"""

from __future__ import annotations

import errno
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import duckdb

from pipeline.errors import PipelineError
from pipeline.index.database import checks_file, is_base_file, is_building_file, lock_file, wal_file

STANDARD_OUTPUT = "-"


def write_out(out: Path, write: Callable[[Path], None], database: Path | None = None) -> None:
    """Write `out` through `write(staged)`, which writes a whole file at the path it is given.

    `-` is standard output, and a link is followed to its target. A regular file, or a new one,
    is written beside itself and moved into place, so a reader sees the last file or this one
    whole, never half of one. Anything else there (a device, a FIFO), and a name of a descriptor
    (/dev/stdout), is written through. A path that is `database` or a file an ingest keeps beside
    it is refused (`refuse_database_files`).
    """
    if str(out) == STANDARD_OUTPUT:
        _write_through(out, None, write)
        return
    refuse_database_files(out, database)
    target = Path(os.path.realpath(out))
    if target.is_dir():
        raise PipelineError(f"{out} is a folder; pass the path of a file, in it or elsewhere")
    if (target.exists() and not target.is_file()) or _names_a_descriptor(out):
        _write_through(out, out, write)
        return
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise PipelineError(f"cannot create the folder of {out}: {error.strerror}; check the path") from None
    staged = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        write(staged)
        os.replace(staged, target)
    except OSError as error:
        raise PipelineError(f"cannot write {out}: {_cause(error)}; check that its folder is writable and has room") from None
    finally:
        remove_staged(staged)


def remove_staged(staged: Path) -> None:
    """Remove a file a write staged, where there is one. Looked for first: on a read-only file
    system, removing a name that is not there fails with EROFS, not ENOENT, and would hide the
    error that says why nothing was written."""
    if not os.path.lexists(staged):
        return
    try:
        staged.unlink()
    except OSError as error:
        raise PipelineError(f"cannot remove {staged}, which a failed write left behind: {_cause(error)}; delete it") from None


def write_bytes_out(out: Path, content: bytes, database: Path | None = None) -> None:
    """`write_out` for content already in memory."""
    write_out(out, lambda staged: staged.write_bytes(content), database)


def refuse_database_files(out: Path, database: Path | None) -> None:
    """Refuse to write `out` where it is, links followed, the database the command reads, its
    write-ahead log, the lock an ingest holds beside it, its log of runs that changed nothing, or a
    copy an ingest is building, or the library's base: written over, the database is gone (`export --out X.duckdb` once
    left JSON lines where it was)."""
    if database is None:
        return
    target, stored = Path(os.path.realpath(out)), Path(os.path.realpath(database))
    if target in (stored, wal_file(stored), lock_file(stored), checks_file(stored)) or is_building_file(target, stored) or is_base_file(target, stored):
        raise PipelineError(
            f"{out} is the database {database} or a file an ingest keeps beside it; writing there would destroy "
            "the database: pass another path"
        )


def connection_database(connection: duckdb.DuckDBPyConnection) -> Path | None:
    """The file the connection's database is stored in; None for one in memory."""
    row = connection.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchone()
    return Path(row[0]) if row and row[0] else None


def _write_through(out: Path, target: Path | None, write: Callable[[Path], None]) -> None:
    """Write into a file of its own first (DuckDB's COPY writes Parquet to a path it can seek in),
    then copy it to `target`, or to standard output where `target` is None."""
    with tempfile.TemporaryDirectory(prefix="pipeline-out-") as folder:
        staged = Path(folder) / f"staged{out.suffix}"
        try:
            write(staged)
        except OSError as error:
            raise PipelineError(
                f"cannot stage {out} in {folder}: {_cause(error)}; free some room there or set TMPDIR to a folder that has it"
            ) from None
        try:
            with open(staged, "rb") as source:
                if target is None:
                    sys.stdout.flush()
                    shutil.copyfileobj(source, sys.stdout.buffer)
                    sys.stdout.buffer.flush()
                else:
                    # Appending truncates nothing: a descriptor's file holds what was written to it
                    # before (`>>`, or a shell's `{ …; } >`), and a device or a pipe has no end to cut.
                    with open(target, "ab") as sink:
                        shutil.copyfileobj(source, sink)
        except OSError as error:
            raise PipelineError(f"cannot write {out}: {_cause(error)}; check the device or pipe it names, or pass a file path") from None


def _names_a_descriptor(out: Path) -> bool:
    """Whether `out` names an open descriptor (/dev/stdout, /dev/fd/1, /proc/self/fd/1, or a link
    to one). Its target may be a regular file, but the shell opened that one (`>>` to append, a
    file another process reads): replaced, the output would miss the descriptor altogether."""
    path = os.path.abspath(out)
    for _ in range(_LINKS_FOLLOWED):
        if path.startswith(("/proc/", "/dev/fd/")):
            return True
        if not os.path.islink(path):
            return False
        path = os.path.normpath(os.path.join(os.path.dirname(path), os.readlink(path)))
    return False


_LINKS_FOLLOWED = 40
"""Links in a row followed before giving up, as Linux does (ELOOP past 40)."""


def _cause(error: OSError) -> str:
    """The error's reason with its errno's name, which a search for the failure finds (ENOSPC)."""
    name = errno.errorcode.get(error.errno or 0)
    return f"{error.strerror} ({name})" if name and error.strerror else str(error)
