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
import re._parser as sre_parse  # the parser `re` compiles with: what a pattern starts with
from collections.abc import Callable, Iterator
from functools import cached_property, lru_cache, wraps
from typing import NamedTuple, TypeVar

# A `\b`, or a look-behind with no group inside, outside a character class; escaped
# backslashes and classes are matched so as to be kept.
_ASSERTION = re.compile(r"\\\\|\[(?:\\.|[^\]\\])*\]|(?P<assertion>\\b|\(\?<[=!](?:\\.|\[(?:\\.|[^\]\\])*\]|[^()\\\[])*\))")
_ESCAPE = re.compile(r"\\.")
# What a head is written with (`_starts`): escapes (`\d`, `\.`), characters, and `|`.
_HEAD_TOKEN = re.compile(r"\\.|.", re.DOTALL)
# A head's classes for a text's ASCII form: what `re` matches of them in ASCII (`\s` takes the
# separators \x1c-\x1f in a text, not in bytes), and the `?` that stands for the rest.
_CLASSES_IN_ASCII = {r"\d": r"[0-9?]", r"\s": r"[\s\x1c-\x1f?]"}
_MAX_HEADS = 32
"""Heads kept for one pattern; past them the heads found so far are long enough."""
_ZERO_WIDTH = (sre_parse.AT, sre_parse.ASSERT, sre_parse.ASSERT_NOT)
_REPEATS = (sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT, sre_parse.POSSESSIVE_REPEAT)
# Classes of characters that have no case, so that lower-casing the text keeps them as they are.
_UNCASED_CLASSES = {sre_parse.CATEGORY_DIGIT: r"\d", sre_parse.CATEGORY_SPACE: r"\s"}
# The characters outside ASCII that a case-blind pattern takes for an ASCII letter (`İ` and
# `ı` for `i`, `ſ` for `s`, the Kelvin sign for `k`) though lower-casing does not turn them into
# that letter: four, each found by a fast scan (tests/test_matches.py checks there are no others).
FOLDS_TO_ASCII = "\u0130\u0131\u017f\u212a"
T = TypeVar("T")


def _cached_by_source(function: Callable[[re.Pattern[str]], T]) -> Callable[[re.Pattern[str]], T]:
    """`function` of a pattern, worked out once for each source and flags: `lru_cache` keyed by
    the compiled pattern would hash all its compiled code at every call, and these are asked
    for every chunk of every paper."""

    @lru_cache(maxsize=256)
    def of_source(source: str, flags: int) -> T:
        return function(re.compile(source, flags))

    @wraps(function)
    def cached(pattern: re.Pattern[str]) -> T:
        return of_source(pattern.pattern, pattern.flags)

    return cached


def _lowers_in_place(character: str) -> bool:
    """Whether the lower-cased text has this character (or its lower case) where the text has it."""
    return character.isascii() or character.lower() == character == character.upper()


def _starts(items: list) -> tuple[set[str], bool]:
    """The heads (regular expressions for the lower-cased text) one of which starts every match
    of the parsed `items`, and whether they cover all of `items`."""
    heads = {""}
    for op, argument in items:
        if op in _ZERO_WIDTH:
            continue  # it only ever forbids a match
        if op is sre_parse.LITERAL:
            if not _lowers_in_place(chr(argument)):
                return heads, False
            parts, complete = {re.escape(chr(argument).lower())}, True
        elif op is sre_parse.IN and len(argument) == 1 and argument[0][0] is sre_parse.CATEGORY and argument[0][1] in _UNCASED_CLASSES:
            parts, complete = {_UNCASED_CLASSES[argument[0][1]]}, True
        elif op is sre_parse.IN and all(item is sre_parse.LITERAL and _lowers_in_place(chr(code)) for item, code in argument):
            parts, complete = {re.escape(chr(code).lower()) for _, code in argument}, True  # `[89]`
        elif op is sre_parse.SUBPATTERN:
            parts, complete = _starts(argument[3].data)
        elif op is sre_parse.BRANCH:
            parts, complete = set(), True
            for alternative in argument[1]:
                alternative_heads, alternative_complete = _starts(alternative.data)
                parts |= alternative_heads
                complete = complete and alternative_complete
        elif op in _REPEATS and argument[0] >= 1:
            parts, _ = _starts(argument[2].data)
            complete = False  # what follows the first repetition may be another
        else:
            return heads, False
        if len(heads) * len(parts) > _MAX_HEADS:
            return heads, False
        heads = {head + part for head in heads for part in parts}
        if not complete:
            return heads, False
    return heads, True


def _heads(pattern: re.Pattern[str]) -> tuple[re.Pattern[str], ...] | None:
    """The heads of `pattern` as case-sensitive patterns for the lower-cased text, one for each
    first character (`re` scans fast only for a pattern with one), or None where some match
    may start with no fixed character."""
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    except re.error:
        return None
    heads, _ = _starts(parsed.data)
    return None if "" in heads else _by_first_character(heads)


def required_heads(pattern: re.Pattern[str]) -> tuple[re.Pattern[str], ...] | None:
    """Heads (for the lower-cased text, as `_heads` gives them) one of which every match of
    `pattern` holds, though maybe not at its start: the heads of the stretch of the pattern,
    from one of its parts on, that have the most fixed characters (`18\\d\\d`, `19\\d\\d`,
    `20\\d\\d` for a citation that ends on a year). Every part is one every match goes
    through, its groups opened up, so a text with none of these heads has no match. None where
    no stretch has heads."""
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    except re.error:
        return None
    parts = _opened(parsed.data)
    best: set[str] = set()
    for first in range(len(parts)):
        heads, _ = _starts(parts[first:])
        if "" not in heads and _fixed_characters(heads) > _fixed_characters(best):
            best = heads
    return _by_first_character(best) if best else None


def _opened(items: list) -> list:
    """The parsed items with every group spliced into its place: a match goes through the items
    of a group as it would through the group."""
    opened = []
    for op, argument in items:
        if op is sre_parse.SUBPATTERN:
            opened.extend(_opened(argument[3].data))
        else:
            opened.append((op, argument))
    return opened


def _fixed_characters(heads: set[str]) -> int:
    """How many characters the shortest of the heads fixes (`\\d` is one): 0 for no heads."""
    return min((len(_ESCAPE.sub("x", head)) for head in heads), default=0)


def _by_first_character(heads: set[str]) -> tuple[re.Pattern[str], ...]:
    """The heads as patterns, one for each first character (`re` scans fast only for a pattern with one)."""
    # A head that starts with another is found where that one is (`section` where `sec` is).
    shortest = {head for head in heads if not any(other != head and head.startswith(other) for other in heads)}
    by_first: dict[str, list[str]] = {}
    for head in sorted(shortest):
        by_first.setdefault(head[:2] if head.startswith("\\") else head[0], []).append(head)
    return tuple(re.compile("|".join(group)) for group in by_first.values())


class _Head(NamedTuple):
    """A head as it is looked for, and whether two of its matches may overlap (`20\\d\\d` in
    `202020`), so that every start must be looked for one after another."""

    pattern: re.Pattern
    overlaps: bool


class _LookedFor(NamedTuple):
    """A pattern's heads, by where they are looked for: in the text's ASCII form, lower-cased
    (`_lowered`), or, for a head with no letter in it (`§`, `@`, `\\d`), in the text as it is,
    where it has no case to fold, and where the ASCII form would put a `?` for a character outside
    ASCII, found at every character outside ASCII (an accent, a dash, a quote)."""

    in_ascii: tuple[_Head, ...]
    in_text: tuple[_Head, ...]


@_cached_by_source
def _heads_looked_for(pattern: re.Pattern[str]) -> _LookedFor | None:
    """How `pattern`'s heads (`_heads`) are looked for; None where it has none."""
    heads = _heads(pattern)
    return None if heads is None else _looked_for(heads)


@_cached_by_source
def _required_heads_looked_for(pattern: re.Pattern[str]) -> _LookedFor | None:
    """How `pattern`'s required heads (`required_heads`) are looked for; None where it has none."""
    heads = required_heads(pattern)
    return None if heads is None else _looked_for(heads)


def _looked_for(heads: tuple[re.Pattern[str], ...]) -> _LookedFor:
    cased = tuple(head for head in heads if _has_letter(head))
    uncased = tuple(head for head in heads if not _has_letter(head))
    return _LookedFor(
        tuple(_Head(compiled, _may_overlap(head, in_ascii=True)) for head, compiled in zip(cased, _in_ascii(cased))),
        tuple(_Head(head, _may_overlap(head, in_ascii=False)) for head in uncased),
    )


def _has_letter(head: re.Pattern[str]) -> bool:
    """Whether the head has a letter in it (an escape such as `\\d` has none)."""
    return any(character.isalpha() for character in _ESCAPE.sub("", head.pattern))


# What a head's class matches in the text's ASCII form (`_CLASSES_IN_ASCII`), as characters.
_ASCII_CLASS_CHARACTERS = {r"\d": frozenset("0123456789?"), r"\s": frozenset(" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f?")}


def _may_overlap(head: re.Pattern[str], in_ascii: bool) -> bool:
    """Whether a match of the head (its alternatives, each a row of characters and `\\d`, `\\s`, as
    `_starts` writes them) may start inside another: where some alternative's end could be
    another's start. Two different classes in the text are taken to overlap: a guess on the safe side."""
    alternatives: list[list[frozenset[str] | str]] = [[]]
    for token in _HEAD_TOKEN.findall(head.pattern):
        if token == "|":
            alternatives.append([])
        elif token in _ASCII_CLASS_CHARACTERS:
            alternatives[-1].append(_ASCII_CLASS_CHARACTERS[token] if in_ascii else token)
        else:
            character = token[-1]
            alternatives[-1].append(frozenset(character if character.isascii() or not in_ascii else "?"))
    return any(
        all(_may_be_one(first[shift + index], second[index]) for index in range(min(len(first) - shift, len(second))))
        for first in alternatives
        for second in alternatives
        for shift in range(1, len(first))
    )


def _may_be_one(first: frozenset[str] | str, second: frozenset[str] | str) -> bool:
    """Whether one character may match both: each is a set of characters, or a class (`\\d`)."""
    if isinstance(first, str) and isinstance(second, str):
        return True
    if isinstance(first, str) or isinstance(second, str):
        characters, written = (second, first) if isinstance(first, str) else (first, second)
        return any(re.fullmatch(written, character) for character in characters)
    return bool(first & second)


@_cached_by_source
def _candidates(pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    """The pattern with those assertions taken out, or None where it has none."""
    stripped = _ASSERTION.sub(lambda token: "" if token["assertion"] else token.group(), pattern.pattern)
    # Inside a negative look-around or a conditional, a removed assertion would forbid more, not
    # less: such a pattern is searched as it is.
    if stripped == pattern.pattern or "(?!" in pattern.pattern or "(?<!" in stripped or "(?(" in pattern.pattern:
        return None
    return re.compile(stripped, pattern.flags)


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
        heads = _required_heads_looked_for(pattern)
        return None if heads is None else self._places_of(heads)

    def finditer(self, pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
        """The non-overlapping matches of `pattern` in the text, left to right: `pattern.finditer(text)`."""
        heads = _heads_looked_for(pattern)
        places = None if heads is None else self._places_of(heads)
        if places is not None:
            return (match for _, match in _tried_in_pieces(pattern, [(self.text, 0)], [0], places))
        return finditer(pattern, self.text)

    def _places_of(self, heads: _LookedFor) -> list[int] | None:
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
        heads = _heads_looked_for(pattern)
        places = None if heads is None or not self.sliced else self._places_of(heads)
        if places is None:
            for index, searched in enumerate(self._alone):
                for match in searched.finditer(pattern):
                    yield index, match
            return
        yield from _tried_in_pieces(pattern, self.pieces, self.starts, places)

    def _places_of(self, heads: _LookedFor) -> list[int] | None:
        """Where the stretch shows one of the heads, in the text's offsets, in order; None where it
        cannot be told."""
        return _places(heads, self.stretch, lambda: self.lowered, self.start)


def _places(heads: _LookedFor, text: str, lowered: Callable[[], bytes | None], offset: int = 0) -> list[int] | None:
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


def _in_ascii(heads: tuple[re.Pattern[str], ...]) -> tuple[re.Pattern[bytes], ...]:
    """The heads as patterns for a text's ASCII form (`_lowered`), found wherever the heads are
    found in the text lower-cased, and maybe elsewhere (the pattern decides there): a character
    outside ASCII that a head holds (`§`), or that a class of it may match (`\\d`, `\\s`), is
    also matched by the `?` the ASCII form has in its place."""
    return tuple(re.compile(_HEAD_TOKEN.sub(_token_in_ascii, head.pattern).encode("ascii")) for head in heads)


def _token_in_ascii(token: re.Match[str]) -> str:
    written = token.group()
    if written in _CLASSES_IN_ASCII:
        return _CLASSES_IN_ASCII[written]
    return written if written.isascii() else r"\?"


def _starts_of(heads: tuple[_Head, ...], searched: str | bytes, offset: int = 0) -> list[int]:
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
    candidates = _candidates(pattern)
    if candidates is None:
        return pattern.finditer(text)
    return _tried_at(pattern, text, candidates)


def search(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first match of `pattern` in `text`, `pattern.search(text)`, tried where its
    assertion-free form matches (`finditer`), without the bookkeeping for the matches after it."""
    candidates = _candidates(pattern)
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
