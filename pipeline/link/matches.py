"""Every match of a rules pattern in a text, as `Pattern.finditer` gives them, found faster.

Python's `re` skips ahead to where a match can start only when the pattern begins with a
literal or a set of characters, and a case-blind letter is neither: so it tries the case-blind
link patterns of the rules at every position of a chunk, one pattern after another. Two ways
find the places worth trying instead, and the pattern itself decides at each:

- **The head.** Most patterns start with a few fixed characters (`tab`, `fig`, `supp`, `§`, `@`,
  then maybe digits or spaces). Every match starts where the text, in lower case, shows one of
  these heads; searched case-sensitively in the lower-cased text, a head is found by `re`'s fast
  literal scan. `Matches` lower-cases a text once, for all the patterns it is searched for, and
  only its ASCII letters (`_lowered`): Unicode's lower-casing costs several times as much, and
  a head's letters are ASCII.
- **The assertion-free form.** The same pattern without its word boundaries and simple
  look-behinds matches wherever the pattern does (such an assertion only ever forbids a match),
  and often begins with a set of characters.

A pattern that starts with no fixed characters may still hold some further on: a citation
`Smith et al., 2020` ends on a year. Every match holds one of these required heads, so a piece of
text without them (most parentheses) need not be tried at all (`Matches.places`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from functools import cached_property

from pipeline.link.pattern_heads import (
    Head,
    LookedFor,
    assertion_free,
    heads_after_opening_looked_for,
    heads_looked_for,
    required_heads_looked_for,
)

# The characters outside ASCII that a case-blind pattern takes for an ASCII letter (`İ` and
# `ı` for `i`, `ſ` for `s`, the Kelvin sign for `k`) though lower-casing does not turn them into
# that letter: four, each found by a fast scan (tests/link/test_matches.py checks there are no others).
FOLDS_TO_ASCII = "\u0130\u0131\u017f\u212a"


class Matches:
    """One text, searched for several patterns: lower-cased once for the heads of all of them."""

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def lowered(self) -> bytes | None:
        """The text's ASCII form in lower case, with the same offsets (None where it cannot be: `_lowered`)."""
        return _lowered(self.text)

    def places(self, pattern: re.Pattern[str]) -> list[int] | None:
        """Where, in order, the text shows a head every match of `pattern` holds
        (`required_heads`): no match lies where none starts. None where the pattern has no
        such heads, or they cannot be looked for in this text."""
        heads = required_heads_looked_for(pattern)
        return None if heads is None else self._places_of(heads)

    def finditer(self, pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
        """The non-overlapping matches of `pattern` in the text, left to right: `pattern.finditer(text)`."""
        heads = heads_after_opening_looked_for(pattern)
        places = None if heads is None else self._places_of(heads)
        if places is not None:
            return (match for _, match in _tried_in_pieces(pattern, [(self.text, 0)], [0], places))
        return finditer(pattern, self.text)

    def _places_of(self, heads: LookedFor) -> list[int] | None:
        """Where the text shows one of the heads, in order; None where it cannot be told."""
        return _places(heads, self.text, lambda: self.lowered)


class Pieces:
    """Pieces of one text (a run of a paper's chunks), each searched for several patterns as
    `Matches` would search it alone. A pattern's heads are looked for once in the stretch of the
    text the pieces cover, lower-cased once, and a piece is tried only where they are: most pieces
    hold none of most patterns' heads, and looking in every piece for every pattern costs more
    than the looking itself."""

    def __init__(self, text: str, pieces: list[tuple[str, int]]) -> None:
        """`pieces`: each piece's text and where it starts in `text`, in text order."""
        self.pieces = pieces
        self.starts = [start for _, start in pieces]
        self.start = pieces[0][1] if pieces else 0
        self.end = pieces[-1][1] + len(pieces[-1][0]) if pieces else 0
        in_order = all(start + len(piece) <= following for (piece, start), following in zip(pieces, self.starts[1:]))
        # Pieces that are not slices of the text, one after another, are searched each alone.
        self.sliced = in_order and all(text.startswith(piece, start) for piece, start in pieces)
        self.text = text

    @cached_property
    def stretch(self) -> str:
        """The text the pieces cover, from the first's start to the last's end."""
        return self.text[self.start : self.end]

    @cached_property
    def lowered(self) -> bytes | None:
        """The stretch's ASCII form in lower case, with the same offsets (None where it cannot be: `_lowered`)."""
        return _lowered(self.stretch) if self.sliced else None

    @cached_property
    def _alone(self) -> list[Matches]:
        return [Matches(piece) for piece, _ in self.pieces]

    def finditer(self, pattern: re.Pattern[str]) -> Iterator[tuple[int, re.Match[str]]]:
        """`pattern.finditer(piece)` for every piece, piece after piece: (the piece's index, the match)."""
        heads = heads_looked_for(pattern)
        places = None if heads is None or not self.sliced else self._places_of(heads)
        if places is None:
            for index, searched in enumerate(self._alone):
                for match in searched.finditer(pattern):
                    yield index, match
            return
        yield from _tried_in_pieces(pattern, self.pieces, self.starts, places)

    def _places_of(self, heads: LookedFor) -> list[int] | None:
        """Where the stretch shows one of the heads, in the text's offsets, in order; None where it
        cannot be told."""
        return _places(heads, self.stretch, lambda: self.lowered, self.start)


def _places(heads: LookedFor, text: str, lowered: Callable[[], bytes | None], offset: int = 0) -> list[int] | None:
    """Where `text` shows one of the heads, in order, each plus `offset`; None where it cannot be
    told. `lowered` gives the text's ASCII form (`_lowered`), made only for heads with letters."""
    if not heads.in_ascii:
        return _starts_of(heads.in_text, text, offset)
    in_ascii = lowered()
    if in_ascii is None:
        return None
    found = _starts_of(heads.in_ascii, in_ascii, offset)
    others = _starts_of(heads.in_text, text, offset)
    return sorted(found + others) if others else found


def _tried_in_pieces(
    pattern: re.Pattern[str], pieces: list[tuple[str, int]], starts: list[int], places: list[int]
) -> Iterator[tuple[int, re.Match[str]]]:
    """`pattern` tried in the pieces (each text and where it starts, at `starts`) at each of the
    sorted `places` (in the offsets of the text they are cut from) that no earlier match in its
    piece covers: (the piece's index, the match)."""
    index, piece, piece_start, position = -1, "", 0, 0
    for place in places:
        at = bisect.bisect_right(starts, place) - 1
        if at != index:
            index, (piece, piece_start), position = at, pieces[at], 0
        start = place - piece_start
        # A head that starts in a piece and runs past its end fails there: every match of
        # `pattern` in a piece starts with a whole head. Between two pieces lies no match.
        if start < position or start >= len(piece):
            continue
        match = pattern.match(piece, start)
        if match is not None:
            yield index, match
            position = match.end() if match.end() > start else match.end() + 1


def _lowered(text: str) -> bytes | None:
    """The text's ASCII form, lower-cased: each character outside ASCII is a `?`, so that the
    offsets are the text's, and the heads are looked for in it as `_in_ascii` has them. None
    where a case-blind pattern matches a character outside ASCII for an ASCII letter (`ſ` for
    `s`): such a text is searched without heads."""
    if not text.isascii() and any(character in text for character in FOLDS_TO_ASCII):
        return None
    return text.encode("ascii", "replace").lower()


def _starts_of(heads: tuple[Head, ...], searched: str | bytes, offset: int = 0) -> list[int]:
    """Every start of one of the heads in `searched`, overlapping ones too (`2020` inside
    `202020`), in order, each plus `offset`."""
    found: list[int] = []
    for head in heads:
        if not head.overlaps:
            # No match can start inside another: `finditer`'s scan finds every start, in C.
            found.extend([offset + at.start() for at in head.pattern.finditer(searched)])
            continue
        at = head.pattern.search(searched)
        while at is not None:
            found.append(offset + at.start())
            at = head.pattern.search(searched, at.start() + 1)
    return sorted(found) if len(heads) > 1 else found


def finditer(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """The non-overlapping matches of `pattern` in `text`, left to right: `pattern.finditer(text)`,
    tried where its assertion-free form matches (for one pattern, lower-casing the text for its
    head would cost more than it saves)."""
    candidates = assertion_free(pattern)
    if candidates is None:
        return pattern.finditer(text)
    return _tried_at(pattern, text, candidates)


def search(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first match of `pattern` in `text`, `pattern.search(text)`, tried where its
    assertion-free form matches (`finditer`), without the bookkeeping for the matches after it."""
    candidates = assertion_free(pattern)
    if candidates is None:
        return pattern.search(text)
    found = candidates.search(text)
    while found is not None:
        match = pattern.match(text, found.start())
        if match is not None:
            return match
        found = candidates.search(text, found.start() + 1)
    return None


def _tried_at(pattern: re.Pattern[str], text: str, place: re.Pattern[str]) -> Iterator[re.Match[str]]:
    """`pattern` tried wherever `place` matches in `text`; no match of `pattern` starts anywhere else."""
    found = place.search(text)
    while found is not None:
        start = found.start()
        match = pattern.match(text, start)
        if match is None:
            position = start + 1
        else:
            yield match
            position = match.end() if match.end() > start else match.end() + 1
        found = place.search(text, position)
