"""What a list item's marker is, for every stage alike: the PDF reader makes a list of lines that
open with one, normalize splits a list between its items at them, and the bibliography stage reads
an entry behind one. A PDF prints bullets in many glyphs (a symbol font's `·` or private-use
`\uf0b7`, squares, circles, dashes), Markdown in `-`, `*` or `+`: a stage that knew fewer of them
than the reader would keep a list of `▪ Smith J. …` entries as one item and read no entry in it."""

from __future__ import annotations

import re

PRINTED_BULLETS = "•◦▪▫‣∙·●○■□–—-\uf0b7\uf0a7\u2043"
"""The glyphs a PDF prints before a list item (a dash among them only with a space after it)."""
SOLID_BULLETS = "•◦▪‣●■\uf0b7\uf0a7"
"""Those that mark an item even set tight against its first word (`•Item`)."""
BULLET_CLASS = "[" + re.escape(PRINTED_BULLETS + "*+") + "]"
"""A regular expression's character class of every bullet, Markdown's `*` and `+` with the printed ones."""
