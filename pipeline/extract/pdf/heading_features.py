"""The evidence for and against a block being a section heading, as numbers a learned model reads.

`heading_candidates` names the blocks a heading may be: every short paragraph or heading below the
title (not only those the rules take, so that a model can add headings the rules miss and drop
those they take wrongly). `candidate_features` gives each one's evidence in the order of
`FEATURES`: its size, weight and face against the body's, capitals and numbering, its indent and
the space around it, its length and punctuation, where it stands on the page, what follows it,
the layout model's label where the model read the page, how often its style recurs, and the
rules' own verdict. The model (`heading_model`) is trained on these by
`scripts/train_heading_model.py`; a change to a feature's meaning or order needs a new model.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from pipeline.extract.pdf.heading_styles import SECTION_HEADER, HeadingRules, heading_style, numbering_depth
from pipeline.extract.pdf.records import Layout, PdfBlock, Row
from pipeline.extract.pdf.typography import TERMINAL, font_face, half_point
from pipeline.text.numbering import pdf_section_number
from pipeline.records.base import BlockKind

FEATURES: tuple[str, ...] = (
    "size_ratio", "bold", "italic", "own_face", "capitals", "small_caps", "title_case_share",
    "numbering_depth", "numbering_kind", "indent", "centred", "fill",
    "space_above", "space_below", "rows", "chars", "words", "ends_full_stop", "ends_colon",
    "digit_share", "page_position", "on_first_page", "page_share",
    "next_size_ratio", "next_words", "next_is_heading", "previous_is_heading",
    "previous_ends_sentence", "next_starts_lowercase", "next_same_style",
    "label_header", "label_text", "label_other", "labelled",
    "style_blocks", "style_char_share", "style_rules_headings", "caption_like",
    "rules_heading", "rules_level", "rules_outline", "rules_style",
    "previous_cells", "next_cells",
)
"""The features in the order the model file was trained on (its feature names must equal these)."""

_MAX_ROWS = 3
_MAX_CHARS = 200
"""A candidate is a block of at most three lines and 200 characters: no section heading of a
paper is longer, and longer blocks are text the rules never doubted."""
_NO_NEIGHBOUR = -1.0
"""The space above or below a block that starts or ends its column or page: no line to measure from."""
_ITALIC_FACE = re.compile(r"ital|obli|-it$|-bi$|\bit\b", re.IGNORECASE)
_NUMBERING_KINDS = ("arabic", "roman", "letter", "parenthesized")
_OUTLINE_EVIDENCE = "an entry of the PDF's outline"


@dataclass(frozen=True, slots=True)
class DocumentContext:
    """What the features measure a block against: the body text, the page heights, the styles' counts."""

    layout: Layout
    heights: list[float]
    pages: int
    style_blocks: Counter
    """Short blocks of every style (size to half a point, bold, face)."""
    style_chars: Counter
    """Characters of every style in the whole document."""
    style_headings: Counter
    """Headings below the title the rules made in every style."""
    total_chars: int


def row_style(row: Row) -> tuple:
    """A line's print as the heading passes compare it: its size to the half point, its weight, its face."""
    return (half_point(row.size), row.bold, font_face(row.font))


def document_context(blocks: list[PdfBlock], layout: Layout, heights: list[float]) -> DocumentContext:
    """The document-wide measures the features of every candidate are taken against."""
    style_blocks: Counter = Counter()
    style_chars: Counter = Counter()
    style_headings: Counter = Counter()
    for block in blocks:
        if block.kind is BlockKind.heading and (block.level or 0) >= 2:
            style_headings[row_style(block.rows[0])] += 1
        for row in block.rows:
            style_chars[row_style(row)] += row.chars
        if len(block.rows) <= _MAX_ROWS:
            style_blocks[row_style(block.rows[0])] += 1
    total = max(1, sum(style_chars.values()))
    return DocumentContext(layout, heights, len(heights), style_blocks, style_chars, style_headings, total)


def is_candidate(block: PdfBlock) -> bool:
    """Whether a block may be a section heading below the title: a short paragraph or heading, upright, in the text."""
    if block.kind is BlockKind.heading:
        return (block.level or 0) >= 2
    first = block.rows[0]
    return (
        block.kind is BlockKind.paragraph
        and len(block.rows) <= _MAX_ROWS
        and sum(len(row.text) for row in block.rows) <= _MAX_CHARS
        and not first.rotated
        and not first.aside
        and any(ch.isalpha() for ch in block.text)
    )


def heading_candidates(blocks: list[PdfBlock]) -> list[int]:
    """Indexes of the blocks below the title that may be section headings: a line above the
    title (a journal's article type, `Case Report`, `Research Article`) heads no section."""
    title = next((index for index, block in enumerate(blocks) if block.kind is BlockKind.heading and block.level == 1), -1)
    return [index for index, block in enumerate(blocks) if index > title and is_candidate(block)]


def _gap(upper: Row | None, lower: Row | None, layout: Layout) -> float:
    """Space from `upper`'s baseline to `lower`'s, in the lower line's pitch; `_NO_NEIGHBOUR` across a column or page."""
    if upper is None or lower is None or upper.page != lower.page or upper.group != lower.group:
        return _NO_NEIGHBOUR
    return (lower.y1 - upper.y1) / (layout.pitch * max(lower.size, 1.0))


def _neighbour(blocks: list[PdfBlock], index: int, step: int) -> PdfBlock | None:
    position = index + step
    return blocks[position] if 0 <= position < len(blocks) else None


def _shape_features(block: PdfBlock, context: DocumentContext) -> list[float]:
    """Size, weight, face and capitals against the body's, and numbering."""
    layout = context.layout
    rows = block.rows
    text = block.text
    words = text.split()
    letters = [ch for ch in text if ch.isalpha()]
    face = font_face(rows[0].font)
    number = pdf_section_number(text)
    kind = _NUMBERING_KINDS.index(number.kind.value) + 1 if number else 0
    titled = [word for word in words if word[:1].isalpha()]
    return [
        max(row.size for row in rows) / layout.body_size,
        float(all(row.bold for row in rows)),
        float(bool(_ITALIC_FACE.search(face))),
        float(face != layout.body_face),
        float(bool(letters) and all(ch.isupper() for ch in letters)),
        float(all(row.small_caps for row in rows)),
        sum(word[0].isupper() for word in titled) / len(titled) if titled else 0.0,
        float(numbering_depth(text, False) or 0),
        float(kind),
    ]


def _place_features(blocks: list[PdfBlock], index: int, context: DocumentContext) -> list[float]:
    """Indent, centring and fill of the column, the space above and below."""
    layout = context.layout
    block = blocks[index]
    first, last = block.rows[0], block.rows[-1]
    left, right = layout.edges.get(first.group, (first.x0, first.x1))
    width = max(right - left, 1.0)
    previous, following = _neighbour(blocks, index, -1), _neighbour(blocks, index, 1)
    return [
        (first.x0 - left) / layout.body_size,
        ((first.x0 - left) - (right - first.x1)) / width,
        max(row.x1 - row.x0 for row in block.rows) / width,
        _gap(previous.rows[-1] if previous else None, first, layout),
        _gap(last, following.rows[0] if following else None, layout),
    ]


def _text_features(block: PdfBlock, context: DocumentContext) -> list[float]:
    """Length, closing punctuation, digits, and where on which page the block stands."""
    text = block.text.strip()
    compact = text.replace(" ", "")
    first = block.rows[0]
    height = context.heights[first.page - 1] if first.page <= len(context.heights) else 0.0
    return [
        float(len(block.rows)),
        float(len(text)),
        float(len(text.split())),
        float(text.endswith(".")),
        float(text.endswith(":")),
        sum(ch.isdigit() for ch in compact) / max(1, len(compact)),
        first.y0 / height if height else 0.0,
        float(first.page == 1),
        (first.page - 1) / max(1, context.pages - 1),
    ]


def _context_features(blocks: list[PdfBlock], index: int, context: DocumentContext) -> list[float]:
    """What follows and precedes the block, and how its style is used elsewhere."""
    following, previous = _neighbour(blocks, index, 1), _neighbour(blocks, index, -1)
    block = blocks[index]
    style = row_style(block.rows[0])
    return [
        following.rows[0].size / context.layout.body_size if following else 0.0,
        float(len(following.text.split())) if following else 0.0,
        float(following is not None and following.kind is BlockKind.heading),
        float(previous is not None and previous.kind is BlockKind.heading),
        float(previous is None or previous.text.rstrip()[-1:] in TERMINAL),
        float(following is not None and following.text[:1].islower()),
        float(following is not None and row_style(following.rows[0]) == style),
        *_label_features(block),
        float(context.style_blocks[style]),
        context.style_chars[style] / context.total_chars,
        float(context.style_headings[style]),
    ]


def _label_features(block: PdfBlock) -> list[float]:
    """The shares of the block's characters the layout model reads as a header, as text, as other; and whether it read them."""
    chars = max(1, sum(row.chars for row in block.rows))
    labels = Counter()
    for row in block.rows:
        labels[row.label] += row.chars
    if None in labels:
        return [0.0, 0.0, 0.0, 0.0]
    header = labels[SECTION_HEADER] / chars
    text = labels["text"] / chars
    return [header, text, 1.0 - header - text, 1.0]


def _rules_features(block: PdfBlock, context: DocumentContext, rules: HeadingRules) -> list[float]:
    """Whether the block looks like a caption, and the rules' verdict: heading or not, its level, by the outline, a heading style."""
    as_paragraph = PdfBlock(kind=BlockKind.paragraph, rows=block.rows)
    return [
        float(bool(rules.caption_start.match(block.text))),
        float(block.kind is BlockKind.heading),
        float(block.level or 0),
        float(_OUTLINE_EVIDENCE in block.evidence),
        float(heading_style(as_paragraph, context.layout, rules) is not None),
    ]


def _table_features(blocks: list[PdfBlock], index: int) -> list[float]:
    """The most cells a line of the block before and of the block after has: a row label of a
    table the reader left as text (`Primary outcome` over its measures' rows) stands among lines
    of several cells, a heading among running text."""
    return [
        float(max(row.cells for row in neighbour.rows)) if (neighbour := _neighbour(blocks, index, step)) else 0.0
        for step in (-1, 1)
    ]


def candidate_features(blocks: list[PdfBlock], index: int, context: DocumentContext, rules: HeadingRules) -> list[float]:
    """The evidence of `blocks[index]` being a heading, in the order of `FEATURES`."""
    block = blocks[index]
    return [
        *_shape_features(block, context),
        *_place_features(blocks, index, context),
        *_text_features(block, context),
        *_context_features(blocks, index, context),
        *_rules_features(block, context, rules),
        *_table_features(blocks, index),
    ]
