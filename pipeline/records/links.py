"""The link stage's records: the paper's own bibliography, the citations its chunks hold, and
their cross-references.
"""

from __future__ import annotations

from enum import StrEnum

from pipeline.records.base import Record


class Reference(Record):
    """One entry of the paper's own bibliography, as the paper prints it. What the entry shows
    is read off it; nothing is looked up, nothing guessed."""

    ref_id: str
    """`R1`, `R2`, … in the paper's order."""
    ordinal: int
    """1-based position in the bibliography."""
    label: str | None
    """The label the paper prints before the entry (`1`, `[12]`), if any."""
    text: str
    """The entry as written: `Document.text[char_start:char_end]`."""
    char_start: int
    char_end: int
    line_start: int | None
    line_end: int | None
    page_start: int | None
    page_end: int | None
    doi: str | None = None
    year: str | None = None
    """The first year the entry shows, with its letter where it has one (`2020a`)."""
    first_author: str | None = None
    """The surname the entry starts with."""


class CitationResolution(StrEnum):
    """How an in-text citation marker found its entry, or why it did not."""

    number = "number"
    """A numeric marker (`[3]`, a member of `[3-7]`) naming an entry by its label."""
    author_year = "author_year"
    """An author–year marker matching one entry's first author and year."""
    ref_id = "ref_id"
    """A marker that names the entry's id (`[R1]`)."""
    missing = "missing"
    """No entry has this label, or this author and year: a broken citation."""
    ambiguous = "ambiguous"
    """More than one entry matches; none is chosen."""


class Citation(Record):
    """A marker in a chunk's text that cites the paper's bibliography; a range gives one per member."""

    chunk_id: str
    ref_id: str | None
    """The entry cited; None where the marker resolves to none (see `resolution`)."""
    marker: str
    """The marker as written (`[3-7]` for every member of that range)."""
    char_start: int
    """Offsets of the marker inside the chunk's text."""
    char_end: int
    resolution: CitationResolution
    detail: str | None = None
    """Which member of a range, or why it is unresolved, in words."""


class LinkKind(StrEnum):
    table = "table"
    figure = "figure"
    section = "section"
    appendix = "appendix"
    supplementary = "supplementary"
    equation = "equation"
    anchor = "anchor"
    """An explicit id: a paragraph or section id (`S2-P1`), or a label a heading starts with (`@C03`)."""


class Link(Record):
    """A cross-reference in a chunk's text to another part of the paper."""

    chunk_id: str
    kind: LinkKind
    label: str
    """As written: `Table 2`, `Fig. 3B`, `Section 4.2`, `@C03`."""
    char_start: int
    """Offsets of the label inside the chunk's text."""
    char_end: int
    target_chunk_id: str | None
    """The chunk the label points to (a table's or figure's caption chunk, a section's first
    chunk); None where it points outside the paper or nowhere (see `reason`)."""
    reason: str | None = None
