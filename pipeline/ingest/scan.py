"""What a run finds in the folder: every paper file, its doc_id, and its bytes' hash."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from pipeline.extract import SUPPORTED_SUFFIXES

_SLUG_UNSAFE = re.compile(r"[^\w]+", re.UNICODE)


@dataclass(frozen=True)
class ScannedFile:
    """One paper file as the run found it."""

    file: Path
    path: str
    """Relative to the ingested folder, with `/` separators: the key a run compares by."""
    doc_id: str
    sha256: str
    """Of the file's bytes; empty where they could not be read."""
    bytes: int
    read_error: str | None
    """Why the file could not be read, naming it; None where it was."""


def doc_id_for(relative_path: str) -> str:
    """A readable, stable id from a path: `Reviews/Berek 2021.md` → `reviews/berek-2021`."""
    stem = relative_path.rsplit(".", 1)[0] if "." in relative_path.rsplit("/", 1)[-1] else relative_path
    parts = [_SLUG_UNSAFE.sub("-", part.lower()).strip("-") for part in stem.split("/")]
    return "/".join(part or "_" for part in parts)


def find_papers(folder: Path) -> list[Path]:
    """Every Markdown and PDF file below `folder`, in a stable order; links to folders are not
    followed, so a symlink loop cannot trap the run."""
    found = []
    for root, folders, files in os.walk(folder, followlinks=False):
        folders[:] = sorted(name for name in folders if not name.startswith("."))
        found.extend(Path(root) / name for name in files if name.lower().endswith(SUPPORTED_SUFFIXES))
    return sorted(found, key=lambda path: path.relative_to(folder).as_posix())


def assign_doc_ids(paths: list[str]) -> dict[str, str]:
    """Doc ids for relative paths; where two files share a slug (`a.md`, `a.pdf`), the later one
    in path order keeps its extension in the id."""
    ids: dict[str, str] = {}
    taken: set[str] = set()
    for path in sorted(paths):
        doc_id = doc_id_for(path)
        if doc_id in taken:
            doc_id = f"{doc_id}-{path.rsplit('.', 1)[-1].lower()}"
        taken.add(doc_id)
        ids[path] = doc_id
    return ids


def scan_folder(folder: Path) -> list[ScannedFile]:
    """Every paper below `folder` with its id and hash; a file that cannot be read is kept, with why."""
    files = find_papers(folder)
    relative = [file.relative_to(folder).as_posix() for file in files]
    doc_ids = assign_doc_ids(relative)
    scanned = []
    for file, path in zip(files, relative):
        try:
            data = file.read_bytes()
        except OSError as error:
            cause = f"{path}: cannot read the file: {error.strerror}; check its permissions"
            scanned.append(ScannedFile(file, path, doc_ids[path], "", 0, cause))
            continue
        scanned.append(ScannedFile(file, path, doc_ids[path], hashlib.sha256(data).hexdigest(), len(data), None))
    return scanned
