"""Running heads and feet: the journal heads, author lines and page numbers that recur in the
margins, dropped.

`drop_running_lines` compares every margin line, digits masked, with the margin lines of the other
pages: one whose text recurs at the same height on enough of them is page furniture.
`margin_lines` and `line_middle` are the measures `margins.drop_heads_naming_the_paper` shares.
"""

from __future__ import annotations

import re
from collections import defaultdict

from pipeline.extract.pdf.records import PrintedLine, gathered_lines
from pipeline.extract.pdf.typography import SEPARATE_GAP
from pipeline.rules.pdf import PdfRunningLineRules

_PAGE_NUMBER = re.compile(r"^(?:page\s+)?(?:\d{1,4}|[ivx]{1,5})(?:\s+of\s+\d{1,4})?$", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")
_SEPARATE_MIN_CHARS = 12
"""A separate margin piece is compared on its own from this length: a shorter one (a single
word) may recur by chance."""


def _running_key(text: str) -> str:
    """A margin line's text as compared across pages: digits masked, and a page number in roman
    masked whole (front matter's `iii` recurs with the body's `12` at the same height)."""
    key = " ".join(text.casefold().split())
    return "#" if _PAGE_NUMBER.match(key) else _DIGITS.sub("#", key)


def margin_lines(pieces: list[PrintedLine], height: float, band: float) -> list[list[PrintedLine]]:
    """Printed lines in the top and bottom `band` (a share of the page height), gathered into lines across the page width."""
    return gathered_lines(p for p in pieces if not p.rotated and not band * height <= (p.y0 + p.y1) / 2 <= (1 - band) * height)


def line_middle(line: list[PrintedLine]) -> float:
    """The height of a line's middle, its pieces' middles averaged."""
    return sum(p.y0 + p.y1 for p in line) / (2 * len(line))


def _separate_pieces(line: list[PrintedLine]) -> list[PrintedLine]:
    """Pieces of a margin line set well apart from their neighbours: long, or a page number."""
    chosen = []
    for index, piece in enumerate(line):
        before = line[index - 1].x1 if index else float("-inf")
        after = line[index + 1].x0 if index + 1 < len(line) else float("inf")
        apart = piece.x0 - before > SEPARATE_GAP * piece.size and after - piece.x1 > SEPARATE_GAP * piece.size
        if apart and (piece.chars >= _SEPARATE_MIN_CHARS or _PAGE_NUMBER.match(piece.text)):
            chosen.append(piece)
    return chosen


def drop_running_lines(
    pages: list[list[PrintedLine]], heights: list[float], rules: PdfRunningLineRules
) -> tuple[list[list[PrintedLine]], list[PrintedLine]]:
    """Every page without its margin lines whose text (digits masked) recurs at the same height
    on other pages, and the printed lines dropped.

    A whole margin line is compared, and so is each of its pieces that stands apart and is a
    page number or a dozen characters long (a running head set apart from the page number on
    the same line).
    """
    if len(pages) < 2:
        return pages, []
    least_pages = rules.short_document_min_pages if len(pages) <= rules.min_pages else rules.min_pages
    seen: dict[str, list[tuple[int, float]]] = defaultdict(list)
    candidates: list[tuple[str, int, float, float, list[PrintedLine]]] = []
    for index, (pieces, height) in enumerate(zip(pages, heights)):
        for line in margin_lines(pieces, height, rules.margin):
            line.sort(key=lambda p: p.x0)
            middle = line_middle(line)
            keys = [(_running_key(" ".join(p.text for p in line)), line)]
            if len(line) > 1:
                keys += [(_running_key(p.text), [p]) for p in _separate_pieces(line)]
            for key, members in keys:
                seen[key].append((index, middle))
                candidates.append((key, index, middle, max(rules.min_height_tolerance, rules.height_tolerance * height), members))
    running: set[int] = set()
    for key, _index, middle, tolerance, members in candidates:
        if len({other for other, y in seen[key] if abs(y - middle) <= tolerance}) >= least_pages:
            running.update(id(p) for p in members)
    removed = [p for pieces in pages for p in pieces if id(p) in running]
    return [[p for p in pieces if id(p) not in running] for pieces in pages], removed
