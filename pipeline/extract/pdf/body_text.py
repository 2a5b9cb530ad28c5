"""What a document says about its body text, measured from its lines: the running text's size (that
of the most characters, unless they are small print beside a size that carries a fifth of them),
the face that carries the most characters at that size, the pitch of its lines and the edges of
every column (`Layout`)."""

from __future__ import annotations

import statistics
from collections import defaultdict

from pipeline.extract.pdf.records import Layout, PrintedLine, Row
from pipeline.extract.pdf.typography import SAME_SIZE, font_face, half_point

_BODY_MIN_SHARE = 0.2
_SMALL_PRINT = 0.9
"""Share of a document's characters its running text carries at least, and the largest share of
its size that smaller print is set at. A reference list, tables and footnotes are set smaller than
the running text (nine tenths of it or less) and may carry more characters than it (a review's long
list, a protocol's tables); larger print (title, headings, a lead) carries far less. Sizes closer
than that are one size read unevenly (an OCR layer's words, stretched to the scan)."""
_FALLBACK_BODY_SIZE = 10.0
"""Points of body text where no line can be measured (every line rotated): a common body size."""
_PITCH_MAX_STEP = 3.0
"""Body sizes from one body line to the next beyond which the step is a paragraph or figure gap."""
_PITCH_MIN_STEPS = 5
_FALLBACK_PITCH = 1.2
"""Fewer measured steps than this give no reliable median; the usual leading of 1.2 sizes is taken."""
_EDGE_IGNORES_ONE_LINE_IN = 10
"""A column's edges ignore its widest and narrowest tenth of lines: a byline, a formula or an
indented list sets an edge that is not the column's."""


def body_size(pages: list[list[PrintedLine]]) -> float:
    """The font size (to half a point) of the running text: the one that carries the most
    characters, unless a size it is small print beside carries `_BODY_MIN_SHARE` of them; then
    the largest such."""
    # Summed by the size as printed first, and rounded once a size: a paper sets its thousand
    # lines in a dozen sizes, and the passes ask for this size again as the lines are dropped.
    printed: dict[float, int] = {}
    for pieces in pages:
        for piece in pieces:
            if not piece.rotated:
                printed[piece.size] = printed.get(piece.size, 0) + piece.chars
    sizes: dict[float, int] = {}
    for size, chars in printed.items():
        rounded = half_point(size)
        sizes[rounded] = sizes.get(rounded, 0) + chars
    if not sizes:
        return _FALLBACK_BODY_SIZE
    most = max(sizes, key=sizes.__getitem__)
    total = sum(sizes.values())
    larger = [size for size, chars in sizes.items() if chars >= _BODY_MIN_SHARE * total and most <= _SMALL_PRINT * size]
    return max(larger, default=most)


def _body_print(pages: list[list[PrintedLine]], body_size: float) -> tuple[str, int]:
    """The font face (`font_face`) and the colour that carry the most characters at body size,
    counted in one pass over the lines."""
    faces: dict[str, int] = defaultdict(int)
    colors: dict[int, int] = defaultdict(int)
    for pieces in pages:
        for piece in pieces:
            if half_point(piece.size) == body_size:
                faces[font_face(piece.font)] += piece.chars
                colors[piece.color] += piece.chars
    if not faces:
        return "", 0
    return max(faces, key=faces.__getitem__), max(colors, key=colors.__getitem__)


def _pitch(rows: list[Row], body_size: float) -> float:
    """The median step between consecutive body lines of one column, in body sizes."""
    steps = [
        (row.y1 - prev.y1) / body_size
        for prev, row in zip(rows, rows[1:])
        if row.group == prev.group and _is_body(row, body_size) and _is_body(prev, body_size)
        and 0 < row.y1 - prev.y1 < _PITCH_MAX_STEP * body_size
    ]
    return statistics.median(steps) if len(steps) >= _PITCH_MIN_STEPS else _FALLBACK_PITCH


def _is_body(row: Row, body_size: float) -> bool:
    return abs(row.size - body_size) < SAME_SIZE * body_size


def _edges(rows: list[Row]) -> dict[int, tuple[float, float]]:
    """Left and right edge of the text of every group, ignoring the odd wider line (a byline, a formula)."""
    by_group: dict[int, list[Row]] = defaultdict(list)
    for row in rows:
        by_group[row.group].append(row)
    edges = {}
    for group, members in by_group.items():
        lefts = sorted(row.x0 for row in members)
        rights = sorted(row.x1 for row in members)
        cut = len(members) // _EDGE_IGNORES_ONE_LINE_IN
        edges[group] = (lefts[cut], rights[-1 - cut])
    return edges



def measure_layout(pages: list[list[PrintedLine]], rows: list[Row]) -> Layout:
    """The body text's size, pitch, column edges, face and colour, from the pages' lines and their rows in reading order."""
    size = body_size(pages)
    face, color = _body_print(pages, size)
    return Layout(body_size=size, pitch=_pitch(rows, size), edges=_edges(rows), body_face=face, body_color=color)
