"""A heading's printed section number (`2.`, `2.3.1`, `II.`, `A.`, `C.1`, `(b)`): one grammar, one
parse, and the record it gives.

Every stage that reads a heading's number parses it here. Where a use reads fewer numbers than
the grammar (a PDF's parts of at most two digits, a cross-reference's arabic numbers only), it says
so in code over the record, beside the use, with its reason; the PDF's reading is here because
both the PDF passes and a heading's key (`heading_key.py`) use it.

The grammar is code, not a rules pattern: the stages read its parts (a PDF heading's level from
its depth, absorb's top-level number, the `4.2` a cross-reference names), which a pattern in a
rules file could not change without the code that reads them. Like `heading_key.py`, this module
imports nothing of the pipeline, so that extract, which runs before normalize, may use it too.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import NamedTuple


class NumberKind(str, Enum):
    arabic = "arabic"
    """`2`, `2.3.1`, `2.`"""
    roman = "roman"
    """`II.`, `iv.`: in one case, closed by a full stop (`I)` is a letter)."""
    letter = "letter"
    """`A.`, `b)`, or sub-numbered `C.1`: a lone letter is a number only so closed or followed."""
    parenthesized = "parenthesized"
    """`(1)`, `(b)`, `(iv)`: a number, a roman number or a letter in parentheses."""


_GRAMMAR = re.compile(
    r"(?P<lead>[\s*_]*)"
    r"(?:(?P<arabic>\d+(?:\.\d+)*)"
    r"|(?P<roman>[IVXLC]+|[ivxlc]+)(?=\.)"
    r"|(?P<letter>[A-Za-z])(?:(?P<sub>(?:\.\d+)+)|(?=[.)]))"
    r"|\((?P<parenthesized>\d+|[IVXLC]+|[ivxlc]+|[A-Za-z])\))"
    r"(?P<closer>[.)]?)(?=[\s*_]|\Z)"
    r"(?P<emphasis>[*_]*)"
    r"(?:(?P<space>\s+)(?:(?P<separator>[|·•—–])\s+(?=\S))?)?"
)
"""A section number at the start of a heading: whitespace and Markdown emphasis markers before it;
the number; a `.` or `)` closing it; then whitespace, an emphasis marker or the end of the heading
(so `2020s` and `2.Methods` are not numbered); emphasis markers closing it (`**2.**`); the space
before the title, and a separator glyph set between number and title (`2.1 | Plant material`,
`3 — Results`), which belongs to the numbering, not to the title."""


class SectionNumber(NamedTuple):
    """A heading's number as written, and where around it the heading's other parts lie."""

    kind: NumberKind
    parts: tuple[str, ...]
    """The number's parts as written: `('2', '3', '1')`, `('II',)`, `('C', '1')`, `('b',)` of `(b)`."""
    lead: str
    """The whitespace and emphasis markers before the number; the number starts at `len(lead)`."""
    end: int
    """Where the number ends, its closer included (a character offset into the heading)."""
    closer: str
    """The `.` or `)` closing the number, or ''."""
    emphasis: str
    """Emphasis markers right after the number (the `**` of `**2.**`), or ''."""
    space: str
    """The whitespace between the number and the title, or ''."""
    separator: str
    """A glyph set between number and title (`|`, `·`, `•`, `—`, `–`), or ''."""
    title_start: int
    """Where the title starts: after the spaces, and the separator glyph and its spaces."""

    @property
    def depth(self) -> int:
        """How many parts the number has: 1 for `2`, `II.` and `A.`, 3 for `2.3.1`, 2 for `C.1`."""
        return len(self.parts)

    @property
    def label(self) -> str:
        """The number without its closer: `2.3.1`, `II`, `C.1`, `b` of `(b)`."""
        return ".".join(self.parts)

    def longest_digits(self) -> int:
        """The most digits in any one part of the number (0 where none is a number)."""
        return max((len(part) for part in self.parts if part[:1].isdecimal()), default=0)


def section_number(text: str) -> SectionNumber | None:
    """The section number `text` opens with, or None."""
    match = _GRAMMAR.match(text)
    if match is None:
        return None
    if match["arabic"] is not None:
        kind, parts = NumberKind.arabic, tuple(match["arabic"].split("."))
    elif match["roman"] is not None:
        kind, parts = NumberKind.roman, (match["roman"],)
    elif match["letter"] is not None:
        sub = tuple(match["sub"][1:].split(".")) if match["sub"] else ()
        kind, parts = NumberKind.letter, (match["letter"], *sub)
    else:
        kind, parts = NumberKind.parenthesized, (match["parenthesized"],)
    return SectionNumber(
        kind=kind,
        parts=parts,
        lead=match["lead"],
        end=match.end("closer"),
        closer=match["closer"],
        emphasis=match["emphasis"],
        space=match["space"] or "",
        separator=match["separator"] or "",
        title_start=match.end(),
    )


_PDF_ROMAN = frozenset("IVX")
_PDF_ROMAN_MAX_LETTERS = 5
_PDF_PARENTHESIZED_ROMAN = frozenset("ivx")
_PDF_PARENTHESIZED_ROMAN_MAX_LETTERS = 4
_PDF_MAX_DIGITS = 2


def pdf_section_number(text: str) -> SectionNumber | None:
    """The section number a PDF heading opens with, as a PDF prints one, or None.

    Narrower than the grammar, for a PDF's lines are not Markdown and many open with a number
    that numbers no section: the number opens the line, with no emphasis markers, and a space
    and a title follow it; arabic parts have at most two digits (`2020 results`, `100 mg` are not
    sections); a letter is a capital (`a.` opens a list item), and roman sections are capitals of
    I, V and X, up to five, so a lone `C.` or `L.` is a letter, as appendices are numbered. In
    parentheses: a number of one or two digits, a small letter, or a small roman number of i, v
    and x up to four letters (`(1)`, `(b)`, `(iv)`). `I)` is a letter, as in the grammar.
    """
    number = section_number(text)
    if number is None or number.lead or number.emphasis or not number.space or number.title_start == len(text):
        return None
    label = number.label
    if number.kind is NumberKind.arabic:
        return number if number.closer != ")" and number.longest_digits() <= _PDF_MAX_DIGITS else None
    if number.kind is NumberKind.roman:
        if label.isupper() and set(label) <= _PDF_ROMAN and len(label) <= _PDF_ROMAN_MAX_LETTERS:
            return number
        return number._replace(kind=NumberKind.letter) if len(label) == 1 and label.isupper() else None
    if number.kind is NumberKind.letter:
        if not number.parts[0].isupper():
            return None
        # `C.1` may close with a full stop (`C.1.`), not a parenthesis; a lone letter is closed by either.
        sub_numbered = number.depth > 1
        return number if not sub_numbered or number.closer != ")" and number.longest_digits() <= _PDF_MAX_DIGITS else None
    if number.closer:
        return None
    if label[:1].isdecimal():
        return number if len(label) <= _PDF_MAX_DIGITS else None
    small_roman = set(label) <= _PDF_PARENTHESIZED_ROMAN and len(label) <= _PDF_PARENTHESIZED_ROMAN_MAX_LETTERS
    return number if len(label) == 1 and label.islower() or small_roman else None
