"""The faster `finditer` of the link patterns finds exactly what `Pattern.finditer` finds."""

from __future__ import annotations

import re

import pytest

from pipeline.chunk.matches import finditer

TEXT = "See Table 2 and tables 3-4; Atable 5 is no table. Cf. @C03, e@C04, [see S2-P1] and §4."


@pytest.mark.parametrize(
    "pattern",
    [
        r"\b(?:tables?|tab\.)\s*(?P<numbers>\d+(?:-\d+)?)\b",  # a word boundary first
        r"(?<![\w@])@(?P<id>[A-Z]{1,3}\d{1,4})\b|\[see\s+(?P<p>S\d+(?:-P\d+)?)\]",  # a look-behind first
        r"(?:\bsections?|§)\s*\d+",  # a boundary inside an alternative
        r"\b(?!tables)\w+le\b",  # a boundary beside a negative look-ahead: searched as it is
        r"[\b]|\d",  # a backspace in a class is no boundary
    ],
)
def test_the_same_matches_as_finditer(pattern):
    compiled = re.compile(pattern, re.IGNORECASE)
    assert [m.span() for m in finditer(compiled, TEXT)] == [m.span() for m in compiled.finditer(TEXT)]


def test_a_word_boundary_still_forbids_a_match_inside_a_word():
    compiled = re.compile(r"\btables?\s*\d+", re.IGNORECASE)
    assert [m.group() for m in finditer(compiled, TEXT)] == ["Table 2", "tables 3"]
