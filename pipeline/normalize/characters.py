"""The characters a text is cleaned to: Unicode NFC, ligatures as their letters, odd spaces and
control characters as spaces, invisible characters dropped; and a converter's own anchors taken
out of the text."""

from __future__ import annotations

import re
import unicodedata

# Ligatures fold to their letters (NFKC does only this well); other NFKC folds (², µ) would
# change meaning, so they are not applied.
_LIGATURES = {chr(code): unicodedata.normalize("NFKC", chr(code)) for code in range(0xFB00, 0xFB07)}
_SPACES = dict.fromkeys(["\u00a0", "\u2000", "\u2001", "\u2002", "\u2003", "\u2004", "\u2005", "\u2006",
                         "\u2007", "\u2008", "\u2009", "\u200a", "\u202f", "\u205f", "\u3000", "\t"], " ")
# Control characters carry no text: PDF fonts emit them for glyphs such as TeX's bullet
# (U+000F) or a math symbol between two letters, so they become a space, not nothing.
_CONTROLS = dict.fromkeys([chr(code) for code in [*range(0x20), *range(0x7F, 0xA0)] if chr(code) not in "\n\t"], " ")
_INVISIBLE = dict.fromkeys(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"], "")
_CHARACTER_MAP = {**_LIGATURES, **_SPACES, **_CONTROLS, **_INVISIBLE}
_MAPPED_CHARACTER = re.compile("[" + re.escape("".join(_CHARACTER_MAP)) + "]")
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
SOFT_HYPHEN = "\u00ad"
_LINE_END_SOFT_HYPHEN = re.compile(r"\u00ad[ \t]*(?=\n|$)")

# What a converter adds for its own cross-references holds no text of the paper: Marker's empty
# anchors (`<span id="page-3-0"></span>`, before headings and reference entries) and its links to
# them (`[(Vaswani et al.,](#page-39-1)`). Left in, they showed in heading paths, cluttered the
# chunks a reader or a model gets, and were indexed as the words `span`, `id` and `page`. A link's
# own text stays, and the source file keeps both. Code, front matter and display maths are left as
# written.
_EMPTY_ANCHOR = re.compile(r'<(a|span)\s+(?:id|name)\s*=\s*"[^"]*"\s*>\s*</\1\s*>', re.IGNORECASE)
_LINK_TO_ANCHOR = re.compile(r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(#[^)\s]*\)")


def clean_characters(text: str, line_end_soft_hyphens: bool = False) -> str:
    """`text` in NFC, its ligatures as letters, odd spaces and control characters as spaces, and
    invisible characters (soft hyphens, zero-width spaces) dropped; with `line_end_soft_hyphens`,
    a soft hyphen that ends a line is kept, for the line joining to mend the word it breaks."""
    if text.isascii() and not _ASCII_CONTROL.search(text):
        return text  # plain ASCII is NFC already and holds nothing to map: the common case, kept fast
    if line_end_soft_hyphens and SOFT_HYPHEN in text:
        # A PDF's text layer gives a typesetter's break as a soft hyphen (`perspec\xad` / `tive`):
        # dropped, it left the two halves a space apart.
        return SOFT_HYPHEN.join(clean_characters(part) for part in _LINE_END_SOFT_HYPHEN.split(text))
    text = unicodedata.normalize("NFC", text)
    # A substitution touches only the few characters to map; str.translate visits every one.
    return _MAPPED_CHARACTER.sub(lambda match: _CHARACTER_MAP[match.group()], text)


def drop_converter_anchors(text: str) -> str:
    """`text` without a converter's empty anchors, and with its links to them as their text."""
    if "</" not in text and "](#" not in text:
        return text
    return _LINK_TO_ANCHOR.sub(r"\1", _EMPTY_ANCHOR.sub("", text))
