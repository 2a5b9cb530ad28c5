"""Page 1's lines as the front-matter model sees them: each line's typographic and textual
evidence (`FEATURES`), the same evidence the rules of `pdf_front` weigh, for a model that labels a
line title, author, affiliation, journal line, DOI or other (`LABELS`).

The features are computed from the `FrontLine`s alone (no PyMuPDF, no model library), so that
`scripts/train_front_model.py` and the metadata step compute them alike.
"""

from __future__ import annotations

import math
import re

from pipeline.metadata.names import split_names, without_superscripts
from pipeline.metadata.pdf_front import rows
from pipeline.records.extract import FrontLine
from pipeline.rules.metadata import MetadataRules

LABELS = ("other", "title", "author", "affiliation", "journal", "doi")
"""What a line of page 1 is; the model's classes, in this order."""

_LINE = (
    "size_ratio", "size_rank", "largest", "bold", "top", "left", "row_share", "rows_from_largest",
    "words", "chars", "capitals", "title_case", "digits", "commas", "superscripts", "marks",
    "names", "name_count", "affiliation_words", "email", "doi_labelled", "doi_bare", "year",
    "keyword_label", "starts_digit", "ends_period", "starts_lower", "gap_above", "row_pieces",
)
FEATURES = (*_LINE, *(f"above_{name}" for name in ("size_ratio", "names", "affiliation_words", "bold")),
            *(f"below_{name}" for name in ("size_ratio", "names", "affiliation_words", "bold")))
"""The features, in the order the model was trained on them: each line's own, then the line
above's and the line below's few that say what it stands between."""

_MAX_RANK = 6
"""Size ranks are counted up to this: below the sixth size on a page all are alike small print."""
_MAX_ROWS_FROM = 12
"""Rows from the largest print are counted up to this, either way."""
_KEYWORD_LABEL = re.compile(
    r"^\W*(?:abstract|summary|background|keywords?|received|accepted|published|citation|copyright|correspondence|"
    r"edited by|reviewed by|open access|research article|original article|review|case report|article)\b", re.IGNORECASE
)
_MARK = re.compile(r"[^\W\d_][\d*∗†‡§¶]")
_BARE_DOI = re.compile(r"\b10\.\d{4,9}/\S")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")


def ordered(lines: list[FrontLine]) -> list[FrontLine]:
    """Page 1's lines top to bottom, each printed row (`pdf_front.rows`) left to right: the order
    features and labels are in."""
    return [line for row in rows(lines) for line in row]


def line_features(lines: list[FrontLine], rules: MetadataRules) -> list[list[float]]:
    """The `FEATURES` of each of `ordered(lines)`."""
    printed = rows(lines)
    lines = [line for row in printed for line in row]
    if not lines:
        return []
    context = _page_context(lines, [(index, len(row)) for index, row in enumerate(printed) for _ in row])
    own = [_own_features(lines, index, context, rules) for index in range(len(lines))]
    neighbours = []
    picked = [_LINE.index(name) for name in ("size_ratio", "names", "affiliation_words", "bold")]
    blank = [0.0] * len(picked)
    for index in range(len(own)):
        above = [own[index - 1][i] for i in picked] if index > 0 else blank
        below = [own[index + 1][i] for i in picked] if index + 1 < len(own) else blank
        neighbours.append(above + below)
    return [row + extra for row, extra in zip(own, neighbours)]


def _page_context(lines: list[FrontLine], row_of: list[tuple[int, int]]) -> dict:
    """What each line is measured against: page 1's usual size and its sizes' ranks, its rows
    (`row_of`: each line's row index and the count of pieces in that row), the rows of the
    largest print, the page's extent."""
    weights: dict[float, int] = {}
    for line in lines:
        weights[_size(line)] = weights.get(_size(line), 0) + len(line.text)
    sizes = sorted(weights, reverse=True)
    largest = [row for line, (row, _) in zip(lines, row_of) if _size(line) == sizes[0] and sum(ch.isalpha() for ch in line.text) >= 3]
    return {
        "usual": max(weights, key=weights.__getitem__),
        "ranks": {size: rank for rank, size in enumerate(sizes)},
        "row_of": row_of,
        "row_count": row_of[-1][0] + 1,
        "largest_rows": (min(largest), max(largest)) if largest else (0, 0),
        "height": max(line.y0 for line in lines) + 1.0,
        "width": max(line.x0 for line in lines) + 1.0,
    }


def _size(line: FrontLine) -> float:
    return round(line.size * 2) / 2


def _own_features(lines: list[FrontLine], index: int, context: dict, rules: MetadataRules) -> list[float]:
    line = lines[index]
    text = " ".join(line.text.split())
    words = text.split()
    alpha = [ch for ch in text if ch.isalpha()]
    row, pieces = context["row_of"][index]
    first, last = context["largest_rows"]
    names = split_names(without_superscripts(line.text, line.superscripts), rules)
    above = lines[index - 1] if index else None
    return [
        line.size / context["usual"] if context["usual"] else 1.0,
        min(context["ranks"][_size(line)], _MAX_RANK),
        float(context["ranks"][_size(line)] == 0),
        float(line.bold),
        line.y0 / context["height"],
        line.x0 / context["width"],
        row / context["row_count"],
        max(-_MAX_ROWS_FROM, min(_MAX_ROWS_FROM, row - last if row > last else row - first if row < first else 0)),
        len(words),
        math.log1p(len(text)),
        sum(ch.isupper() for ch in alpha) / len(alpha) if alpha else 0.0,
        sum(word[:1].isupper() for word in words) / len(words) if words else 0.0,
        sum(ch.isdigit() for ch in text) / len(text) if text else 0.0,
        text.count(",") / len(words) if words else 0.0,
        float(bool(line.superscripts)),
        len(_MARK.findall(text)),
        float(names is not None),
        len(names or ()),
        float(bool(rules.affiliation_words.search(text))),
        float("@" in text),
        float(bool(rules.doi.search(text))),
        float(bool(_BARE_DOI.search(text))),
        float(bool(_YEAR.search(text))),
        float(bool(_KEYWORD_LABEL.match(text))),
        float(text[:1].isdigit()),
        float(text.endswith(".")),
        float(text[:1].islower()),
        (line.y0 - above.y0) / line.size if above and line.size else 0.0,
        pieces,
    ]
