"""How many words a text counts: the unit of every size the chunker keeps to."""

from __future__ import annotations

import re

# A token of symbols alone (`—`, `=`, `|`) is no word. It is looked for between single spaces:
# with a literal first character the regex skips ahead to each space instead of trying every
# position.
_SYMBOLS_ONLY = re.compile(r" (?:[^\w\s]|_)+(?= )")

LONG_WORD_CHARS = 300
"""A text counts at least one word for every full this many characters (spaces collapsed), so that
the hard maximum in words bounds a chunk's characters too: a 2 MB base64 image or a run of
symbols that holds no word is cut like any text. Longer than any token of the shared corpus
(URLs, formulas and table rules reach 240), whose counts it leaves as they were."""


def count_words(text: str) -> int:
    """Words are whitespace-separated tokens holding at least one letter or digit; a text counts
    at least one word per full `LONG_WORD_CHARS` characters."""
    return count_words_in_line(" ".join(text.split()))


def count_words_in_line(line: str) -> int:
    """`count_words` of a text whose tokens single spaces separate, with none at its ends: a
    paragraph, heading or caption as normalize leaves it."""
    if not line:
        return 0
    return max(line.count(" ") + 1 - len(_SYMBOLS_ONLY.findall(f" {line} ")), len(line) // LONG_WORD_CHARS)
