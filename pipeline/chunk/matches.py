"""Every match of a rules pattern in a text, as `Pattern.finditer` gives them, found faster.

Python's `re` skips ahead to where a match can start only when the pattern begins with a
literal or a set of characters. The link patterns of the rules begin with `\\b` or a
look-behind and are case-blind, so `finditer` tries them at every position of a chunk. The same
pattern without its word boundaries and simple look-behinds begins with a set of characters, and
matches wherever the pattern does (such an assertion only ever forbids a match); so it finds the
places to try, and the pattern itself decides at each.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

# A `\b`, or a look-behind with no group inside, outside a character class; escaped
# backslashes and classes are matched so as to be kept.
_ASSERTION = re.compile(r"\\\\|\[(?:\\.|[^\]\\])*\]|(?P<assertion>\\b|\(\?<[=!](?:\\.|\[(?:\\.|[^\]\\])*\]|[^()\\\[])*\))")


@lru_cache(maxsize=256)
def _candidates(pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    """The pattern with those assertions taken out, or None where it has none."""
    stripped = _ASSERTION.sub(lambda token: "" if token["assertion"] else token.group(), pattern.pattern)
    # Inside a negative look-around or a conditional, a removed assertion would forbid more, not
    # less: such a pattern is searched as it is.
    if stripped == pattern.pattern or "(?!" in pattern.pattern or "(?<!" in stripped or "(?(" in pattern.pattern:
        return None
    return re.compile(stripped, pattern.flags)


def finditer(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """The non-overlapping matches of `pattern` in `text`, left to right: `pattern.finditer(text)`."""
    candidates = _candidates(pattern)
    if candidates is None:
        yield from pattern.finditer(text)
        return
    position = 0
    while (candidate := candidates.search(text, position)) is not None:
        match = pattern.match(text, candidate.start())
        if match is None:
            position = candidate.start() + 1
            continue
        yield match
        position = match.end() if match.end() > match.start() else match.end() + 1
