"""What a rules pattern's matches start with, or must hold, worked out from the pattern itself
(the parse `re` compiles it from), for `matches.py` to find the places worth trying: the fixed
characters a match starts with (its heads), those every match holds somewhere (its required
heads), and the pattern without the assertions that only forbid a match. Each is worked out once
per pattern source and flags.
"""

from __future__ import annotations

import re
import re._parser as sre_parse  # the parser `re` compiles with: what a pattern starts with
from collections.abc import Callable
from functools import lru_cache, wraps
from typing import NamedTuple, TypeVar

# A `\b`, or a look-behind with no group inside, outside a character class; escaped
# backslashes and classes are matched so as to be kept.
_ASSERTION = re.compile(r"\\\\|\[(?:\\.|[^\]\\])*\]|(?P<assertion>\\b|\(\?<[=!](?:\\.|\[(?:\\.|[^\]\\])*\]|[^()\\\[])*\))")
_ESCAPE = re.compile(r"\\.")
# What a pattern's nesting is read from (`opening_assertions`): escapes and classes, whose
# parentheses are characters, parentheses, and the rest.
_NESTING_TOKEN = re.compile(r"\\.|\[\^?\]?(?:\\.|[^\]\\])*\]|[()]|[^()\\\[]+", re.DOTALL)
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
T = TypeVar("T")


def cached_by_source(function: Callable[[re.Pattern[str]], T]) -> Callable[[re.Pattern[str]], T]:
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


class Head(NamedTuple):
    """A head as it is looked for, and whether two of its matches may overlap (`20\\d\\d` in
    `202020`), so that every start must be looked for one after another."""

    pattern: re.Pattern
    overlaps: bool


class LookedFor(NamedTuple):
    """A pattern's heads, by where they are looked for: in the text's ASCII form, lower-cased
    (`_lowered`), or, for a head with no letter in it (`§`, `@`, `\\d`), in the text as it is,
    where it has no case to fold, and where the ASCII form would put a `?` for a character outside
    ASCII, found at every character outside ASCII (an accent, a dash, a quote)."""

    in_ascii: tuple[Head, ...]
    in_text: tuple[Head, ...]


@cached_by_source
def heads_looked_for(pattern: re.Pattern[str]) -> LookedFor | None:
    """How `pattern`'s heads (`_heads`) are looked for; None where it has none."""
    heads = _heads(pattern)
    return None if heads is None else _looked_for(heads)


@cached_by_source
def heads_after_opening_looked_for(pattern: re.Pattern[str]) -> LookedFor | None:
    """`heads_looked_for`, with each head that is looked for in the text as it is (`\\d`, `§`)
    found only where the assertions the pattern opens with also hold (`opening_assertions`). A
    pattern that starts with `(?<=[^\\W\\d_])\\d` is then tried at the digits after a letter, not
    at every digit: each place found costs a call in Python, each place passed over only `re`'s
    check in C. For a text searched whole (`Matches`) alone: in the stretch of several pieces
    (`Pieces`) a look-behind at a piece's start would see the piece before it, which the
    pattern, tried in the piece, does not."""
    looked_for = heads_looked_for(pattern)
    opening = opening_assertions(pattern)
    if looked_for is None or opening is None or not looked_for.in_text:
        return looked_for
    return looked_for._replace(in_text=tuple(_after_opening(head, opening, pattern.flags) for head in looked_for.in_text))


def opening_assertions(pattern: re.Pattern[str]) -> str | None:
    """The source of the items the pattern opens with that match no character (look-behinds,
    look-aheads, a group of alternatives each only those), or None where it opens with none.
    Looked for as the longest stretch of the source that ends a group opened at its top level
    and parses as such items alone, and as the pattern's own first items (not the first
    alternative of a pattern that has two)."""
    source = pattern.pattern
    try:
        whole = sre_parse.parse(source, pattern.flags).data
    except re.error:
        return None
    opening = None
    depth = 0
    for token in _NESTING_TOKEN.finditer(source):
        depth += {"(": 1, ")": -1}.get(token.group(), 0)
        if token.group() != ")" or depth:
            continue
        try:
            items = sre_parse.parse(source[: token.end()], pattern.flags).data
        except re.error:
            return opening
        if not items:
            continue  # flags set for the whole pattern, `(?m)`
        if not all(map(_matches_no_character, items)) or repr(items) != repr(whole[: len(items)]):
            return opening
        opening = source[: token.end()]
    return opening


def _matches_no_character(item: tuple) -> bool:
    op, argument = item
    if op is sre_parse.BRANCH:
        return all(all(map(_matches_no_character, alternative.data)) for alternative in argument[1])
    if op is sre_parse.SUBPATTERN:
        return all(map(_matches_no_character, argument[3].data))
    return op in _ZERO_WIDTH


def _after_opening(head: Head, opening: str, flags: int) -> Head:
    """The head, found only where `opening` holds at its start: a look-behind after it that steps
    back over it. Where that cannot be compiled (the head's alternatives differ in length, the
    opening sets flags for the whole pattern), the head as it is."""
    written = f"(?-i:{head.pattern.pattern})" if flags & re.IGNORECASE else f"(?:{head.pattern.pattern})"
    try:
        return Head(re.compile(f"{written}(?<=(?:{opening}){written})", flags), head.overlaps)
    except re.error:
        return head


@cached_by_source
def required_heads_looked_for(pattern: re.Pattern[str]) -> LookedFor | None:
    """How `pattern`'s required heads (`required_heads`) are looked for; None where it has none."""
    heads = required_heads(pattern)
    return None if heads is None else _looked_for(heads)


def _looked_for(heads: tuple[re.Pattern[str], ...]) -> LookedFor:
    cased = tuple(head for head in heads if _has_letter(head))
    uncased = tuple(head for head in heads if not _has_letter(head))
    return LookedFor(
        tuple(Head(compiled, _may_overlap(head, in_ascii=True)) for head, compiled in zip(cased, _in_ascii(cased))),
        tuple(Head(head, _may_overlap(head, in_ascii=False)) for head in uncased),
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


@cached_by_source
def assertion_free(pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    """The pattern with those assertions taken out, or None where it has none."""
    stripped = _ASSERTION.sub(lambda token: "" if token["assertion"] else token.group(), pattern.pattern)
    # Inside a negative look-around or a conditional, a removed assertion would forbid more, not
    # less: such a pattern is searched as it is.
    if stripped == pattern.pattern or "(?!" in pattern.pattern or "(?<!" in stripped or "(?(" in pattern.pattern:
        return None
    return re.compile(stripped, pattern.flags)


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
