"""Reading a page's citation markers: `[chunk:ID]` and `[chunk:ID, ID]` inline, `[^ID]`
footnotes whose label is the id, and `[^label]` footnotes whose definition names the ids.

A chunk id is `{doc_id}:{ordinal}`; a doc_id holds no `:` (see `pipeline.ingest.scan.doc_id_for`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# `[chunk:a]`, `[chunk: a, chunk:b; c]`: one bracket, ids apart by commas, semicolons or spaces.
_INLINE = r"\[chunk:[^\]\n]*\]"
# `[^label]`, not the `[^label]:` that starts a definition (those are taken out first).
_FOOTNOTE = r"\[\^[^\]\s]+\](?!:)"
# A marker and the spaces before it, which go with it: `effect [chunk:a].` reads `effect.`.
# Only from where a run of spaces starts: tried inside a long run, each start would read it to its end.
MARKER = re.compile(rf"(?<![ \t])[ \t]*(?:{_INLINE}|{_FOOTNOTE})")
_DEFINITION = re.compile(r"^\[\^([^\]\s]+)\]:[ \t]?(.*)$")
_CONTINUATION = re.compile(r"^(?: {2,}|\t)\S")
# An id inside a footnote's text: no `:` in the doc_id, a number after the one `:`; not the tail
# of a URL (`http://x.org:8080`) or of a longer word.
_ID_IN_TEXT = re.compile(r"(?<![\w/:.%~-])(?:chunk:)?([\w.~/%-]+:\d+)(?![\w:])")
_ID = re.compile(r"[^\s:,;\[\]]+:\d+")
_SEPARATORS = re.compile(r"[\s,;]+")


@dataclass(frozen=True)
class Footnotes:
    """The page's footnote definitions, label → their text, and the page without them."""

    definitions: dict[str, str]
    body: str
    """The page with each definition's lines blanked, so that line numbers stay the page's own."""


def take_footnotes(page: str) -> Footnotes:
    """Take out `[^label]: text` definitions (with their indented continuation lines)."""
    lines = page.split("\n")
    definitions: dict[str, str] = {}
    label = None
    for number, line in enumerate(lines):
        found = _DEFINITION.match(line)
        if found:
            label = found.group(1)
            definitions[label] = found.group(2)
        elif label is not None and _CONTINUATION.match(line):
            definitions[label] += " " + line.strip()
        else:
            label = None
            continue
        lines[number] = ""
    return Footnotes(definitions, "\n".join(lines))


@dataclass(frozen=True)
class MarkerIds:
    """The chunk ids one marker names, with the footnote they came through, and its problems."""

    ids: tuple[tuple[str, str | None], ...]
    """(chunk id, footnote label or None)."""
    errors: tuple[str, ...]


def read_marker(marker: str, definitions: dict[str, str]) -> MarkerIds:
    """The ids a marker (as `MARKER` matched it) names."""
    marker = marker.strip()
    if marker.startswith("[chunk:"):
        items = [item.removeprefix("chunk:") for item in _SEPARATORS.split(marker[len("[chunk:") : -1]) if item]
        bad = [item for item in items if not _ID.fullmatch(item)]
        errors = tuple(f"{marker}: {item!r} is no chunk id (write doc_id:ordinal, e.g. reviews/berek-2021.md:12)" for item in bad)
        if not items:
            errors = (f"{marker} names no chunk id",)
        return MarkerIds(tuple((item, None) for item in items if item not in bad), errors)
    label = marker[2:-1]
    if label in definitions:
        found = _ID_IN_TEXT.findall(definitions[label])
        if not found:
            return MarkerIds((), (f"{marker}: its footnote names no chunk id (it reads {definitions[label]!r})",))
        return MarkerIds(tuple((chunk_id, label) for chunk_id in dict.fromkeys(found)), ())
    if _ID.fullmatch(label.removeprefix("chunk:")):
        return MarkerIds(((label.removeprefix("chunk:"), None),), ())
    return MarkerIds((), (f"{marker}: no footnote defines it, and its label is no chunk id",))
