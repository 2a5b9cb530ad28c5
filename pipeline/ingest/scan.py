"""What a run finds in the folder: every paper file, its doc_id and its bytes' hash, and the
folders it could not list."""

from __future__ import annotations

import errno
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.extract import SUPPORTED_SUFFIXES
from pipeline.records.doc_ids import doc_id_for, relative_path_of, shown_path  # noqa: F401  (a paper's id, importable from here too)


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

    def note(error: OSError) -> None:
        if unlisted is not None:
            where = Path(error.filename).relative_to(folder).as_posix() if error.filename else "."
            unlisted[shown_path(where)] = error.strerror or str(error)

    found = []
    walked = {os.path.realpath(folder)}
    for root, folders, files in os.walk(folder, onerror=note, followlinks=True):
        kept = []
        for name in sorted(name for name in folders if not name.startswith(".")):
            real = os.path.realpath(os.path.join(root, name))
            if real not in walked:
                walked.add(real)
                kept.append(name)
        folders[:] = kept
        found.extend(Path(root) / name for name in files if name.lower().endswith(SUPPORTED_SUFFIXES))
    return sorted(found, key=lambda path: path.relative_to(folder).as_posix())


def _read_failure(path: str, error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return f"{path}: a symbolic link that loops back on itself; point it at the paper or remove it"
    if error.errno == errno.ENOENT:
        return f"{path}: a symbolic link to a file that does not exist; point it at the paper or remove it"
    if error.errno in (errno.EACCES, errno.EPERM):
        return f"{path}: cannot read the file: {error.strerror}; check its permissions"
    return f"{path}: cannot read the file: {error.strerror}"


def scan_folder(folder: Path) -> FolderScan:
    """Every paper below `folder` with its id and hash; a file that cannot be read is kept, with why."""
    unlisted: dict[str, str] = {}
    scanned = []
    for file in find_papers(folder, unlisted):
        relative = file.relative_to(folder).as_posix()
        path = shown_path(relative)
        try:
            data = file.read_bytes()
        except OSError as error:
            scanned.append(ScannedFile(file, path, doc_id_for(relative), "", 0, _read_failure(path, error)))
            continue
        scanned.append(ScannedFile(file, path, doc_id_for(relative), hashlib.sha256(data).hexdigest(), len(data), None))
    return FolderScan(scanned, unlisted)
