"""Which PDF pages are read by OCR instead of their text layer, each with its reason.

A page goes to OCR (`[pdf.ocr]` in the rules) where its text layer is missing, or is not text:
most of its characters unmapped (a font without a Unicode map gives U+FFFD, private-use or control
characters), or most of its words not words (a font whose codes map to the wrong letters); or
where it is a scan, one image over the page, with a thin layer (a stamp, a fragment) beside it.
The signs are kept conservative: a text PDF's page with a figure and a caption, or a page of
tables and numbers, keeps its layer.
"""

from __future__ import annotations

import math
import re
from itertools import islice

import pymupdf

from pipeline.extract.pdf.records import PrintedLine
from pipeline.rules.pdf import OcrMode, PdfOcrRules

_UNREADABLE = re.compile(r"[\ufffd\ue000-\uf8ff\x00-\x08\x0b\x0c\x0e-\x1f]")
_NUMBER = r"[+−-]?\d+(?:[.,:/–-]\d+)*%?[a-z]?"
_LETTERS = r"[^\W\d_]+(?:['’.\-‐–][^\W\d_]+)*"
_VOWEL = r"[aeiouyàáâãäåæèéêëìíîïòóôõöøœùúûüýÿāēīōū]"
_BEYOND_LATIN = r"[^\x00-\u024f\u1e00-\u1eff\s]"
"""A letter outside the Latin blocks: a word in another script has no Latin vowel to look for."""
_WORD = re.compile(
    rf"(?<!\S)(?:[^\w\s]*(?:{_NUMBER}|(?=\S*?(?:{_VOWEL}|{_BEYOND_LATIN})){_LETTERS}|[^\W\d_])[^\w\s]*|[^\w\s]{{1,3}})(?!\S)",
    re.IGNORECASE,
)
"""A word between spaces that looks like one, edge punctuation aside: a number; letters (joined by
hyphens or apostrophes) with a vowel, or in another script; a single letter; or up to three marks
alone (`—`, `=`, `...`). One pattern run over a page's text, so that the check costs a text PDF
next to nothing."""


def unreadable_share(text: str) -> float:
    """Share of the text's non-space characters that map to no character: U+FFFD, private-use
    code points and control characters."""
    letters = _visible(text)
    return len(_UNREADABLE.findall(text)) / letters if letters else 0.0


def _visible(text: str) -> int:
    """Characters of the text that are not white space."""
    return len(text) - sum(map(text.count, " \n\t\xa0"))


def looks_like_word(word: str) -> bool:
    """A number, or letters (joined by hyphens or apostrophes) with a vowel where they are Latin:
    `Methods`, `β-cells`, `2.5%`, `연구`, `—`; not `Tbfguz#`, `qzxw` or `$&'()*`."""
    return _WORD.fullmatch(word) is not None


def word_share(text: str) -> float:
    """Share of the text's words (between spaces) that look like words (`looks_like_word`)."""
    words = len(text.split())
    return len(_WORD.findall(text)) / words if words else 1.0


def image_cover(page: pymupdf.Page) -> float:
    """Share of the page the largest image on it covers (0 to 1)."""
    area = abs(page.rect)
    boxes = [pymupdf.Rect(info["bbox"]) for info in page.get_image_info()]
    return min(1.0, max((abs(box) for box in boxes), default=0.0) / area) if area else 0.0


def text_layer_problem(text: str, rules: PdfOcrRules) -> str | None:
    """Why a page's text layer is not text, or None where it reads as text."""
    share = unreadable_share(text)
    if share > rules.max_unreadable_share:
        return f"its text layer is not text ({share:.0%} of the characters unmapped)"
    words = len(text.split())
    if rules.min_word_share and words >= rules.min_words and not _enough_words(text, words, rules.min_word_share):
        return f"its text layer is not text (only {word_share(text):.0%} of the words look like words)"
    return None


def _enough_words(text: str, words: int, share: float) -> bool:
    """Whether `word_share(text)` (of its `words`) reaches `share`, read only until it does: a text
    page's words look like words from the first, so its first third settles it, not every word."""
    needed = math.ceil(share * words)
    # The fewest matches m with m / words >= share, tested by the same division as `word_share`'s.
    while needed > 0 and (needed - 1) / words >= share:
        needed -= 1
    while needed / words < share:
        needed += 1
    return len(list(islice(_WORD.finditer(text), needed))) == needed


def ocr_reason(page: pymupdf.Page, pieces: list[PrintedLine], rules: PdfOcrRules, file_has_text: bool) -> str | None:
    """Why the page is read by OCR, or None where its text layer is read; `pieces` are its lines
    from the text layer, `file_has_text` whether any page of the file has some."""
    if rules.mode is OcrMode.off:
        return None
    if rules.mode is OcrMode.force:
        return "forced (--ocr force)"
    text = "\n".join(piece.text for piece in pieces)
    chars = _visible(text)
    if chars == 0 and not page.get_bboxlog():
        return None  # a blank page: nothing is drawn on it to read
    if chars == 0 and not file_has_text:
        return "no text layer"
    if chars < rules.thin_layer_chars:
        # Only a page with little text pays for the look at its images.
        cover = image_cover(page)
        if cover >= rules.image_cover:
            return "a scan without a text layer" if chars == 0 else f"a scan with a thin text layer ({chars} characters)"
        return None
    return text_layer_problem(text, rules)
