"""What a run finds in the folder: every paper file, its doc_id, its stat and its bytes' hash,
and the folders it could not list.

A file is compared by its stat first, as git's index and rsync do: one whose size, mtime and
inode are those the database stored with its hash (`KnownFile`) is taken to hold those very
bytes, and is not read. Any other is read and hashed. The stat stored is taken through the
descriptor the bytes are then read from, before them, so a change made while or after they are
read leaves the file with another stat, which the next run reads again.
"""

from __future__ import annotations

import errno
import hashlib
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.extract import SUPPORTED_SUFFIXES
from pipeline.records.doc_ids import doc_id_for, relative_path_of, shown_path  # noqa: F401  (a paper's id, importable from here too)

# A file written this close before its stat was taken could be written again within the same tick
# of the file system's clock (a jiffy on ext4, 2 s on FAT) and keep its size, mtime and inode: its
# stat vouches for nothing (git's "racily clean" entries), so it is not stored and the next run
# reads the file again.
SETTLED_NS = 2_000_000_000


@dataclass(frozen=True)
class FileStat:
    """What the file system says of a file, compared instead of its bytes."""

    size: int
    """Bytes."""
    mtime_ns: int
    """Last modified, in nanoseconds since the epoch."""
    inode: int
    """Another file put in its place (a copy renamed over it) has another, whatever its size and mtime."""


@dataclass(frozen=True)
class KnownFile:
    """What the database stored of a file's last reading (`file_stats`): its stat, taken before
    its bytes were read, and their hash."""

    stat: FileStat
    sha256: str


@dataclass(frozen=True)
class ScannedFile:
    """One paper file as the run found it."""

    file: Path
    path: str
    """Relative to the ingested folder, with `/` separators (see `shown_path`): the key a run
    compares by."""
    doc_id: str
    sha256: str
    """Of the file's bytes; empty where they could not be read."""
    bytes: int
    read_error: str | None
    """Why the file could not be read, naming it; None where it was."""
    stat: FileStat | None = None
    """Taken before its bytes were read (or instead of reading them); None where it could not be
    taken, or where the file was written too shortly before for the stat to vouch for its bytes
    (`SETTLED_NS`)."""
    hashed: bool = True
    """Whether the scan read and hashed its bytes; False where its stat was the one stored with
    `sha256` (`KnownFile`)."""


@dataclass(frozen=True)
class FolderScan:
    files: list[ScannedFile]
    unlisted_folders: dict[str, str] = field(default_factory=dict)
    """Folders that could not be listed, relative to the ingested one (`.` for itself), and the
    system's reason: the papers stored under them are kept and reported, never removed."""


def find_papers(folder: Path, unlisted: dict[str, str] | None = None) -> list[Path]:
    """Every Markdown and PDF file below `folder`, in a stable order. A link to a folder is
    followed (a library is often assembled from links to archives elsewhere) unless the folder it
    leads to was already walked: a loop then ends there, and a folder reached twice is read once,
    under the first of its paths. Folders that cannot be listed go into `unlisted` (relative
    path → why)."""
    return [file for _, file in _papers_below(folder, unlisted)]


def _papers_below(folder: Path, unlisted: dict[str, str] | None) -> list[tuple[str, Path]]:
    """`find_papers`, each file with its path relative to `folder` in `/` form, the order's key.
    Made as strings, a folder at a time: a library's scan runs it for every paper every night,
    and pathlib's parsing of each path, twice over, cost more than the walk."""

    def note(error: OSError) -> None:
        if unlisted is not None:
            where = Path(error.filename).relative_to(folder).as_posix() if error.filename else "."
            unlisted[shown_path(where)] = error.strerror or str(error)

    found = []
    top = os.fspath(folder)
    walked = {os.path.realpath(folder)}
    for root, folders, files in os.walk(top, onerror=note, followlinks=True):
        kept = []
        for name in sorted(name for name in folders if not name.startswith(".")):
            real = os.path.realpath(os.path.join(root, name))
            if real not in walked:
                walked.add(real)
                kept.append(name)
        folders[:] = kept
        prefix = "" if root == top else Path(os.path.relpath(root, top)).as_posix() + "/"
        found.extend((prefix + name, os.path.join(root, name)) for name in files if name.lower().endswith(SUPPORTED_SUFFIXES))
    return [(relative, Path(file)) for relative, file in sorted(found)]


def _read_failure(path: str, error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return f"{path}: a symbolic link that loops back on itself; point it at the paper or remove it"
    if error.errno == errno.ENOENT:
        return f"{path}: a symbolic link to a file that does not exist; point it at the paper or remove it"
    if error.errno in (errno.EACCES, errno.EPERM):
        return f"{path}: cannot read the file: {error.strerror}; check its permissions"
    return f"{path}: cannot read the file: {error.strerror}"


def scan_folder(folder: Path, known: Mapping[str, KnownFile] | None = None, rehash: bool = False) -> FolderScan:
    """Every paper below `folder` with its id, stat and hash; a file that cannot be read is kept,
    with why. A file whose stat is the one `known` holds for its doc_id is not read: the hash
    stored with that stat is its hash. `rehash` reads every file whatever its stat."""
    known = {} if rehash or known is None else known
    unlisted: dict[str, str] = {}
    scanned = []
    for relative, file in _papers_below(folder, unlisted):
        path, doc_id = shown_path(relative), doc_id_for(relative)
        try:
            scanned.append(_scanned(file, path, doc_id, known.get(doc_id)))
        except OSError as error:
            scanned.append(ScannedFile(file, path, doc_id, "", 0, _read_failure(path, error), hashed=False))
    return FolderScan(scanned, unlisted)


def _scanned(file: Path, path: str, doc_id: str, known: KnownFile | None) -> ScannedFile:
    if known is not None:
        stat = FileStat(*_stat_fields(os.stat(file)))
        if stat == known.stat:
            return ScannedFile(file, path, doc_id, known.sha256, stat.size, None, stat, hashed=False)
    stat, sha256, size = read_and_hash(file)
    return ScannedFile(file, path, doc_id, sha256, size, None, stat)


def read_and_hash(file: Path) -> tuple[FileStat | None, str, int]:
    """The file's stat, then the sha256 and the length of its bytes, read through the same
    descriptor: the stat is of the very file whose bytes are hashed, taken before them (a stat
    taken after could be that of a change made since the read, and vouch for bytes never read).
    The stat is None where the file was written too shortly before it (`SETTLED_NS`)."""
    with open(file, "rb") as handle:
        taken_ns = time.time_ns()
        size, mtime_ns, inode = _stat_fields(os.fstat(handle.fileno()))
        sha256 = hashlib.file_digest(handle, "sha256").hexdigest()
        read = handle.tell()
    settled = mtime_ns < taken_ns - SETTLED_NS
    return (FileStat(size, mtime_ns, inode) if settled else None), sha256, read


def _stat_fields(result: os.stat_result) -> tuple[int, int, int]:
    return result.st_size, result.st_mtime_ns, result.st_ino
