"""The reading order of a page's printed lines, as rows.

`order_page` reads a page column by column between full-width lines (title, abstract, wide
figures and tables), which keep their place, and joins the lines on one baseline into a `Row`
whose group says which column band it belongs to; the gutters come from `columns.find_columns`.
"""

from __future__ import annotations

from dataclasses import replace

from pipeline.extract.pdf.columns import TEXT_LINE_MIN_CHARS, wide_table_cells
from pipeline.extract.pdf.records import Lead, PrintedLine, Row, joined_superscripts, union
from pipeline.extract.pdf.typography import NEARLY_ALL, SAME_LINE_OVERLAP, SEPARATE_GAP

_CELL_GAP = 1.2
"""A gap between two pieces of one row wider than this many font sizes parts table cells; a word
space is about a quarter of a size."""
_SPANNING_OVERHANG = 0.2
"""A piece crosses a gutter when it reaches this share of a column's width into both columns;
less is a ragged line end."""
_SMALLER_PRINT = 0.9
"""Smaller print beside a line is at most this share of its size (a heading's 10.5 pt beside 8 pt
notes); sizes closer are the text's own (a caption's 7 pt beside 7.5 pt text of two columns)."""
_WORD_MIN_LETTERS = 3
"""A heading holds a word of three letters or more; a formula's glyphs and indices do not."""
_MARGIN_COLUMN_MAX_WIDTH = 0.35
_MARGIN_COLUMN_MAX_CHAR_SHARE = 0.5
"""A column narrower than this share of the text width and holding under half the characters of
the fullest column is a margin column (submission dates, licence, editor), read after the text."""


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
    """How many columns hold a line of text (`TEXT_LINE_MIN_CHARS`) for which `where` holds."""
    return sum(1 for column in columns if any(p.chars >= TEXT_LINE_MIN_CHARS and where(p) for p in column))


def _spanning_and_columns(
    flat: list[PrintedLine], gutters: list[tuple[float, float]], widths: list[float]
) -> tuple[list[PrintedLine], list[list[PrintedLine]]]:
    """Pieces that reach well across a gutter (or are cells of a page-wide table), top to bottom,
    and the pieces of every column."""
    spanning: list[PrintedLine] = []
    columns: list[list[PrintedLine]] = [[] for _ in widths]
    table_cells = wide_table_cells(flat, gutters, widths)
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
        if sum(1 for column in band if any(p.chars >= TEXT_LINE_MIN_CHARS for p in column)) > 1:
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
    # Most baselines hold one piece: nothing to sort or cut.
    return [
        _row(line, group)
        for cluster in clusters
        for line in ([cluster] if len(cluster) == 1 else _column_lines(sorted(cluster, key=lambda p: p.x0)))
    ]


def _column_lines(pieces: list[PrintedLine]) -> list[list[PrintedLine]]:
    """A baseline's pieces, left to right, cut where a short line of words in larger print (a
    heading) is followed across a wide gap by a longer line in smaller print: a heading of one
    column and the first line of the column beside it, on a page where no gutter was found between
    them (two-column back matter under one-column text). A table's cells are parted by gaps too,
    but share one size, as do the words of two columns' lines; a formula's glyphs and indices are
    no words. (Larger print on the right is left joined: without a gutter the right column's
    heading would cut the left column's text, a reference list, in two.)"""
    lines = [[pieces[0]]]
    for index in range(1, len(pieces)):
        piece, line = pieces[index], lines[-1]
        if piece.x0 - line[-1].x1 > SEPARATE_GAP * line[-1].size and _heads_the_rest(line, pieces[index:]):
            lines.append([piece])
        else:
            line.append(piece)
    return lines


def _heads_the_rest(line: list[PrintedLine], rest: list[PrintedLine]) -> bool:
    """Whether `line` reads as a heading beside `rest`: words in larger print, shorter than a line
    of text (`TEXT_LINE_MIN_CHARS` or more) in smaller print."""
    chars = sum(p.chars for p in rest)
    words = " ".join(p.text for p in line).split()
    return (
        TEXT_LINE_MIN_CHARS <= chars
        and sum(p.chars for p in line) < chars
        and any(len(word) >= _WORD_MIN_LETTERS and word.isalpha() for word in words)
        and _print_size(rest) <= _SMALLER_PRINT * _print_size(line)
    )


def _print_size(pieces: list[PrintedLine]) -> float:
    """The size that most of the pieces' characters are set in."""
    sizes: dict[float, int] = {}
    for piece in pieces:
        sizes[piece.size] = sizes.get(piece.size, 0) + piece.chars
    return max(sizes, key=sizes.__getitem__)


def _row(pieces: list[PrintedLine], group: int) -> Row:
    if len(pieces) == 1:
        # Most rows are one piece; built by position, in `Row`'s order: a dataclass this wide takes
        # far longer to match its fields by name.
        p = pieces[0]
        return Row(
            p.page, group, p.x0, p.y0, p.x1, p.y1, p.text, p.size, p.font, p.bold, p.small_caps, p.chars, 0, p.rotated, p.aside, p.box,
            p.superscripts, p.label, p.lead, p.monospaced, p.color,
        )
    chars = bold_chars = caps_chars = fixed_chars = 0
    sizes: dict[float, int] = {}
    fonts: dict[str, int] = {}
    labels: dict[str | None, int] = {}
    colors: dict[int, int] = {}
    for p in pieces:
        count = p.chars
        chars += count
        sizes[p.size] = sizes.get(p.size, 0) + count
        fonts[p.font] = fonts.get(p.font, 0) + count
        labels[p.label] = labels.get(p.label, 0) + count
        colors[p.color] = colors.get(p.color, 0) + count
        if p.bold:
            bold_chars += count
        if p.small_caps:
            caps_chars += count
        if p.monospaced:
            fixed_chars += count
    size = max(sizes, key=sizes.__getitem__)
    cells = sum(1 for a, b in zip(pieces, pieces[1:]) if b.x0 - a.x1 > _CELL_GAP * size)
    first = pieces[0]
    return Row(
        first.page, group, min([p.x0 for p in pieces]), min([p.y0 for p in pieces]), max([p.x1 for p in pieces]),
        max([p.y1 for p in pieces]), " ".join([p.text for p in pieces]), size, max(fonts, key=fonts.__getitem__),
        bold_chars >= NEARLY_ALL * chars, caps_chars >= NEARLY_ALL * chars, chars, cells, first.rotated, first.aside,
        union([p.box for p in pieces]), joined_superscripts([(p.text, p.superscripts) for p in pieces], " "),
        max(labels, key=labels.__getitem__), _row_lead(pieces), fixed_chars >= NEARLY_ALL * chars,
        max(colors, key=colors.__getitem__),
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
