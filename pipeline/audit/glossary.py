"""The abbreviations a paper defines, so that a claim may name a thing as the paper first did.

A paper says once `plasma thyroxine (T4)` or `fecal egg counts (FECs)` and writes `T4` and `FECs`
after that; it names `Schistosoma mansoni` once and `S. mansoni` after. A page written from the
paper may use either, and a cited chunk from the paper's middle holds only the short form. Read
from the whole paper's text:

- `long form (SHORT)`: Schwartz and Hearst's rule (Pacific Symposium on Biocomputing 2003): each
  letter and digit of a one-word short form is found in the words before the bracket, in order,
  the first at the start of a word, within `len(short) + 5` words; a short form's last digits may be left
  unmatched (`thyroxine (T4)`, `triiodothyronine (T3)`), since papers number what they shorten;
- `G. species` for `Genus species`, where the paper writes both.

Only the short forms a passage holds are kept for it (pipeline/audit/passages.py).
"""

from __future__ import annotations

import re

from pipeline.audit.records import Abbreviation

# `long form (SHORT)`: a bracket of one word that starts with a letter (`(T4)`, `(FECs)`, `(TSHβ)`).
_DEFINED = re.compile(r"\(\s*([^\W\d_][^()\s;,=<>]{0,9})\s*\)")
# A short form that numbers what it shortens, whose digits the long form need not hold (`T4`).
_NUMBERED = re.compile(r"[^\W\d_]+-?\d{1,2}")
# Two words run together where a heading met its text (`BackgroundPolybrominated`): no long form.
_JOINED = re.compile(r"[a-z][A-Z][a-z]")
_WORD = re.compile(r"[^\W_][\w'’-]*")
_BINOMIAL = re.compile(r"\b([A-Z][a-z]{2,}) ([a-z]{3,})\b")
_GENUS_INITIAL = re.compile(r"\b([A-Z])\. ([a-z]{3,})\b")
_SENTENCE_END = re.compile(r"[.;:!?\]]\s|\(")


def defined_abbreviations(text: str) -> list[Abbreviation]:
    """Every abbreviation `text` defines, each short form once (its first definition)."""
    found: dict[str, Abbreviation] = {}
    for match in _DEFINED.finditer(text):
        short = match.group(1)
        # An abbreviation has a capital (`T4`, `FECs`, `mRNA`); a bracket of lower-case words is a gloss.
        if not any(character.isupper() for character in short):
            continue
        before = _SENTENCE_END.split(text[max(0, match.start() - 300) : match.start()])[-1]
        long = _long_form(short, before)
        if long:
            found.setdefault(short, Abbreviation(short=short, long=long))
    shortened = set(_GENUS_INITIAL.findall(text))
    for genus, species in dict.fromkeys(_BINOMIAL.findall(text)):
        if (genus[0], species) in shortened:
            short = f"{genus[0]}. {species}"
            found.setdefault(short, Abbreviation(short=short, long=f"{genus} {species}"))
    return list(found.values())


def used_in(abbreviations: list[Abbreviation], text: str) -> tuple[Abbreviation, ...]:
    """The abbreviations whose short form `text` writes as a word of its own."""
    return tuple(abbreviation for abbreviation in abbreviations if occurrences(abbreviation.short, text))


def spelled_out(text: str, abbreviations: tuple[Abbreviation, ...]) -> str:
    """`text` with each short form it writes followed by its long form, as the paper first said it:
    `decreased plasma T4` → `decreased plasma T4 (thyroxine)`. A long form already beside it is
    not said twice."""
    inserts = []
    for abbreviation in abbreviations:
        if abbreviation.long.lower() in text.lower():
            continue
        inserts += [(end, f" ({abbreviation.long})") for _, end in occurrences(abbreviation.short, text)]
    for end, insert in sorted(inserts, reverse=True):
        text = text[:end] + insert + text[end:]
    return text


def occurrences(short: str, text: str) -> list[tuple[int, int]]:
    """Where `text` writes `short` as a word of its own (`T4`, not the end of `anti-L-T4` or `T44`)."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(short)}(?![\w-])")
    return [(found.start(), found.end()) for found in pattern.finditer(text)]


def _long_form(short: str, before: str) -> str | None:
    """The words before the bracket that `short` abbreviates, by Schwartz and Hearst's rule; None
    where they hold no such words."""
    words = _WORD.findall(before)
    most = min(len(short) + 5, len(short) * 2)
    candidate = " ".join(words[-most:])
    letters = [c.lower() for c in short if c.isalnum()]
    long = _match_backwards(letters, candidate)
    if long is None and _NUMBERED.fullmatch(short):
        long = _match_backwards([c for c in letters if not c.isdigit()], candidate)
    if not long or len(long) <= len(short) or short.lower() in long.lower().split() or _JOINED.search(long) or any(c.isdigit() for c in long):
        return None
    return long


def _match_backwards(letters: list[str], candidate: str) -> str | None:
    if not letters or not letters[0].isalpha():
        return None
    at = len(candidate) - 1
    for index in range(len(letters) - 1, -1, -1):
        letter = letters[index]
        # The first letter must start a word; the others may be anywhere in one.
        while at >= 0 and (candidate[at].lower() != letter or (index == 0 and at > 0 and candidate[at - 1].isalnum())):
            at -= 1
        if at < 0:
            return None
        at -= 1
    start = candidate.rfind(" ", 0, at + 1) + 1
    return candidate[start:].strip() or None
