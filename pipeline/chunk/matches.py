"""Every match of a rules pattern in a text, as `Pattern.finditer` gives them, found faster.

Python's `re` skips ahead to where a match can start only when the pattern begins with a
literal or a set of characters, and a case-blind letter is neither: so it tries the case-blind
link patterns of the rules at every position of a chunk, one pattern after another. Two ways
find the places worth trying instead, and the pattern itself decides at each:

- **The head.** Most patterns start with a few fixed characters (`tab`, `fig`, `supp`, `§`, `@`,
  then maybe digits or spaces). Every match starts where the text, in lower case, shows one of
  these heads; searched case-sensitively in the lower-cased text, a head is found by `re`'s fast
  literal scan. `Matches` lower-cases a text once, for all the patterns it is searched for.
- **The assertion-free form.** The same pattern without its word boundaries and simple
  look-behinds matches wherever the pattern does (such an assertion only ever forbids a match),
  and often begins with a set of characters.
"""

from __future__ import annotations

import re
import re._parser as sre_parse  # the parser `re` compiles with: what a pattern starts with
from collections.abc import Iterator
from functools import lru_cache

# A `\b`, or a look-behind with no group inside, outside a character class; escaped
# backslashes and classes are matched so as to be kept.
_ASSERTION = re.compile(r"\\\\|\[(?:\\.|[^\]\\])*\]|(?P<assertion>\\b|\(\?<[=!](?:\\.|\[(?:\\.|[^\]\\])*\]|[^()\\\[])*\))")
_MAX_HEADS = 32
"""Heads kept for one pattern; past them the heads found so far are long enough."""
_ZERO_WIDTH = (sre_parse.AT, sre_parse.ASSERT, sre_parse.ASSERT_NOT)
_REPEATS = (sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT, sre_parse.POSSESSIVE_REPEAT)
# Classes of characters that have no case, so that lower-casing the text keeps them as they are.
_UNCASED_CLASSES = {sre_parse.CATEGORY_DIGIT: r"\d", sre_parse.CATEGORY_SPACE: r"\s"}
# A character outside ASCII that a case-blind pattern takes for an ASCII letter (`ſ` for `s`,
# the Kelvin sign for `k`) though lower-casing does not turn it into that letter.
_FOLDS_TO_ASCII = re.compile(r"[^\x00-\x7f](?<=(?i:[a-z]))")


def _starts(items: list) -> tuple[set[str], bool]:
    """The heads (regular expressions for the lower-cased text) one of which starts every match
    of the parsed `items`, and whether they cover all of `items`."""
    heads = {""}
    for op, argument in items:
        if op in _ZERO_WIDTH:
            continue  # it only ever forbids a match
        if op is sre_parse.LITERAL:
            character = chr(argument)
            if not (character.isascii() or character.lower() == character == character.upper()):
                return heads, False
            parts, complete = {re.escape(character.lower())}, True
        elif op is sre_parse.IN and len(argument) == 1 and argument[0][0] is sre_parse.CATEGORY and argument[0][1] in _UNCASED_CLASSES:
            parts, complete = {_UNCASED_CLASSES[argument[0][1]]}, True
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


@lru_cache(maxsize=256)
def _heads(pattern: re.Pattern[str]) -> tuple[re.Pattern[str], ...] | None:
    """The heads of `pattern` as case-sensitive patterns for the lower-cased text, one for each
    first character (`re` scans fast only for a pattern with one), or None where some match
    may start with no fixed character."""
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    except re.error:
        return None
    heads, _ = _starts(parsed.data)
    if "" in heads:
        return None
    # A head that starts with another is found where that one is (`section` where `sec` is).
    shortest = {head for head in heads if not any(other != head and head.startswith(other) for other in heads)}
    by_first: dict[str, list[str]] = {}
    for head in sorted(shortest):
        by_first.setdefault(head[:2] if head.startswith("\\") else head[0], []).append(head)
    return tuple(re.compile("|".join(group)) for group in by_first.values())


@lru_cache(maxsize=256)
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
        lowered = text.lower()
        # Lower-casing may move a character (`İ` becomes two) or miss what a case-blind pattern
        # matches (`ſ`): such a text is searched without heads.
        moved = len(lowered) != len(text) or (not text.isascii() and _FOLDS_TO_ASCII.search(text) is not None)
        self.lowered = None if moved else lowered

    def finditer(self, pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
        """The non-overlapping matches of `pattern` in the text, left to right: `pattern.finditer(text)`."""
        heads = _heads(pattern)
        if heads is not None and self.lowered is not None:
            return _tried_at(pattern, self.text, heads, self.lowered)
        return finditer(pattern, self.text)


def finditer(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """The non-overlapping matches of `pattern` in `text`, left to right: `pattern.finditer(text)`,
    tried where its assertion-free form matches (for one pattern, lower-casing the text for its
    head would cost more than it saves)."""
    candidates = _candidates(pattern)
    if candidates is None:
        return pattern.finditer(text)
    return _tried_at(pattern, text, (candidates,), text)


def _tried_at(pattern: re.Pattern[str], text: str, places: tuple[re.Pattern[str], ...], searched: str) -> Iterator[re.Match[str]]:
    """`pattern` tried wherever one of `places` matches in `searched` (the text, or a copy of it
    with the same offsets); no match of `pattern` starts anywhere else."""
    position = 0
    # The next place of each, at or after `position`; searched again only once passed.
    upcoming = [place.search(searched) for place in places]
    while starts := [found.start() for found in upcoming if found is not None]:
        start = min(starts)
        match = pattern.match(text, start)
        if match is None:
            position = start + 1
        else:
            yield match
            position = match.end() if match.end() > match.start() else match.end() + 1
        upcoming = [
            place.search(searched, position) if found is not None and found.start() < position else found
            for place, found in zip(places, upcoming)
        ]
