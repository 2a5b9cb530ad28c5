"""Stage 2, normalize: clean a `RawDocument`'s blocks and lay them out as one `Document.text`.

What happens here: Unicode NFC (plus ligatures and odd spaces), line joining with
de-hyphenation that keeps real compounds, heading levels made relative (title 1, top-level
sections 2, children 3), heading keys for classification, captions recognised, and repeated
page furniture dropped and counted. Every block ends up an exact slice of the document text.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter

from pipeline.normalize.block_index import BLOCK_SEPARATOR
from pipeline.normalize.characters import clean_characters, drop_converter_anchors
from pipeline.normalize.hyphens import Vocabulary, last_line, line_joint, paper_vocabulary, soft_breaks_mended
from pipeline.text.heading_key import heading_key
from pipeline.text.numbering import NumberKind, section_number
from pipeline.normalize.superscripts import carried_superscripts
from pipeline.normalize.words import count_words, count_words_in_line
from pipeline.records.base import BlockKind, SourceFormat, TextSegment
from pipeline.records.document import Block, Document, PageSpan, TextBox
from pipeline.records.extract import RawBlock, RawDocument
from pipeline.rules import Rules
from pipeline.rules.heading_matcher import HeadingMatcher

_JOINED_KINDS = {BlockKind.paragraph, BlockKind.heading, BlockKind.blockquote, BlockKind.caption, BlockKind.aside, BlockKind.footnote}
_TEXT_ORDER = {BlockKind.caption: 1, BlockKind.aside: 2}
"""Where a kind's blocks go in the text: the body (0) in reading order, then captions, then asides."""
_KEPT_AS_WRITTEN = {BlockKind.code, BlockKind.front_matter, BlockKind.equation}


def _clean_segment(segment: TextSegment, kind: BlockKind) -> TextSegment:
    text = clean_characters(segment.text, line_end_soft_hyphens=kind in _JOINED_KINDS)
    if kind not in _KEPT_AS_WRITTEN:
        text = drop_converter_anchors(text)
    # Most text comes back unchanged; its record is kept rather than rebuilt.
    return segment if text == segment.text else TextSegment(text=text, page=segment.page)


def _join_lines(
    kind: BlockKind, segments: list[TextSegment], collapsed: str | None, vocabulary: Vocabulary
) -> tuple[list[TextSegment], list[int]]:
    """Join a paragraph's lines into one line (other blocks keep theirs); `collapsed` is the
    block's text with its whitespace collapsed, which is that line where the block has one.
    Returns the segments and where each joined line after the first starts in their text."""
    if kind not in _JOINED_KINDS:
        return _trim_segments(segments), []
    if len(segments) == 1 and "\n" not in segments[0].text:
        # Nearly every Markdown paragraph and heading is one line, with nothing to join; its
        # whitespace is collapsed once, for this and the furniture test alike.
        return ([TextSegment(text=collapsed, page=segments[0].page)] if collapsed else []), []
    lines = [(" ".join(line.split()), segment.page) for segment in segments for line in segment.text.split("\n")]
    lines = [(line, page) for line, page in lines if line]
    # Each line takes the joint to the next one (so a joint across a page break stays on the
    # earlier page), then one record per page, not one rebuilt for every line.
    joined: list[tuple[str, int | None]] = []
    line_starts: list[int] = []
    offset = 0
    for index, (line, page) in enumerate(lines):
        if index + 1 < len(lines):
            joint, drop_hyphen = line_joint(line, lines[index + 1][0], vocabulary)
            line = (line[:-1] if drop_hyphen else line) + joint
        else:
            line = last_line(line)
        if index:
            line_starts.append(offset)
        offset += len(line)
        joined.append((line, page))
    segments = [
        TextSegment(text="".join(line for line, _ in run), page=page)
        for page, run in groupby(joined, key=itemgetter(1))
    ]
    return _trim_segments(segments), line_starts


def _line_spans(kind: BlockKind, cleaned: list[TextSegment], text: str, vocabulary: Vocabulary) -> list[tuple[int, int] | None]:
    """Where each line of a block's cleaned text ended up in its normalized `text`: (start, end)
    inside it, or None for a line that left no text there. `_join_lines` is retraced, and the
    result checked against `text`: where the two ever disagree, no line is placed (a PDF then shows
    no boxes for the block rather than wrong ones)."""
    lines = "".join(segment.text for segment in cleaned).split("\n")
    spans: list[tuple[int, int] | None] = [None] * len(lines)
    if kind in _JOINED_KINDS:
        kept = [(number, collapsed) for number, line in enumerate(lines) if (collapsed := " ".join(line.split()))]
        pieces = []
        offset = 0
        for position, (number, line) in enumerate(kept):
            joint = ""
            if position + 1 < len(kept):
                joint, drop_hyphen = line_joint(line, kept[position + 1][1], vocabulary)
                line = line[:-1] if drop_hyphen else line
            else:
                line = last_line(line)
            spans[number] = (offset, offset + len(line))
            pieces += [line, joint]
            offset += len(line) + len(joint)
        return spans if "".join(pieces) == text else [None] * len(lines)
    # Kept lines: the block's text is the lines as cleaned, less the whitespace trimmed at its ends.
    whole = "\n".join(lines)
    trimmed = len(whole) - len(whole.lstrip())
    if whole[trimmed : trimmed + len(text)] != text:
        return [None] * len(lines)
    offset = 0
    for number, line in enumerate(lines):
        start, end = max(0, offset - trimmed), min(len(text), offset + len(line) - trimmed)
        if start < end:
            spans[number] = (start, end)
        offset += len(line) + 1
    return spans


def _trim_segments(segments: list[TextSegment]) -> list[TextSegment]:
    """Drop empty segments and whitespace at the block's two ends."""
    segments = [segment for segment in segments if segment.text]
    if not segments:
        return []
    # Most blocks have nothing to trim; their records are kept rather than rebuilt.
    if segments[0].text[:1].isspace():
        segments[0] = TextSegment(text=segments[0].text.lstrip(), page=segments[0].page)
    if segments[-1].text[-1:].isspace():
        segments[-1] = TextSegment(text=segments[-1].text.rstrip(), page=segments[-1].page)
    return [segment for segment in segments if segment.text]


def _relative_levels(blocks: list[RawBlock], headings: HeadingMatcher) -> tuple[int | None, dict[int, int]]:
    """Find the title heading and map every other heading level to 2, 3, …

    The title is the first heading when it is an H1; the shallowest remaining level becomes the
    top-level (2), so a converter that wrote sections as H1 or as H3 still chunks like H2s.
    """
    heading_indexes = [index for index, block in enumerate(blocks) if block.kind == BlockKind.heading]
    if not heading_indexes:
        return None, {}
    title_index = heading_indexes[0] if blocks[heading_indexes[0]].level == 1 else None
    rest = [index for index in heading_indexes if index != title_index]
    if not rest:
        return title_index, {}
    top = min(blocks[index].level or 2 for index in rest)
    levels = {index: (blocks[index].level or top) - top + 2 for index in rest}
    return title_index, _deepen_by_numbering(blocks, levels, headings)


_OUTLINE_MAX_DIGITS = 2
"""Digits in one part of an outline's number at most, so that `2020 in review` is not section 2020."""
_HTML_TAG = re.compile(r"<[^<>]*>")  # no `<` inside: a long run of them is scanned once


def _outline_number(heading: str) -> str | None:
    """The arabic number a Markdown heading opens with (`2`, `2.1` of `**2.1.** Design`), or None.

    Narrower than the grammar, as a converter writes an outline's numbers: arabic, closed by a
    full stop or nothing, parts of at most two digits; emphasis markers may follow whitespace
    before it (`  **2.**`) and open the title, and a space and a word follow it, not a separator
    glyph or a digit (`2.1 | x`, `2 3` number nothing the outline reads).
    """
    number = section_number(heading)
    if number is None or number.kind is not NumberKind.arabic or number.closer == ")" or number.longest_digits() > _OUTLINE_MAX_DIGITS:
        return None
    if set(number.lead.lstrip()) - {"*", "_"} or not number.space or number.separator:
        return None
    first = heading[number.title_start :].lstrip("*_")[:1]
    # The title's first word: a word character that is no digit (a letter, or a sign such as `½`).
    return number.label if first.isalnum() and not first.isdecimal() else None


def _deepen_by_numbering(blocks: list[RawBlock], levels: dict[int, int], headings: HeadingMatcher) -> dict[int, int]:
    """Where a paper numbers its sections, let the numbers set the levels.

    Converters guess levels from font sizes and often get them wrong (marker writes
    `### 1. Introduction` beside `## 2. Method`) or flat (`## 2.1 Design` under `## 2. Methods`);
    the numbering is the author's own outline. It takes over only when it is the outline of the
    whole paper, seen by its Introduction (or Background) carrying a top-level number, so numbers
    local to one section (`1.`, `2.` under Results) are left alone. Then `2` is level 2, `2.1`
    level 3; an unnumbered heading written deeper than the numbered heading before it is that
    heading's child (`**Data split**` under `5.2`), one written at the level of a numbered
    sub-section its sibling, and any other (Abstract, References, appendices) top-level.
    Without such an outline, only `2.1` written at the level of an earlier `2` is deepened.
    """
    numbers = {index: number for index in levels if (number := _outline_number(_HTML_TAG.sub("", blocks[index].text)))}
    outline = any(
        "." not in number and (anchor := headings.anchor_for(heading_key(blocks[index].text))) and anchor.type == "intro"
        for index, number in numbers.items()
    )
    deepened: dict[int, int] = {}
    if not outline:
        seen: dict[str, tuple[int, int]] = {}  # number → (source level, new level)
        for index in sorted(levels):
            deepened[index] = levels[index]
            number = numbers.get(index)
            if number is None:
                continue
            parent = seen.get(number.rpartition(".")[0])
            if parent is not None and parent[0] == levels[index]:
                deepened[index] = parent[1] + 1
            seen[number] = (levels[index], deepened[index])
        return deepened
    last_numbered: tuple[int, int] | None = None  # (source level, new level)
    for index in sorted(levels):
        if index in numbers:
            deepened[index] = numbers[index].count(".") + 2
            last_numbered = (levels[index], deepened[index])
        elif last_numbered is not None and levels[index] > last_numbered[0]:
            deepened[index] = last_numbered[1] + 1
        elif last_numbered is not None and levels[index] == last_numbered[0] and last_numbered[1] > 2:
            deepened[index] = last_numbered[1]  # a sibling of `5.2`, written at its level
        else:
            deepened[index] = 2
            last_numbered = None
    return deepened


def _furniture(blocks: list[RawBlock], collapsed: list[str | None], headings: HeadingMatcher, numbered_heads: bool) -> set[int]:
    """Indexes of page furniture: short paragraphs that repeat and bare page numbers; with
    `numbered_heads`, also paragraphs that repeat once a page number at one end is set aside
    (`4 Z. Shen et al.`) and headings that are such a running line and name no kind of section."""
    rules = headings.rules
    texts = {index: collapsed[index] for index, block in enumerate(blocks) if block.kind == BlockKind.paragraph}
    most = rules.normalize.running_line_max_words
    short = {index: text for index, text in texts.items() if text.count(" ") < most and 0 < count_words_in_line(text) <= most}
    min_repeats = rules.normalize.running_line_min_repeats
    repeats = Counter(short.values())
    numbered = {index: rest for index, text in short.items() if (rest := _without_page_number(text, rules))} if numbered_heads else {}
    running = {rest for rest, count in Counter(numbered.values()).items() if count >= min_repeats}
    page_number = rules.normalize.page_number_pattern
    furniture = {
        index
        for index, text in texts.items()
        if repeats[text] >= min_repeats or numbered.get(index) in running or page_number.fullmatch(text)
    }
    if running:
        for index, block in enumerate(blocks):
            text = collapsed[index]
            if block.kind != BlockKind.heading or not text or _without_page_number(text, rules) not in running:
                continue
            key = heading_key(text)
            if not (headings.anchor_for(key) or headings.classify_heading(key)):
                furniture.add(index)
    return furniture


def _without_page_number(line: str, rules: Rules) -> str | None:
    """A short line with the page number at one of its ends set aside, where two words or more are
    left that are not a caption's label (`Supplementary Figure 1`, which a full stop would make a
    caption); None otherwise."""
    rest = rules.normalize.running_line_page_number.sub("", line, count=1)
    if rest == line or count_words_in_line(rest) < 2 or rules.normalize.caption_pattern.match(line + "."):
        return None
    return rest


def _placed_boxes(block: RawBlock, lines: list[tuple[int, int] | None], start: int) -> list[TextBox]:
    """The block's line boxes with the text of each line placed in the document, from `start`;
    none where the lines and the boxes do not pair off (a cleaning that took a line break)."""
    if len(lines) != len(block.line_boxes):
        return []
    return [
        TextBox(page=page, x0=x0, y0=y0, x1=x1, y1=y1, char_start=start + span[0], char_end=start + span[1])
        for (page, x0, y0, x1, y1), span in zip(block.line_boxes, lines)
        if span is not None
    ]


@dataclass(slots=True)
class _Prepared:
    """A block cleaned and joined, before it is placed in the document's text."""

    block: RawBlock
    kind: BlockKind
    level: int | None
    segments: list[TextSegment]
    text: str
    line_spans: list[tuple[int, int] | None]
    """PDF: where each of the raw block's lines ended up inside `text` (`_line_spans`)."""
    line_starts: list[int]
    """Where each joined line after the first starts inside `text`."""


def normalize(raw: RawDocument, doc_id: str, rules: Rules, headings: HeadingMatcher | None = None) -> Document:
    """Clean `raw` and lay its blocks out in one text: body in reading order, then captions, then
    asides. `headings` is the run's `HeadingMatcher` for `rules`, made here where none is given."""
    headings = headings if headings is not None else HeadingMatcher(rules)
    cleaned = [[_clean_segment(segment, block.kind) for segment in block.segments] for block in raw.blocks]
    cleaned_texts = ["".join(segment.text for segment in segments) for segments in cleaned]
    # Whitespace collapsed once per block that is joined into one line: the furniture test
    # compares paragraphs by it, and it is the joined text of a block of one line.
    collapsed = [
        " ".join(soft_breaks_mended(text).split()) if block.kind in _JOINED_KINDS else None
        for block, text in zip(raw.blocks, cleaned_texts)
    ]
    vocabulary = paper_vocabulary(cleaned_texts)
    title_index, levels = _relative_levels(raw.blocks, headings)
    # A PDF's running lines, page numbers and all, were found by extract from where they sit on
    # the page; Markdown has no page to go by, only the words.
    numbered_heads = raw.format == SourceFormat.markdown and rules.normalize.running_line_page_number is not None
    furniture = _furniture(raw.blocks, collapsed, headings, numbered_heads)
    caption_pattern = rules.normalize.caption_pattern

    prepared: list[_Prepared] = []
    for index, block in enumerate(raw.blocks):
        if index in furniture:
            continue
        segments, line_starts = _join_lines(block.kind, cleaned[index], collapsed[index], vocabulary)
        if not segments:
            continue
        kind = block.kind
        text = "".join(segment.text for segment in segments)
        if kind == BlockKind.paragraph and caption_pattern.match(text):
            kind = BlockKind.caption
        level = 1 if index == title_index else levels.get(index)
        lines = _line_spans(block.kind, cleaned[index], text, vocabulary) if block.line_boxes else []
        prepared.append(_Prepared(block, kind, level, segments, text, lines, line_starts))

    document = _laid_out(prepared)
    # The title heading's text, cleaned and collapsed like every heading's above.
    title = (collapsed[title_index] or None) if title_index is not None else None
    return document.model_copy(
        update=dict(
            doc_id=doc_id, path=raw.path, format=raw.format, title=title, page_count=raw.page_count,
            page_labels=raw.page_labels, encoding=raw.encoding, reading_notes=raw.reading_notes,
            removed_running_lines=raw.removed_running_lines + len(furniture),
            layout=raw.layout, layout_reason=raw.layout_reason, tables=raw.tables, ocr_pages=raw.ocr_pages,
        )
    )


def _laid_out(prepared: list[_Prepared]) -> Document:
    """The blocks placed in one text, body first, then captions, then asides (`blocks` stays in
    reading order), each with its offsets, pages, line boxes and superscripts in that text; the
    document's own facts (path, title, …) are left for the caller."""
    text_order = sorted(range(len(prepared)), key=lambda position: _TEXT_ORDER.get(prepared[position].kind, 0))
    text_parts: list[str] = []
    placed: dict[int, Block] = {}
    superscripts: list[tuple[int, int]] = []
    line_starts_of_text: list[int] = []  # blocks are laid out in text order, so these come in order
    offset = 0
    for position in text_order:
        item = prepared[position]
        if text_parts:
            text_parts.append(BLOCK_SEPARATOR)
            offset += len(BLOCK_SEPARATOR)
        start = offset
        spans = []
        for segment in item.segments:
            text_parts.append(segment.text)
            if segment.page is not None:
                spans.append(PageSpan(char_start=offset, char_end=offset + len(segment.text), page=segment.page))
            offset += len(segment.text)
        heading = item.kind == BlockKind.heading
        placed[position] = Block(
            kind=item.kind,
            char_start=start,
            char_end=offset,
            level=item.level if heading else None,
            heading_key=heading_key(item.text) if heading else None,
            heading_evidence=item.block.heading_evidence if heading else [],
            line_start=item.block.line_start,
            line_end=item.block.line_end,
            page_spans=spans,
            line_boxes=_placed_boxes(item.block, item.line_spans, start),
            word_count=count_words_in_line(item.text) if item.kind in _JOINED_KINDS else count_words(item.text),
        )
        if item.block.superscripts:
            superscripts.extend(carried_superscripts(item.block, item.text, start))
        line_starts_of_text.extend(start + line_start for line_start in item.line_starts)
    return Document(
        doc_id="", path="", format=SourceFormat.markdown, title=None, text="".join(text_parts),
        blocks=[placed[position] for position in range(len(prepared))],
        superscripts=superscripts, line_starts=line_starts_of_text,
    )
