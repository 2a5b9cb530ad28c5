"""The records the PDF passes hand on: a printed line, a row of them, a block of rows, and what the
document says about its body text; with the small functions over them more than one pass applies.

`page_reading.read_page` makes the `PrintedLine`s; `reading_order.order_page` joins those on one
baseline into a `Row`; `blocks.group_blocks` makes `PdfBlock`s of rows; `Layout` is measured
between the two (`body_text`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from pipeline.extract.pdf.typography import SAME_LINE_OVERLAP
from pipeline.records.base import BlockKind

PageBox = tuple[float, float, float, float]
"""x0, y0, x1, y1 in PyMuPDF's page coordinates: points, origin top left, y down."""


def union(boxes: list[PageBox]) -> PageBox:
    x0s, y0s, x1s, y1s = zip(*boxes)
    return min(x0s), min(y0s), max(x1s), max(y1s)


@dataclass(frozen=True, slots=True)
class Lead:
    """A line's leading run of words set in bold or italic: the whole line, or a run that lighter
    text follows on the line (a run-in heading, `Animal preparation. In total…`). Sought in
    horizontal text only, where x along the line is the page's own x."""

    end: int
    """Characters of the line's text in the run; a full stop or colon set just after it, in the
    lighter face, is counted in."""
    x1: float
    """Where the run ends along the line, in points."""
    rest_x0: float
    """Where the text after it starts, in points; `x1` where the run is the whole line."""
    bold: bool
    italic: bool
    font: str
    """The run's font."""


@dataclass(slots=True)
class PrintedLine:
    """One line as PyMuPDF reads it off the page, in the page's reading frame (x along the text, y
    down the page). The passes call these pieces: a printed line may be part of a row.

    A pass that changes one returns a copy (`dataclasses.replace`)."""

    page: int
    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    size: float
    font: str
    bold: bool
    small_caps: bool
    chars: int
    rotated: bool = False
    block: int = 0
    """The PyMuPDF block the line is in, numbered on its page."""
    aside: bool = False
    """Set beside the body in smaller print (`margins.mark_asides`)."""
    box: PageBox | None = None
    """The line's box in the page's own coordinates (PyMuPDF's, whatever the writing direction),
    where the line is printed; None for a box a pass draws around several lines to measure them."""
    superscripts: tuple[tuple[int, int], ...] = ()
    """Char ranges of `text` set as superscripts: flagged so by MuPDF, smaller than the line and raised."""
    estimated_size: bool = False
    """The font reports no usable size (a Type3 bitmap font): `size` is estimated from the glyphs."""
    label: str | None = None
    """What PyMuPDF's layout model calls the region the line is in (`section-header`, `text`,
    `page-footer`, …: `layout_model.LayoutLabel`); None where the model did not read the page."""
    lead: Lead | None = None
    """Its leading run in bold or italic, if it opens with one."""
    frame: tuple[int, int] = (1, 0)
    """Its writing direction, the cardinal one nearest (`page_reading.to_frame`): (0, -1) for a line that runs up the page."""
    monospaced: bool = False
    """Whether (nearly) all its characters are in a font that declares itself fixed-pitch (code, a command)."""
    color: int = 0
    """The sRGB colour most of its characters have (`0x000000` is black)."""


@dataclass(slots=True)
class Row:
    """Printed lines that share a baseline inside one column: the unit of paragraph building."""

    page: int
    group: int
    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    size: float
    font: str
    bold: bool
    small_caps: bool
    chars: int
    cells: int
    rotated: bool
    aside: bool = False
    box: PageBox | None = None
    """Its lines' boxes together, in page coordinates (`PrintedLine.box`)."""
    superscripts: tuple[tuple[int, int], ...] = ()
    """Char ranges of `text` set as superscripts (see `PrintedLine`)."""
    label: str | None = None
    """The layout model's label that most of its characters have (see `PrintedLine`)."""
    lead: Lead | None = None
    """Its leading run in bold or italic, if it opens with one (see `PrintedLine`)."""
    monospaced: bool = False
    """Whether its characters are in a fixed-pitch font (see `PrintedLine`)."""
    color: int = 0
    """The colour most of its characters have (see `PrintedLine`)."""
    ruled_above: bool = False
    """Whether a rule drawn across its column sets it apart from the line above it (`heading_rule_lines`)."""


@dataclass(frozen=True, slots=True)
class PdfBlock:
    """Rows that make one paragraph, list, table or heading; `level` is set on headings.

    Frozen: a pass that joins, splits or marks blocks returns new ones (`dataclasses.replace`).
    """

    kind: BlockKind
    rows: tuple[Row, ...]
    level: int | None = None
    evidence: tuple[str, ...] = ()
    """What made the block a heading, in words (`pipeline inspect` shows it)."""

    @property
    def text(self) -> str:
        return " ".join(row.text for row in self.rows)


@dataclass(slots=True)
class Layout:
    """What the whole document says about its body text, measured before blocks are built."""

    body_size: float
    """The running text's font size (`body_text.body_size`), in points."""
    pitch: float
    """Baseline-to-baseline distance of body lines, in body font sizes."""
    edges: dict[int, tuple[float, float]] = field(default_factory=dict)
    """Left and right edge of every column group, by group id."""
    body_face: str = ""
    """The font face (`font_face`) that carries the most characters at body size."""
    body_color: int = 0
    """The sRGB colour that carries the most characters at body size."""


def joined_superscripts(parts: list[tuple[str, tuple[tuple[int, int], ...]]], separator: str) -> tuple[tuple[int, int], ...]:
    """The superscripts of texts (each with its own) joined with `separator`, as ranges of the joined text."""
    if not any(superscripts for _, superscripts in parts):
        return ()
    joined: list[tuple[int, int]] = []
    offset = 0
    for text, superscripts in parts:
        joined.extend((offset + start, offset + end) for start, end in superscripts)
        offset += len(text) + len(separator)
    return tuple(joined)


def gathered_lines(pieces: Iterable[PrintedLine]) -> list[list[PrintedLine]]:
    """Printed lines gathered into lines across the page width, top to bottom (each line's pieces
    in the order they come: sorted by their tops)."""
    lines: list[list[PrintedLine]] = []
    bottom = 0.0  # of the last line's pieces, kept as they come rather than sought again for each piece
    for piece in sorted(pieces, key=lambda p: p.y0):
        if lines and piece.y0 < bottom - SAME_LINE_OVERLAP * (piece.y1 - piece.y0):
            lines[-1].append(piece)
            bottom = max(bottom, piece.y1)
        else:
            lines.append([piece])
            bottom = piece.y1
    return lines
