"""A table of contents: lines that name the sections to come, each ending in the page it starts on.

`mark_contents` finds runs of such lines (`1 Introduction ........ 3`, or the page number set
flush right with a gap before it) and makes each run a list of its own before headings are
sought: its entries repeat the headings of the body in the same styles, and read as headings
they would open empty sections that duplicate the real ones. A run is a table of contents where
it holds several entries, their page numbers never go back, and the body goes on to use most of
their titles: a table's column of rising numbers names nothing that follows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from pipeline.extract.pdf.records import PdfBlock, Row
from pipeline.text.heading_key import heading_key
from pipeline.records.base import BlockKind

_PAGE_AT_END = re.compile(r"(?<!\w)(?:\d{1,4}|[ivxlc]{1,7})$")
"""A contents entry's page number, arabic or roman in lower case (front matter is numbered so),
a token of its own at the line's end."""
_LEADER_CHARACTERS = ".·_…"
_LEADER_MIN_DOTS = 3
"""Dots (or `·`, `_`) that make a leader; an ellipsis character is one by itself."""
_LETTER = re.compile(r"[^\W\d_]")
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
_MIN_ENTRIES = 4
"""Entries a run must hold: a contents list names the sections of a report, and two or three
lines ending in numbers are as likely a short table."""
_MOST_BETWEEN = 1
"""Lines without a page number a run may hold between two entries: an entry's title that wraps."""
_MIN_TITLES_FOUND = 0.5
"""Share of a run's titles that must open a block after it: the body heads its sections with them."""


@dataclass(frozen=True, slots=True)
class _Entry:
    position: int
    """Where its line is among the document's lines, in reading order."""
    title: str
    page: tuple[int, int]
    """The page number as (0, roman value) or (1, arabic value): front matter comes first."""


def mark_contents(blocks: list[PdfBlock]) -> list[PdfBlock]:
    """The blocks with every table of contents a list block of its own, cut out of the blocks its lines were in."""
    rows = [row for block in blocks for row in block.rows]
    runs = _runs(rows)
    if not runs:
        return blocks  # most papers: no block's key is needed
    keys = [heading_key(block.text, letters_and_digits=True) for block in blocks]
    starts = [0]
    for block in blocks:
        starts.append(starts[-1] + len(block.rows))
    inside: dict[int, int] = {}
    for number, run in enumerate(runs):
        first, last = run[0].position, run[-1].position
        after = [key for key, start in zip(keys, starts) if start > last and key]
        titles = [heading_key(entry.title, letters_and_digits=True) for entry in run]
        found = sum(1 for title in titles if title and any(key.startswith(title) for key in after))
        if found >= _MIN_TITLES_FOUND * len(run):
            inside.update((position, number) for position in range(first, last + 1))
    if not inside:
        return blocks
    result: list[PdfBlock] = []
    result_runs: list[int | None] = []
    for block, start in zip(blocks, starts):
        parts: list[tuple[int | None, list[Row]]] = []
        for offset, row in enumerate(block.rows):
            run = inside.get(start + offset)
            if parts and parts[-1][0] == run:
                parts[-1][1].append(row)
            else:
                parts.append((run, [row]))
        for run, part in parts:
            if run is None:
                result.append(block if len(parts) == 1 else replace(block, rows=tuple(part)))
            elif result_runs and result_runs[-1] == run:
                result[-1] = replace(result[-1], rows=result[-1].rows + tuple(part))
                continue
            else:
                result.append(PdfBlock(kind=BlockKind.list, rows=tuple(part)))
            result_runs.append(run)
    return result


def _runs(rows: list[Row]) -> list[list[_Entry]]:
    """Runs of entries in reading order whose page numbers never go back, with no more than
    `_MOST_BETWEEN` other lines between two entries, of `_MIN_ENTRIES` entries or more."""
    runs: list[list[_Entry]] = []
    run: list[_Entry] = []
    for position, row in enumerate(rows):
        entry = _entry(row, position)
        if entry is None:
            if run and position - run[-1].position > _MOST_BETWEEN:
                runs.append(run)
                run = []
            continue
        if run and entry.page < run[-1].page:
            runs.append(run)
            run = []
        run.append(entry)
    runs.append(run)
    return [run for run in runs if len(run) >= _MIN_ENTRIES]


def _entry(row: Row, position: int) -> _Entry | None:
    """The row as an entry: a title, then its page number after a dot leader or a gap wider than
    a word space (the page number a cell of its own)."""
    split = _title_leader_page(row.text)
    if split is None or row.rotated:
        return None
    title, leader, page = split
    if not (leader or row.cells >= 1):
        return None
    return _Entry(position, title, (1, int(page)) if page.isdigit() else (0, _roman(page)))


def _title_leader_page(text: str) -> tuple[str, bool, str] | None:
    """A line read from its end as an entry: its title (with a letter), whether a dot leader
    stands before its page number, and the page number; None where it is no entry. Read with
    string operations from the right, not one pattern from the left, whose lazy title tried at
    every character against a long run of dots or spaces grows with the square of the line."""
    text = text.rstrip()
    if not (text[-1:].isdecimal() or text[-1:] in _ROMAN):
        return None  # most lines: no page number can end them, and the pattern need not scan them
    page = _PAGE_AT_END.search(text)
    if page is None:
        return None
    head = text[: page.start()]
    stripped = head.rstrip()
    title = stripped.rstrip(_LEADER_CHARACTERS + " \t")
    leader_text = stripped[len(title) :]
    leader = "…" in leader_text or sum(leader_text.count(character) for character in ".·_") >= _LEADER_MIN_DOTS
    if not leader:
        if len(stripped) == len(head):
            return None  # the page number glued to the title: no gap, no leader
        title = stripped
    title = title.rstrip()
    return (title, leader, page.group()) if _LETTER.search(title) else None


def _roman(numeral: str) -> int:
    values = [_ROMAN[character] for character in numeral]
    return sum(-value if value < following else value for value, following in zip(values, [*values[1:], 0]))
