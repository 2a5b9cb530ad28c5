"""Which of an unruled table's lines carry on the row above, and which start a row of their own.

A table's body comes as lines, each already cut into the table's columns (`table_words`). A cell
whose text wraps puts its second line under the first: that line carries on the row above, and
its cells join that row's. Two readers decide it, on the same evidence (`line_features`):

- the rules (`continues_by_rules`): the line is close under the one above, fills only columns the
  row fills, and each of its cells reads on from the cell above (it starts in lower case or with
  a bracket, or the cell above ends with a hyphen or a comma); or, where the table sets its rows
  further apart than a cell's own lines (its gaps between lines fall in two clear sizes), the line
  stands at the smaller gap and leaves some of the row's columns empty (whatever its first letter:
  `Chloride` under `Copper`, `20 min` under `time`), unless it leaves only the first column empty
  (a row under a label that spans rows), opens a list's item, sets a number under a number, or
  runs across several columns the row fills apart (a note);
- the row model (`[pdf.tables] rows = "model"`): gradient-boosted trees trained by
  `scripts/train_table_row_model.py` on the even half of `../shared/corpus/pdf_jats`, each line
  labelled by the publisher's JATS rows, that read the same evidence and the rules' verdict.

A line that is a row of its own by its other cells may still carry on the row's label in its
first cells (`carried_label`): a label that spans two rows, wrapped across them, is the upper
row's. The rows then placed, a label set between rows is given to its row (`move_centred_labels`,
`join_labels_wrapped_round_values`) and one-phrase lines under the last row are left to the notes
(`without_notes`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pipeline.errors import RulesError

_WRAP_GAP = 0.5
"""A cell's wrapped line follows the line above within this many of its heights."""
_CONTINUES = "-–,"
_TWO_SIZES = 2.5
"""A table whose widest gaps between lines are this many times its narrowest (and wider than
`_ROW_GAP` line heights) sets its rows apart: its narrow gaps are a cell's own lines."""
_ROW_GAP = 0.3
_NARROW = 0.5
"""In such a table, a gap under this share of its wide gaps is a cell's own."""
_NUMBER = re.compile(r"^[-+−–±<>≤≥~]?\s*\d+(?:[.,]\d+)*\s*(?:%|[a-zA-Zμ]{1,3})?$")
_ACROSS = 2
"""Columns the row fills apart that a line may run across and still carry the row on."""
_LIST_MARKS = "•◦▪‣∙●○■□"
_LEFT_OPEN = (*_CONTINUES, ";", ":")
"""A cell that ends so goes on on the next line: a wrapped cell's ends, and a list's or a label's."""
_YEAR = re.compile(r"^\(\d{4}[a-z]?\)")
"""A year in brackets, as an author-year citation ends (`(2016)`, `(2019b)`)."""
_LOWER_WORD = 3
"""A word in lower case that opens a cell reads on from the cell above only from this many
letters: `n`, `p` and `df` open rows of their own."""
THRESHOLD = 0.5
"""The row model's probability from which a line carries on the row above."""


@dataclass(frozen=True, slots=True)
class TableLine:
    """One line of a table's body, cut into its columns."""

    cells: list[str | None]
    """The line's text by column ("" where it leaves the column empty, None where a cell to its
    left spans it)."""
    y0: float
    y1: float
    rule_above: bool
    """A rule is drawn across the table between this line and the one above."""


Placed = tuple[list[str | None], float, float]
"""A row's cells, and the top and bottom of its lines."""


def filled(cells: list[str | None]) -> set[int]:
    return {col for col, value in enumerate(cells) if value}


@dataclass(frozen=True, slots=True)
class TableContext:
    """What a line is read against: the table's line height and the sizes of its gaps."""

    height: float
    narrow_gap: float
    wide_gap: float
    last_row: int
    """The index of the table's last line of several cells: one-phrase lines after it are its notes."""

    @property
    def two_sizes(self) -> bool:
        return self.wide_gap > _ROW_GAP * self.height and self.wide_gap >= _TWO_SIZES * max(self.narrow_gap, 0.1 * self.height)


def table_context(lines: list[TableLine]) -> TableContext:
    heights = sorted(line.y1 - line.y0 for line in lines)
    gaps = sorted(max(0.0, b.y0 - a.y1) for a, b in zip(lines, lines[1:]))
    height = heights[len(heights) // 2] if heights else 1.0
    last_row = max((index for index, line in enumerate(lines) if len(filled(line.cells)) > 1), default=len(lines))
    if not gaps:
        return TableContext(height, 0.0, 0.0, last_row)
    # The quartiles, not the extremes: a header's or a group's extra space is not a row's.
    return TableContext(height, gaps[len(gaps) // 4], gaps[(3 * len(gaps)) // 4], last_row)


FEATURES = (
    "gap", "gap_vs_narrow", "gap_vs_wide", "two_sizes", "next_gap", "previous_gap", "lines_in_row",
    "filled", "row_filled", "columns", "first_filled", "row_first_filled", "within_row", "within_previous",
    "share_of_row", "lower_start", "upper_start", "digit_start", "bracket_start", "above_continues",
    "above_closes", "above_open_word", "numbers", "above_numbers", "rule_above", "height_ratio", "after_last_row", "rules_say",
)
"""The row model's features, in the order it was trained on (a change needs a new model)."""


def _share(values: list[bool]) -> float:
    return sum(values) / len(values) if values else 0.0


def line_features(lines: list[TableLine], index: int, row: list[str | None], row_lines: int, context: TableContext) -> list[float]:
    """The evidence whether `lines[index]` carries on `row` (the cells so far of the row its
    `row_lines` lines above it make), as `FEATURES` names it."""
    line, above = lines[index], lines[index - 1]
    height = max(context.height, 0.1)
    gap = line.y0 - above.y1
    cols = sorted(filled(line.cells))
    texts = [line.cells[col] for col in cols]
    above_texts = [above.cells[col] or "" for col in cols]
    return [
        gap / height,
        gap / max(context.narrow_gap, 0.05 * height),
        gap / max(context.wide_gap, 0.05 * height),
        float(context.two_sizes),
        (lines[index + 1].y0 - line.y1) / height if index + 1 < len(lines) else -1.0,
        (above.y0 - lines[index - 2].y1) / height if index >= 2 else -1.0,
        float(row_lines),
        float(len(cols)),
        float(len(filled(row))),
        float(len(line.cells)),
        float(0 in cols),
        float(0 in filled(row)),
        float(set(cols) <= filled(row)),
        float(set(cols) <= filled(above.cells)),
        len(cols) / max(1, len(filled(row))),
        _share([text[0].islower() for text in texts]),
        _share([text[0].isupper() for text in texts]),
        _share([text[0].isdigit() for text in texts]),
        _share([text[0] in "([{" for text in texts]),
        _share([text.endswith(tuple(_CONTINUES)) for text in above_texts]),
        _share([text.endswith((".", ")", "]", "%")) or bool(_NUMBER.match(text)) for text in above_texts]),
        _share([bool(text) and text.split()[-1].islower() and text[-1].isalpha() for text in above_texts]),
        _share([bool(_NUMBER.match(text)) for text in texts]),
        _share([bool(_NUMBER.match(text)) for text in above_texts if text]),
        float(line.rule_above),
        (line.y1 - line.y0) / max(above.y1 - above.y0, 0.1),
        float(index > context.last_row),
        float(continues_by_rules(lines, index, row, context)),
    ]


def continues_by_rules(lines: list[TableLine], index: int, row: list[str | None], context: TableContext) -> bool:
    """The rules' verdict whether `lines[index]` carries on `row` (see the module's docstring)."""
    line, above = lines[index], lines[index - 1]
    cols = filled(line.cells)
    if not cols or not cols <= filled(row):
        return False
    gap = line.y0 - above.y1
    if gap <= _WRAP_GAP * (line.y1 - line.y0) and all(
        line.cells[col][0].islower() or line.cells[col][0] in "([" or (row[col] or "").endswith(tuple(_CONTINUES)) for col in cols
    ):
        return True
    # Where rows stand further apart than a cell's own lines, a line at a cell's own spacing that
    # leaves some of the row's columns empty carries it on, whatever its first letter; not one that
    # leaves only the first column empty (a row under a label that spans rows), one that opens an
    # item of a list, one that sets a number under a number, or one set across several columns the
    # row fills apart (a note under the table; a long label may overhang one column gap).
    spanned = cols == filled(row) - {0}
    item = any(line.cells[col][0] in _LIST_MARKS for col in cols)
    counts = any(_NUMBER.match(line.cells[col]) and _NUMBER.match(row[col] or "") for col in cols)
    across = sum(1 for col, value in enumerate(line.cells) if value is None and row[col]) >= _ACROSS
    return (
        context.two_sizes and not line.rule_above and not spanned and not item and not counts and not across
        and len(cols) < len(filled(row)) and gap < _NARROW * context.wide_gap
    )


def join_lines(lines: list[TableLine], model: Any = None) -> list[Placed]:
    """The table's rows, each with the top and bottom of its lines: a line that carries on the row
    above (by the rules, or by `model`, a `trained_model.TrainedModel`) joins its cells to it."""
    if model is not None and tuple(model.features) != FEATURES:
        raise RulesError("the table row model was trained on other features than table_rows.FEATURES: retrain it (scripts/train_table_row_model.py)")
    context = table_context(lines)
    rows: list[Placed] = []
    row_lines = 0
    for index, line in enumerate(lines):
        if rows:
            cells, top, _ = rows[-1]
            if model is None:
                joins = continues_by_rules(lines, index, cells, context)
            else:
                joins = model.probabilities([line_features(lines, index, cells, row_lines, context)])[0] >= THRESHOLD
            if joins and filled(line.cells):
                rows[-1] = (joined(cells, line.cells), top, line.y1)
                row_lines += 1
                continue
            # Not into the first row: a header in capitals over labels in lower case.
            carried = carried_label(line, lines[index - 1], cells) if len(rows) > 1 else set()
            if carried:
                rows[-1] = (joined(cells, [value if col in carried else "" for col, value in enumerate(line.cells)]), top, rows[-1][2])
                rows.append(([None if value is None else "" if col in carried else value for col, value in enumerate(line.cells)], line.y0, line.y1))
                row_lines = 1
                continue
        rows.append((list(line.cells), line.y0, line.y1))
        row_lines = 1
    return rows


def _reads_on(text: str, above: str) -> bool:
    """Whether a cell's line reads on from the cell above rather than starting one: a word in
    lower case (not a symbol like `n` or `p`, nor under a cell that starts so too), the year of
    an author-year citation, or the cell above left open (a bracket not closed, a hyphen or
    comma at its end)."""
    first = text.split()[0]
    # A dash alone is a cell left empty, not one left open.
    open_end = above.endswith(tuple(_CONTINUES)) and any(char.isalnum() for char in above)
    if above.count("(") > above.count(")") or above.count("[") > above.count("]") or open_end:
        return True
    if first[0].islower() and len(first.rstrip(".,;:")) >= _LOWER_WORD and not above[0].islower():
        return True
    # A bracket alone is no sign (`(% DM)` under `Protein` labels a row of its own), but an
    # author-year citation's year is: `Hall-Mendelin et al.` over `(2016)`.
    return above.rstrip(".").endswith(" et al") and bool(_YEAR.match(text))


def carried_label(line: TableLine, above: TableLine, row: list[str | None]) -> set[int]:
    """The columns in which `line`, close under `above`, carries on the label of `row` while its
    other cells start a row of their own under it: a label that spans two rows, wrapped across
    them (`Ocimum tenuiflorum` over `var. Ram tulsi` beside `Forward` and `Reverse`), is the
    upper row's, where a span starts. The line's first cell must be one of them (a line with a
    label of its own is a row), and its other cells must stand under cells of the row, none of
    them left open."""
    cols = sorted(filled(line.cells))
    if not cols or line.y0 - above.y1 > _WRAP_GAP * (line.y1 - line.y0):
        return set()
    carried = {col for col in cols if row[col] and _reads_on(line.cells[col], row[col])}
    rest = set(cols) - carried
    if not carried or not rest or cols[0] not in carried or not rest <= filled(row):
        return set()
    # Under a cell left open (`Trees: Newick, NEXUS;`) the line carries a row of text on whole.
    return set() if any((row[col] or "").endswith(_LEFT_OPEN) for col in rest) else carried


def joined(cells: list[str | None], more: list[str | None]) -> list[str | None]:
    """A row's cells with a wrapped line's cells added to them (a hyphen at a cell's end joins)."""
    result = list(cells)
    for col in filled(more):
        if result[col]:
            result[col] = result[col] + ("" if result[col].endswith("-") else " ") + more[col]
        else:
            result[col] = more[col]
    return result


def _squeezed(placed: list[Placed], index: int) -> bool:
    """Whether the row's line stands between its neighbours' lines rather than on a line of its
    own: the lines above and below it are less than its height apart."""
    return placed[index + 1][1] - placed[index - 1][2] < placed[index][2] - placed[index][1]


def _unlabelled_values(cells: list[str | None], label: int = 0) -> bool:
    """A row of values that leaves its label's column (`label`) empty."""
    return cells[label] == "" and len(filled(cells)) > 1


def move_centred_labels(placed: list[Placed]) -> list[Placed]:
    """A row label centred on the two rows it names stands on neither line (`Herb` between its
    `ST` and `P` rows): it goes to the upper row, where a span starts, as a publisher's markup
    gives it."""
    moved: list[Placed] = []
    for index, (cells, top, bottom) in enumerate(placed):
        between = 0 < index < len(placed) - 1 and _unlabelled_values(placed[index - 1][0]) and _unlabelled_values(placed[index + 1][0])
        if between and filled(cells) == {0} and _squeezed(placed, index):
            upper, upper_top, upper_bottom = moved[-1]
            moved[-1] = ([cells[0], *upper[1:]], upper_top, upper_bottom)
        else:
            moved.append((cells, top, bottom))
    return moved


def join_labels_wrapped_round_values(placed: list[Placed]) -> list[Placed]:
    """A row label wrapped onto two lines has its row's values centred between them
    (`Pielou-Simpson's`, the values, `evenness`): the three lines are one row."""
    joined: list[Placed] = []
    index = 0
    while index < len(placed):
        if index + 2 < len(placed):
            (first, top, _), (values, _, _), (second, _, bottom) = placed[index : index + 3]
            # The label's column: the first, or the one after the columns a group label fills once.
            label = min(filled(first), default=0)
            if filled(first) == {label} == filled(second) and _unlabelled_values(values, label) and _squeezed(placed, index + 1):
                cells = list(values)
                cells[label] = f"{first[label]} {second[label]}"
                joined.append((cells, top, bottom))
                index += 3
                continue
        joined.append(placed[index])
        index += 1
    return joined


def without_notes(placed: list[Placed], rules_y: list[float]) -> list[Placed]:
    """The rows without the one-phrase rows after the last row of several cells: those are the
    notes under an unruled table. Where a rule is drawn under that last row (the header) and the
    rows under it, more than those above, are each a label in the first column alone, the table is
    a shell to be filled in (a protocol's table of outcomes): those are its rows."""
    if not placed:
        return placed
    last = max((index for index, (cells, _, _) in enumerate(placed) if len(filled(cells)) > 1), default=0)
    ruled = last + 1 < len(placed) and any(placed[last][2] - 0.5 <= y <= placed[last + 1][1] + 0.5 for y in rules_y)
    labels = placed[last + 1 :]
    # Most of a shell's rows are its labels: one line under a table's closing rule is its note.
    if ruled and len(labels) > last + 1 and all(_label_alone(cells) for cells, _, _ in labels):
        return placed
    return placed[: last + 1] if len(filled(placed[last][0])) > 1 else placed[:1]


def _label_alone(cells: list[str | None]) -> bool:
    """A row of one label in the first column, reaching over no other column."""
    return bool(cells[0]) and all(value == "" for value in cells[1:])
