"""Column gutters of every page, and the reading order of a page's pieces as rows.

`find_columns` finds the strips that lines of column width leave empty, and seeks a gutter seen
on several pages where one page's own evidence is weak; `order_page` reads a page column by
column between full-width pieces (title, abstract, wide figures and tables), which keep their
place, and joins the pieces on one baseline into a `Row` whose group says which column band it
belongs to.
"""

from __future__ import annotations

import statistics
from dataclasses import replace

from pipeline.extract.pdf.records import Lead, PrintedLine, Row, gathered_lines, joined_superscripts, union
from pipeline.extract.pdf.typography import NEARLY_ALL, SAME_LINE_OVERLAP
from pipeline.rules.pdf import PdfColumnRules

_LEAST_COVERED = 0.2
"""Of a stretch where few characters cross, the gutter is the part whose load stays within this
share of the way from its least to the limit: a short last column must not widen the gutter up
to the page edge."""
_MIN_PIECES = 6
"""A page of fewer lines (a title page, a page of figures) is read as it comes, in one column."""
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
_TEXT_LINE_MIN_CHARS = 20
_TEXT_LINE_MIN_FILL = 0.5
"""A line of running text has a few words and fills half its column; cells and labels do not."""
_CELL_GAP = 1.2
"""A gap between two pieces of one row wider than this many font sizes parts table cells; a word
space is about a quarter of a size."""
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
_SPANNING_OVERHANG = 0.2
"""A piece crosses a gutter when it reaches this share of a column's width into both columns;
less is a ragged line end."""
_MARGIN_COLUMN_MAX_WIDTH = 0.35
_MARGIN_COLUMN_MAX_CHAR_SHARE = 0.5
"""A column narrower than this share of the text width and holding under half the characters of
the fullest column is a margin column (submission dates, licence, editor), read after the text."""


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
    gaps = _coverage_gaps(narrow, left + inset, right - inset, rules.gutter_crossing_share * narrow_chars)
    accepted: list[tuple[float, float]] = []
    for start, end, _ in sorted(gaps, key=lambda g: g[0] - g[1]):
        if end - start < rules.gutter_min_width * body_size:
            break
        bounds = sorted(accepted + [(start, end)])
        edges = [left] + [x for g in bounds for x in g] + [right]
        sides = [(edges[2 * i], edges[2 * i + 1]) for i in range(len(bounds) + 1)]
        if all(_column_is_text(pieces, a, b, total, height) for a, b in sides):
            accepted = bounds
        if len(accepted) == _MOST_GUTTERS:
            break
    return accepted


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


def _rows(pieces: list[PrintedLine], group: int) -> list[Row]:
    pieces = sorted(pieces, key=lambda p: (p.y0, p.x0))
    clusters: list[list[PrintedLine]] = []
    bottom = top = 0.0
    for piece in pieces:
        if clusters:
            overlap = min(bottom, piece.y1) - max(top, piece.y0)
            if overlap >= SAME_LINE_OVERLAP * min(bottom - top, piece.y1 - piece.y0):
                clusters[-1].append(piece)
                top, bottom = min(top, piece.y0), max(bottom, piece.y1)
                continue
        clusters.append([piece])
        top, bottom = piece.y0, piece.y1
    return [_row(sorted(cluster, key=lambda p: p.x0), group) for cluster in clusters]


def _row(pieces: list[PrintedLine], group: int) -> Row:
    if len(pieces) == 1:
        # Most rows are one piece; built by position, in `Row`'s order: a dataclass this wide takes
        # far longer to match its fields by name.
        p = pieces[0]
        return Row(
            p.page, group, p.x0, p.y0, p.x1, p.y1, p.text, p.size, p.font, p.bold, p.small_caps, p.chars, 0, p.rotated, p.aside, p.box,
            p.superscripts, p.label, p.lead,
        )
    chars = bold_chars = caps_chars = 0
    sizes: dict[float, int] = {}
    fonts: dict[str, int] = {}
    labels: dict[str | None, int] = {}
    for p in pieces:
        count = p.chars
        chars += count
        sizes[p.size] = sizes.get(p.size, 0) + count
        fonts[p.font] = fonts.get(p.font, 0) + count
        labels[p.label] = labels.get(p.label, 0) + count
        if p.bold:
            bold_chars += count
        if p.small_caps:
            caps_chars += count
    size = max(sizes, key=sizes.__getitem__)
    cells = sum(1 for a, b in zip(pieces, pieces[1:]) if b.x0 - a.x1 > _CELL_GAP * size)
    first = pieces[0]
    return Row(
        first.page, group, min([p.x0 for p in pieces]), min([p.y0 for p in pieces]), max([p.x1 for p in pieces]),
        max([p.y1 for p in pieces]), " ".join([p.text for p in pieces]), size, max(fonts, key=fonts.__getitem__),
        bold_chars >= NEARLY_ALL * chars, caps_chars >= NEARLY_ALL * chars, chars, cells, first.rotated, first.aside,
        union([p.box for p in pieces]), joined_superscripts([(p.text, p.superscripts) for p in pieces], " "),
        max(labels, key=labels.__getitem__), _row_lead(pieces),
    )


def _row_lead(pieces: list[PrintedLine]) -> Lead | None:
    """The lead of a row of several pieces: the first piece's where lighter text follows inside it;
    where it is all bold or italic, the row's if every piece is in that style, or its own where the
    next piece opens in the regular face (a run-in heading PyMuPDF read as a line of its own)."""
    first, second = pieces[0], pieces[1]
    lead = first.lead
    if lead is None or lead.end < len(first.text):
        return lead
    style = (lead.bold, lead.italic)
    if all(p.lead is not None and p.lead.end == len(p.text) and (p.lead.bold, p.lead.italic) == style for p in pieces):
        right = max(p.x1 for p in pieces)
        return replace(lead, end=len(" ".join(p.text for p in pieces)), x1=right, rest_x0=right)
    return replace(lead, rest_x0=second.x0) if second.lead is None else None


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
    all crosses a gutter any page shows (a margin column)."""
    if len(flat) < _MIN_PIECES:
        return []
    left = min(p.x0 for p in flat)
    right = max(p.x1 for p in flat)
    narrow = _narrow_lines(flat, right - left, rules)
    narrow_chars = sum(p.chars for p in narrow)
    total = sum(p.chars for p in flat)
    if narrow_chars >= rules.weak_page_narrow_share * total and repeated:
        limit = rules.gutter_crossing_share * narrow_chars
        gaps, least, common = _coverage_gaps(narrow, left, right, limit), _WEAK_SIDE_MIN_LINES, repeated
    else:
        # Mostly wide lines: a gutter seen on any page, where nothing at all crosses (a margin column).
        gaps, least, common = _coverage_gaps(flat, left, right, 0), _MARGIN_SIDE_MIN_LINES, middles
    found = []
    for start, end, _ in gaps:
        if end - start >= rules.gutter_min_width * body_size and any(start <= c <= end for c in common):
            sides = (
                [p for p in flat if p.x1 <= start + _BOX_SLACK],
                [p for p in flat if p.x0 >= end - _BOX_SLACK],
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
    """Whether a page line is a table's row: cells set well apart, none of them a line of text."""
    if len(line) < _TABLE_LINE_MIN_CELLS or any(p.chars >= _TEXT_LINE_MIN_CHARS for p in line):
        return False
    return _cells_apart(line) >= _TABLE_LINE_MIN_CELLS


def _cells_apart(line: list[PrintedLine]) -> int:
    """How many cells a page line's pieces make, those less than `_TABLE_CELL_GAP` font sizes
    apart counted as one."""
    line = sorted(line, key=lambda p: p.x0)
    return 1 + sum(1 for a, b in zip(line, line[1:]) if b.x0 - a.x1 > _TABLE_CELL_GAP * a.size)


def _wide_table_cells(pieces: list[PrintedLine], gutters: list[tuple[float, float]], widths: list[float]) -> set[int]:
    """Pieces on page lines that hold cells on both sides of a gutter and no line of column text:
    the rows of a table as wide as the page."""
    cells: set[int] = set()
    for line in gathered_lines(pieces):
        if len(line) < _TABLE_LINE_MIN_CELLS:
            continue
        sides = {sum(1 for start, end in gutters if (p.x0 + p.x1) / 2 > (start + end) / 2) for p in line}
        text_line = any(p.chars >= _TEXT_LINE_MIN_CHARS and p.x1 - p.x0 >= _TEXT_LINE_MIN_FILL * min(widths) for p in line)
        if _cells_apart(line) >= _TABLE_LINE_MIN_CELLS and len(sides) > 1 and not text_line:
            cells.update(id(p) for p in line)
    return cells


def order_page(pieces: list[PrintedLine], gutters: list[tuple[float, float]], first_group: int, band_gap: float = float("inf")) -> list[Row]:
    """Rows of one page in reading order: per band between full-width pieces (or gaps at least
    `band_gap` points high across every column), column by column, then the asides, then the
    rotated lines."""
    flat = [p for p in pieces if not p.rotated and not p.aside]
    groups = _column_groups(flat, gutters, band_gap) if gutters and flat else [flat]
    groups.append([p for p in pieces if p.aside and not p.rotated])
    groups.append([p for p in pieces if p.rotated])
    return [row for offset, group in enumerate(groups) if group for row in _rows(group, first_group + offset)]


def _column_groups(flat: list[PrintedLine], gutters: list[tuple[float, float]], band_gap: float) -> list[list[PrintedLine]]:
    """The pieces of a page with columns as groups in reading order: band by band, each column
    of a band on its own, and what lies across the columns read top to bottom."""
    left = min(p.x0 for p in flat)
    right = max(p.x1 for p in flat)
    edges = [left] + [x for g in gutters for x in g] + [right]
    widths = [edges[2 * i + 1] - edges[2 * i] for i in range(len(gutters) + 1)]
    spanning, columns = _spanning_and_columns(flat, gutters, widths)
    order = _column_order(columns, widths, right - left)
    cuts = sorted([((p.y0 + p.y1) / 2, p) for p in spanning] + [(y, None) for y in _gaps_across(columns, spanning, band_gap)], key=lambda cut: cut[0])
    return _read_bands(_bands(columns, [y for y, _ in cuts]), [piece for _, piece in cuts], order)


def _gaps_across(columns: list[list[PrintedLine]], spanning: list[PrintedLine], band_gap: float) -> list[float]:
    """Where a gap at least `band_gap` high runs across every column with no full-width piece in
    it, and two columns or more hold lines of text both above and below it: the middle of each.
    The columns above such a gap are read before those below (a bibliography set in two columns
    under the last section's two, a paper's end above the next one's start)."""
    pieces = sorted((p for column in columns for p in column), key=lambda p: p.y0)
    gaps, bottom = [], None
    for piece in pieces:
        if bottom is not None and piece.y0 - bottom >= band_gap and not any(bottom <= s.y0 and s.y1 <= piece.y0 for s in spanning):
            gaps.append((bottom, piece.y0))
        bottom = piece.y1 if bottom is None else max(bottom, piece.y1)
    return [
        (top + end) / 2
        for top, end in gaps
        if _text_columns(columns, lambda p, top=top: p.y1 <= top) > 1 and _text_columns(columns, lambda p, end=end: p.y0 >= end) > 1
    ]


def _text_columns(columns: list[list[PrintedLine]], where) -> int:
    """How many columns hold a line of text (`_TEXT_LINE_MIN_CHARS`) for which `where` holds."""
    return sum(1 for column in columns if any(p.chars >= _TEXT_LINE_MIN_CHARS and where(p) for p in column))


def _spanning_and_columns(
    flat: list[PrintedLine], gutters: list[tuple[float, float]], widths: list[float]
) -> tuple[list[PrintedLine], list[list[PrintedLine]]]:
    """Pieces that reach well across a gutter (or are cells of a page-wide table), top to bottom,
    and the pieces of every column."""
    spanning: list[PrintedLine] = []
    columns: list[list[PrintedLine]] = [[] for _ in widths]
    table_cells = _wide_table_cells(flat, gutters, widths)
    for p in flat:
        crossed = id(p) in table_cells or any(
            p.x0 < start - _SPANNING_OVERHANG * widths[i] and p.x1 > end + _SPANNING_OVERHANG * widths[i + 1]
            for i, (start, end) in enumerate(gutters)
        )
        if crossed:
            spanning.append(p)
        else:
            middle = (p.x0 + p.x1) / 2
            columns[sum(1 for start, end in gutters if middle > (start + end) / 2)].append(p)
    return sorted(spanning, key=lambda p: p.y0), columns


def _column_order(columns: list[list[PrintedLine]], widths: list[float], text_width: float) -> list[int]:
    """Column indexes in reading order: a narrow margin column is read after the text."""
    column_chars = [sum(p.chars for p in column) for column in columns]
    minor = [
        i
        for i, width in enumerate(widths)
        if width < _MARGIN_COLUMN_MAX_WIDTH * text_width and column_chars[i] < _MARGIN_COLUMN_MAX_CHAR_SHARE * max(column_chars)
    ]
    return [i for i in range(len(columns)) if i not in minor] + minor


def _bands(columns: list[list[PrintedLine]], cuts: list[float]) -> list[list[list[PrintedLine]]]:
    """Every column's pieces in the bands the cuts (heights down the page, in order) part the page
    into: bands[band][column]."""
    bands: list[list[list[PrintedLine]]] = [[[] for _ in columns] for _ in range(len(cuts) + 1)]
    for i, column in enumerate(columns):
        for p in column:
            middle = (p.y0 + p.y1) / 2
            bands[sum(1 for cut in cuts if cut < middle)][i].append(p)
    return bands


def _read_bands(bands: list[list[list[PrintedLine]]], spanning: list[PrintedLine | None], order: list[int]) -> list[list[PrintedLine]]:
    """Groups in reading order: a band with lines of text in two columns is read column by column;
    full-width pieces, and bands without (the last line of a wide paragraph, a short title line,
    the cells of a table row), are read top to bottom. `spanning` holds what parts each band from
    the next: a full-width piece, or None for a gap across the columns."""
    groups: list[list[PrintedLine]] = []
    run: list[PrintedLine] = []
    for band_index, band in enumerate(bands):
        if sum(1 for column in band if any(p.chars >= _TEXT_LINE_MIN_CHARS for p in column)) > 1:
            if run:
                groups.append(sorted(run, key=lambda p: p.y0))
                run = []
            groups.extend(band[i] for i in order if band[i])
        else:
            run.extend(p for column in band for p in column)
        if band_index < len(spanning) and spanning[band_index] is not None:
            run.append(spanning[band_index])
    if run:
        groups.append(sorted(run, key=lambda p: p.y0))
    return groups
