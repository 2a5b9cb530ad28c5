"""A paper's id, made of its path relative to the ingested folder, and the path it names: what the
run stores papers under and what `show` and the report find their files by, apart from the run."""

from __future__ import annotations

import os
import re
from urllib.parse import unquote_to_bytes

# Kept as they are in a doc_id; every other character is written as %XX of its bytes.
_KEPT_IN_IDS = frozenset("-._~/")
# A path of these alone is its own id: most are, and a scan makes an id of every paper each night.
_ITS_OWN_ID = re.compile(r"[A-Za-z0-9._~/-]*")


def shown_path(relative: str) -> str:
    """A relative path as text that can be stored and printed: bytes that are not UTF-8 (the
    file system allows them in names) as `\\xNN`."""
    return relative.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def doc_id_for(relative_path: str) -> str:
    """A paper's id: its relative path, letters, digits and `- . _ ~ /` as they are, every other
    character as `%XX` of its UTF-8 bytes (`Reviews/Berek 2021.md` → `Reviews/Berek%202021.md`).

    It depends on the path alone, so adding a file never renames another, and no two paths share
    one; it holds no `:`, so `{doc_id}:{ordinal}` names a chunk unambiguously."""
    if _ITS_OWN_ID.fullmatch(relative_path):
        return relative_path
    parts = []
    for character in relative_path:
        if character in _KEPT_IN_IDS or (character.isalnum() and character.isprintable()):
            parts.append(character)
        else:
            parts.append("".join(f"%{byte:02X}" for byte in character.encode("utf-8", "surrogateescape")))
    return "".join(parts)


def relative_path_of(doc_id: str) -> str:
    """The relative path `doc_id_for` made `doc_id` of, as the file system names it: `shown_path`
    cannot be turned back (a name may hold `\\xff` as four characters), a doc_id can."""
    return os.fsdecode(unquote_to_bytes(doc_id))
