"""Stage 3, chunk: turn a `Document` into sections, paragraphs and chunks.

The passes, in order (each one line in `chunk`):
build_sections → classify_sections → absorb_siblings → assign_ids → plan_chunks →
enforce_max → caption_chunks → number_chunks.
Every chunk is a contiguous slice of `Document.text`; every decision is written on the section
it concerns, so `pipeline inspect` can say why the chunks came out as they did.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field

from pipeline.models import (
    Block,
    BlockKind,
    Chunk,
    ChunkedDocument,
    ChunkSplit,
    Document,
    Paragraph,
    Section,
    SectionType,
    TypeSource,
)
from pipeline.normalize import count_words
from pipeline.rules import Rules


@dataclass
class _Node:
    """A section while the chunker works on it (private, mutable, never handed on)."""

    heading: Block | None
    level: int
    items: list[Block] = field(default_factory=list)
    """Body blocks and captions in reading order."""
    children: list[_Node] = field(default_factory=list)
    parent: _Node | None = None
    section_type: SectionType = SectionType.other
    type_source: TypeSource = TypeSource.unmatched
    type_rule: str | None = None
    anchor: str | None = None
    broad_type: SectionType | None = None
    broad_rule: str | None = None
    absorbed_into: _Node | None = None
    section_id: str = ""
    heading_text: str | None = None
    heading_path: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)

    @property
    def body(self) -> list[Block]:
        return [block for block in self.items if block.kind != BlockKind.caption]

    @property
    def captions(self) -> list[Block]:
        return [block for block in self.items if block.kind == BlockKind.caption]

    @property
    def own_blocks(self) -> list[Block]:
        """Heading and body in text order (a title may follow the front matter's first lines)."""
        return sorted(([self.heading] if self.heading else []) + self.body, key=lambda block: block.char_start)

    def subtree(self) -> list[_Node]:
        return [self] + [node for child in self.children for node in child.subtree()]

    def subtree_blocks(self) -> list[Block]:
        return [block for node in self.subtree() for block in node.own_blocks]

    def body_words(self) -> int:
        return sum(block.word_count for block in self.body)

    def subtree_words(self) -> int:
        return sum(block.word_count for block in self.subtree_blocks())


@dataclass(frozen=True)
class _Piece:
    """A planned chunk: a span of the document text and the section it starts in."""

    char_start: int
    char_end: int
    node: _Node
    split: str
    word_count: int
    body_words: int
    """Words outside headings: a piece with none is a bare heading, never a chunk of its own."""


def _piece(blocks: list[Block], node: _Node, split: str) -> _Piece:
    return _Piece(
        char_start=blocks[0].char_start,
        char_end=blocks[-1].char_end,
        node=node,
        split=split,
        word_count=sum(block.word_count for block in blocks),
        body_words=sum(block.word_count for block in blocks if block.kind != BlockKind.heading),
    )


def _joined(first: _Piece, second: _Piece) -> _Piece:
    """`first` and `second` as one piece, in `first`'s section; but a bare heading joined to a
    piece of another type (an Abstract heading whose sections came out below it) gives it no
    type, so the piece stays in `second`'s section."""
    bare_heading_of_another_type = first.body_words == 0 and first.node.section_type != second.node.section_type
    return _Piece(
        char_start=first.char_start,
        char_end=second.char_end,
        node=second.node if bare_heading_of_another_type else first.node,
        split=first.split,
        word_count=first.word_count + second.word_count,
        body_words=first.body_words + second.body_words,
    )


class _BlockIndex:
    """The document's blocks in text order, to find those under a span without a full scan."""

    def __init__(self, document: Document) -> None:
        self.blocks = sorted(document.blocks, key=lambda block: block.char_start)
        self.starts = [block.char_start for block in self.blocks]

    def overlapping(self, start: int, end: int) -> list[Block]:
        first = max(0, bisect.bisect_right(self.starts, start) - 1)
        last = bisect.bisect_left(self.starts, end)
        return [block for block in self.blocks[first:last] if block.char_start < end and block.char_end > start]


# ---------------------------------------------------------------- sections


def build_sections(document: Document) -> list[_Node]:
    """One node per heading, nested by level; text before the first section goes to a front node."""
    front = _Node(heading=None, level=1)
    top: list[_Node] = []
    stack: list[_Node] = []
    for block in document.blocks:
        text = document.text[block.char_start : block.char_end]
        if block.kind == BlockKind.heading and block.level == 1 and front.heading is None and not top:
            front.heading, front.heading_text = block, text
            continue
        if block.kind == BlockKind.heading and block.level and block.level >= 2:
            node = _Node(heading=block, level=block.level, heading_text=text)
            while stack and stack[-1].level >= block.level:
                stack.pop()
            if stack:
                node.parent = stack[-1]
                stack[-1].children.append(node)
            else:
                node.level = 2  # a sub-heading with no section above it stands at the top
                top.append(node)
            stack.append(node)
            continue
        if block.kind == BlockKind.heading:  # a later H1: treat as a top-level section
            node = _Node(heading=block, level=2, heading_text=text)
            top.append(node)
            stack = [node]
            continue
        (stack[-1] if stack else front).items.append(block)
    has_front = front.heading is not None or front.items
    return ([front] if has_front else []) + top


def classify_sections(nodes: list[_Node], rules: Rules) -> None:
    """Type each top-level heading (strict anchor first, then broad patterns); children inherit."""
    has_sections = any(node.heading is not None and node.level == 2 for node in nodes)
    for node in nodes:
        if node.level == 1:
            node.section_type = SectionType.meta if has_sections else SectionType.other
            node.type_source = TypeSource.front_matter
            continue
        for member in node.subtree():
            key = member.heading.heading_key or ""
            anchor = rules.anchor_for(key)
            broad = None if anchor else rules.classify_heading(key)  # a broad type only counts without an anchor
            member.anchor = anchor.name if anchor else None
            member.broad_type = anchor.type if anchor else (broad.type if broad else None)
            member.broad_rule = broad.name if broad else None
        _type_subtree(node, rules)


def _type_subtree(node: _Node, rules: Rules) -> None:
    """Type `node` by its own heading and give its type to its sub-sections, unless it is a meta
    section too long to be one: then each sub-section is typed by its own heading in turn."""
    if node.anchor:
        node.section_type, node.type_source, node.type_rule = node.broad_type, TypeSource.anchor, node.anchor
    elif node.broad_type:
        node.section_type, node.type_source, node.type_rule = node.broad_type, TypeSource.classified, node.broad_rule
    limit = rules.inherit.meta_max_words
    if node.section_type == SectionType.meta and node.children and (words := node.subtree_words()) > limit:
        node.decisions.append(
            f"passes no type to its sub-sections: {words} words with them, more than a meta section "
            f"holds (inherit.meta_max_words = {limit}); they are the paper's sections, typed by their own headings"
        )
        for child in node.children:
            _type_subtree(child, rules)
        return
    for member in node.subtree()[1:]:
        member.section_type, member.type_source, member.type_rule = node.section_type, TypeSource.inherited, None


def absorb_siblings(nodes: list[_Node], rules: Rules) -> list[_Node]:
    """Let strict methods/results anchors take the flat H2s that follow them as children."""
    caps = rules.absorb
    result: list[_Node] = []
    position = 0
    while position < len(nodes):
        anchor = nodes[position]
        result.append(anchor)
        position += 1
        if anchor.level == 1 or anchor.anchor is None or anchor.section_type not in caps.absorbing_types:
            continue
        if caps.only_childless_anchor and anchor.children:
            anchor.decisions.append("has sub-headings of its own: absorbs nothing")
            continue
        words = anchor.subtree_words()
        absorbed = 0
        stop = "end of paper"
        while position < len(nodes):
            sibling = nodes[position]
            label = f"'{sibling.heading_text}'"
            if sibling.anchor is not None:
                stop = f"{label} (strict anchor: {sibling.anchor})"
                break
            if sibling.broad_type in caps.stop_at_types and sibling.broad_type != anchor.section_type:
                stop = f"{label} (classified {sibling.broad_type.value})"
                break
            if absorbed + 1 > caps.max_siblings:
                stop = f"{label} (cap: max_siblings = {caps.max_siblings})"
                break
            if words + sibling.subtree_words() > caps.max_words:
                stop = f"{label} (cap: max_words = {caps.max_words}, group has {words})"
                break
            words += sibling.subtree_words()
            absorbed += 1
            _adopt(anchor, sibling)
            position += 1
        if absorbed or stop != "end of paper":
            anchor.decisions.append(f"absorbed {absorbed} sibling(s), {words} words; stopped at {stop}")
    return result


def _adopt(anchor: _Node, sibling: _Node) -> None:
    sibling.parent = anchor
    sibling.absorbed_into = anchor
    anchor.children.append(sibling)
    for member in sibling.subtree():
        member.level += 1
        member.section_type = anchor.section_type
        member.type_source = TypeSource.absorbed if member is sibling else TypeSource.inherited
        member.type_rule = None


def assign_ids(nodes: list[_Node]) -> None:
    """`S1, S2, …` for top-level sections in order, `S3.1, S3.2` for their children."""

    def number(node: _Node, section_id: str, path: list[str]) -> None:
        node.section_id = section_id
        node.heading_path = path + ([node.heading_text] if node.heading_text else [])
        for ordinal, child in enumerate(node.children, start=1):
            number(child, f"{section_id}.{ordinal}", node.heading_path)

    for ordinal, node in enumerate(nodes, start=1):
        number(node, f"S{ordinal}", [])


# ---------------------------------------------------------------- chunks


def _plan(node: _Node, split: str, rules: Rules) -> list[_Piece]:
    """Pieces for one section: whole when small enough or a leaf, else split at its children."""
    blocks = node.subtree_blocks()
    if not blocks:
        return []
    words = sum(block.word_count for block in blocks)
    target = rules.chunk.target_max_words
    if words <= target or not node.children:
        return [_piece(blocks, node, split)]
    node.decisions.append(f"soft split at {len(node.children)} sub-sections: {words} words > {target}")
    parts: list[list[_Piece]] = []
    if node.own_blocks:
        parts.append([_piece(node.own_blocks, node, split)])
    parts.extend(_plan(child, ChunkSplit.h3_soft, rules) for child in node.children)
    return _merge_fragments([part for part in parts if part], target)


def _merge_fragments(parts: list[list[_Piece]], target: int) -> list[_Piece]:
    """Merge adjacent whole sub-sections while the merged piece stays within `target` words.

    A sub-section that was itself split keeps its pieces; a bare heading always joins the
    piece after it. Pieces of different types are not merged: the chunk would carry the first
    one's type.
    """
    pieces: list[_Piece] = []
    current: _Piece | None = None
    for part in parts:
        if current is not None and (
            current.body_words == 0
            or (
                len(part) == 1
                and current.word_count + part[0].word_count <= target
                and current.node.section_type == part[0].node.section_type
            )
        ):
            part = [_joined(current, part[0])] + part[1:]
            current = None
        if current is not None:
            pieces.append(current)
        if len(part) == 1:
            current = part[0]
        else:
            pieces.extend(part[:-1])
            current = part[-1]
    if current is not None:
        pieces.append(current)
    return pieces


def plan_chunks(nodes: list[_Node], rules: Rules) -> list[_Piece]:
    """H1/H2 are hard splits: each top-level section is planned on its own."""
    return [piece for node in nodes for piece in _plan(node, ChunkSplit.front if node.level == 1 else ChunkSplit.h2, rules)]


_SENTENCE_END = re.compile(r"[.!?][)\]\"'”’]*\s+(?=[A-Z0-9(\[\"“])")
_INITIAL = re.compile(r"[a-z]\.")


def _sentence_spans(text: str, start: int, end: int, rules: Rules) -> list[tuple[int, int]]:
    abbreviations = set(rules.sentences.abbreviations)
    spans = []
    cursor = start
    for match in _SENTENCE_END.finditer(text, start, end):
        # The word before the full stop, split off from the sentence's end: a regex search for
        # it scanned from the sentence's start, again after every abbreviation (chunk 0.85 s ->
        # 0.70 s on the shared Markdown corpus). The text ends in the stop, so a word is there.
        word = text[cursor : match.start() + 1].rsplit(None, 1)[-1].lower()
        if word in abbreviations or _INITIAL.fullmatch(word):
            continue
        spans.append((cursor, match.start() + 1))
        cursor = match.end()
    spans.append((cursor, end))
    return [(a, b) for a, b in spans if b > a]


def _word_spans(text: str, start: int, end: int, size: int) -> list[tuple[int, int]]:
    words = [match.span() for match in re.finditer(r"\S+", text[start:end])]
    return [
        (start + words[index][0], start + words[min(index + size, len(words)) - 1][1])
        for index in range(0, len(words), size)
    ]


def _units(piece: _Piece, document: Document, index: _BlockIndex, rules: Rules) -> list[tuple[int, int, int]]:
    """The piece cut at paragraph boundaries, an oversize paragraph at sentences, an oversize
    sentence at words; each unit as (start, end, words). A heading is glued to what follows."""
    text = document.text
    hard_max = rules.chunk.hard_max_words
    units: list[tuple[int, int, int]] = []
    glue_start: int | None = None
    for block in index.overlapping(piece.char_start, piece.char_end):
        if block.kind == BlockKind.heading:
            glue_start = block.char_start if glue_start is None else glue_start
            continue
        if block.word_count > hard_max:
            spans = []
            for start, end in _sentence_spans(text, block.char_start, block.char_end, rules):
                words = count_words(text[start:end])  # once: it is the unit's count too
                if words > hard_max:
                    word_runs = _word_spans(text, start, end, rules.chunk.target_max_words)
                    spans.extend(
                        (run_start, run_end, count_words(text[run_start:run_end])) for run_start, run_end in word_runs
                    )
                else:
                    spans.append((start, end, words))
        else:
            spans = [(block.char_start, block.char_end, block.word_count)]
        for start, end, words in spans:
            if glue_start is not None:
                start, glue_start = glue_start, None
                words = count_words(text[start:end])
            units.append((start, end, words))
    if glue_start is not None:  # headings with nothing after them
        units.append((glue_start, piece.char_end, count_words(text[glue_start : piece.char_end])))
    return units


def _partition(units: list[tuple[int, int, int]], parts: int) -> list[list[tuple[int, int, int]]]:
    """Cut units into `parts` contiguous groups of near-equal word counts."""
    total = sum(words for _, _, words in units)
    groups: list[list[tuple[int, int, int]]] = [[]]
    done = 0
    for unit in units:
        boundary = total * len(groups) / parts
        if groups[-1] and len(groups) < parts and abs(done - boundary) <= abs(done + unit[2] - boundary):
            groups.append([])
        groups[-1].append(unit)
        done += unit[2]
    return groups


def enforce_max(pieces: list[_Piece], document: Document, index: _BlockIndex, rules: Rules) -> list[_Piece]:
    """Cut every piece over the hard max into near-equal parts; nothing leaves over it."""
    result: list[_Piece] = []
    hard_max = rules.chunk.hard_max_words
    for piece in pieces:
        if piece.word_count <= hard_max:
            result.append(piece)
            continue
        units = _units(piece, document, index, rules)
        parts = math.ceil(piece.word_count / rules.chunk.target_max_words)
        groups = _partition(units, parts)
        while any(sum(words for _, _, words in group) > hard_max for group in groups) and parts < len(units):
            parts += 1
            groups = _partition(units, parts)
        piece.node.decisions.append(f"size split into {len(groups)} parts: {piece.word_count} words > {hard_max}")
        for position, group in enumerate(groups):
            words = sum(unit_words for _, _, unit_words in group)
            result.append(
                _Piece(
                    char_start=group[0][0],
                    char_end=group[-1][1],
                    node=piece.node,
                    split=piece.split if position == 0 else ChunkSplit.size,
                    word_count=words,
                    body_words=words,
                )
            )
    return result


def caption_chunks(nodes: list[_Node], document: Document, index: _BlockIndex, rules: Rules) -> list[_Piece]:
    """Every caption is a chunk of its own, kept out of the body text around it."""
    pieces = [
        _piece([block], node, ChunkSplit.caption)
        for top in nodes
        for node in top.subtree()
        for block in node.captions
    ]
    return enforce_max(pieces, document, index, rules)


# ---------------------------------------------------------------- records


def _span_provenance(index: _BlockIndex, start: int, end: int) -> tuple[list[int], int | None, int | None, list[Block]]:
    blocks = index.overlapping(start, end)
    pages = sorted(
        {span.page for block in blocks for span in block.page_spans if span.char_start < end and span.char_end > start}
    )
    lines_start = [block.line_start for block in blocks if block.line_start is not None]
    lines_end = [block.line_end for block in blocks if block.line_end is not None]
    return pages, min(lines_start, default=None), max(lines_end, default=None), blocks


def _paragraphs(nodes: list[_Node]) -> tuple[list[Paragraph], dict[int, str]]:
    paragraphs = []
    id_by_start: dict[int, str] = {}
    for top in nodes:
        for node in top.subtree():
            for ordinal, block in enumerate(node.items, start=1):
                pages = sorted({span.page for span in block.page_spans})
                paragraph_id = f"{node.section_id}-P{ordinal}"
                id_by_start[block.char_start] = paragraph_id
                paragraphs.append(
                    Paragraph(
                        paragraph_id=paragraph_id,
                        section_id=node.section_id,
                        kind=block.kind,
                        char_start=block.char_start,
                        char_end=block.char_end,
                        line_start=block.line_start,
                        line_end=block.line_end,
                        page_start=pages[0] if pages else None,
                        page_end=pages[-1] if pages else None,
                        word_count=block.word_count,
                    )
                )
    return paragraphs, id_by_start


def _sections(nodes: list[_Node], index: _BlockIndex) -> list[Section]:
    sections = []
    for top in nodes:
        for node in top.subtree():
            own = node.own_blocks or node.items
            start, end = own[0].char_start, own[-1].char_end
            pages, line_start, line_end, _ = _span_provenance(index, start, end)
            sections.append(
                Section(
                    section_id=node.section_id,
                    parent_id=node.parent.section_id if node.parent else None,
                    level=node.level,
                    heading=node.heading_text,
                    heading_path=node.heading_path,
                    section_type=node.section_type,
                    type_source=node.type_source,
                    type_rule=node.type_rule,
                    anchor=node.anchor,
                    absorbed_into=node.absorbed_into.section_id if node.absorbed_into else None,
                    word_count=node.body_words(),
                    char_start=start,
                    char_end=end,
                    line_start=line_start,
                    line_end=line_end,
                    page_start=pages[0] if pages else None,
                    page_end=pages[-1] if pages else None,
                    decisions=node.decisions,
                )
            )
    return sections


def _absorbed_into(node: _Node) -> str | None:
    while node is not None:
        if node.absorbed_into is not None:
            return node.absorbed_into.section_id
        node = node.parent
    return None


def number_chunks(pieces: list[_Piece], document: Document, index: _BlockIndex, id_by_start: dict[int, str]) -> list[Chunk]:
    """Chunks in text order, `{doc_id}:{ordinal}`, with their provenance read off the blocks."""
    chunks = []
    for ordinal, piece in enumerate(sorted(pieces, key=lambda piece: piece.char_start), start=1):
        text = document.text[piece.char_start : piece.char_end]
        pages, line_start, line_end, blocks = _span_provenance(index, piece.char_start, piece.char_end)
        node = piece.node
        chunks.append(
            Chunk(
                chunk_id=f"{document.doc_id}:{ordinal}",
                doc_id=document.doc_id,
                ordinal=ordinal,
                section_id=node.section_id,
                section_type=SectionType.figure_caption if piece.split is ChunkSplit.caption else node.section_type,
                heading=node.heading_text,
                heading_path=node.heading_path,
                text=text,
                word_count=piece.word_count,  # its blocks' (or units') counts, which sum exactly
                char_start=piece.char_start,
                char_end=piece.char_end,
                line_start=line_start,
                line_end=line_end,
                page_start=pages[0] if pages else None,
                page_end=pages[-1] if pages else None,
                pages=pages,
                paragraph_ids=[id_by_start[block.char_start] for block in blocks if block.char_start in id_by_start],
                absorbed_into=_absorbed_into(node),
                split=piece.split,
            )
        )
    return chunks


def chunk(document: Document, rules: Rules) -> ChunkedDocument:
    """Sections, paragraphs and chunks for one normalized document."""
    index = _BlockIndex(document)
    nodes = build_sections(document)
    classify_sections(nodes, rules)
    nodes = absorb_siblings(nodes, rules)
    assign_ids(nodes)
    pieces = plan_chunks(nodes, rules)
    pieces = enforce_max(pieces, document, index, rules)
    pieces += caption_chunks(nodes, document, index, rules)
    paragraphs, id_by_start = _paragraphs(nodes)
    return ChunkedDocument(
        document=document,
        sections=_sections(nodes, index),
        paragraphs=paragraphs,
        chunks=number_chunks(pieces, document, index, id_by_start),
    )
