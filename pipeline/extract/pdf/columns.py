"""Column gutters of every page.

`find_columns` finds the strips that lines of column width leave empty, and seeks a gutter seen
on several pages where one page's own evidence is weak; `wide_table_cells` tells the rows of a
table as wide as the page, which cross a gutter without parting the columns.
"""

from __future__ import annotations

import statistics
from bisect import bisect_left, bisect_right

from pipeline.extract.pdf.records import PrintedLine, gathered_lines
from pipeline.rules.pdf import PdfColumnRules

_LEAST_COVERED = 0.2
"""Of a stretch where few characters cross, the gutter is the part whose load stays within this
share of the way from its least to the limit: a short last column must not widen the gutter up
to the page edge."""
_MIN_PIECES = 6
"""A page of fewer lines (a title page, a page of figures) is read as it comes, in one column."""
_PARAGRAPH_LINE_GAP = 1.0
"""Two lines less than this many line heights apart, one under the other, are lines of one
paragraph; the gap above a column's first line, under a wide abstract, is most often wider."""
_GUTTER_INSET = 0.1
"""Gutters are sought inside the text's outer tenths: a ragged edge or a margin note is not a gap
between columns."""
_MOST_GUTTERS = 3
"""A page's own lines show at most four columns: more gaps in a row are table cells or word gaps."""
_BOX_SLACK = 2.0
"""Points a line's box may overhang a column edge (italics, kerning) and still lie inside it."""
_COLUMN_MIN_LINES = 4
_COLUMN_MIN_CHAR_SHARE = 0.05
_COLUMN_MIN_HEIGHT_SHARE = 0.1
_COLUMN_MIN_LINE_CHARS = 12
"""A column of running text holds a few lines, a twentieth of the page's characters, a tenth of
its height, and a dozen characters a line on average; table columns and figure labels do not."""
TEXT_LINE_MIN_CHARS = 20
_TEXT_LINE_MIN_FILL = 0.5
"""A line of running text has a few words and fills half its column; cells and labels do not."""
_SAME_GUTTER = 6.0
"""Points two pages' gutters may differ by and be the same gutter: one layout moves its gutter by
a point or two, and two different gutters lie a column apart."""
_SHARED_GUTTER_MIN_PAGES = 2
_SHARED_GUTTER_PAGE_SHARE = 0.3
"""A gutter seen on two pages, or on this share of the pages, is the layout's, and is sought on
pages whose own lines show none."""
_WEAK_SIDE_MIN_LINES = 3
_MARGIN_SIDE_MIN_LINES = 2
_WEAK_SIDE_MIN_CHAR_SHARE = 0.02
"""Each side of a gutter found that way holds a few lines (two for a margin column) and a
fiftieth of the page's characters: a strip beside one stray label is no gutter."""
_TABLE_LINE_MIN_CELLS = 4
_TABLE_CELL_GAP = 2.0
"""A page-wide table row has four pieces or more set over two font sizes apart: stricter than a
row's cells, since word gaps of justified text reach two spaces' width, and text taken for a
page-wide table would be read across both columns."""
_TABLE_MIN_ROWS = 3
"""Rows of cells a page must show for their stretch to be a table's: one or two such lines may be
a figure's labels."""


def _coverage_gaps(pieces: list[PrintedLine], lo: float, hi: float, limit: float) -> list[tuple[float, float, float]]:
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
            start, end = _widest_stretch(run, floor + _LEAST_COVERED * (limit - floor))
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


def _narrow_lines(pieces: list[PrintedLine], width: float, rules: PdfColumnRules) -> list[PrintedLine]:
    """Pieces that could be lines of a column: narrow, and not table cells, figure labels or
    superscripts (a few characters), which may sit anywhere."""
    return [p for p in pieces if p.x1 - p.x0 <= rules.narrow_line_max_width * width and p.chars >= rules.narrow_line_min_chars]


def _column_lines(narrow: list[PrintedLine], pieces: list[PrintedLine], width: float, rules: PdfColumnRules) -> list[PrintedLine]:
    """The narrow lines but the short lines of a paragraph set across the page (its last line, a
    one-line paragraph between two wide ones): they cross the gutters of the columns set below or
    above it, as its wide lines do."""
    wide = sorted((p for p in pieces if p.x1 - p.x0 > rules.narrow_line_max_width * width), key=lambda p: p.x0)
    if not wide:
        return narrow
    # Only wide lines that start near a piece's left edge can be flush with it: found by
    # bisection (the window a point wider than the test), not by asking every wide line.
    lefts = [p.x0 for p in wide]

    def flush(piece: PrintedLine) -> list[PrintedLine]:
        return wide[bisect_left(lefts, piece.x0 - _BOX_SLACK - 1) : bisect_right(lefts, piece.x0 + _BOX_SLACK + 1)]

    return [p for p in narrow if not any(_in_paragraph_with(p, line) for line in flush(p))]


def _in_paragraph_with(piece: PrintedLine, wide: PrintedLine) -> bool:
    """Whether a narrow piece is a line of the wide line's paragraph: flush with it on the left
    and the next line up or down, less than a line's height apart."""
    apart = max(wide.y0 - piece.y1, piece.y0 - wide.y1)
    return abs(wide.x0 - piece.x0) <= _BOX_SLACK and -_BOX_SLACK < apart < _PARAGRAPH_LINE_GAP * (piece.y1 - piece.y0)


def _find_gutters(pieces: list[PrintedLine], body_size: float, rules: PdfColumnRules) -> list[tuple[float, float]]:
    """Vertical strips that separate text columns on one page, left to right.

    Only narrow pieces must leave a gutter empty: the title, a full-width abstract and wide
    figures cross it and become band separators instead.
    """
    if len(pieces) < _MIN_PIECES:
        return []
    left = min(p.x0 for p in pieces)
    right = max(p.x1 for p in pieces)
    width = right - left
    if width < rules.min_text_width * body_size:
        return []
    narrow = _narrow_lines(pieces, width, rules)
    narrow_chars = sum(p.chars for p in narrow)
    total = sum(p.chars for p in pieces)
    top = min(p.y0 for p in pieces)
    height = max(p.y1 for p in pieces) - top
    inset = _GUTTER_INSET * width
    # The crossing allowed is a share of all narrow lines, the short lines of wide paragraphs too.
    gaps = _coverage_gaps(_column_lines(narrow, pieces, width, rules), left + inset, right - inset, rules.gutter_crossing_share * narrow_chars)
    accepted: list[tuple[float, float]] = []
    # A gap that parts no columns of text alone may with the gaps tried before it: each of three
    # columns' gutters leaves two columns on one side, too wide for their lines to fill.
    pending: list[tuple[float, float]] = []
    for start, end, _ in sorted(gaps, key=lambda g: g[0] - g[1]):
        if end - start < rules.gutter_min_width * body_size:
            break
        for bounds in (sorted(accepted + [(start, end)]), sorted(accepted + pending + [(start, end)])):
            if len(bounds) <= _MOST_GUTTERS and _parts_text_columns(pieces, bounds, left, right, total, height):
                accepted, pending = bounds, []
                break
        else:
            pending.append((start, end))
        if len(accepted) == _MOST_GUTTERS:
            break
    return accepted


def _parts_text_columns(
    pieces: list[PrintedLine], bounds: list[tuple[float, float]], left: float, right: float, total: int, height: float
) -> bool:
    """Whether every column the gutters `bounds` part the text [left, right] into reads as running text."""
    edges = [left] + [x for g in bounds for x in g] + [right]
    sides = [(edges[2 * i], edges[2 * i + 1]) for i in range(len(bounds) + 1)]
    return all(_column_is_text(pieces, a, b, total, height) for a, b in sides)


def _column_is_text(pieces: list[PrintedLine], start: float, end: float, total: int, height: float) -> bool:
    """Whether the pieces inside [start, end] look like a column of running text, not table cells."""
    inside = [p for p in pieces if p.x0 >= start - _BOX_SLACK and p.x1 <= end + _BOX_SLACK]
    if len(inside) < _COLUMN_MIN_LINES:
        return False
    chars = sum(p.chars for p in inside)
    # Weighted by characters, so that superscripts and short last lines count for little.
    line_width = sum((p.x1 - p.x0) * p.chars for p in inside) / chars
    return (
        chars >= _COLUMN_MIN_CHAR_SHARE * total
        and sum(p.y1 - p.y0 for p in inside) >= _COLUMN_MIN_HEIGHT_SHARE * height
        and chars / len(inside) >= _COLUMN_MIN_LINE_CHARS
        and line_width >= _TEXT_LINE_MIN_FILL * (end - start)
    )


def find_columns(pages: list[list[PrintedLine]], body_size: float, rules: PdfColumnRules) -> list[list[tuple[float, float]]]:
    """Column gutters of every page; a gutter seen on several pages is also sought where a page's
    own evidence is too weak (a column holding a big table, a page of short lines)."""
    flats = [[p for p in pieces if not p.rotated and not p.aside] for pieces in pages]
    gutters = [_find_gutters(flat, body_size, rules) for flat in flats]
    middles = sorted((a + b) / 2 for page in gutters for a, b in page)
    if not middles:
        return gutters
    repeated = []
    for middle in middles:
        near = [m for m in middles if abs(m - middle) <= _SAME_GUTTER]
        shared = len(near) >= _SHARED_GUTTER_MIN_PAGES or len(near) >= _SHARED_GUTTER_PAGE_SHARE * len(pages)
        if shared and not any(abs(c - middle) <= _SAME_GUTTER for c in repeated):
            repeated.append(statistics.median(near))
    for index, flat in enumerate(flats):
        if gutters[index] or len(flat) < _MIN_PIECES:
            continue
        # A table as wide as the page crosses the gutter with its cells: where the page shows no
        # gutter whole, its stretch of the page, which says nothing of the columns above and
        # below it, is left out.
        gutters[index] = _shared_gutters(flat, repeated, middles, body_size, rules) or _shared_gutters(
            _outside_tables(flat), repeated, middles, body_size, rules
        )
    return gutters


def _shared_gutters(
    flat: list[PrintedLine], repeated: list[float], middles: list[float], body_size: float, rules: PdfColumnRules
) -> list[tuple[float, float]]:
    """The gutters of a page whose own lines show none, sought where other pages have one
    (`repeated`), among its narrow lines; or, where mostly wide lines fill the page, where nothing at
    all crosses a gutter any page shows (a margin column), else where no narrow line crosses a
    gutter other pages show and lines of text stand on both sides (a bibliography set in columns
    under the last paragraphs, set across the page)."""
    if len(flat) < _MIN_PIECES:
        return []
    left = min(p.x0 for p in flat)
    right = max(p.x1 for p in flat)
    narrow = _narrow_lines(flat, right - left, rules)
    narrow_chars = sum(p.chars for p in narrow)
    total = sum(p.chars for p in flat)
    if narrow_chars >= rules.weak_page_narrow_share * total and repeated:
        limit = rules.gutter_crossing_share * narrow_chars
        return _gutters_with_sides(_coverage_gaps(narrow, left, right, limit), repeated, flat, _WEAK_SIDE_MIN_LINES, total, body_size, rules)
    # Mostly wide lines: a gutter seen on any page, where nothing at all crosses (a margin column).
    found = _gutters_with_sides(_coverage_gaps(flat, left, right, 0), middles, flat, _MARGIN_SIDE_MIN_LINES, total, body_size, rules)
    if found or not repeated:
        return found
    text_lines = [p for p in narrow if p.chars >= _COLUMN_MIN_LINE_CHARS]
    gaps = _coverage_gaps(_column_lines(narrow, flat, right - left, rules), left, right, 0)
    return _gutters_with_sides(gaps, repeated, text_lines, _COLUMN_MIN_LINES, total, body_size, rules)


def _gutters_with_sides(
    gaps: list[tuple[float, float, float]], common: list[float], pieces: list[PrintedLine], least: int, total: int,
    body_size: float, rules: PdfColumnRules,
) -> list[tuple[float, float]]:
    """The gaps wide enough to be gutters that hold one of the `common` gutters' middles, with at
    least `least` of the pieces and a few of the page's characters on each side."""
    found = []
    for start, end, _ in gaps:
        if end - start >= rules.gutter_min_width * body_size and any(start <= c <= end for c in common):
            sides = (
                [p for p in pieces if p.x1 <= start + _BOX_SLACK],
                [p for p in pieces if p.x0 >= end - _BOX_SLACK],
            )
            if all(len(side) >= least and sum(p.chars for p in side) >= _WEAK_SIDE_MIN_CHAR_SHARE * total for side in sides):
                found.append((start, end))
    return found


def _outside_tables(pieces: list[PrintedLine]) -> list[PrintedLine]:
    """The pieces but those between the first and the last row of a table: page lines of
    `_TABLE_LINE_MIN_CELLS` cells or more set apart, none a line of text; where fewer than
    `_TABLE_MIN_ROWS` lines are such rows, all the pieces."""
    rows = [line for line in gathered_lines(pieces) if _table_row(line)]
    if len(rows) < _TABLE_MIN_ROWS:
        return pieces
    top, bottom = min(p.y0 for p in rows[0]), max(p.y1 for p in rows[-1])
    return [p for p in pieces if not top <= (p.y0 + p.y1) / 2 <= bottom]


def _table_row(line: list[PrintedLine]) -> bool:
    """Whether a page line is a table's row: cells set well apart, not all of them lines of text.

    A cell may hold a phrase as long as a line of text (`Concentration and shape of NPs can`);
    a page line of four columns of running text holds no short cell."""
    if len(line) < _TABLE_LINE_MIN_CELLS or all(p.chars >= TEXT_LINE_MIN_CHARS for p in line):
        return False
    return _cells_apart(line) >= _TABLE_LINE_MIN_CELLS


def _cells_apart(line: list[PrintedLine]) -> int:
    """How many cells a page line's pieces make, those less than `_TABLE_CELL_GAP` font sizes
    apart counted as one."""
    line = sorted(line, key=lambda p: p.x0)
    return 1 + sum(1 for a, b in zip(line, line[1:]) if b.x0 - a.x1 > _TABLE_CELL_GAP * a.size)


def wide_table_cells(pieces: list[PrintedLine], gutters: list[tuple[float, float]], widths: list[float]) -> set[int]:
    """Pieces on page lines that hold cells on both sides of a gutter and no line of column text:
    the rows of a table as wide as the page."""
    cells: set[int] = set()
    for line in gathered_lines(pieces):
        if len(line) < _TABLE_LINE_MIN_CELLS:
            continue
        sides = {sum(1 for start, end in gutters if (p.x0 + p.x1) / 2 > (start + end) / 2) for p in line}
        text_line = any(p.chars >= TEXT_LINE_MIN_CHARS and p.x1 - p.x0 >= _TEXT_LINE_MIN_FILL * min(widths) for p in line)
        if _cells_apart(line) >= _TABLE_LINE_MIN_CELLS and len(sides) > 1 and not text_line:
            cells.update(id(p) for p in line)
    return cells
