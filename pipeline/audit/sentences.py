"""A page's sentences and the citations each carries.

The page is parsed as Markdown (markdown-it-py): paragraphs and list items are prose; headings,
tables, code and HTML are not. Each paragraph's markers are taken out, the rest is split into
sentences by sentencex (see docs/audit.md for why that splitter), and each marker goes to the
sentence it follows. Markers after the paragraph's last sentence, where no other sentence of the
paragraph cites anything, cover the whole paragraph (`CitationRule.paragraph`).
"""

from __future__ import annotations

from dataclasses import dataclass

import sentencex
from markdown_it import MarkdownIt
from markdown_it.token import Token

from pipeline.audit.markers import MARKER, read_marker, take_footnotes
from pipeline.audit.records import PageCitation, CitationRule, Sentence

# sentencex's English rules: its abbreviation list is the widest, and it splits Korean at `.`,
# `?` and `!` as well (bench/sentence_splitters.py).
SPLITTER_LANGUAGE = "en"
_SENTENCE_END = ".!?。…\"')]”’"


@dataclass(frozen=True)
class _Paragraph:
    text: str
    line_start: int
    line_end: int
    lines: tuple[int, ...]
    """The source line each character of `text` is on, so that a sentence has its own lines."""


@dataclass(frozen=True)
class _Marker:
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class _Span:
    """A sentence in its paragraph's text, markers included."""

    start: int
    end: int
    text: str
    """Without its markers."""
    content_start: int
    """Where its first character outside a marker is."""
    content_end: int
    """Where its last character outside a marker ends."""


def read_sentences(page: str) -> list[Sentence]:
    """Every sentence of a Markdown page, numbered in order, with its citations."""
    footnotes = take_footnotes(page)
    sentences: list[Sentence] = []
    for paragraph in _paragraphs(footnotes.body):
        sentences += _paragraph_sentences(paragraph, footnotes.definitions, first_number=len(sentences) + 1)
    return sentences


def _paragraphs(body: str) -> list[_Paragraph]:
    tokens = MarkdownIt("commonmark").enable("table").parse(body)
    paragraphs = []
    for opening, inline in zip(tokens, tokens[1:]):
        if opening.type == "paragraph_open" and inline.type == "inline" and opening.map:
            text, lines = _words_and_lines(*_plain_text(inline.children or [], opening.map[0] + 1))
            if text:
                paragraphs.append(_Paragraph(text, opening.map[0] + 1, opening.map[1], lines))
    return paragraphs


def _plain_text(children: list[Token], first_line: int) -> tuple[str, list[int]]:
    """The words a reader sees: emphasis and link syntax dropped, link text and image alt kept;
    and the source line each character is on (a line break in the paragraph starts the next)."""
    parts: list[str] = []
    lines: list[int] = []
    line = first_line
    for child in children:
        if child.type in ("text", "code_inline", "image"):
            parts.append(child.content)
            lines += [line] * len(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
            lines.append(line)
            line += 1
    return "".join(parts), lines


def _words_and_lines(text: str, lines: list[int]) -> tuple[str, tuple[int, ...]]:
    """`text`'s words joined by one space (as `" ".join(text.split())`), with each character's
    line kept: a space between two words is on the line of the word before it."""
    words: list[str] = []
    kept: list[int] = []
    start = None
    for at, character in enumerate(text + " "):
        if not character.isspace() and start is None:
            start = at
        elif character.isspace() and start is not None:
            if words:
                kept.append(kept[-1])
            words.append(text[start:at])
            kept += lines[start:at]
            start = None
    return " ".join(words), tuple(kept)


def _spans(text: str, markers: list[_Marker]) -> list[_Span]:
    """The splitter's sentences over the text with its markers in place (`effect [chunk:a]. Next`
    ends at the `.` even where the word before it looks like an abbreviation), a split that falls
    inside a marker undone, and each sentence's text without its markers."""
    ends, cursor = [], 0
    for piece in sentencex.segment(SPLITTER_LANGUAGE, text):
        cursor += len(piece)
        if not any(marker.start < cursor < marker.end for marker in markers):
            ends.append(cursor)
    if not ends or ends[-1] != len(text):
        ends.append(len(text))
    spans, start = [], 0
    for end in ends:
        inside = [marker for marker in markers if start <= marker.start < end]
        outside = _outside(start, end, inside)
        words = "".join(text[at:until] for at, until in outside).strip()
        spans.append(_Span(start, end, words, *_content_bounds(text, outside, start, end)))
        start = end
    return spans


def _outside(start: int, end: int, markers: list[_Marker]) -> list[tuple[int, int]]:
    pieces, cursor = [], start
    for marker in markers:
        pieces.append((cursor, marker.start))
        cursor = marker.end
    return pieces + [(cursor, end)]


def _content_bounds(text: str, pieces: list[tuple[int, int]], start: int, end: int) -> tuple[int, int]:
    """Where the first character that is neither a space nor in a marker is, and where the last
    one ends; (end, start) for a span of markers alone."""
    written = [(at, until) for at, until in pieces if text[at:until].strip()]
    if not written:
        return end, start
    (first_at, first_until), (last_at, last_until) = written[0], written[-1]
    leading = len(text[first_at:first_until]) - len(text[first_at:first_until].lstrip())
    return first_at + leading, last_at + len(text[last_at:last_until].rstrip())


def _paragraph_sentences(paragraph: _Paragraph, definitions: dict[str, str], first_number: int) -> list[Sentence]:
    text = paragraph.text
    markers = [_Marker(found.group().strip(), found.start(), found.end()) for found in MARKER.finditer(text)]
    spans = _spans(text, markers)
    sentences_at = [index for index, span in enumerate(spans) if span.text]
    if not sentences_at:
        return []
    owned: dict[int, list[_Marker]] = {index: [] for index in sentences_at}
    for marker in markers:
        # A marker cites what it follows: the last sentence with words before it.
        before = [index for index in sentences_at if spans[index].content_start < marker.start]
        owned[before[-1] if before else sentences_at[0]].append(marker)
    last = spans[sentences_at[-1]]
    ends_sentence = text[last.content_end - 1] in _SENTENCE_END
    trailing = [marker for marker in owned[sentences_at[-1]] if marker.start >= last.content_end and ends_sentence]
    covers_paragraph = (
        len(sentences_at) > 1 and bool(trailing) and not any(owned[index] for index in sentences_at[:-1])
        and len(trailing) == len(owned[sentences_at[-1]])
    )
    sentences = []
    for number, index in enumerate(sentences_at, start=first_number):
        mine = owned[sentences_at[-1]] if covers_paragraph else owned[index]
        citations, errors = _citations(mine, definitions)
        rule = CitationRule.paragraph if covers_paragraph else (CitationRule.own if mine else CitationRule.none)
        sentences.append(
            Sentence(
                number=number, text=spans[index].text, line_start=paragraph.lines[spans[index].content_start],
                line_end=paragraph.lines[spans[index].content_end - 1], citations=citations, rule=rule, marker_errors=errors,
            )
        )
    return sentences


def _citations(markers: list[_Marker], definitions: dict[str, str]) -> tuple[tuple[PageCitation, ...], tuple[str, ...]]:
    citations, errors, seen = [], [], set()
    for marker in markers:
        named = read_marker(marker.text, definitions)
        errors += named.errors
        for chunk_id, label in named.ids:
            if chunk_id not in seen:  # the same id twice in one sentence is one citation
                seen.add(chunk_id)
                citations.append(PageCitation(chunk_id=chunk_id, marker=marker.text, via_footnote=label))
    return tuple(citations), tuple(errors)
