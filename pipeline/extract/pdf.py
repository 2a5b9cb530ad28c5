"""Extract a PDF paper into blocks in reading order, each block cut into per-page segments.

PyMuPDF reads every page once (`get_text("dict")`, images off); everything after that is
geometry and typography on its lines, in passes:

1. `read_page`: PyMuPDF lines → pieces with a box (in the page's writing direction), the size
   and font most of their characters have, bold and small caps.
2. `drop_running_lines`: margin lines whose text (digits masked) recurs at the same height on
   other pages are journal heads, author lines and page numbers; they are dropped and counted.
3. `find_columns`: a gutter is a strip that lines of column width leave empty; a gutter found on
   several pages is also sought where one page's own evidence is weak.
4. `order_page`: a page is read column by column between full-width pieces (title, abstract,
   wide figures and tables), which keep their place; pieces on one baseline become a row.
5. `group_blocks`: rows → blocks, cut where the column changes, at a vertical gap, at a
   first-line indent after a finished line, at a change of size or weight, a bullet or a caption.
6. `mark_headings`: the title, then outline (`get_toc()`) titles found on their pages, then
   typography: larger than body, or bold or capitals at body size; numbering gives the depth and
   distinct styles map to levels by prominence.
7. `join_continuations`: a paragraph cut at the end of a column or page joins the one that
   carries on at the top of the next; captions, tables and footnotes between them move after it.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

from pipeline.errors import ExtractError, NoTextLayerError
from pipeline.models import BlockKind, RawBlock, RawDocument, SourceFormat, TextSegment

_TEXT_FLAGS = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|medi|\.b$|,b$|-b$|cmbx|sfbx|bx\d", re.IGNORECASE)
_SMALL_CAPS_FONT = re.compile(r"smallcaps|small-caps|cmcsc|sfcc|-sc$|sc$|caps", re.IGNORECASE)
_NUMBERING = re.compile(
    r"^(?:(?P<arabic>\d{1,2}(?:\.\d{1,2})*)\.?|(?P<roman>[IVX]{1,5})\.|(?P<letter>[A-Z])(?:(?P<sub>(?:\.\d{1,2})+)\.?|[.)]))"
    r"\s+(?=\S)"
)
_CAPTION_START = re.compile(r"^(?:fig(?:ure)?|table|tab|scheme|plate|chart|box)\.?\s*[A-Z]?\d", re.IGNORECASE)
_BULLETS = "•◦▪▫‣∙·●○■□–—-\uf0b7\uf0a7\u2043"
_TERMINAL = ".!?:"
_PAGE_NUMBER = re.compile(r"^(?:page\s+)?(?:\d{1,4}|[ivx]{1,5})(?:\s+of\s+\d{1,4})?$", re.IGNORECASE)
_CONTINUING_WORDS = frozenset(
    "a an the of and or in on at to for with by from as is are was were be that which than into "
    "their its our this these those between".split()
)
_FRONT_ANCHORS = frozenset("abstract summary introduction background keywords highlights motivation overview".split())
"""Headings that open a paper's body on page 1; candidates between the title and them are bylines."""


@dataclass(slots=True)
class _Piece:
    """One PyMuPDF line, in the page's reading frame (x along the text, y down the page)."""

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


@dataclass(slots=True)
class _Row:
    """Pieces that share a baseline inside one column: the unit of paragraph building."""

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


@dataclass(slots=True)
class _Block:
    kind: BlockKind
    rows: list[_Row]
    level: int | None = None

    @property
    def text(self) -> str:
        return " ".join(row.text for row in self.rows)


@dataclass(slots=True)
class _Layout:
    """What the whole document says about its body text, measured before blocks are built."""

    body_size: float
    """The font size that carries the most characters, in points."""
    pitch: float
    """Baseline-to-baseline distance of body lines, in body font sizes."""
    edges: dict[int, tuple[float, float]] = field(default_factory=dict)
    """Left and right edge of every column group, by group id."""


# ---------------------------------------------------------------- open and read


def _open(file: Path, path: str) -> pymupdf.Document:
    try:
        with file.open("rb") as handle:
            head = handle.read(1024)
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - 1024))
            tail = handle.read()
    except OSError as error:
        raise ExtractError(f"{path}: cannot read the file: {error.strerror}; check that it exists and is readable") from None
    if size == 0:
        raise ExtractError(f"{path}: the file is empty (0 bytes); re-download or re-export the PDF")
    if b"%PDF-" not in head:
        raise ExtractError(f"{path}: not a PDF (no %PDF- header) despite its name; check what the file really is")
    if b"%%EOF" not in tail:
        raise ExtractError(f"{path}: the PDF is truncated (no %%EOF at its end); re-download or re-export it")
    try:
        doc = pymupdf.open(file, filetype="pdf")
    except (pymupdf.FileDataError, RuntimeError, ValueError) as error:
        raise ExtractError(f"{path}: corrupt PDF that PyMuPDF cannot open ({error}); re-download or re-export it") from None
    if doc.needs_pass:
        doc.close()
        raise ExtractError(
            f"{path}: the PDF is encrypted and the empty password does not open it; "
            "decrypt it (e.g. `qpdf --decrypt --password=… in.pdf out.pdf`) and ingest the copy"
        )
    if doc.page_count == 0:
        doc.close()
        raise ExtractError(f"{path}: the PDF has no pages; re-export it")
    return doc


def _frame(direction: tuple[float, float]) -> tuple[int, int]:
    """The cardinal direction nearest to a line's writing direction."""
    dx, dy = direction
    if abs(dx) >= abs(dy):
        return (1, 0) if dx >= 0 else (-1, 0)
    return (0, 1) if dy > 0 else (0, -1)


def _to_frame(box: tuple[float, float, float, float], frame: tuple[int, int]) -> tuple[float, float, float, float]:
    """Rotate a box so that `frame` points along +x: u = x·c + y·s, v = y·c − x·s."""
    c, s = frame
    x0, y0, x1, y1 = box
    us = (x0 * c + y0 * s, x1 * c + y1 * s)
    vs = (y0 * c - x0 * s, y1 * c - x1 * s)
    return min(us), min(vs), max(us), max(vs)


def _font_style(font: str, styles: dict[str, tuple[bool, bool]]) -> tuple[bool, bool]:
    """(bold, small caps) as the font name says; `styles` remembers fonts already seen in this document."""
    style = styles.get(font)
    if style is None:
        style = styles[font] = (bool(_BOLD_FONT.search(font)), bool(_SMALL_CAPS_FONT.search(font)))
    return style


def _piece(line: dict, page: int, frame: tuple[int, int], styles: dict[str, tuple[bool, bool]]) -> _Piece | None:
    """One PyMuPDF line as a piece: its text, box and the size, font and weight most of its characters have."""
    parts: list[str] = []
    chars = bold = caps = 0
    sizes: dict[float, int] = {}
    fonts: dict[str, int] = {}
    last_end: float | None = None
    c, s = frame
    for span in line["spans"]:
        text = span["text"]
        stripped = text.strip()
        if not stripped:
            if text and parts:
                parts.append(" ")
            continue
        x0, y0, x1, y1 = span["bbox"]
        if c != 1:
            x0, x1 = sorted((x0 * c + y0 * s, x1 * c + y1 * s))
        # Spans set apart by a visible gap ("1" and "Introduction") are separate words.
        if last_end is not None and x0 - last_end > 0.15 * span["size"] and parts[-1][-1:] != " " and text[0] != " ":
            parts.append(" ")
        parts.append(text)
        last_end = x1
        count = len(stripped)
        chars += count
        size = round(span["size"], 1)
        sizes[size] = sizes.get(size, 0) + count
        font = span["font"]
        fonts[font] = fonts.get(font, 0) + count
        bold_name, caps_name = styles.get(font) or _font_style(font, styles)
        if bold_name or span["flags"] & pymupdf.TEXT_FONT_BOLD:
            bold += count
        if caps_name:
            caps += count
    if not chars:
        return None
    text = " ".join("".join(parts).split())
    x0, y0, x1, y1 = line["bbox"] if frame == (1, 0) else _to_frame(line["bbox"], frame)
    size = max(sizes, key=sizes.__getitem__)
    if size < 3:
        # Type3 bitmap fonts report a tiny size and glyph boxes that are far too tall: estimate
        # the size from the advance and hang the box on the baseline.
        size = max(1.0, min(y1 - y0, 2.0 * (x1 - x0) / len(text)) / 1.2)
        ox, oy = line["spans"][0]["origin"]
        base = oy * c - ox * s
        y0, y1 = base - 0.9 * size, base + 0.3 * size
    return _Piece(
        page=page,
        x0=x0,
        y0=y0,
        x1=x1,
        y1=y1,
        text=text,
        size=size,
        font=max(fonts, key=fonts.__getitem__),
        bold=bold >= 0.95 * chars,
        small_caps=caps >= 0.95 * chars,
        chars=chars,
    )


def read_page(page: pymupdf.Page, number: int, styles: dict[str, tuple[bool, bool]]) -> tuple[list[_Piece], float]:
    """Pieces of one page in its dominant writing direction; returns them and the page height in that frame.

    Lines in another direction (a rotated margin stamp) are marked `rotated` and keep their own frame.
    """
    lines = [
        line
        for block in page.get_text("dict", flags=_TEXT_FLAGS)["blocks"]
        for line in block.get("lines", ())
    ]
    weight: dict[tuple[int, int], int] = {}
    frames = []
    for line in lines:
        frame = _frame(line["dir"])
        frames.append(frame)
        weight[frame] = weight.get(frame, 0) + sum(len(span["text"]) for span in line["spans"])
    main = max(weight, key=weight.__getitem__) if weight else (1, 0)
    _, top, _, bottom = _to_frame(tuple(page.rect), main)
    pieces = []
    for line, frame in zip(lines, frames):
        piece = _piece(line, number, frame, styles)
        if piece is None:
            continue
        piece.rotated = frame != main
        piece.y0 -= top
        piece.y1 -= top
        pieces.append(piece)
    return pieces, bottom - top


# ---------------------------------------------------------------- running heads and feet


def _running_key(text: str) -> str:
    return re.sub(r"\d+", "#", " ".join(text.casefold().split()))


def _margin_lines(pieces: list[_Piece], height: float) -> list[list[_Piece]]:
    """Pieces in the top and bottom 15% of the page, gathered into lines across the page width."""
    margin = sorted(
        (p for p in pieces if not p.rotated and not 0.15 * height <= (p.y0 + p.y1) / 2 <= 0.85 * height),
        key=lambda p: p.y0,
    )
    lines: list[list[_Piece]] = []
    for piece in margin:
        if lines and piece.y0 < max(p.y1 for p in lines[-1]) - 0.5 * (piece.y1 - piece.y0):
            lines[-1].append(piece)
        else:
            lines.append([piece])
    return lines


def _separate_pieces(line: list[_Piece]) -> list[_Piece]:
    """Pieces of a margin line set well apart from their neighbours: long, or a page number."""
    chosen = []
    for index, piece in enumerate(line):
        before = line[index - 1].x1 if index else float("-inf")
        after = line[index + 1].x0 if index + 1 < len(line) else float("inf")
        apart = piece.x0 - before > 1.5 * piece.size and after - piece.x1 > 1.5 * piece.size
        if apart and (piece.chars >= 12 or _PAGE_NUMBER.match(piece.text)):
            chosen.append(piece)
    return chosen


def drop_running_lines(pages: list[list[_Piece]], heights: list[float]) -> list[_Piece]:
    """Remove margin lines whose text (digits masked) recurs at the same height on other pages.

    A whole margin line is compared, and so is each of its pieces that is a page number or at
    least 12 characters long (a running head set apart from the page number on the same line).
    Returns the pieces removed.
    """
    if len(pages) < 2:
        return []
    least_pages = 2 if len(pages) <= 3 else 3
    seen: dict[str, list[tuple[int, float]]] = defaultdict(list)
    candidates: list[tuple[str, int, float, float, list[_Piece]]] = []
    for index, (pieces, height) in enumerate(zip(pages, heights)):
        for line in _margin_lines(pieces, height):
            line.sort(key=lambda p: p.x0)
            middle = sum(p.y0 + p.y1 for p in line) / (2 * len(line))
            keys = [(_running_key(" ".join(p.text for p in line)), line)]
            if len(line) > 1:
                keys += [(_running_key(p.text), [p]) for p in _separate_pieces(line)]
            for key, members in keys:
                seen[key].append((index, middle))
                candidates.append((key, index, middle, max(4.0, 0.015 * height), members))
    running: set[int] = set()
    for key, _index, middle, tolerance, members in candidates:
        if len({other for other, y in seen[key] if abs(y - middle) <= tolerance}) >= least_pages:
            running.update(id(p) for p in members)
    removed = [p for pieces in pages for p in pieces if id(p) in running]
    for index, pieces in enumerate(pages):
        pages[index] = [p for p in pieces if id(p) not in running]
    return removed


# ---------------------------------------------------------------- columns and rows


def _coverage_gaps(pieces: list[_Piece], lo: float, hi: float, limit: float) -> list[tuple[float, float, float]]:
    """Stretches of [lo, hi] that the pieces leave (nearly) uncovered: (start, end, characters crossing).

    Where the crossing load stays under `limit` over a stretch, only its least covered part
    counts: a short last column must not widen the gutter up to the page edge.
    """
    events = sorted([(p.x0, p.chars) for p in pieces] + [(p.x1, -p.chars) for p in pieces])
    segments: list[tuple[float, float, float]] = []
    load = 0
    previous = lo
    for x, delta in events + [(hi, 0)]:
        start, end = max(previous, lo), min(x, hi)
        if end > start:
            segments.append((start, end, load))
        load += delta
        previous = max(previous, x)
    gaps: list[tuple[float, float, float]] = []
    run: list[tuple[float, float, float]] = []
    for segment in segments + [(hi, hi, float("inf"))]:
        if segment[2] <= limit:
            run.append(segment)
        elif run:
            floor = min(load for _, _, load in run)
            start, end = _widest_stretch(run, floor + 0.2 * (limit - floor))
            gaps.append((start, end, floor))
            run = []
    return gaps


def _widest_stretch(segments: list[tuple[float, float, float]], ceiling: float) -> tuple[float, float]:
    """The widest run of consecutive segments whose load is at most `ceiling`."""
    best = (0.0, 0.0)
    start: float | None = None
    for a, b, load in segments:
        if load <= ceiling:
            start = a if start is None else start
            if b - start > best[1] - best[0]:
                best = (start, b)
        else:
            start = None
    return best


_CROSSING_SHARE = 0.12
"""Characters of narrow lines that may cross a gutter (centred captions, figure text), as a share."""


def _narrow_lines(pieces: list[_Piece], width: float) -> list[_Piece]:
    """Pieces that could be lines of a column: narrower than 55% of the text, and not table cells,
    figure labels or superscripts (under 10 characters), which may sit anywhere."""
    return [p for p in pieces if p.x1 - p.x0 <= 0.55 * width and p.chars >= 10]


def _find_gutters(pieces: list[_Piece], body_size: float) -> list[tuple[float, float]]:
    """Vertical strips that separate text columns on one page, left to right.

    Only narrow pieces (under 55% of the text width) must leave a gutter empty: the title, a
    full-width abstract and wide figures cross it and become band separators instead.
    """
    if len(pieces) < 6:
        return []
    left = min(p.x0 for p in pieces)
    right = max(p.x1 for p in pieces)
    width = right - left
    if width < 20 * body_size:
        return []
    narrow = _narrow_lines(pieces, width)
    narrow_chars = sum(p.chars for p in narrow)
    total = sum(p.chars for p in pieces)
    top = min(p.y0 for p in pieces)
    height = max(p.y1 for p in pieces) - top
    gaps = _coverage_gaps(narrow, left + 0.1 * width, right - 0.1 * width, _CROSSING_SHARE * narrow_chars)
    accepted: list[tuple[float, float]] = []
    for start, end, _ in sorted(gaps, key=lambda g: g[0] - g[1]):
        if end - start < 0.5 * body_size:
            break
        bounds = sorted(accepted + [(start, end)])
        edges = [left] + [x for g in bounds for x in g] + [right]
        sides = [(edges[2 * i], edges[2 * i + 1]) for i in range(len(bounds) + 1)]
        if all(_column_is_text(pieces, a, b, total, height) for a, b in sides):
            accepted = bounds
        if len(accepted) == 3:
            break
    return accepted


def _column_is_text(pieces: list[_Piece], start: float, end: float, total: int, height: float) -> bool:
    """Whether the pieces inside [start, end] look like a column of running text, not table cells."""
    inside = [p for p in pieces if p.x0 >= start - 2 and p.x1 <= end + 2]
    if len(inside) < 4:
        return False
    chars = sum(p.chars for p in inside)
    # Weighted by characters, so that superscripts and short last lines count for little.
    line_width = sum((p.x1 - p.x0) * p.chars for p in inside) / chars
    return (
        chars >= 0.05 * total
        and sum(p.y1 - p.y0 for p in inside) >= 0.1 * height
        and chars / len(inside) >= 12
        and line_width >= 0.5 * (end - start)
    )


def _rows(pieces: list[_Piece], group: int) -> list[_Row]:
    pieces = sorted(pieces, key=lambda p: (p.y0, p.x0))
    clusters: list[list[_Piece]] = []
    bottom = top = 0.0
    for piece in pieces:
        if clusters:
            overlap = min(bottom, piece.y1) - max(top, piece.y0)
            if overlap >= 0.5 * min(bottom - top, piece.y1 - piece.y0):
                clusters[-1].append(piece)
                top, bottom = min(top, piece.y0), max(bottom, piece.y1)
                continue
        clusters.append([piece])
        top, bottom = piece.y0, piece.y1
    return [_row(sorted(cluster, key=lambda p: p.x0), group) for cluster in clusters]


def _row(pieces: list[_Piece], group: int) -> _Row:
    if len(pieces) == 1:
        p = pieces[0]
        return _Row(
            page=p.page, group=group, x0=p.x0, y0=p.y0, x1=p.x1, y1=p.y1, text=p.text, size=p.size,
            font=p.font, bold=p.bold, small_caps=p.small_caps, chars=p.chars, cells=0, rotated=p.rotated,
        )
    chars = sum(p.chars for p in pieces)
    sizes: dict[float, int] = {}
    fonts: dict[str, int] = {}
    for p in pieces:
        sizes[p.size] = sizes.get(p.size, 0) + p.chars
        fonts[p.font] = fonts.get(p.font, 0) + p.chars
    size = max(sizes, key=sizes.__getitem__)
    cells = sum(1 for a, b in zip(pieces, pieces[1:]) if b.x0 - a.x1 > 1.2 * size)
    return _Row(
        page=pieces[0].page,
        group=group,
        x0=min(p.x0 for p in pieces),
        y0=min(p.y0 for p in pieces),
        x1=max(p.x1 for p in pieces),
        y1=max(p.y1 for p in pieces),
        text=" ".join(p.text for p in pieces),
        size=size,
        font=max(fonts, key=fonts.__getitem__),
        bold=sum(p.chars for p in pieces if p.bold) >= 0.95 * chars,
        small_caps=sum(p.chars for p in pieces if p.small_caps) >= 0.95 * chars,
        chars=chars,
        cells=cells,
        rotated=pieces[0].rotated,
    )


def find_columns(pages: list[list[_Piece]], body_size: float) -> list[list[tuple[float, float]]]:
    """Column gutters of every page; a gutter seen on several pages is also sought where a page's
    own evidence is too weak (a column holding a big table, a page of short lines)."""
    flats = [[p for p in pieces if not p.rotated] for pieces in pages]
    gutters = [_find_gutters(flat, body_size) for flat in flats]
    middles = sorted((a + b) / 2 for page in gutters for a, b in page)
    if not middles:
        return gutters
    repeated = []
    for middle in middles:
        near = [m for m in middles if abs(m - middle) <= 6]
        if (len(near) >= 2 or len(near) >= 0.3 * len(pages)) and not any(abs(c - middle) <= 6 for c in repeated):
            repeated.append(statistics.median(near))
    for index, flat in enumerate(flats):
        if gutters[index] or len(flat) < 6:
            continue
        left = min(p.x0 for p in flat)
        right = max(p.x1 for p in flat)
        narrow = _narrow_lines(flat, right - left)
        narrow_chars = sum(p.chars for p in narrow)
        total = sum(p.chars for p in flat)
        if narrow_chars >= 0.3 * total and repeated:
            gaps, least, common = _coverage_gaps(narrow, left, right, _CROSSING_SHARE * narrow_chars), 3, repeated
        else:
            # Mostly wide lines: a gutter seen on any page, where nothing at all crosses (a margin column).
            gaps, least, common = _coverage_gaps(flat, left, right, 0), 2, middles
        found = []
        for start, end, _ in gaps:
            if end - start >= 0.5 * body_size and any(start <= c <= end for c in common):
                sides = (
                    [p for p in flat if p.x1 <= start + 2],
                    [p for p in flat if p.x0 >= end - 2],
                )
                if all(len(side) >= least and sum(p.chars for p in side) >= 0.02 * total for side in sides):
                    found.append((start, end))
        gutters[index] = found
    return gutters


def _wide_table_cells(pieces: list[_Piece], gutters: list[tuple[float, float]], widths: list[float]) -> set[int]:
    """Pieces on page lines that hold cells on both sides of a gutter and no line of column text:
    the rows of a table as wide as the page."""
    cells: set[int] = set()
    line: list[_Piece] = []
    bottom = 0.0
    for piece in sorted(pieces, key=lambda p: p.y0) + [None]:
        if piece is not None and line and piece.y0 < bottom - 0.5 * (piece.y1 - piece.y0):
            line.append(piece)
            bottom = max(bottom, piece.y1)
            continue
        if len(line) >= 4:
            line.sort(key=lambda p: p.x0)
            # Word gaps of justified text stay under two spaces' width; cells stand further apart.
            separate = 1 + sum(1 for a, b in zip(line, line[1:]) if b.x0 - a.x1 > 2 * a.size)
            sides = {sum(1 for start, end in gutters if (p.x0 + p.x1) / 2 > (start + end) / 2) for p in line}
            text_line = any(p.chars >= 20 and p.x1 - p.x0 >= 0.5 * min(widths) for p in line)
            if separate >= 4 and len(sides) >= 2 and not text_line:
                cells.update(id(p) for p in line)
        if piece is not None:
            line, bottom = [piece], piece.y1
    return cells


def order_page(pieces: list[_Piece], gutters: list[tuple[float, float]], first_group: int) -> list[_Row]:
    """Rows of one page in reading order: per band between full-width pieces, column by column."""
    flat = [p for p in pieces if not p.rotated]
    rotated = [p for p in pieces if p.rotated]
    groups: list[list[_Piece]] = []
    if not gutters:
        groups.append(flat)
    else:
        left = min(p.x0 for p in flat)
        right = max(p.x1 for p in flat)
        edges = [left] + [x for g in gutters for x in g] + [right]
        widths = [edges[2 * i + 1] - edges[2 * i] for i in range(len(gutters) + 1)]
        spanning: list[_Piece] = []
        columns: list[list[_Piece]] = [[] for _ in widths]
        table_cells = _wide_table_cells(flat, gutters, widths)
        for p in flat:
            crossed = id(p) in table_cells or any(
                p.x0 < start - 0.2 * widths[i] and p.x1 > end + 0.2 * widths[i + 1]
                for i, (start, end) in enumerate(gutters)
            )
            if crossed:
                spanning.append(p)
            else:
                middle = (p.x0 + p.x1) / 2
                columns[sum(1 for start, end in gutters if middle > (start + end) / 2)].append(p)
        column_chars = [sum(p.chars for p in column) for column in columns]
        # A narrow margin column (submission dates, licence, editor) is read after the text.
        minor = [
            i
            for i, width in enumerate(widths)
            if width < 0.35 * (right - left) and column_chars[i] < 0.5 * max(column_chars)
        ]
        order = [i for i in range(len(columns)) if i not in minor] + minor
        spanning.sort(key=lambda p: p.y0)
        cuts = [(p.y0 + p.y1) / 2 for p in spanning]
        bands: list[list[list[_Piece]]] = [[[] for _ in columns] for _ in range(len(spanning) + 1)]
        for i, column in enumerate(columns):
            for p in column:
                middle = (p.y0 + p.y1) / 2
                bands[sum(1 for cut in cuts if cut < middle)][i].append(p)
        # Full-width pieces, and bands without lines of text in two columns (the last line of a
        # wide paragraph, a short title line, the cells of a table row), are read top to bottom.
        run: list[_Piece] = []
        for band_index, band in enumerate(bands):
            if sum(1 for column in band if any(p.chars >= 20 for p in column)) >= 2:
                if run:
                    groups.append(sorted(run, key=lambda p: p.y0))
                    run = []
                groups.extend(band[i] for i in order if band[i])
            else:
                run.extend(p for column in band for p in column)
            if band_index < len(spanning):
                run.append(spanning[band_index])
        if run:
            groups.append(sorted(run, key=lambda p: p.y0))
    if rotated:
        groups.append(rotated)
    rows: list[_Row] = []
    for offset, group in enumerate(groups):
        if group:
            rows.extend(_rows(group, first_group + offset))
    return rows


# ---------------------------------------------------------------- blocks


def _starts_item(text: str) -> bool:
    return bool(text) and text[0] in _BULLETS and (len(text) == 1 or text[1] == " " or text[0] in "•◦▪‣●■\uf0b7\uf0a7")


def _breaks_before(block: _Block, row: _Row, following: _Row | None, layout: _Layout) -> bool:
    """Whether `row` starts a new block after the rows of `block`, within one column group."""
    prev = block.rows[-1]
    if (prev.cells >= 2) != (row.cells >= 2):
        return True
    if abs(row.size - prev.size) > 0.06 * max(row.size, prev.size):
        return True
    if prev.bold != row.bold or (prev.small_caps != row.small_caps and not row.bold):
        return True
    left, right = layout.edges[row.group]
    if prev.bold and row.bold and (
        _font_family(prev.font) != _font_family(row.font)
        or (prev.x1 - left < 0.6 * (right - left) and row.size < 1.3 * layout.body_size)
    ):
        return True  # a section heading and its first subheading, both bold (titles excepted)
    if _starts_item(row.text) or (_CAPTION_START.match(row.text) and prev.text[-1:] in _TERMINAL):
        return True
    step = min(row.y0 - prev.y0, row.y1 - prev.y1)
    if step > 1.3 * layout.pitch * prev.size + 0.1 * prev.size:
        return True
    em = 0.7 * row.size
    finished = prev.text[-1:] in _TERMINAL
    short = prev.x1 < right - max(0.15 * (right - left), 3 * prev.size)
    # Hanging indents (reference lists): an entry's later lines are indented, the next entry is not.
    hanging = following is not None and following.group == row.group and abs(following.x0 - row.x0) < 0.3 * row.size
    in_item = _starts_item(block.rows[0].text)
    if row.x0 - prev.x0 > em and row.x0 - left > em and (finished or short) and not hanging and not in_item:
        return True
    first = block.rows[0]
    if len(block.rows) >= 2 and prev.x0 - row.x0 > em and abs(first.x0 - row.x0) < 0.3 * row.size and first.x0 < block.rows[1].x0 - em:
        return True
    return finished and short and (row.text[:1].isupper() or row.text[:1].isdigit())


def group_blocks(rows: list[_Row], layout: _Layout) -> list[_Block]:
    """Cut the rows of the document, in reading order, into paragraph, list and table blocks."""
    blocks: list[_Block] = []
    for index, row in enumerate(rows):
        following = rows[index + 1] if index + 1 < len(rows) else None
        block = blocks[-1] if blocks else None
        if block is None or row.group != block.rows[-1].group or row.rotated or _breaks_before(block, row, following, layout):
            kind = BlockKind.list if _starts_item(row.text) else BlockKind.paragraph
            blocks.append(_Block(kind=kind, rows=[row]))
        else:
            block.rows.append(row)
    for block in blocks:
        if len(block.rows) >= 2 and all(row.cells >= 2 for row in block.rows):
            block.kind = BlockKind.table
    return _absorb_table_edges(blocks)


def _absorb_table_edges(blocks: list[_Block]) -> list[_Block]:
    """Header and footer rows of a table with fewer cells (`Approach  CS  Bio`) join the table."""
    def is_edge(block: _Block, table: _Block) -> bool:
        return (
            block.kind is BlockKind.paragraph
            and len(block.rows) <= 3
            and all(row.cells >= 1 for row in block.rows)
            and block.rows[0].group == table.rows[0].group
        )

    result: list[_Block] = []
    for block in blocks:
        if block.kind is BlockKind.table:
            while result and is_edge(result[-1], block):
                block.rows[:0] = result.pop().rows
        elif result and result[-1].kind is BlockKind.table and is_edge(block, result[-1]):
            result[-1].rows.extend(block.rows)
            continue
        result.append(block)
    return result


# ---------------------------------------------------------------- headings


def _normalized(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.casefold())


def _without_numbering(text: str) -> str:
    match = _NUMBERING.match(text)
    return text[match.end() :] if match else text


def _numbering_depth(text: str, roman_sections: bool) -> int | None:
    match = _NUMBERING.match(text)
    if not match:
        return None
    if match["arabic"]:
        if int(match["arabic"].split(".")[0]) == 0:
            return None
        return match["arabic"].count(".") + 1
    if match["roman"]:
        return 1
    depth = 1 + (match["sub"] or "").count(".")
    return depth + 1 if roman_sections else depth


def _heading_style(block: _Block, layout: _Layout) -> tuple | None:
    """The typographic style of a block that looks like a heading, or None."""
    if block.kind is not BlockKind.paragraph or len(block.rows) > 3:
        return None
    rows = block.rows
    if sum(len(row.text) for row in rows) > 160 or rows[0].rotated:
        return None
    text = block.text
    words = text.split()
    letters = sum(ch.isalpha() for ch in text)
    if not 1 <= len(words) <= 16 or letters < 3:
        return None
    first = _without_numbering(text)
    if not first[:1].isalpha() or first[:1].islower() and first[:1] != "i":
        return None
    if text[-1] in ".,;" or _CAPTION_START.match(text) or text.count(",") >= 2 or "@" in text:
        return None
    if re.search(r"[a-z)]\. +[A-Z0-9]", first):
        return None  # a run-in heading followed by its sentence: "Procedure. The 1H NMR …"
    numbered = _NUMBERING.match(text) is not None
    if any(row.cells >= 2 for row in rows) or (rows[0].cells == 1 and not numbered):
        return None  # table rows
    compact = text.replace(" ", "")
    if sum(ch.isdigit() for ch in compact) > 0.3 * len(compact) or letters < 0.5 * len(compact) or "=" in text:
        return None  # numbers and formulas
    size = max(row.size for row in rows)
    body = layout.body_size
    if size < 0.95 * body:
        return None
    caps = all(row.small_caps for row in rows) or (first.isupper() and letters >= 4)
    bold = all(row.bold for row in rows)
    larger = size >= 1.07 * body
    if not (larger or bold or caps):
        return None
    return (round(size * 2) / 2, bold, caps, _font_family(rows[0].font))


def _font_family(font: str) -> str:
    return re.split(r"[-,+]", font.split("+")[-1], maxsplit=1)[0].casefold()


def _looks_like_byline(text: str) -> bool:
    """Author and affiliation lines: footnote marks, e-mail, or initials before a surname."""
    return bool(re.search(r"[∗*†‡§¶@]|\b[A-Z]\.\s?(?:[A-Z]\.\s?)*[A-Z][a-z]", text))


def _title_index(blocks: list[_Block], layout: _Layout, page_height: float, front: int | None) -> int | None:
    """The paper title: the largest text of three words or more in the upper part of page 1,
    above the abstract, and clearly above body size."""
    best: tuple[float, int, int] | None = None
    for index, block in enumerate(blocks):
        row = block.rows[0]
        if row.page != 1 or (front is not None and index >= front):
            break
        if len(block.text.split()) < 3:
            continue
        if block.kind is not BlockKind.paragraph or row.rotated or row.y0 > 0.6 * page_height:
            continue
        if sum(ch.isalpha() for ch in block.text) < 8 or len(block.rows) > 6:
            continue
        size = max(r.size for r in block.rows)
        key = (size, len(block.text), -index)
        if best is None or key > best:
            best = key
    if best is None or best[0] < 1.15 * layout.body_size:
        return None
    title = -best[2]
    # A title's last line can be short enough to sit in the left column of a two-column page.
    rows = blocks[title].rows
    while title + 1 < len(blocks):
        nxt = blocks[title + 1].rows
        if not (
            nxt[0].page == 1
            and len(rows) + len(nxt) <= 6
            and all(abs(r.size - rows[-1].size) < 0.05 * rows[-1].size and r.bold == rows[-1].bold for r in nxt)
            and 0 < nxt[0].y0 - rows[-1].y0 <= 1.6 * rows[-1].size
        ):
            break
        rows.extend(blocks.pop(title + 1).rows)
    return title


def _split_block(blocks: list[_Block], index: int, rows: int) -> None:
    block = blocks[index]
    if 0 < rows < len(block.rows):
        blocks[index : index + 1] = [_Block(kind=block.kind, rows=block.rows[:rows]), _Block(kind=block.kind, rows=block.rows[rows:])]


def _match_outline(blocks: list[_Block], toc: list[list], title: int | None) -> int:
    """Mark blocks whose text is an outline title, on the page the outline names, as headings.

    Returns how many outline entries were found.
    """
    entries = [(level, _normalized(_without_numbering(str(name).strip())), page) for level, name, page, *_ in toc]
    entries = [entry for entry in entries if entry[1]]
    if not entries:
        return 0
    top = min(level for level, _, _ in entries)
    title_key = _normalized(blocks[title].text) if title is not None else None
    alone = sum(1 for entry in entries if entry[0] == top) == 1
    offset = 0 if entries[0][0] == top and (entries[0][1] == title_key or alone) else 1
    matched = 0
    cursor = 0
    for level, key, page in entries:
        if key == title_key:
            matched += 1
            continue
        for index in range(cursor, len(blocks)):
            block = blocks[index]
            if block.rows[0].page > page:
                break
            if block.rows[0].page < page or block.kind in (BlockKind.heading, BlockKind.table):
                continue
            rows = _rows_matching(block, key)
            if rows:
                _split_block(blocks, index, rows)
                blocks[index].kind = BlockKind.heading
                blocks[index].level = min(4, max(2, level - top + 1 + offset))
                cursor = index + 1
                matched += 1
                break
    return matched


def _rows_matching(block: _Block, key: str) -> int:
    """How many leading rows of `block` spell `key` (numbering ignored), or 0."""
    for count in range(1, min(4, len(block.rows)) + 1):
        text = _normalized(_without_numbering(" ".join(row.text for row in block.rows[:count])))
        if text == key:
            return count
        if not key.startswith(text):
            return 0
    return 0


def _style_levels(
    candidates: list[tuple[int, tuple, int | None]], anchors: dict[tuple, int], prominence: dict[tuple, tuple]
) -> dict[tuple, int]:
    """Heading level of every candidate style.

    Styles fixed by the outline or by numbering keep their level; other styles that recur take the
    level below the nearest more prominent style (or the level of an anchored style of the same
    size and weight); a style seen once joins the recurring style just below it, so that a one-off
    banner does not push every real heading a level down.
    """
    counts = Counter(style for _, style, _ in candidates)
    rank = prominence.__getitem__
    levels = dict(anchors)
    recurring = sorted({s for s in counts if counts[s] >= 2} | set(anchors), key=rank, reverse=True)
    for position, style in enumerate(recurring):
        if style in levels:
            continue
        twin = [levels[s] for s in anchors if s[:3] == style[:3]]
        above = [levels[s] for s in recurring[:position] if s in levels]
        levels[style] = twin[0] if twin else min(4, (above[-1] + 1) if above else 2)
    for style in sorted(counts, key=rank, reverse=True):
        if style not in levels:
            below = [levels[s] for s in recurring if rank(s) < rank(style)]
            levels[style] = below[0] if below else (max(levels.values()) if levels else 2)
    return levels


def _merge_wrapped_headings(blocks: list[_Block], layout: _Layout) -> list[_Block]:
    """Join a heading that wraps onto a second line and was cut at the indent of its number."""
    merged: list[_Block] = []
    for block in blocks:
        prev = merged[-1] if merged else None
        if (
            prev is not None
            and prev.kind is BlockKind.paragraph
            and block.kind is BlockKind.paragraph
            and len(prev.rows) + len(block.rows) <= 3
            and prev.rows[-1].group == block.rows[0].group
            and prev.text[-1:] not in _TERMINAL
            and not _NUMBERING.match(block.text)
        ):
            style = _heading_style(prev, layout)
            last, first = prev.rows[-1], block.rows[0]
            left, right = layout.edges[last.group]
            if (
                style is not None
                and all(row.bold == last.bold and abs(row.size - last.size) < 0.05 * last.size for row in block.rows)
                and last.x1 - left >= 0.6 * (right - left)
                and first.y0 - last.y0 <= 1.6 * layout.pitch * last.size
            ):
                prev.rows.extend(block.rows)
                continue
        merged.append(block)
    return merged


def mark_headings(blocks: list[_Block], layout: _Layout, toc: list[list], page_height: float) -> None:
    """Set kind and level on heading blocks: the title, outline entries, then typographic headings."""
    blocks[:] = _merge_wrapped_headings(blocks, layout)
    front = _first_front_anchor(blocks, layout)
    title = _title_index(blocks, layout, page_height, front)
    if title is not None:
        blocks[title].kind = BlockKind.heading
        blocks[title].level = 1
    outline_entries = sum(1 for entry in toc if str(entry[1]).strip())
    matched = _match_outline(blocks, toc, title) if toc else 0
    trusted = matched >= max(2, outline_entries // 2)
    title = next((i for i, b in enumerate(blocks) if b.level == 1), None)
    outline_styles: dict[tuple, Counter[int]] = defaultdict(Counter)
    for block in blocks:
        if block.kind is BlockKind.heading and block.level and block.level > 1:
            style = _heading_style(_Block(kind=BlockKind.paragraph, rows=block.rows), layout)
            if style:
                outline_styles[style][block.level] += 1

    front = _first_front_anchor(blocks, layout)
    candidates: list[tuple[int, tuple, int | None]] = []
    prominence: dict[tuple, tuple] = {}
    for index, block in enumerate(blocks):
        if block.kind is not BlockKind.paragraph:
            continue
        on_first_page = block.rows[0].page == 1
        # Page 1 above the title is journal furniture; between title and abstract, authors.
        if on_first_page and title is not None and index < title:
            continue
        if on_first_page and front is not None and index < front:
            continue
        style = _heading_style(block, layout)
        if style is None or (on_first_page and _looks_like_byline(block.text)):
            continue
        # Bigger, bolder, capitals first; between equals the style met first is the higher level.
        prominence.setdefault(style, (style[0], style[1], style[2], -index))
        candidates.append((index, style, None))
    for style in outline_styles:
        prominence.setdefault(style, (style[0], style[1], style[2], 0))
    if trusted:
        least = min((prominence[s] for s in outline_styles), default=None)
        candidates = [
            c for c in candidates if c[1] in outline_styles or least is None or prominence[c[1]] < least
        ]
    # Roman-numbered sections (I., II.) make lettered headings (A., B.) their subsections.
    roman = sum(1 for index, _, _ in candidates if re.match(r"^[IVX]{1,5}\.\s", blocks[index].text)) >= 2
    candidates = [(index, style, _numbering_depth(blocks[index].text, roman)) for index, style, _ in candidates]

    anchors = {style: counts.most_common(1)[0][0] for style, counts in outline_styles.items()}
    numbered: dict[tuple, Counter[int]] = defaultdict(Counter)
    for _, style, depth in candidates:
        if depth is not None:
            numbered[style][min(4, depth + 1)] += 1
    for style, counts in numbered.items():
        anchors.setdefault(style, counts.most_common(1)[0][0])
    levels = _style_levels(candidates, anchors, prominence)
    deepest_outline = max((level for counts in outline_styles.values() for level in counts), default=1)
    for index, style, depth in candidates:
        if depth is not None:
            level = depth + 1
        elif trusted and style not in outline_styles:
            level = deepest_outline + 1
        else:
            level = levels[style]
        blocks[index].kind = BlockKind.heading
        blocks[index].level = min(4, max(2, level))
    # "Abstract" alone on its line opens the paper even where its font says nothing.
    for block in blocks:
        first_page = block.rows[0].page == 1
        if first_page and block.kind is BlockKind.paragraph and len(block.rows) == 1:
            if _normalized(block.text) in ("abstract", "summary"):
                block.kind, block.level = BlockKind.heading, 2


def _first_front_anchor(blocks: list[_Block], layout: _Layout) -> int | None:
    """Index of the first block on page 1 that opens the paper's body (Abstract, 1 Introduction, …)."""
    for index, block in enumerate(blocks):
        if block.rows[0].page != 1:
            return None
        text = block.text
        words = _normalized(_without_numbering(text)) if len(text) < 40 else ""
        head = re.split(r"[\s:.—–-]+", text.strip(), maxsplit=1)[0].casefold()
        if words in _FRONT_ANCHORS or (head in _FRONT_ANCHORS and _heading_style(block, layout)):
            return index
        if _NUMBERING.match(text) and _heading_style(block, layout) and _numbering_depth(text, False) == 1:
            return index
    return None


# ---------------------------------------------------------------- continuations


def _is_float(block: _Block, layout: _Layout) -> bool:
    """Blocks that may sit between the two halves of a paragraph: captions, tables, footnotes, labels."""
    if block.kind is BlockKind.table or block.rows[0].rotated:
        return True
    if block.kind is BlockKind.heading:
        return False
    return bool(_CAPTION_START.match(block.text)) or max(r.size for r in block.rows) < 0.9 * layout.body_size


def _continues(first: _Block, second: _Block, layout: _Layout) -> bool:
    """Whether `second` carries on the sentence `first` breaks off at a column or page end.

    `first` must fill its last line and lack terminal punctuation; then a lowercase or numeric
    start, a dangling hyphen, comma or function word, or a first line that is not indented (a
    new paragraph would be) says the sentence goes on.
    """
    if first.kind not in (BlockKind.paragraph, BlockKind.list) or second.kind is not BlockKind.paragraph:
        return False
    if first.rows[0].rotated or second.rows[0].rotated or _CAPTION_START.match(second.text):
        return False
    if _CAPTION_START.match(first.text) or _is_float(first, layout) != _is_float(second, layout):
        return False  # small print (references, footnotes) only continues in small print
    if abs(first.rows[-1].size - second.rows[0].size) > 0.1 * layout.body_size:
        return False
    last = first.rows[-1]
    left, right = layout.edges[last.group]
    if last.x1 < right - max(0.15 * (right - left), 3 * last.size):
        return False
    end = last.text
    start = second.rows[0].text
    if end[-1:] in _TERMINAL or _starts_item(start):
        return False
    last_word = end.rsplit(" ", 1)[-1].casefold()
    head = second.rows[0]
    flush = head.x0 - layout.edges[head.group][0] < 0.5 * head.size
    return (
        start[:1].islower()
        or start[:1].isdigit()
        or start[:1] in "([{"
        or end[-1:] in "-,;–("
        or last_word in _CONTINUING_WORDS
        or (flush and end[-1:].isalnum())
    )


def join_continuations(blocks: list[_Block], layout: _Layout) -> list[_Block]:
    """Join paragraphs cut by a column or page end; floats between the halves end up after the paragraph."""
    blocks = list(blocks)
    index = 0
    while index < len(blocks):
        block = blocks[index]
        look = index + 1
        while look < len(blocks) and look - index <= 6 and _is_float(blocks[look], layout) and not _is_float(block, layout):
            look += 1
        if look < len(blocks):
            nxt = blocks[look]
            moved_on = nxt.rows[0].group != block.rows[-1].group or look > index + 1
            if moved_on and _continues(block, nxt, layout):
                block.rows.extend(nxt.rows)
                del blocks[look]
                continue
        index += 1
    return blocks


def _merge_lists(blocks: list[_Block]) -> list[_Block]:
    merged: list[_Block] = []
    for block in blocks:
        if merged and block.kind is BlockKind.list and merged[-1].kind is BlockKind.list:
            merged[-1].rows.extend(block.rows)
        else:
            merged.append(block)
    return merged


# ---------------------------------------------------------------- assembly


def _segments(rows: list[_Row]) -> list[TextSegment]:
    segments: list[TextSegment] = []
    texts: list[str] = []
    page = rows[0].page
    for index, row in enumerate(rows):
        if row.page != page:
            segments.append(TextSegment(text="".join(texts), page=page))
            texts, page = [], row.page
        texts.append(row.text + ("\n" if index < len(rows) - 1 else ""))
    segments.append(TextSegment(text="".join(texts), page=page))
    return segments


def _body_size(pages: list[list[_Piece]]) -> float:
    """The font size (to half a point) that carries the most characters."""
    sizes: dict[float, int] = {}
    for pieces in pages:
        for piece in pieces:
            if not piece.rotated:
                size = round(piece.size * 2) / 2
                sizes[size] = sizes.get(size, 0) + piece.chars
    return max(sizes, key=sizes.__getitem__) if sizes else 10.0


def _pitch(rows: list[_Row], body_size: float) -> float:
    steps = [
        (row.y1 - prev.y1) / body_size
        for prev, row in zip(rows, rows[1:])
        if row.group == prev.group and abs(row.size - body_size) < 0.05 * body_size and abs(prev.size - body_size) < 0.05 * body_size
        and 0 < row.y1 - prev.y1 < 3 * body_size
    ]
    return statistics.median(steps) if len(steps) >= 5 else 1.2


def _edges(rows: list[_Row]) -> dict[int, tuple[float, float]]:
    """Left and right edge of the text of every group, ignoring the odd wider line (a byline, a formula)."""
    by_group: dict[int, list[_Row]] = defaultdict(list)
    for row in rows:
        by_group[row.group].append(row)
    edges = {}
    for group, members in by_group.items():
        lefts = sorted(row.x0 for row in members)
        rights = sorted(row.x1 for row in members)
        cut = len(members) // 10
        edges[group] = (lefts[cut], rights[-1 - cut])
    return edges


def _read(doc: pymupdf.Document, path: str) -> tuple[list[list[_Piece]], list[float], dict[int, str]]:
    """Pieces and frame height of every page, and the page labels the PDF defines."""
    pages: list[list[_Piece]] = []
    heights: list[float] = []
    labels: dict[int, str] = {}
    has_labels = bool(doc.get_page_labels())
    styles: dict[str, tuple[bool, bool]] = {}
    for number, page in enumerate(doc, start=1):
        try:
            pieces, height = read_page(page, number, styles)
            label = page.get_label() if has_labels else ""
        except RuntimeError as error:
            raise ExtractError(f"{path}: page {number} cannot be read ({error}); the PDF is damaged, re-export it") from None
        pages.append(pieces)
        heights.append(height)
        if label:
            labels[number] = label
    return pages, heights, labels


def extract_pdf(file: Path, path: str) -> RawDocument:
    """Read one PDF into blocks in reading order with 1-based physical pages; `path` names it in messages."""
    with _open(file, path) as doc:
        pages, heights, labels = _read(doc, path)
        try:
            toc = doc.get_toc(simple=True)
        except RuntimeError:
            toc = []  # a broken outline only costs the outline: headings then come from typography
        page_count = doc.page_count
        repaired = doc.is_repaired
    if not any(pages):
        if repaired:
            raise ExtractError(f"{path}: the PDF is damaged (PyMuPDF had to repair it) and no page has text; re-download or re-export it")
        raise NoTextLayerError(
            f"{path}: none of its {page_count} pages has a text layer (a scan?); OCR it first "
            "(e.g. `ocrmypdf in.pdf out.pdf`) and ingest the result"
        )
    removed = len(drop_running_lines(pages, heights))
    body_size = _body_size(pages)
    rows: list[_Row] = []
    for pieces, gutters in zip(pages, find_columns(pages, body_size)):
        rows.extend(order_page(pieces, gutters, first_group=(rows[-1].group + 1) if rows else 0))
    layout = _Layout(body_size=body_size, pitch=_pitch(rows, body_size), edges=_edges(rows))
    blocks = group_blocks(rows, layout)
    mark_headings(blocks, layout, toc, heights[0])
    blocks = _merge_lists(join_continuations(blocks, layout))
    return RawDocument(
        path=path,
        format=SourceFormat.pdf,
        blocks=[RawBlock(kind=block.kind, segments=_segments(block.rows), level=block.level) for block in blocks],
        page_count=page_count,
        page_labels=labels,
        removed_running_lines=removed,
    )
