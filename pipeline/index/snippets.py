"""A hit's snippet: the stretch of its text where the query's terms are, each term marked where
it is written."""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass

from pipeline.index.terms import UNSPACED_SCRIPT, TermCounter, compound_parts, lowered_words

# `terms._TOKEN`'s runs in the text as written, `_` a separator, so that their offsets are the
# text's own: lowering can change a text's length (`İ` becomes two characters).
_TOKEN_AS_WRITTEN = re.compile(r"(?:[^\W_]|[/-])+")
_SHOWN_WORD = re.compile(r"\S+")
# A word longer than this (a URL, a sequence) is cut where the width falls, not kept whole.
_LONGEST_KEPT_WORD = 40


@dataclass(frozen=True)
class TermSpan:
    """A word of a text that is one of the query's terms, whole or as a part (`PET` of
    `FDG-PET/CT`): where it is written, `text[start:end]`, and every term it counts as, as the
    index counts it (`IL-6` as `il-6`, `il` and `6`)."""

    start: int
    end: int
    terms: frozenset[str]


@dataclass(frozen=True)
class Snippet:
    """About a line of a hit's text, its whitespace collapsed, `…` where it is cut, and where the
    query's terms are in it."""

    text: str
    marks: tuple[tuple[int, int], ...]
    """Each query term shown, as `text[start:end]`, in order; none overlap."""

    def marked(self, before: str = "**", after: str = "**") -> str:
        """The text with each term between `before` and `after` (`serum **IL-6** rose`)."""
        pieces, at = [], 0
        for start, end in self.marks:
            pieces += [self.text[at:start], before, self.text[start:end], after]
            at = end
        return "".join([*pieces, self.text[at:]])

    def as_json(self) -> dict:
        """For machines: the text unmarked (`snippet`), and `[start, end]` of each term in it
        (`snippet_marks`), in characters."""
        return {"snippet": self.text, "snippet_marks": [list(mark) for mark in self.marks]}


def find_terms(text: str, terms: set[str], counter: TermCounter) -> list[TermSpan]:
    """Where `terms` (stems) occur in `text` as the index counts it, in text order: each word that
    is one, whole or as a part (`pet` in `FDG-PET/CT`), with every term it counts as; stopwords never."""
    words = set(lowered_words(text))
    counter.learn(words)
    matching = {word: term for word, term in zip(words, counter.stems_of(list(words))) if term in terms}
    if not matching:
        return []
    lowered = text.lower()
    if len(lowered) != len(text):  # lowering moved the offsets (`İ` becomes two characters)
        spans = (
            TermSpan(match.start(), match.end(), frozenset(matching[word] for word in lowered_words(match.group()) if word in matching))
            for match in _TOKEN_AS_WRITTEN.finditer(text)
        )
        return [span for span in spans if span.terms]
    # Found in the text, rather than by walking its every token, which is slow for a long chunk.
    bigrams = [word for word in matching if UNSPACED_SCRIPT.fullmatch(word)]
    whole = [word for word in matching if word not in bigrams]
    alternatives = [rf"(?<![^\W_])(?:{_alternation(whole)})(?![^\W_])"] if whole else []
    alternatives += [_alternation(bigrams)] if bigrams else []  # written inside words: `정확` in `정확도가`
    return [
        TermSpan(match.start(), match.end(), _counted_as(match.group(), matching))
        for match in re.finditer("|".join(alternatives), lowered)
    ]


def _alternation(words: list[str]) -> str:
    """A pattern for any of `words`, the longest tried first (`il-6` before `il`)."""
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


def _counted_as(word: str, matching: dict[str, str]) -> frozenset[str]:
    """The terms a word found whole counts as: its own, and its parts' where it is a compound, as
    the index counts `IL-6` under `il-6`, `il` and `6`."""
    return frozenset(matching[part] for part in (word, *compound_parts([word])) if part in matching)


def snippet(text: str, terms: set[str], counter: TermCounter, width: int = 220) -> Snippet:
    """About `width` characters of `text`, cut between words, around the stretch that holds the
    most of the query's terms as the index matched them (`routing` for a query's `routed`, never
    its `of`; `IL-6` for `IL-6` over a `6` elsewhere), with those terms marked. The text's start
    where none occurs (a hit on the heading path alone)."""
    found = find_terms(text, terms, counter)
    # A stretch near the text's end is shown with as much before it as the width holds.
    wanted = max(0, min(_richest_stretch(found, width * 2 // 3) - width // 4, len(text) - width)) if found else 0
    start = _between_words(text, wanted)
    end = len(text) if wanted + width >= len(text) else _between_words(text, start + width)
    return _collapsed(text, start, end, [span for span in found if span.start >= start and span.end <= end])


def _richest_stretch(found: list[TermSpan], reach: int) -> int:
    """Where the stretch of `reach` characters that holds the most distinct terms begins, then the
    most of their occurrences (the earliest of equals): the offset of its first occurrence."""
    best_offset, best = found[0].start, (0, 0)
    in_stretch: Counter[str] = Counter()
    end = 0
    for span in found:
        while end < len(found) and found[end].start < span.start + reach:
            in_stretch.update(found[end].terms)
            end += 1
        if (len(in_stretch), in_stretch.total()) > best:
            best_offset, best = span.start, (len(in_stretch), in_stretch.total())
        for term in span.terms:
            in_stretch[term] -= 1
            if not in_stretch[term]:
                del in_stretch[term]
    return best_offset


def _between_words(text: str, position: int) -> int:
    """`position`, moved back to the start of the word it falls inside, if any."""
    for back in range(position, max(0, position - _LONGEST_KEPT_WORD) - 1, -1):
        if back == 0 or text[back - 1].isspace() or text[back].isspace():
            return back
    return position


def _collapsed(text: str, start: int, end: int, spans: list[TermSpan]) -> Snippet:
    """`text[start:end]` with its whitespace collapsed to single spaces and `…` where it is cut,
    and where `spans` (none holding whitespace) fall in it."""
    opening = "…" if start else ""
    words = list(_SHOWN_WORD.finditer(text, start, end))
    # Each word's offset in the text, and in the snippet.
    written = [word.start() for word in words]
    shown = []
    at = len(opening)
    for word in words:
        shown.append(at)
        at += len(word.group()) + 1
    marks = []
    for span in spans:
        index = bisect.bisect_right(written, span.start) - 1
        begin = shown[index] + span.start - written[index]
        marks.append((begin, begin + span.end - span.start))
    body = " ".join(word.group() for word in words)
    return Snippet(opening + body + ("…" if end < len(text) else ""), tuple(marks))
