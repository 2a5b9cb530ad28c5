"""A heading's key: the form a heading is compared in, by the rules that type it and by a PDF's
outline and contents matched to the text.

It imports nothing of the pipeline, so that extract, which runs before normalize, may use it too.
"""

from __future__ import annotations

import re

# A tag holds no `<`: with `<[^>]*>` every `<` of a long run of them scanned the rest of the heading.
_HEADING_MARKUP = re.compile(r"[*_`]+|<[^<>]*>")
# Stripped as characters, not by a pattern: `[\s:.;,—–-]+$`, tried at every start of a long run
# of them not at the end (a heading of 160,000 dots and a word), took minutes.
_TRAILING_PUNCTUATION = " :.;,—–-"
# Typeset quotes as typed ones, so that a rule's `authors'` also matches the `Authors’` of a PDF.
_TYPESET_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})
_NOT_LETTER_OR_DIGIT = re.compile(r"[^0-9a-z]+")


def heading_key(heading: str, numbering: re.Pattern[str] | None, *, letters_and_digits: bool = False) -> str:
    """A heading as it is compared; `numbering` is the pattern of the numbering taken off its
    start (the rules' `[normalize] heading_numbering`), None to keep it.

    By default, the key the rules' anchors and broad patterns match: markup aside, lower case,
    typeset quotes typed, single spaces, no closing punctuation, and the numbering taken off
    once the rest is done (`**2.1 Authors’ Data:**` → `authors' data`).

    With `letters_and_digits`, the key a PDF's outline or contents entry is found in the text by,
    however either spaces, punctuates or hyphenates it: the numbering taken off the text as
    written (spaces collapsed; a PDF's numbering tells `II.` from `ii.` by case), then only the
    letters a-z and digits of it, casefolded (`2.1 Authors’ Data` → `authorsdata`).
    """
    if letters_and_digits:
        text = " ".join(heading.split())
        text = numbering.sub("", text) if numbering is not None else text
        return _NOT_LETTER_OR_DIGIT.sub("", text.casefold())
    key = " ".join(_HEADING_MARKUP.sub("", heading).lower().translate(_TYPESET_QUOTES).split())
    key = numbering.sub("", key) if numbering is not None else key
    return key.rstrip(_TRAILING_PUNCTUATION).strip()
