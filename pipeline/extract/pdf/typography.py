"""The typographic thresholds and tests more than one PDF pass applies: when two sizes are one, when
two boxes share a line, what ends a sentence, and a font's face and family."""

from __future__ import annotations

import re

_FAMILY_END = re.compile(r"[-,+]")
"""What ends a font's family in its name: `Times-Bold`, `Arial,Bold`."""

TERMINAL = ".!?:"
"""Characters that close a sentence or a run-in label: a line that ends in none goes on."""
NEARLY_ALL = 0.95
"""A line is bold or in small caps when this share of its characters is: a bold heading may
hold a regular digit, dash or symbol font glyph."""
SAME_LINE_OVERLAP = 0.5
"""Two boxes are on one line when they overlap by this share of a box's height: sub- and
superscripts and mixed sizes shift boxes, but the next line never overlaps by half."""
SAME_SIZE = 0.05
"""Two font sizes within this share of each other are one size: sizes are rounded to a tenth
of a point, and a line's size is that of most of its characters (or of its initials, where
capitals fake small capitals)."""
TABLE_ROW_MIN_GAPS = 2
"""A row parted by this many wide gaps (three cells) is a table row; a single gap is often a
heading's number set apart from its title."""
HEADING_LINE_FILL = 0.6
"""A heading line that reaches this share of its column's width may wrap onto the next line;
one that stops before it was set short on purpose."""
SEPARATE_GAP = 1.5
"""A margin line this many font sizes from its neighbours stands alone (a journal name at the
left, a page number at the right, a review copy's line number), wider than any word space."""


def half_point(size: float) -> float:
    """`size` rounded to half a point, the grain at which sizes are told apart as styles."""
    return round(size * 2) / 2


def font_face(font: str) -> str:
    """The font's name without the subset prefix (`ABCDEF+`): one face of a family, such as `Times-Bold`."""
    return font.split("+")[-1].casefold()


def font_family(font: str) -> str:
    return _FAMILY_END.split(font.split("+")[-1], maxsplit=1)[0].casefold()
