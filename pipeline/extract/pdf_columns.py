"""Column gutters of every page, and the reading order of a page's pieces as rows.

`find_columns` finds the strips that lines of column width leave empty, and seeks a gutter seen
on several pages where one page's own evidence is weak; `order_page` reads a page column by
column between full-width pieces (title, abstract, wide figures and tables), which keep their
place, and joins the pieces on one baseline into a `Row` whose group says which column band it
belongs to.
"""

from __future__ import annotations

import statistics

from pipeline.extract.pdf_lines import Piece, Row
from pipeline.rules import PdfColumnRules


def _coverage_gaps(pieces: list[Piece], lo: float, hi: float, limit: float) -> list[tuple[float, float, float]]:
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


_MOST_GUTTERS = 3
"""A page's own lines show at most four columns: more gaps in a row are table cells or word gaps."""


def _narrow_lines(pieces: list[Piece], width: float, rules: PdfColumnRules) -> list[Piece]:
    """Pieces that could be lines of a column: narrow, and not table cells, figure labels or
    superscripts (a few characters), which may sit anywhere."""
    return [p for p in pieces if p.x1 - p.x0 <= rules.narrow_line_max_width * width and p.chars >= rules.narrow_line_min_chars]


def _find_gutters(pieces: list[Piece], body_size: float, rules: PdfColumnRules) -> list[tuple[float, float]]:
    """Vertical strips that separate text columns on one page, left to right.

    Only narrow pieces must leave a gutter empty: the title, a full-width abstract and wide
    figures cross it and become band separators instead.
    """
    if len(pieces) < 6:
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
    gaps = _coverage_gaps(narrow, left + 0.1 * width, right - 0.1 * width, rules.gutter_crossing_share * narrow_chars)
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


def _column_is_text(pieces: list[Piece], start: float, end: float, total: int, height: float) -> bool:
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


def _rows(pieces: list[Piece], group: int) -> list[Row]:
    pieces = sorted(pieces, key=lambda p: (p.y0, p.x0))
    clusters: list[list[Piece]] = []
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


def _row(pieces: list[Piece], group: int) -> Row:
    if len(pieces) == 1:
        p = pieces[0]
        return Row(
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
    return Row(
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


def find_columns(pages: list[list[Piece]], body_size: float, rules: PdfColumnRules) -> list[list[tuple[float, float]]]:
    """Column gutters of every page; a gutter seen on several pages is also sought where a page's
    own evidence is too weak (a column holding a big table, a page of short lines)."""
    flats = [[p for p in pieces if not p.rotated] for pieces in pages]
    gutters = [_find_gutters(flat, body_size, rules) for flat in flats]
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
        narrow = _narrow_lines(flat, right - left, rules)
        narrow_chars = sum(p.chars for p in narrow)
        total = sum(p.chars for p in flat)
        if narrow_chars >= rules.weak_page_narrow_share * total and repeated:
            gaps, least, common = _coverage_gaps(narrow, left, right, rules.gutter_crossing_share * narrow_chars), 3, repeated
        else:
            # Mostly wide lines: a gutter seen on any page, where nothing at all crosses (a margin column).
            gaps, least, common = _coverage_gaps(flat, left, right, 0), 2, middles
        found = []
        for start, end, _ in gaps:
            if end - start >= rules.gutter_min_width * body_size and any(start <= c <= end for c in common):
                sides = (
                    [p for p in flat if p.x1 <= start + 2],
                    [p for p in flat if p.x0 >= end - 2],
                )
                if all(len(side) >= least and sum(p.chars for p in side) >= 0.02 * total for side in sides):
                    found.append((start, end))
        gutters[index] = found
    return gutters


def _wide_table_cells(pieces: list[Piece], gutters: list[tuple[float, float]], widths: list[float]) -> set[int]:
    """Pieces on page lines that hold cells on both sides of a gutter and no line of column text:
    the rows of a table as wide as the page."""
    cells: set[int] = set()
    line: list[Piece] = []
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


def order_page(pieces: list[Piece], gutters: list[tuple[float, float]], first_group: int) -> list[Row]:
    """Rows of one page in reading order: per band between full-width pieces, column by column."""
    flat = [p for p in pieces if not p.rotated]
    rotated = [p for p in pieces if p.rotated]
    groups = _column_groups(flat, gutters) if gutters else [flat]
    if rotated:
        groups.append(rotated)
    return [row for offset, group in enumerate(groups) if group for row in _rows(group, first_group + offset)]


def _column_groups(flat: list[Piece], gutters: list[tuple[float, float]]) -> list[list[Piece]]:
    """The pieces of a page with columns as groups in reading order: band by band, each column
    of a band on its own, and what lies across the columns read top to bottom."""
    left = min(p.x0 for p in flat)
    right = max(p.x1 for p in flat)
    edges = [left] + [x for g in gutters for x in g] + [right]
    widths = [edges[2 * i + 1] - edges[2 * i] for i in range(len(gutters) + 1)]
    spanning, columns = _spanning_and_columns(flat, gutters, widths)
    order = _column_order(columns, widths, right - left)
    return _read_bands(_bands(columns, spanning), spanning, order)


def _spanning_and_columns(
    flat: list[Piece], gutters: list[tuple[float, float]], widths: list[float]
) -> tuple[list[Piece], list[list[Piece]]]:
    """Pieces that reach well across a gutter (or are cells of a page-wide table), top to bottom,
    and the pieces of every column."""
    spanning: list[Piece] = []
    columns: list[list[Piece]] = [[] for _ in widths]
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
    return sorted(spanning, key=lambda p: p.y0), columns


def _column_order(columns: list[list[Piece]], widths: list[float], text_width: float) -> list[int]:
    """Column indexes in reading order: a narrow margin column (submission dates, licence,
    editor) is read after the text."""
    column_chars = [sum(p.chars for p in column) for column in columns]
    minor = [
        i
        for i, width in enumerate(widths)
        if width < 0.35 * text_width and column_chars[i] < 0.5 * max(column_chars)
    ]
    return [i for i in range(len(columns)) if i not in minor] + minor


def _bands(columns: list[list[Piece]], spanning: list[Piece]) -> list[list[list[Piece]]]:
    """Every column's pieces in the bands the spanning pieces cut the page into: bands[band][column]."""
    cuts = [(p.y0 + p.y1) / 2 for p in spanning]
    bands: list[list[list[Piece]]] = [[[] for _ in columns] for _ in range(len(spanning) + 1)]
    for i, column in enumerate(columns):
        for p in column:
            middle = (p.y0 + p.y1) / 2
            bands[sum(1 for cut in cuts if cut < middle)][i].append(p)
    return bands


def _read_bands(bands: list[list[list[Piece]]], spanning: list[Piece], order: list[int]) -> list[list[Piece]]:
    """Groups in reading order: a band with lines of text in two columns is read column by column;
    full-width pieces, and bands without (the last line of a wide paragraph, a short title line,
    the cells of a table row), are read top to bottom."""
    groups: list[list[Piece]] = []
    run: list[Piece] = []
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
    return groups
