"""A heading's key: the form a heading is compared in, by the rules that type it and by a PDF's
outline and contents matched to the text.

It imports nothing of the pipeline but the numbering's grammar, so that extract, which runs before
normalize, may use it too.
"""

from __future__ import annotations

import re

from pipeline.text.numbering import NumberKind, pdf_section_number, section_number

# A tag holds no `<`: with `<[^>]*>` every `<` of a long run of them scanned the rest of the heading.
_HEADING_MARKUP = re.compile(r"[*_`]+|<[^<>]*>")
# Stripped as characters, not by a pattern: `[\s:.;,—–-]+$`, tried at every start of a long run
# of them not at the end (a heading of 160,000 dots and a word), took minutes.
_TRAILING_PUNCTUATION = " :.;,—–-"
# Typeset quotes as typed ones, so that a rule's `authors'` also matches the `Authors’` of a PDF.
_TYPESET_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})
_NOT_LETTER_OR_DIGIT = re.compile(r"[^0-9a-z]+")


def heading_key(heading: str, *, keep_numbering: bool = False, letters_and_digits: bool = False) -> str:
    """A heading as it is compared; `keep_numbering` keeps the section number at its start.

    By default, the key the rules' anchors and broad patterns match: markup aside, lower case,
    typeset quotes typed, single spaces, no closing punctuation, and the numbering taken off
    once the rest is done (`**2.1 Authors’ Data:**` → `authors' data`).

    With `letters_and_digits`, the key a PDF's outline or contents entry is found in the text by,
    however either spaces, punctuates or hyphenates it: the numbering, as a PDF prints it, taken
    off the text as written (spaces collapsed; a PDF's numbering tells `II.` from `ii.` by case),
    then only the letters a-z and digits of it, casefolded (`2.1 Authors’ Data` → `authorsdata`).
    """
    if letters_and_digits:
        text = " ".join(heading.split())
        number = None if keep_numbering else pdf_section_number(text)
        text = text[number.title_start :] if number is not None else text
        return _NOT_LETTER_OR_DIGIT.sub("", text.casefold())
    key = " ".join(_HEADING_MARKUP.sub("", heading).lower().translate(_TYPESET_QUOTES).split())
    key = key if keep_numbering else _without_numbering(key)
    return key.rstrip(_TRAILING_PUNCTUATION).strip()


def _without_numbering(key: str) -> str:
    """A key without the section number it opens with and the space after it.

    Narrower than the grammar, as the key has always been read: a number of any digits
    (`2020 results` is `results`), a roman number, or a lone letter closed by `.` or `)`; not a
    letter's sub-number (`c.1`) nor a number in parentheses; and a separator glyph after the
    number stays in the key (`| methods`), which an anchor matching the whole key then misses.
    """
    number = section_number(key)
    if number is None or number.lead or number.emphasis or not number.space:
        return key
    if number.kind is NumberKind.arabic:
        taken = number.closer != ")"
    else:
        taken = number.kind is NumberKind.roman or number.kind is NumberKind.letter and number.depth == 1
    return key[number.end + len(number.space) :] if taken else key
