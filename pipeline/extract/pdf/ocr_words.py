"""Misreadings of OCR's recognizer that a rule can mend in any paper, without a word list.

The recognizer reads a capital `I` as `l` where nothing in the line's shape tells them apart: inside
an acronym (`AIIMS` read `AllMS`, `BMI` read `BMl`), and a `1` as `l` among digits (`e112` read
`el12`); and it drops the space after a comma before a year or a page (`656, 1999` read
`656,1999`), after a plural's possessive (`authors'contributions`) and after `©`. Each rule asks what the characters around the misreading are, never which word it is.
"""

from __future__ import annotations

import re

_ACRONYM = re.compile(r"(?<![^\W\d_])[A-Zl]{2,}(?![^\W\d_])")
"""A word of capitals and `l`s alone, digits and other letters around it ending it: an acronym
where at least two of its letters are capitals."""
_ACRONYM_CAPITALS = 2
_CHLORIDE = "Cl"
"""A word of capitals ending in `Cl` is a chloride's formula (`HCl`, `KCl`), whose `l` is printed so."""
_DIGIT_L = re.compile(r"(?<![^\W_])([a-z]?)([\dl]*\d[\dl]*)(?!\w)")
"""A number (after at most one lower-case letter, `e112`) whose `l`s stand among its digits."""
_L_BEFORE_DIGIT = re.compile(r"l(?=\d)")
_YEAR_AFTER_COMMA = re.compile(r"(?<=\d),(?=\d{4}(?!\d))")
"""A comma between digits with four digits after it is a list's comma before a year or a page, not
a thousands separator (three digits a group): the recognizer drops the space after it."""
_PLURAL_POSSESSIVE = re.compile(r"(?<=[^\W\d_]s)'(?=[^\W\d_])")
"""An apostrophe after a word's closing `s` with a letter straight after it ends a plural's
possessive (`authors' contributions`): no English word holds `s'` inside it, so the recognizer
dropped the space."""
_COPYRIGHT = re.compile(r"©(?=[^\W\d_])")
"""A copyright sign is followed by a space before its holder (`© The Author(s)`)."""


def mend_misreadings(text: str) -> str:
    """`text` of one OCR'd line with the recognizer's known misreadings mended."""
    text = _ACRONYM.sub(_acronym, text)
    text = _DIGIT_L.sub(lambda number: number.group(1) + _L_BEFORE_DIGIT.sub("1", number.group(2)), text)
    text = _YEAR_AFTER_COMMA.sub(", ", text)
    text = _PLURAL_POSSESSIVE.sub("' ", text)
    return _COPYRIGHT.sub("© ", text)


def _acronym(word: re.Match[str]) -> str:
    found = word.group()
    if "l" not in found or sum(letter.isupper() for letter in found) < _ACRONYM_CAPITALS or found.endswith(_CHLORIDE):
        return found
    return found.replace("l", "I")
