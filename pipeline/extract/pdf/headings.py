"""Heading blocks and their levels: the title, outline entries, then typography.

`mark_headings` finds the title on page 1 (`title`), marks the blocks whose text is an outline
(`get_toc()`) title on the page the outline names, then the blocks that look like headings by
their type: larger than body, or bold or capitals at body size, and set where the page's text is
(at a margin its lines start at, or centred), not drawn over a figure. Numbering gives the depth,
and distinct styles map to levels by prominence.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import replace

from pipeline.extract.pdf.heading_styles import (
    HeadingRules,
    consistent_faces,
    heading_style,
    inside_a_sentence,
    numbering_depth,
    SECTION_HEADER,
    drawn_in_a_figure,
    model_evidence,
    style_evidence,
    text_margins,
    without_numbering,
)
from pipeline.extract.pdf.heading_features import row_style
from pipeline.extract.pdf.heading_lone_numbers import join_lone_numbers
from pipeline.extract.pdf.records import Layout, PdfBlock
from pipeline.extract.pdf.title import looks_like_byline, mark_title, title_position
from pipeline.extract.pdf.typography import HEADING_LINE_FILL, SAME_SIZE, TERMINAL, font_face
from pipeline.text.heading_key import heading_key
from pipeline.text.numbering import pdf_section_number
from pipeline.records.base import BlockKind

_TITLE = "title"
"""The layout model's label for a title (`layout_model.LayoutLabel.title`)."""
TOP_LEVEL = 2
DEEPEST_LEVEL = 4
"""Heading levels run from 2 (below the title's 1) to 4: a deeper number or outline entry is
set at 4, as a paper's fifth level is rare and the styles give no sure way to tell it."""
_WRAPPED_HEADING_STEP = 1.6
"""Line pitches from a heading's line to the line it wraps onto: more is the space after a heading."""
_OUTLINE_MIN_FOUND = 2
"""An outline is trusted where this many of its entries, and at least half, are found on their
pages: one stray bookmark does not make an outline."""
_OUTLINE_HEADING_MAX_ROWS = 4
"""Lines an outline title may be found on: the outline says it is a heading, so a long title
may wrap further than a typographic heading does."""
_ROMAN_SECTIONS_MIN = 2
"""Roman-numbered headings that make a paper's sections Roman (one `I.` may be a pronoun)."""
_FRONT_LABEL_MAX_CHARS = 40
"""A label alone on a line (`Abstract`, `1. Introduction`) is short; a longer block opens the
body only by its first word."""
_ROMAN_SECTION = re.compile(r"^[IVX]{1,5}\.\s")
_NOT_LETTER_OR_DIGIT = re.compile(r"[^0-9a-z]+")
_LABEL_END = re.compile(r"[\s:.—–-]+")
"""What ends a run-in label (`Abstract:`, `ABSTRACT—`)."""


def _outline_heading(block: PdfBlock, rows: int, level: int) -> list[PdfBlock]:
    """`block`'s first `rows` rows as a heading of `level`, and the rest, if any, as a block of its own."""
    heading = PdfBlock(kind=BlockKind.heading, rows=block.rows[:rows], level=level, evidence=("an entry of the PDF's outline",))
    rest = block.rows[rows:]
    return [heading, PdfBlock(kind=block.kind, rows=rest)] if rest else [heading]


def _mark_outline(blocks: list[PdfBlock], toc: list[list]) -> tuple[list[PdfBlock], bool]:
    """The blocks with outline titles marked as headings on the pages the outline names, and
    whether the outline is trusted."""
    if not toc:
        return blocks, False
    outline_entries = sum(1 for entry in toc if str(entry[1]).strip())
    blocks, matched = _match_outline(blocks, toc)
    return blocks, matched >= max(_OUTLINE_MIN_FOUND, outline_entries // 2)


def _match_outline(blocks: list[PdfBlock], toc: list[list]) -> tuple[list[PdfBlock], int]:
    """The blocks with those whose text is an outline title, on the page the outline names, made
    headings; and how many outline entries were found (the title among them)."""
    entries = [(level, heading_key(str(name), letters_and_digits=True), page) for level, name, page, *_ in toc]
    entries = [entry for entry in entries if entry[1]]
    if not entries:
        return blocks, 0
    blocks = list(blocks)
    top = min(level for level, _, _ in entries)
    title = title_position(blocks)
    title_key = heading_key(blocks[title].text, keep_numbering=True, letters_and_digits=True) if title is not None else None
    alone = sum(1 for entry in entries if entry[0] == top) == 1
    offset = 0 if entries[0][0] == top and (entries[0][1] == title_key or alone) else 1
    matched = 0
    cursor = 0
    for level, key, page in entries:
        if key == title_key:
            matched += 1
            continue
        for index in range(cursor, len(blocks)):
            block = blocks[index]
            if block.rows[0].page > page:
                break
            if block.rows[0].page < page or block.kind in (BlockKind.heading, BlockKind.table):
                continue
            rows = _rows_matching(block, key)
            if rows:
                depth = level - top + 1 + offset
                blocks[index : index + 1] = _outline_heading(block, rows, min(DEEPEST_LEVEL, max(TOP_LEVEL, depth)))
                cursor = index + 1
                matched += 1
                break
    return blocks, matched


def _rows_matching(block: PdfBlock, key: str) -> int:
    """How many leading rows of `block` spell `key` (numbering ignored), or 0."""
    for count in range(1, min(_OUTLINE_HEADING_MAX_ROWS, len(block.rows)) + 1):
        text = heading_key(" ".join(row.text for row in block.rows[:count]), letters_and_digits=True)
        if text == key:
            return count
        if not key.startswith(text):
            return 0
    return 0


def _style_levels(
    candidates: list[tuple[int, tuple, int | None]], fixed: dict[tuple, int], prominence: dict[tuple, tuple]
) -> dict[tuple, int]:
    """Heading level of every candidate style.

    Styles `fixed` by the outline or by numbering keep their level; other styles that recur take the
    level below the nearest more prominent style (or the level of a fixed style of the same
    size and weight); a style seen once joins the recurring style just below it, so that a one-off
    banner does not push every real heading a level down.
    """
    counts = Counter(style for _, style, _ in candidates)
    rank = prominence.__getitem__
    levels = dict(fixed)
    recurring = sorted({s for s in counts if counts[s] >= 2} | set(fixed), key=rank, reverse=True)
    for position, style in enumerate(recurring):
        if style in levels:
            continue
        twin = [levels[s] for s in fixed if s[:3] == style[:3]]
        above = [levels[s] for s in recurring[:position] if s in levels]
        levels[style] = twin[0] if twin else min(DEEPEST_LEVEL, (above[-1] + 1) if above else TOP_LEVEL)
    for style in sorted(counts, key=rank, reverse=True):
        if style not in levels:
            below = [levels[s] for s in recurring if rank(s) < rank(style)]
            levels[style] = below[0] if below else (max(levels.values()) if levels else TOP_LEVEL)
    return levels


def _merge_wrapped_headings(blocks: list[PdfBlock], layout: Layout, rules: HeadingRules) -> list[PdfBlock]:
    """Join a heading that wraps onto a second line and was cut at the indent of its number."""
    merged: list[PdfBlock] = []
    for block in blocks:
        prev = merged[-1] if merged else None
        if (
            prev is not None
            and prev.kind is BlockKind.paragraph
            and block.kind is BlockKind.paragraph
            and len(prev.rows) + len(block.rows) <= rules.typography.max_rows
            and prev.rows[-1].group == block.rows[0].group
            and prev.text[-1:] not in TERMINAL
            and not pdf_section_number(block.text)
        ):
            style = heading_style(prev, layout, rules)
            last, first = prev.rows[-1], block.rows[0]
            left, right = layout.edges[last.group]
            if (
                style is not None
                and all(row.bold == last.bold and abs(row.size - last.size) < SAME_SIZE * last.size for row in block.rows)
                and last.x1 - left >= HEADING_LINE_FILL * (right - left)
                and first.y0 - last.y0 <= _WRAPPED_HEADING_STEP * layout.pitch * last.size
            ):
                merged[-1] = replace(prev, rows=prev.rows + block.rows)
                continue
        merged.append(block)
    return merged


def mark_headings(
    blocks: list[PdfBlock], layout: Layout, toc: list[list], page_height: float, rules: HeadingRules
) -> list[PdfBlock]:
    """The blocks with headings marked by kind and level: the title, outline entries, then typographic headings."""
    blocks = join_lone_numbers(_merge_wrapped_headings(blocks, layout, rules), layout, rules)
    blocks = mark_title(blocks, layout, page_height, _first_front_anchor(blocks, layout, rules), rules.title)
    blocks, trusted = _mark_outline(blocks, toc)
    blocks = _mark_typographic_headings(blocks, layout, trusted, rules)
    blocks = _mark_opening_labels(blocks, rules)
    return [replace(block, evidence=block.evidence + model_evidence(block)) if block.kind is BlockKind.heading else block for block in blocks]


def _outline_styles(blocks: list[PdfBlock], layout: Layout, rules: HeadingRules) -> dict[tuple, Counter[int]]:
    """The typographic style of every heading below the title marked so far, with the levels it has."""
    styles: dict[tuple, Counter[int]] = defaultdict(Counter)
    for block in blocks:
        if block.kind is BlockKind.heading and block.level and block.level > 1:
            style = heading_style(PdfBlock(kind=BlockKind.paragraph, rows=block.rows), layout, rules)
            if style:
                styles[style][block.level] += 1
    return styles


def _heading_candidates(
    blocks: list[PdfBlock], layout: Layout, title: int | None, front: int | None, rules: HeadingRules
) -> tuple[list[tuple[int, tuple]], dict[tuple, tuple]]:
    """Paragraphs styled like headings, (index, style), and the prominence of every style met."""
    candidates: list[tuple[int, tuple]] = []
    prominence: dict[tuple, tuple] = {}
    for index, block in enumerate(blocks):
        if block.kind is not BlockKind.paragraph:
            continue
        on_first_page = block.rows[0].page == 1
        # Page 1 above the title is journal furniture; between title and abstract, authors.
        if on_first_page and title is not None and index < title:
            continue
        if on_first_page and front is not None and index < front:
            continue
        style = heading_style(block, layout, rules)
        if style is None or (on_first_page and looks_like_byline(block.text)):
            continue
        prominence.setdefault(style, _prominence(style, index, layout, rules))
        candidates.append((index, style))
    return candidates, prominence


def _prominence(style: tuple, index: int, layout: Layout, rules: HeadingRules) -> tuple:
    """How prominent a heading style is, to rank styles by: set apart by size, weight or capitals
    first, then bigger, bolder, capitals; between equals the style met first (at `index`) is the
    higher level. A style that only its face sets apart (the body's italic at body size) heads the
    lowest sections, whatever the size of the bold faces above it (`Crude extract` in italic under
    `Preparation of extract` in a smaller bold sans)."""
    set_apart = style[1] or style[2] or style[0] >= rules.typography.larger_size * layout.body_size
    return (set_apart, style[0], style[1], style[2], -index)


def _fixed_levels(candidates: list[tuple[int, tuple, int | None]], outline_styles: dict[tuple, Counter[int]]) -> dict[tuple, int]:
    """Levels that the outline, or else numbering, gives a style: the one it has most often."""
    fixed = {style: counts.most_common(1)[0][0] for style, counts in outline_styles.items()}
    numbered: dict[tuple, Counter[int]] = defaultdict(Counter)
    for _, style, depth in candidates:
        if depth is not None:
            numbered[style][min(DEEPEST_LEVEL, depth + 1)] += 1
    for style, counts in numbered.items():
        fixed.setdefault(style, counts.most_common(1)[0][0])
    return fixed


def _mark_typographic_headings(blocks: list[PdfBlock], layout: Layout, trusted: bool, rules: HeadingRules) -> list[PdfBlock]:
    """The blocks with paragraphs that look like headings marked, each at the level of its
    numbering, its style, or (under a trusted outline that lacks it) below the outline's levels."""
    outline_styles = _outline_styles(blocks, layout, rules)
    front = _first_front_anchor(blocks, layout, rules)
    found, prominence = _heading_candidates(blocks, layout, title_position(blocks), front, rules)
    for style in outline_styles:
        prominence.setdefault(style, _prominence(style, 0, layout, rules))
    if trusted:
        # A trusted outline has named the headings in its styles and above them; typography adds
        # only its styles and less prominent ones (the sub-headings an outline leaves out).
        least = min((prominence[s] for s in outline_styles), default=None)
        found = [c for c in found if c[1] in outline_styles or least is None or prominence[c[1]] < least]
    # Roman-numbered sections (I., II.) make lettered headings (A., B.) their subsections.
    roman = sum(1 for index, _ in found if _ROMAN_SECTION.match(blocks[index].text)) >= _ROMAN_SECTIONS_MIN
    found = consistent_faces(blocks, found, layout, rules)
    found = [(index, style) for index, style in found if not inside_a_sentence(blocks, index)]
    chosen = {index for index, _ in found}
    found = [(index, style) for index, style in found if not _labels_a_column(blocks, index, style, chosen, layout, rules)]
    found = [(index, style) for index, style in found if not _model_reads_body(blocks[index], style, roman, layout, rules)]
    margins = text_margins(blocks)
    found = [(index, style) for index, style in found if pdf_section_number(blocks[index].text) or not drawn_in_a_figure(blocks[index], margins, layout)]
    candidates = [(index, style, numbering_depth(blocks[index].text, roman)) for index, style in found]
    levels = _style_levels(candidates, _fixed_levels(candidates, outline_styles), prominence)
    deepest_outline = max((level for counts in outline_styles.values() for level in counts), default=1)
    marked = list(blocks)
    for index, style, depth in candidates:
        if depth is not None:
            level = depth + 1
        elif trusted and style not in outline_styles:
            level = deepest_outline + 1
        else:
            level = levels[style]
        evidence = style_evidence(style, depth is not None, layout, rules)
        marked[index] = replace(blocks[index], kind=BlockKind.heading, level=min(DEEPEST_LEVEL, max(TOP_LEVEL, level)), evidence=evidence)
    return marked


def _labels_a_column(blocks: list[PdfBlock], index: int, style: tuple, chosen: set[int], layout: Layout, rules: HeadingRules) -> bool:
    """Whether a block that only its weight, capitals or face set apart, unnumbered, is followed in
    its column by a block in its own print, not the body's, that is no heading: the label over a
    table's column or a list (`File Name` in bold over the files' names in bold), not a section's
    heading, whose text is set in another print than its heading's. (Where the body's own face is
    the label's, as in a heading only the layout model reads, the print says nothing.)"""
    block = blocks[index]
    if index + 1 >= len(blocks) or style[0] >= rules.typography.larger_size * layout.body_size or pdf_section_number(block.text):
        return False
    following = blocks[index + 1]
    last, first = block.rows[-1], following.rows[0]
    return (
        following.kind is BlockKind.paragraph
        and index + 1 not in chosen
        and (first.page, first.group) == (last.page, last.group)
        and row_style(first) == row_style(last)
        and font_face(first.font) != layout.body_face
        and not rules.caption_start.match(following.text)
    )


def _model_reads_body(block: PdfBlock, style: tuple, roman: bool, layout: Layout, rules: HeadingRules) -> bool:
    """Whether the layout model reads a block that typography would make a heading as something
    else (text, a list item, a caption, a table) while typography's case is weak: at body size
    or under it, not numbered. A larger or numbered line stays a heading whatever the model says."""
    labels = {row.label for row in block.rows}
    if None in labels or labels & {SECTION_HEADER, _TITLE}:
        return False
    size = style[0]
    return size < rules.typography.larger_size * layout.body_size and numbering_depth(block.text, roman) is None


def _mark_opening_labels(blocks: list[PdfBlock], rules: HeadingRules) -> list[PdfBlock]:
    """The blocks with a label that opens the body ("Abstract") alone on its line on page 1 made
    a heading: it opens the paper even where its font says nothing."""
    return [
        replace(block, kind=BlockKind.heading, level=TOP_LEVEL, evidence=("a label that opens the body, alone on its line",))
        if _is_opening_label(block, rules)
        else block
        for block in blocks
    ]


def _is_opening_label(block: PdfBlock, rules: HeadingRules) -> bool:
    return (
        block.rows[0].page == 1
        and block.kind is BlockKind.paragraph
        and len(block.rows) == 1
        and _names_opening(block.text, rules)
    )


def _opens_body(key: str, rules: HeadingRules) -> bool:
    return key in rules.opening_words or any(pattern.fullmatch(key) for pattern in rules.opening_anchors)


def _names_opening(label: str, rules: HeadingRules) -> bool:
    """Whether `label`, numbering aside, names a heading that opens the body: its words run
    together (so that letter-spaced `A B S T R A C T` counts) or one space apart (`Author summary`)."""
    label = without_numbering(label)
    spaced = " ".join(_NOT_LETTER_OR_DIGIT.sub(" ", label.casefold()).split())
    return _opens_body(heading_key(label, keep_numbering=True, letters_and_digits=True), rules) or _opens_body(spaced, rules)


def _first_front_anchor(blocks: list[PdfBlock], layout: Layout, rules: HeadingRules) -> int | None:
    """Index of the first block on page 1 that opens the paper's body (Abstract, 1 Introduction, …)."""
    for index, block in enumerate(blocks):
        if block.rows[0].page != 1:
            return None
        text = block.text
        if len(text) < _FRONT_LABEL_MAX_CHARS and _names_opening(text, rules):
            return index
        # A run-in label (`Abstract: We study…`, `ABSTRACT—`) opens it where the block looks like a heading.
        head = _LABEL_END.split(text.strip(), maxsplit=1)[0].casefold()
        if _opens_body(head, rules) and heading_style(block, layout, rules):
            return index
        if pdf_section_number(text) and heading_style(block, layout, rules) and numbering_depth(text, False) == 1:
            return index
    return None
