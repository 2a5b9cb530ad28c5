"""Where the items of a list block start, so that a list is split between items before it is
split inside one."""

from __future__ import annotations

import re

from pipeline.text.list_markers import BULLET_CLASS

# A list item's first line: its indent, then a bullet (Markdown's or one a PDF prints) or a number
# and `.` or `)`. Items indented more than the list's first item are nested in the item above them.
_ITEM_START = re.compile(rf"^(?P<indent>[ \t]*)(?:{BULLET_CLASS}|\d{{1,4}}[.)])[ \t]+\S", re.MULTILINE)


def list_item_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The top-level items of the list in `text[start:end]`, each from its marker to the end of its
    last line with text; the whole range where no item start is found."""
    found = list(_ITEM_START.finditer(text, start, end))
    top = len(found[0]["indent"]) if found else 0
    starts = [match.start() for match in found if len(match["indent"]) == top]
    if not starts or starts[0] != start:
        starts.insert(0, start)
    spans = []
    for item_start, next_start in zip(starts, starts[1:] + [end]):
        item_end = item_start + len(text[item_start:next_start].rstrip())
        if item_end > item_start:
            spans.append((item_start, item_end))
    return spans
