"""A PDF's tables as cells, read beside each table caption.

A table is found from its caption: a line that opens like one (`[pdf.tables] caption`) says a
table is printed next to it, in the caption's column (or across the page, where nothing stands
beside it in the other half), below it or else above it, in the region that runs to the next
caption or the first line of running text (`table_regions` finds the captions and their
regions). Only pages with such a line are read again, which is
what keeps the cost off a paper's other pages. The grid is read as `[pdf.tables] strategy` says:
from the words' own column gaps (`table_words`, the default), or by PyMuPDF's finder
(`page.find_tables`) on ruling lines or on the words' alignment. A page whose text runs up the
page is read in its text's frame. Where the layout model read the paper, its `table` boxes are
read too: beside a caption whose region shows no grid, and alone where no caption names them.

What is read: the label and caption (the caption line and the rest of its PyMuPDF block, and the
caption again in a second language right under it), the grid as cells with their spans, header
rows (those above the first rule drawn across the grid, else the first row), and the notes right
under the grid. A caption beside which no grid of at least `min_rows` × `min_columns` is found is
recorded with `parse = text`: its lines stay in the text as they are, and no half-read grid is kept.
A grid that reaches the foot of its column takes the rows the next page prints under its header
row printed again at its top (a long table run on without a caption of its own).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pymupdf

from pipeline.extract.pdf.page_reading import from_frame, to_frame
from pipeline.extract.pdf.records import PageBox, PrintedLine
from pipeline.extract.pdf.table_regions import SMALL_PRINT, Caption, caption_region, find_captions, is_prose, overlap
from pipeline.extract.pdf.table_words import Word, drawn_rules, read_page_words, words_grid
from pipeline.extract.tables import Grid, cell_text, grid_cells, render_markdown
from pipeline.records.base import Box
from pipeline.records.extract import Table, TableParse
from pipeline.rules.pdf import PdfTableRules, TableStrategy

_SIDE_BY_SIDE = 0.5
"""A grid and a caption overlap along x by this share of the narrower: they share a column."""
_RULE_MIN_WIDTH = 0.6
"""A horizontal rule inside a grid that spans this share of its width parts the header from the body."""
_MODEL_BOX_MARGIN = 2.0
"""Points a layout model's table box is widened by on every side: its edge may cut a glyph."""


def _holds(box: PageBox, word: tuple) -> bool:
    """Whether the word's middle lies inside the box."""
    x, y = (word[0] + word[2]) / 2, (word[1] + word[3]) / 2
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def _usable(table: pymupdf.table.Table, rules: PdfTableRules) -> bool:
    if table.row_count < rules.min_rows or table.col_count < rules.min_columns:
        return False
    grid = table.extract()
    # A grid whose every row has one filled cell is text in one column, not a table.
    return sum(1 for row in grid if sum(1 for value in row if value) >= 2) >= rules.min_rows


def _nearest(tables: list, caption: Caption, gap: float) -> pymupdf.table.Table | None:
    """The table just below the caption, else just above it, within `gap` points and sharing its column."""
    below = [t for t in tables if 0 <= t.bbox[1] - caption.box[3] + 0.5 <= gap + 0.5 and overlap(t.bbox, caption.box) >= _SIDE_BY_SIDE]
    if below:
        return min(below, key=lambda t: t.bbox[1])
    above = [t for t in tables if 0 <= caption.box[1] - t.bbox[3] + 0.5 <= gap + 0.5 and overlap(t.bbox, caption.box) >= _SIDE_BY_SIDE]
    return max(above, key=lambda t: t.bbox[3]) if above else None


def _header_rows(table: pymupdf.table.Table, rules_drawn: list[PageBox]) -> int:
    """Rows above the first rule drawn across the grid inside it; the first row where none is."""
    x0, y0, x1, y1 = table.bbox
    rows = [row.bbox for row in table.rows]
    inside = sorted(
        rule[1] for rule in rules_drawn
        if (min(rule[2], x1) - max(rule[0], x0)) >= _RULE_MIN_WIDTH * (x1 - x0) and rows[0][3] - 1 <= rule[1] <= rows[-1][1] + 1
    )
    if inside:
        above = sum(1 for row in rows if row[3] <= inside[0] + 1)
        if 0 < above < len(rows):
            return above
    return 1


def _footnotes(table_box: PageBox, pieces: list[PrintedLine], region: pymupdf.Rect, body_size: float, rules: PdfTableRules) -> str | None:
    """The lines of small print right under the grid, in the caption's column."""
    under = sorted(
        (
            piece for piece in pieces
            if piece.box is not None and not piece.rotated and piece.box[1] >= table_box[3] - 0.5
            and overlap(piece.box, (region.x0, 0, region.x1, 0)) > 0.5
        ),
        key=lambda piece: (round(piece.box[1]), piece.box[0]),
    )
    lines: list[str] = []
    bottom = table_box[3]
    for piece in under:
        if piece.box[1] - bottom > rules.footnote_gap * piece.size:
            break
        if piece.size >= SMALL_PRINT * body_size or rules.caption.match(piece.text.strip()):
            break
        if lines and abs(piece.box[1] - last_top) < 0.5 * piece.size:
            lines[-1] += " " + " ".join(piece.text.split())
        else:
            lines.append(" ".join(piece.text.split()))
        last_top = piece.box[1]
        bottom = max(bottom, piece.box[3])
    return "\n".join(lines) or None


@dataclass(frozen=True, slots=True)
class _Found:
    grid: Grid
    box: PageBox
    header_rows: int
    notes: str | None
    bottom: float
    """Where the grid's lines end, the notes under it too."""


def _from_finder(table: pymupdf.table.Table, pieces: list[PrintedLine], region: pymupdf.Rect, body_size: float,
                 rules: PdfTableRules, drawn: list[PageBox]) -> _Found:
    # The alignment strategy leaves a row between rows where their lines are far apart.
    grid = [[None if value is None else cell_text(value) for value in row] for row in table.extract() if any(value for value in row)]
    box = tuple(table.bbox)
    return _Found(grid, box, _header_rows(table, drawn), _footnotes(box, pieces, region, body_size, rules), box[3])


def _from_words(words: list[Word], caption: Caption | None, region: pymupdf.Rect, pieces: list[PrintedLine], body_size: float,
                rules: PdfTableRules, drawn: list[PageBox], below: bool) -> _Found | None:
    across = [rule[1] for rule in drawn if overlap(rule, (region.x0, 0, region.x1, 0)) > 0 and region.y0 <= rule[1] <= region.y1]
    found = words_grid(words, region, across, rules.row_model)
    if found is None or len(found.grid) < rules.min_rows or len(found.grid[0]) < rules.min_columns:
        return None
    gap = rules.max_gap * body_size
    # Under a table its notes may stand between the grid and a caption set below it.
    bounds = tuple(region)  # once, not for each of the page's words
    notes_bottom = max((w[3] for w in words if w[1] >= found.box[3] - 0.5 and _holds(bounds, w)), default=found.box[3])
    if caption is not None and (found.box[1] - caption.box[3] if below else caption.box[1] - notes_bottom) > gap:
        return None
    inside = sorted(y for y in across if found.box[1] + 1 < y < found.box[3] - 1)
    header_rows = sum(1 for top in found.row_tops if inside and top < inside[0]) or 1
    if header_rows >= len(found.grid):
        header_rows = 1
    notes = "\n".join(found.notes) or _footnotes(found.box, pieces, region, body_size, rules)
    return _Found(found.grid, found.box, header_rows, notes, notes_bottom)


def _find(page: pymupdf.Page, rect: pymupdf.Rect, words: list[Word], caption: Caption, pieces: list[PrintedLine], stops: list[PageBox],
          body_size: float, rules: PdfTableRules, ruled: list | None, drawn: list[PageBox], sides: tuple[bool, ...] = (True, False)) -> _Found | None:
    """The grid beside the caption, as the strategy reads it, sought below it then above it (or on
    the `sides` given: True for below); `rect` is the page in its text's frame."""
    gap = rules.max_gap * body_size
    below = caption_region(caption, pieces, stops, rect, body_size, below=True)
    if ruled is not None and sides == (True, False):
        table = _nearest([t for t in ruled if _usable(t, rules)], caption, gap)
        if table is not None:
            return _from_finder(table, pieces, below, body_size, rules, drawn)
    if rules.strategy is TableStrategy.lines:
        return None
    for is_below in sides:
        region = below if is_below else caption_region(caption, pieces, stops, rect, body_size, below=False)
        if region.height <= 0 or region.width <= 0:
            continue
        if rules.strategy is TableStrategy.text and ruled is not None:
            found = page.find_tables(clip=region, strategy="text", use_layout=False)
            table = _nearest([t for t in found.tables if _usable(t, rules)], caption, gap)
            if table is not None:
                return _from_finder(table, pieces, region, body_size, rules, drawn)
        elif (result := _from_words(words, caption, region, pieces, body_size, rules, drawn, is_below)) is not None:
            return result
    return None


def _read_twice(captions: list[Caption], founds: list[_Found | None]) -> list[tuple[int, bool]]:
    """The captions whose grid another caption, nearer to it, read too: each with the side
    (True: below) its own table must then be on."""
    def distance(caption: Caption, found: _Found) -> float:
        return found.box[1] - caption.box[3] if found.box[1] >= caption.box[3] - 0.5 else caption.box[1] - found.bottom

    twice = []
    for i, j in ((i, j) for i in range(len(founds)) for j in range(i + 1, len(founds))):
        if founds[i] is not None and founds[j] is not None and founds[i].box == founds[j].box:
            far = i if distance(captions[i], founds[i]) > distance(captions[j], founds[j]) else j
            twice.append((far, founds[far].box[1] < captions[far].box[3] - 0.5))
    return twice


def _steered(caption: Caption, boxes: list[PageBox], gap: float) -> tuple[PageBox, bool] | None:
    """The layout model's table box just below the caption (else just above it), sharing its
    column, and whether it is below."""
    below = [box for box in boxes if -gap <= box[1] - caption.box[3] <= gap and overlap(box, caption.box) >= _SIDE_BY_SIDE]
    if below:
        return min(below, key=lambda box: box[1]), True
    above = [box for box in boxes if -gap <= caption.box[1] - box[3] <= gap and overlap(box, caption.box) >= _SIDE_BY_SIDE]
    return (max(above, key=lambda box: box[3]), False) if above else None


def _widened(box: PageBox) -> pymupdf.Rect:
    return pymupdf.Rect(box[0] - _MODEL_BOX_MARGIN, box[1] - _MODEL_BOX_MARGIN, box[2] + _MODEL_BOX_MARGIN, box[3] + _MODEL_BOX_MARGIN)


def _record(table_id: str, number: int, caption: Caption | None, found: _Found | None, frame: tuple[int, int]) -> Table:
    label, text = (caption.label, caption.text) if caption is not None else (None, None)
    if found is None:
        return Table(table_id=table_id, label=label, caption=text, parse=TableParse.text, pages=[number])
    cells = grid_cells(found.grid, found.header_rows)
    x0, y0, x1, y1 = from_frame(found.box, frame)
    return Table(
        table_id=table_id, label=label, caption=text, footnotes=found.notes, parse=TableParse.cells, pages=[number],
        boxes=[Box(page=number, x0=round(x0, 1), y0=round(y0, 1), x1=round(x1, 1), y1=round(y1, 1))],
        header_rows=found.header_rows, cells=cells, markdown=render_markdown(cells, len(found.grid[0])),
    )


@dataclass(frozen=True, slots=True)
class _Open:
    """A page's last table, whose grid reaches the foot of its column: its rows may run on at the
    top of the next page, under its header printed again."""

    index: int
    """Its place in the paper's tables."""
    grid: Grid
    """Every row read so far, header rows first."""
    header_rows: int
    column: tuple[float, float]
    """Left and right of the region it was read in."""
    frame: tuple[int, int]


def _header_key(text: str) -> str:
    return "".join(text.split()).casefold()


def _left_open(table: Table, found: _Found | None, caption: Caption, pieces: list[PrintedLine], stops: list[PageBox],
               rect: pymupdf.Rect, body_size: float, index: int, frame: tuple[int, int]) -> _Open | None:
    """The table as `_Open` where no running text follows its grid in its column, else None."""
    if found is None:
        return None
    region = caption_region(caption, pieces, stops, rect, body_size, below=found.box[1] >= caption.box[3] - 0.5)
    column = (region.x0, 0, region.x1, 0)
    if any(piece.box is not None and piece.box[1] >= found.bottom and overlap(piece.box, column) > 0.5 and is_prose(piece, rect.width / 2, body_size) for piece in pieces):
        return None
    return _Open(index, found.grid, found.header_rows, (region.x0, region.x1), frame)


def _top_lines(pieces: list[PrintedLine], column: tuple[float, float], limit: float) -> list[tuple[float, str]]:
    """The page's lines in the column above `limit`, top to bottom: each its top and its text."""
    lines: list[list[PrintedLine]] = []
    inside = [piece for piece in pieces if piece.box is not None and not piece.rotated and piece.box[3] <= limit and overlap(piece.box, (column[0], 0, column[1], 0)) > 0.5]
    for piece in sorted(inside, key=lambda piece: (piece.box[1] + piece.box[3]) / 2):
        middle = (piece.box[1] + piece.box[3]) / 2
        if lines and abs(middle - (lines[-1][0].box[1] + lines[-1][0].box[3]) / 2) < 0.5 * (piece.box[3] - piece.box[1]):
            lines[-1].append(piece)
        else:
            lines.append([piece])
    return [(min(p.box[1] for p in line), " ".join(p.text for p in sorted(line, key=lambda p: p.box[0]))) for line in lines]


def _run_on(open_table: _Open, words: list[Word], pieces: list[PrintedLine], stops: list[PageBox], rect: pymupdf.Rect,
            body_size: float, rules: PdfTableRules, drawn: list[PageBox]) -> _Found | None:
    """The grid that carries `open_table` on at the top of this page: under its header row printed
    again, above the page's first caption and running text, with as many columns."""
    column = (open_table.column[0], 0, open_table.column[1], 0)
    ends = [stop[1] for stop in stops] + [
        piece.box[1] for piece in pieces if piece.box is not None and overlap(piece.box, column) > 0.5 and is_prose(piece, rect.width / 2, body_size)
    ]
    limit = min(ends, default=rect.y1)
    header = _header_key(" ".join(cell for cell in open_table.grid[0] if cell))
    top = next((top for top, text in _top_lines(pieces, open_table.column, limit) if _header_key(text) == header), None)
    if top is None:
        return None
    region = pymupdf.Rect(open_table.column[0], top - 0.5, open_table.column[1], limit)
    found = _from_words(words, None, region, pieces, body_size, rules, drawn, True)
    if found is None or len(found.grid[0]) != len(open_table.grid[0]):
        return None
    return found


def _carried_on(table: Table, open_table: _Open, more: _Found, number: int) -> tuple[Table, _Open]:
    """The table with the rows under its header printed again on page `number` added to its own."""
    grid = open_table.grid + more.grid[more.header_rows :]
    cells = grid_cells(grid, open_table.header_rows)
    x0, y0, x1, y1 = from_frame(more.box, open_table.frame)
    notes = "\n".join(note for note in (table.footnotes, more.notes) if note) or None
    update = {
        "pages": [*table.pages, number], "cells": cells, "markdown": render_markdown(cells, len(grid[0])), "footnotes": notes,
        "boxes": [*table.boxes, Box(page=number, x0=round(x0, 1), y0=round(y0, 1), x1=round(x1, 1), y1=round(y1, 1))],
    }
    return table.model_copy(update=update), replace(open_table, grid=grid)


def _page_view(
    page: pymupdf.Page, pieces: list[PrintedLine], page_words: list[Word], captions: list[Caption]
) -> tuple[tuple[int, int], pymupdf.Rect, list[PrintedLine], list[Word], list[Caption]]:
    """The page in the frame of its text: the frame, the page's rectangle, and its pieces, words and
    captions in it. A table printed sideways (its lines running up the page) is read as it is meant
    to be read; words of lines set across the text (a running head beside such a table, a stamp up
    the margin) are none of a table's cells."""
    frame = next((piece.frame for piece in pieces if not piece.rotated), (1, 0))
    rect = pymupdf.Rect(to_frame(tuple(page.rect * page.derotation_matrix), frame))
    across_text = [piece.box for piece in pieces if piece.rotated and piece.box is not None]
    if across_text:
        page_words = [word for word in page_words if not any(_holds(box, word) for box in across_text)]
    if frame != (1, 0):
        pieces = [replace(piece, box=to_frame(piece.box, frame)) for piece in pieces if piece.box is not None]
        page_words = [(*to_frame(word[:4], frame), *word[4:]) for word in page_words]
        captions = [replace(caption, box=to_frame(caption.box, frame)) for caption in captions]
    return frame, rect, pieces, page_words, captions


def find_pdf_tables(
    doc: pymupdf.Document, pages: list[list[PrintedLine]], words: dict[int, list[Word]], body_size: float, rules: PdfTableRules,
    model_tables: dict[int, list[PageBox]],
) -> list[Table]:
    """Every table whose caption a page prints, in page order, its grid read where one is found;
    `words` are the words of the pages with a table caption (`has_table_caption`).

    `model_tables` are the boxes the layout model calls tables, by page, where it read the paper:
    a caption beside which its region shows no grid is read inside the box beside it, and a box
    no caption's table covers is a table without label or caption where a grid is found in it.
    A table whose grid reaches the foot of its column and whose header row is printed again at the
    top of the next page, above its first caption and running text, takes the rows under it."""
    tables: list[Table] = []
    open_table: _Open | None = None
    for number, pieces in enumerate(pages, start=1):
        captions = find_captions(pieces, rules) if number in words else []
        boxes = model_tables.get(number, [])
        if not captions and not boxes and open_table is None:
            continue
        page = doc[number - 1]
        frame, rect, pieces, page_words, captions = _page_view(page, pieces, words[number] if number in words else read_page_words(page), captions)
        stops = [caption.box for caption in captions]
        drawn = drawn_rules(page, frame)
        more = _run_on(open_table, page_words, pieces, stops, rect, body_size, rules, drawn) if open_table and open_table.frame == frame else None
        if more is not None:
            tables[open_table.index], open_table = _carried_on(tables[open_table.index], open_table, more, number)
        else:
            open_table = None
        page_tables = _page_tables(page, number, rect, frame, pieces, page_words, captions, stops, drawn, body_size, rules, boxes, len(tables))
        # The page's last captioned table with a grid may run on to the next page.
        last = max((index for index in range(len(captions)) if page_tables[index][1] is not None), default=None)
        if last is not None:
            table, found = page_tables[last]
            open_table = _left_open(table, found, captions[last], pieces, stops, rect, body_size, len(tables) + last, frame)
        elif captions:
            open_table = None
        tables += [table for table, _ in page_tables]
    return tables


def _page_tables(page: pymupdf.Page, number: int, rect: pymupdf.Rect, frame: tuple[int, int], pieces: list[PrintedLine],
                 page_words: list[Word], captions: list[Caption], stops: list[PageBox], drawn: list[PageBox], body_size: float,
                 rules: PdfTableRules, boxes: list[PageBox], before: int) -> list[tuple[Table, _Found | None]]:
    """The page's tables, each with the grid read for it: the captioned ones in the captions' order,
    then the layout model's boxes no captioned table covers; `before` tables came earlier."""
    gap = rules.max_gap * body_size
    unclaimed = [to_frame(box, frame) for box in boxes]
    ruled = None
    # PyMuPDF's finder reads the page in its own coordinates: only where they are the text's.
    if captions and frame == (1, 0) and rules.strategy in (TableStrategy.lines, TableStrategy.lines_then_words, TableStrategy.text):
        ruled = page.find_tables(strategy="lines", use_layout=False).tables if rules.strategy is not TableStrategy.text else []
    founds = [_find(page, rect, page_words, caption, pieces, stops, body_size, rules, ruled, drawn) for caption in captions]
    for far, side in _read_twice(captions, founds):
        # One grid read beside two captions is the nearer's: the other's table is on its other side.
        founds[far] = _find(page, rect, page_words, captions[far], pieces, stops, body_size, rules, ruled, drawn, (side,))
    found_tables: list[tuple[Table, _Found | None]] = []
    for caption, found in zip(captions, founds):
        # The model's box beside a caption is sought only where the caption's own region gave
        # no grid: on the development PDFs its boxes cut more tables short than they saved.
        if found is None and (steer := _steered(caption, unclaimed, gap)) is not None:
            found = _from_words(page_words, caption, _widened(steer[0]), pieces, body_size, rules, drawn, steer[1])
        found_tables.append((_record(f"T{before + len(found_tables) + 1}", number, caption, found, frame), found))
    grids = [found.box for _, found in found_tables if found is not None]
    for box in unclaimed:
        if any(overlap(box, grid) > 0 and box[1] < grid[3] and grid[1] < box[3] for grid in grids):
            continue  # a captioned table's, read already
        if (found := _from_words(page_words, None, _widened(box), pieces, body_size, rules, drawn, True)) is not None:
            found_tables.append((_record(f"T{before + len(found_tables) + 1}", number, None, found, frame), found))
    return found_tables
