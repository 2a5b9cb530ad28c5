"""The hard maximum: a piece over it is cut at paragraphs, an oversize list between its items, an
oversize paragraph or item at sentences, an oversize sentence between words, into near-equal
parts, and never inside an entry of the bibliography that fits. Nothing leaves over it."""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Sequence

from pipeline.normalize.block_index import BlockIndex
from pipeline.normalize.list_items import list_item_spans
from pipeline.chunk.plan import ChunkPlan, Decision, Piece
from pipeline.records.base import BlockKind, ChunkSplit
from pipeline.records.document import Document
from pipeline.normalize.words import LONG_WORD_CHARS, count_words
from pipeline.rules import Rules

_SENTENCE_END = re.compile(r"[.!?][)\]\"'”’]*\s+(?=[A-Z0-9(\[\"“])")
_INITIAL = re.compile(r"[a-z]\.")
_NON_SPACE = re.compile(r"\S+")

Unit = tuple[int, int, int]
"""A stretch of text that is not cut further: (char_start, char_end, words)."""


def enforce_max(
    plan: ChunkPlan, document: Document, index: BlockIndex, rules: Rules, entries: Sequence[tuple[int, int]] = ()
) -> ChunkPlan:
    """Cut every piece over the hard max into near-equal parts; `entries` are the spans of the
    bibliography's entries, which a cut leaves whole."""
    pieces: list[Piece] = []
    decisions = list(plan.decisions)
    hard_max = rules.chunk.hard_max_words
    for piece in plan.pieces:
        if piece.word_count <= hard_max:
            pieces.append(piece)
            continue
        units = _whole_entries(_units(piece, document, index, rules), entries, rules.chunk.hard_max_words)
        groups = _near_equal_groups(units, piece.word_count, rules)
        decisions.append(Decision(piece.node.section_id, f"size split into {len(groups)} parts: {piece.word_count} words > {hard_max}"))
        for position, group in enumerate(groups):
            words = sum(unit_words for _, _, unit_words in group)
            split = piece.split if position == 0 else ChunkSplit.size
            pieces.append(Piece(group[0][0], group[-1][1], piece.node, split, words, words))
    return ChunkPlan(tuple(pieces), tuple(decisions))


def _near_equal_groups(units: list[Unit], words: int, rules: Rules) -> list[list[Unit]]:
    """As few groups as the target size asks for, more while one is still over the hard max."""
    hard_max = rules.chunk.hard_max_words
    parts = math.ceil(words / rules.chunk.target_max_words)
    groups = _partition(units, parts)
    while any(sum(unit_words for _, _, unit_words in group) > hard_max for group in groups) and parts < len(units):
        parts += 1
        groups = _partition(units, parts)
    return groups


def _partition(units: list[Unit], parts: int) -> list[list[Unit]]:
    """Cut units into `parts` contiguous groups of near-equal word counts."""
    total = sum(words for _, _, words in units)
    groups: list[list[Unit]] = [[]]
    done = 0
    for unit in units:
        boundary = total * len(groups) / parts
        if groups[-1] and len(groups) < parts and abs(done - boundary) <= abs(done + unit[2] - boundary):
            groups.append([])
        groups[-1].append(unit)
        done += unit[2]
    return groups


def _units(piece: Piece, document: Document, index: BlockIndex, rules: Rules) -> list[Unit]:
    """The piece cut at paragraph boundaries, an oversize paragraph at sentences, an oversize
    sentence at words. Headings are glued to what follows where the two fit under the hard max
    together; else they are cut from it, and one over it is cut like a paragraph."""
    text = document.text
    hard_max = rules.chunk.hard_max_words
    units: list[Unit] = []
    headings: list[tuple[int, int]] = []
    for block in index.overlapping(piece.char_start, piece.char_end):
        if block.kind == BlockKind.heading:
            headings.append((block.char_start, block.char_end))
            continue
        if block.word_count > hard_max and block.kind == BlockKind.list:
            spans = [
                unit
                for start, end in list_item_spans(text, block.char_start, block.char_end)
                for unit in _sentence_units(text, start, end, rules)
            ]
        elif block.word_count > hard_max:
            spans = _sentence_units(text, block.char_start, block.char_end, rules)
        else:
            spans = [(block.char_start, block.char_end, block.word_count)]
        for start, end, words in spans:
            if headings:
                units.extend(_glued(text, headings, end, rules))
                headings = []
                if units[-1][1] == end:
                    continue
            units.append((start, end, words))
    if headings:  # headings with nothing after them
        units.extend(_glued(text, headings, piece.char_end, rules))
    return units


def _glued(text: str, headings: list[tuple[int, int]], end: int, rules: Rules) -> list[Unit]:
    """The headings and what follows them up to `end` as one unit where it fits under the hard
    max; else each heading alone (cut at sentences and words where it is over the hard max
    itself), and what follows them left out for the caller."""
    words = count_words(text[headings[0][0] : end])
    if words <= rules.chunk.hard_max_words:
        return [(headings[0][0], end, words)]
    return [unit for start, heading_end in headings for unit in _sentence_units(text, start, heading_end, rules)]


def _whole_entries(units: list[Unit], entries: Sequence[tuple[int, int]], hard_max: int) -> list[Unit]:
    """`units` with those that lie in one bibliography entry made one, where the entry fits under
    the hard max: a list item broken by a blank line, an entry cut at its sentences."""
    if not entries:
        return units
    starts = [start for start, _ in entries]
    merged: list[Unit] = []
    for unit in units:
        position = bisect.bisect_right(starts, unit[0]) - 1
        entry = entries[position] if position >= 0 else None
        inside = entry is not None and entry[0] <= unit[0] and unit[1] <= entry[1]
        if inside and merged and entry[0] <= merged[-1][0] and merged[-1][2] + unit[2] <= hard_max:
            merged[-1] = (merged[-1][0], unit[1], merged[-1][2] + unit[2])
        else:
            merged.append(unit)
    return merged


def _sentence_units(text: str, start: int, end: int, rules: Rules) -> list[Unit]:
    """A paragraph (or list item) as one unit where it fits under the hard max, else as
    sentences, and a sentence still over it as runs of words."""
    words = count_words(text[start:end])
    if words <= rules.chunk.hard_max_words:
        return [(start, end, words)]
    units = []
    for sentence_start, sentence_end in _sentence_spans(text, start, end, rules):
        words = count_words(text[sentence_start:sentence_end])  # once: it is the unit's count too
        if words <= rules.chunk.hard_max_words:
            units.append((sentence_start, sentence_end, words))
            continue
        for run_start, run_end in _word_spans(text, sentence_start, sentence_end, rules.chunk.target_max_words):
            units.append((run_start, run_end, count_words(text[run_start:run_end])))
    return units


def _sentence_spans(text: str, start: int, end: int, rules: Rules) -> list[tuple[int, int]]:
    abbreviations = set(rules.sentences.abbreviations)
    spans = []
    cursor = start
    for match in _SENTENCE_END.finditer(text, start, end):
        # The word before the full stop, split off from the sentence's end rather than searched
        # for from the sentence's start, which scanned again after every abbreviation. The text
        # ends in the stop, so a word is there.
        word = text[cursor : match.start() + 1].rsplit(None, 1)[-1].lower()
        if word in abbreviations or _INITIAL.fullmatch(word):
            continue
        spans.append((cursor, match.start() + 1))
        cursor = match.end()
    spans.append((cursor, end))
    return [(a, b) for a, b in spans if b > a]


def _word_spans(text: str, start: int, end: int, size: int) -> list[tuple[int, int]]:
    """Runs of at most `size` words and `size` × `LONG_WORD_CHARS` characters, so that each
    counts at most `size` words; a word longer than `LONG_WORD_CHARS` (a base64 image) is cut
    into pieces of that many characters."""
    pieces = [
        (at, min(at + LONG_WORD_CHARS, word.end()))
        for word in _NON_SPACE.finditer(text, start, end)
        for at in range(word.start(), word.end(), LONG_WORD_CHARS)
    ]
    spans: list[tuple[int, int]] = []
    run_start, run_end, count = -1, -1, 0
    for piece_start, piece_end in pieces:
        if count and (count == size or piece_end - run_start > size * LONG_WORD_CHARS):
            spans.append((run_start, run_end))
            count = 0
        if not count:
            run_start = piece_start
        run_end, count = piece_end, count + 1
    if count:
        spans.append((run_start, run_end))
    return spans
