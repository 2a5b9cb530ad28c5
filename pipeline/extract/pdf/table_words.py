"""An unruled table's grid from where its words stand: rows are lines, columns the gaps no line crosses.

PyMuPDF's own `text` strategy draws a column edge wherever three words line up, and on the
development PDFs it cut words in two (`Nor | mal`) about as often as it parted cells. Here a
line's words are first joined into phrases (words closer than a column gap), then a column gap
is an x-interval that the phrases of nearly every line leave empty; a phrase is a cell of the
column it stands in, or spans the columns whose gaps it covers (a header over two columns).

A line that only carries on cells of the line above (it starts lower case or with a bracket, or
the cell above ends with a hyphen or comma) joins it: a cell wrapped onto two lines is one cell.
Lines under the table's last rule, lines in smaller print from one that opens as a note does
(`*`, `†`, a lone `a`), or one-phrase lines after the last row of several cells, are its notes;
short lines standing apart under the last row (the page's number in its foot) shape no columns.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Any

import pymupdf

from pipeline.extract.pdf.page_reading import TEXT_FLAGS, to_frame
from pipeline.extract.pdf.records import PageBox
from pipeline.extract.pdf.table_rows import TableLine, join_labels_wrapped_round_values, join_lines, move_centred_labels, without_notes
from pipeline.extract.tables import Grid

_COLUMN_GAP = 0.9
"""Words further apart than this many of their heights are in different cells: a word space is
about a quarter of the font size, a column gap wider than the size."""
_SPACES_APART = 3.5
"""Words further apart than this many of the table's own word spaces are in different cells too:
a tight table sets its columns less than a font size apart, and its words a fifth of one."""
_SPACE_MAX = 0.5
"""A gap between two words of a line narrower than this many of their heights is a word space."""
_CROSSING_SHARE = 0.15
"""Share of the lines that may cross a column gap: spanning headers and notes do."""
_ACROSS = 0.6
"""A line of one phrase wider than this share of the table is text set across it (a note), not cells."""
_CROSSING_MIN = 1
"""Lines that may cross a column gap however short the table: a small table's header does."""
_MIN_GAP = 0.5
"""Narrowest column gap, in the table's median word heights."""
_SAME_LINE = 0.5
"""Words whose vertical middles are closer than this share of their height are on one line."""
_NUMBER = re.compile(r"^[-+−–]?\d+(?:[.,]\d+)*%?$")
"""A number alone: two of them side by side are two cells (a dense table of counts sets its
columns a word space apart), where words of text, or a number and its unit, are one."""
_RULE_MAX_HEIGHT = 2.0
"""A drawn rectangle at most this tall, in points, is a rule."""
_NOTE_GAP = 1.0
"""A line under a table more than this many of its heights below the line above is not its note."""
_NOTE_PRINT = 0.92
"""A table's notes are set in print smaller than this share of its lines'."""
_NOTE_MARKS = "*†‡§¶#"
_NOTE_WORDS = ("note", "notes", "abbreviation", "abbreviations")
_FOOT_WIDTH = 0.25
"""Lines under a table, apart from it, each narrower than this share of its width are the page's
foot (its number, a running foot): a table's notes run across most of it."""
_PRIME_WIDTH = 0.42
"""A raised `1` narrower than this many of its font size is a prime (`4′`, `Gal-1′′`) that a math
font names `one`: a digit is half its size wide, in a superscript too."""
_SUPERSCRIPT = 1
"""PyMuPDF's span flag of a raised span."""


Word = tuple[float, float, float, float, str, int, int, int]
"""A word as PyMuPDF gives it: x0, y0, x1, y1, text, block, line, word number."""


def drawn_rules(page: pymupdf.Page, frame: tuple[int, int]) -> list[PageBox]:
    """The rules drawn on the page that run along the text (in its frame): lines and flat
    rectangles (`get_cdrawings`, PyMuPDF's drawings as plain tuples, a few times faster than
    `get_drawings`)."""
    found = []
    for path in page.get_cdrawings():
        for item in path["items"]:
            if item[0] == "l":
                (xa, ya), (xb, yb) = item[1], item[2]
                box = (min(xa, xb), min(ya, yb), max(xa, xb), max(ya, yb))
            elif item[0] == "re":
                xa, ya, xb, yb = item[1]
                box = (min(xa, xb), min(ya, yb), max(xa, xb), max(ya, yb))
            else:
                continue
            framed = to_frame(box, frame)
            if framed[3] - framed[1] <= _RULE_MAX_HEIGHT:
                found.append(framed)
    return found


def page_words(textpage: pymupdf.TextPage, text: dict | None = None) -> list[Word]:
    """The page's words, from the text extraction its lines were read from (`text`: its `dict`,
    where the caller has it), with their prime marks read as primes (`_prime_marks`)."""
    words = [word for word in textpage.extractWORDS() if word[4].strip()]
    marks = _prime_marks(text if text is not None else textpage.extractDICT())
    return [_with_primes(word, marks) for word in words] if marks else words


def _prime_marks(page: dict) -> list[tuple[PageBox, int]]:
    """The boxes of the page's spans that are prime marks, each with its number of marks: a raised
    run of `1`s right after other text, each narrower than a digit (`_PRIME_WIDTH`)."""
    marks = []
    for block in page["blocks"]:
        for line in block.get("lines", []):
            for before, span in zip(line["spans"], line["spans"][1:]):
                text = span["text"]
                width = (span["bbox"][2] - span["bbox"][0]) / max(len(text), 1)
                if (
                    text and set(text) == {"1"} and span["flags"] & _SUPERSCRIPT and before["text"].strip()
                    and not before["text"].endswith(" ") and width < _PRIME_WIDTH * span["size"]
                ):
                    marks.append((tuple(span["bbox"]), len(text)))
    return marks


def _with_primes(word: Word, marks: list[tuple[PageBox, int]]) -> Word:
    """The word with the `1`s of a prime mark that ends it read as primes."""
    for box, count in marks:
        inside = word[0] - 0.5 <= (box[0] + box[2]) / 2 <= word[2] + 0.5 and word[1] - 0.5 <= (box[1] + box[3]) / 2 <= word[3] + 0.5
        if inside and abs(box[2] - word[2]) < 0.5 and word[4].endswith("1" * count) and len(word[4]) > count:
            return (*word[:4], word[4][:-count] + "′" * count, *word[5:])
    return word


def read_page_words(page: pymupdf.Page) -> list[Word]:
    """The page's words, read afresh (a page whose lines gave no reason to keep them)."""
    return page_words(page.get_textpage(flags=TEXT_FLAGS))


@dataclass(frozen=True, slots=True)
class WordGrid:
    grid: Grid
    box: PageBox
    row_tops: list[float]
    """Where each row of the grid starts (y of its first line)."""
    notes: list[str]


@dataclass(slots=True)
class _Phrase:
    x0: float
    x1: float
    text: str


@dataclass(slots=True)
class _Line:
    y0: float
    y1: float
    phrases: list[_Phrase]
    size: float
    """The height of its tallest word: the size of its print (a raised mark is smaller)."""


def _lines(words: list[Word]) -> list[_Line]:
    """The words in lines, top to bottom, each line's words joined into phrases."""
    lines: list[list[Word]] = []
    middle_sum = 0.0  # of the last line's words' middles, whose mean the next word is held to
    for word in sorted(words, key=lambda w: ((w[1] + w[3]) / 2, w[0])):
        middle, height = (word[1] + word[3]) / 2, word[3] - word[1]
        if lines and abs(middle - middle_sum / len(lines[-1])) < _SAME_LINE * height:
            lines[-1].append(word)
            middle_sum += middle
            continue
        lines.append([word])
        middle_sum = middle
    for members in lines:
        members.sort(key=lambda w: w[0])
    space = _word_space(lines)
    result = []
    for members in lines:
        phrases: list[_Phrase] = []
        for word in members:
            height = word[3] - word[1]
            apart = bool(phrases) and bool(_NUMBER.match(word[4])) and bool(_NUMBER.match(phrases[-1].text.rsplit(" ", 1)[-1]))
            if phrases and word[0] - phrases[-1].x1 < min(_COLUMN_GAP * height, _SPACES_APART * space) and not apart:
                phrases[-1].x1 = max(phrases[-1].x1, word[2])
                phrases[-1].text += " " + word[4]
            else:
                phrases.append(_Phrase(word[0], word[2], word[4]))
        result.append(_Line(min(w[1] for w in members), max(w[3] for w in members), phrases, max(w[3] - w[1] for w in members)))
    return result


def _word_space(lines: list[list[Word]]) -> float:
    """The table's word space: the median gap between neighbouring words of a line that is
    narrower than half their height (wider ones may part cells); infinite where there is none."""
    spaces = sorted(
        b[0] - a[2] for members in lines for a, b in zip(members, members[1:]) if 0 < b[0] - a[2] < _SPACE_MAX * (b[3] - b[1])
    )
    return spaces[len(spaces) // 2] if spaces else float("inf")


def _gaps(lines: list[_Line], left: float, right: float, min_gap: float, header: int) -> list[float]:
    """The middles of the column gaps: x-intervals inside the table that few lines cross; the
    first `header` lines, above the rule drawn under a table's header, may cross any (a header
    that spans columns: `Brasil China Brasil China` over a column each)."""
    edges = sorted({round(x, 1) for line in lines for phrase in line.phrases for x in (phrase.x0, phrase.x1)})
    # Every phrase starts and ends on an edge, so it covers whole segments between edges: count
    # the phrases over each segment with a difference array (a line's phrases never overlap).
    crossing = [0] * len(edges)
    # Lines of one phrase across most of the table after its last row of cells are its notes,
    # however many there are: they part no cells (running text above a table still does).
    last_row = max((index for index, line in enumerate(lines) if len(line.phrases) > 1), default=len(lines))
    foot = _foot(lines, last_row, right - left)
    for index, line in enumerate(lines[header:], start=header):
        if index > last_row and len(line.phrases) == 1 and line.phrases[0].x1 - line.phrases[0].x0 > _ACROSS * (right - left):
            continue
        if index >= foot:
            continue
        for phrase in line.phrases:
            crossing[bisect.bisect_left(edges, round(phrase.x0, 1))] += 1
            crossing[bisect.bisect_left(edges, round(phrase.x1, 1))] -= 1
    allowed = max(_CROSSING_MIN, int(_CROSSING_SHARE * len(lines)))
    phrases = [phrase for line in lines[:foot] for phrase in line.phrases]
    body = [phrase for line in lines[header:foot] for phrase in line.phrases]
    # Where few lines set the allowance at its floor, every stretch one line crosses is a run:
    # the phrases inside a run tell columns only where the share sets it.
    split = allowed > _CROSSING_MIN
    middles = []
    start = end = None
    covered = 0
    for index, (a, b) in enumerate(zip(edges, edges[1:])):
        covered += crossing[index]
        if covered <= allowed and left < (a + b) / 2 < right:
            start = a if start is None else start
            end = b
        elif start is not None:
            middles += _run_middles(start, end, phrases if split else [], body, min_gap)
            start = None
    if start is not None:
        middles += _run_middles(start, end, phrases if split else [], body, min_gap)
    # A gap with no phrase beginning after it (or ending before it) parts no columns: it is the
    # run of a header wider than the body beneath it.
    return [m for m in middles if any(p.x0 > m for p in phrases) and any(p.x1 < m for p in phrases)]


def _foot(lines: list[_Line], last_row: int, width: float) -> int:
    """The index of the first line under the table's last row of cells that stands apart from the
    line above it (`_NOTE_GAP`), with only short lines of one phrase from it on (`_FOOT_WIDTH`):
    the page's foot under a table that ends the page (its number, a running foot); len(lines)
    where there is none. Those lines part no cells and make no column of their own."""
    for index in range(last_row + 1, len(lines)):
        line, above = lines[index], lines[index - 1]
        short = all(len(after.phrases) == 1 and after.phrases[0].x1 - after.phrases[0].x0 < _FOOT_WIDTH * width for after in lines[index:])
        if line.y0 - above.y1 > _NOTE_GAP * (line.y1 - line.y0) and short:
            return index
    return len(lines)


def _run_middles(start: float, end: float, phrases: list[_Phrase], body: list[_Phrase], min_gap: float) -> list[float]:
    """The column gaps in a run that few lines cross: its middle; or where phrases stand wholly
    inside it, the middles of the empty stretches around them (a header over columns the body
    leaves empty, as a protocol's table to be filled in prints only its row labels); `body` are
    the phrases of the lines under the header."""
    middle = [(start + end) / 2] if end - start >= min_gap else []
    within = sorted((p.x0, p.x1) for p in phrases if start <= p.x0 and p.x1 <= end and (p.x0, p.x1) != (start, end))
    # Only where the body fills some of those columns, or leaves all of them empty up to the
    # table's edge: header phrases alone between two columns of the body (a header set on two
    # lines, `Feeding location` beside `Anatomical`) are no column of their own.
    in_body = any(start <= p.x0 and p.x1 <= end for p in body)
    if not in_body and any(p.x0 >= end for p in phrases):
        return middle
    stretches, reach = [], start
    for x0, x1 in within:
        if x0 > reach:
            stretches.append((reach, x0))
        reach = max(reach, x1)
    stretches.append((reach, end))
    around = [(a + b) / 2 for a, b in stretches if b - a >= min_gap]
    # Phrases with room for a column gap on either side only: a header over two columns, or a
    # short header in a wide gap, is no column of its own.
    return around if len(around) > 1 else middle


def _row(line: _Line, gaps: list[float]) -> list[str | None]:
    """The line's cells by column; a phrase over a gap spans the columns after it (None)."""
    row: list[str | None] = [""] * (len(gaps) + 1)
    for phrase in line.phrases:
        first = sum(1 for gap in gaps if gap < phrase.x0)
        last = sum(1 for gap in gaps if gap < phrase.x1)
        row[first] = f"{row[first]} {phrase.text}".strip() if row[first] else phrase.text
        for col in range(first + 1, last + 1):
            row[col] = None
    return row


def _opens_note(line: _Line) -> bool:
    """Whether each phrase of the line opens as a table's note does: with a note's mark (`*`, `†`,
    a lone letter `a`), or `Note`, `Abbreviations` (`*P < 0.05` and `**P < 0.01` side by side)."""
    firsts = [phrase.text.split()[0] for phrase in line.phrases]
    return all(
        first[0] in _NOTE_MARKS or (len(first) == 1 and first.islower()) or first.rstrip(":.").casefold() in _NOTE_WORDS for first in firsts
    )


def _above_notes(lines: list[_Line]) -> list[_Line]:
    """The lines above the table's notes: from a line that opens as a note (`_opens_note`), in
    print smaller than the table's (`_NOTE_PRINT`) as are all lines after it, however they spread
    (`*P < 0.05` and `**P < 0.01` side by side) or start (a note's mark `a` reads as lower case)."""
    sizes = sorted(line.size for line in lines)
    small = _NOTE_PRINT * sizes[len(sizes) // 2]
    start = len(lines)
    while start > 2 and lines[start - 1].size < small:
        start -= 1
    opening = next((index for index in range(start, len(lines)) if _opens_note(lines[index])), len(lines))
    return lines[:opening]


def words_grid(page_words: list[Word], region: pymupdf.Rect, rules_y: list[float], row_model: Any = None) -> WordGrid | None:
    """The grid of the page's words inside `region` (by their middles), or None where they make no
    two columns; `rules_y` are the heights of the horizontal rules drawn across the region. Which
    lines carry on the row above is `table_rows.join_lines`'s to say, by the rules or `row_model`."""
    words = [
        w for w in page_words
        if region.x0 <= (w[0] + w[2]) / 2 <= region.x1 and region.y0 <= (w[1] + w[3]) / 2 <= region.y1
    ]
    if not words:
        return None
    lines = _lines(words)
    heights = sorted(w[3] - w[1] for w in words)
    median = heights[len(heights) // 2]
    left, right = min(w[0] for w in words), max(w[2] for w in words)
    below_last_rule = [line for line in lines if rules_y and line.y0 >= max(rules_y) - 0.5]
    # The last rule closes the table where fewer lines follow it than precede it; a table that
    # runs on to the next page has its header's rule last, and the rows below it.
    body_lines = [line for line in lines if line not in below_last_rule] if 2 * len(below_last_rule) < len(lines) else lines
    inside = [y for y in rules_y if body_lines[0].y1 < y < body_lines[-1].y0]
    header = sum(1 for line in body_lines if inside and line.y1 <= min(inside))
    gaps = _gaps(body_lines, left, right, _MIN_GAP * median, header if len(body_lines) - header >= 2 else 0)
    if not gaps:
        return None
    # Notes in small print are cut from the rows only: the columns are read as they were.
    row_lines = _above_notes(body_lines)
    body = [
        TableLine(_row(line, gaps), line.y0, line.y1, index > 0 and any(row_lines[index - 1].y1 - 0.5 <= y <= line.y0 + 0.5 for y in rules_y))
        for index, line in enumerate(row_lines)
    ]
    placed = join_lines(body, row_model)
    # A label centred on two rows first, so that a label above it is not taken for its first line.
    placed = join_labels_wrapped_round_values(move_centred_labels(placed))
    placed = without_notes(placed, inside)
    rows, tops, bottoms = [cells for cells, _, _ in placed], [top for _, top, _ in placed], [bottom for _, _, bottom in placed]
    # The notes under an unruled table run on from its last row without a gap; what follows a gap
    # (a running foot, a heading) is not the table's.
    notes: list[str] = []
    under = [line for line in lines if line.y0 >= bottoms[-1] - 0.5] if bottoms else []
    bottom = bottoms[-1] if bottoms else region.y0
    for line in under:
        if line.y0 - bottom > _NOTE_GAP * (line.y1 - line.y0):
            break
        notes.append(" ".join(phrase.text for phrase in line.phrases))
        bottom = line.y1
    if len(rows) < 2:
        return None
    return WordGrid(grid=rows, box=(left, tops[0], right, bottoms[-1]), row_tops=tops, notes=notes)
