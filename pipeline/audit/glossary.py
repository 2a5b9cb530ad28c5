"""The abbreviations a paper defines, so that a claim may name a thing as the paper first did.

A paper says once `plasma thyroxine (T4)` or `fecal egg counts (FECs)` and writes `T4` and `FECs`
after that; it names `Schistosoma mansoni` once and `S. mansoni` after. A page written from the
paper may use either, and a cited chunk from the paper's middle holds only the short form. Read
from the whole paper's text:

- `long form (SHORT)`: Schwartz and Hearst's rule (Pacific Symposium on Biocomputing 2003), as the
  `abbreviations` package implements it: `select_definition` finds each letter and digit of the
  short form in the words before the bracket, in order, the first at the start of a word, within
  `min(len(short) + 5, 2 * len(short))` words, brackets balanced, the short form no whole word of
  the window; `conditions` wants a short form of 2 to 10 characters with a letter, starting with a
  letter or digit. The package's extraction loop is not used: it reads a line at a time and drops
  every bracket of a line whose brackets do not balance, misses a definition inside a bracket
  (`(hazard ratio (HR), 0.92)`), and wants as many words starting with the short form's first
  letter as the short form has (`two-factor analysis of variance (ANOVA)` finds nothing). Here each
  innermost bracket is a candidate, the last words before it in its sentence the window. Kept
  beside the package, each with its reason at its pattern: a short form has a capital and is one
  word; its last digits may go unmatched (`thyroxine (T4)`), since papers number what they
  shorten; citations before the bracket are dropped; a long form starts where its hyphenated word
  does (`non-negative`); one of two words run together (`BackgroundPolybrominated`) or holding
  another definition in brackets is none;
- `G. species` for `Genus species`, where the paper writes both (the package knows no binomials).

Only the short forms a passage holds are kept for it (pipeline/audit/passages.py).
"""

from __future__ import annotations

import logging
import re

from pipeline.audit.records import Abbreviation


def _import_schwartz_hearst():
    """The package's module, imported without its side effect: it calls `logging.basicConfig` at
    INFO on import, which would print every other library's INFO lines on stderr."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    from abbreviations import schwartz_hearst

    root.handlers[:] = handlers
    root.setLevel(level)
    return schwartz_hearst


_schwartz_hearst = _import_schwartz_hearst()

# An innermost bracket of one word, ended as the package ends one (`)`, `;` or `:`). The package
# also wants a space before it; papers' text loses that space (`carcinoma(SCC)`).
_BRACKET = re.compile(r"\(\s*([^()\s;:]+)\s*[);:]")
# A short form that numbers what it shortens, whose digits the long form need not hold (`T4`).
_NUMBERED = re.compile(r"([^\W\d_]+)-?\d{1,2}")
# Two words run together where a heading met its text (`BackgroundPolybrominated`): no long form.
_JOINED = re.compile(r"[a-z][A-Z][a-z]")
# A bracket with a capital inside a long form holds another definition or a maker's name
# (`glucose-6-phosphate dehydrogenase (G6PD), gluconolactonase (6PGL)`, `(Sigma)`); the package
# asks only that a long form's brackets balance.
_INNER_NAME = re.compile(r"\([^()]*[A-Z][^()]*\)")
# Citations between the long form and its bracket: `voxel based morphometry [20], [21] (VBM)`.
_CITATION = re.compile(r"(?:\s*\[[\d,\s–-]+\],?)+\s*$")
# The words of a hyphenated word before the one a long form starts at (`non-` of `non-negative`).
_HYPHENATED_HEAD = re.compile(r"(?:[^\W_]+-)+$")
_BINOMIAL = re.compile(r"\b([A-Z][a-z]{2,}) ([a-z]{3,})\b")
_GENUS_INITIAL = re.compile(r"\b([A-Z])\. ([a-z]{3,})\b")
# A long form lies inside its bracket's sentence or clause; the package takes a line (here a whole
# paragraph) for a sentence.
_SENTENCE_END = re.compile(r"[.;:!?]\s|\n")


def defined_abbreviations(text: str) -> list[Abbreviation]:
    """Every abbreviation `text` defines, each short form once (its first definition)."""
    found: dict[str, Abbreviation] = {}
    for match in _BRACKET.finditer(text):
        short = match.group(1)
        # An abbreviation has a capital (`T4`, `FECs`, `mRNA`); a bracket of lower-case letters is as
        # often a word or a numbering (`(red)`, `(ii)`) as a short form.
        if short in found or not any(character.isupper() for character in short) or not _schwartz_hearst.conditions(short):
            continue
        before = _SENTENCE_END.split(text[max(0, match.start() - 300) : match.start()])[-1]
        long = _long_form(short, _CITATION.sub("", before).rstrip())
        if long:
            found[short] = Abbreviation(short=short, long=long)
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
    """The words ending `before` that `short` abbreviates, by the package's Schwartz and Hearst
    match, or by its letters alone where `short` numbers what it shortens; None where there are
    none."""
    # Schwartz and Hearst's window; the package checks its whole definition for the short form as a
    # word, so a longer one loses `trifluoroacetic acid (TFA)` to a `TFA` earlier in the sentence.
    window = " ".join(before.split()[-min(len(short) + 5, 2 * len(short)) :])
    long = _select_definition(short, window)
    numbered = _NUMBERED.fullmatch(short)
    if long is None and numbered:
        long = _select_definition(numbered.group(1), window)
    if long is None:
        return None
    # The package starts a long form after a hyphen; a hyphenated word is one word
    # (`non-negative matrix factorization (NMF)`).
    head = _HYPHENATED_HEAD.search(window[: len(window) - len(long)])
    long = ((head.group() if head else "") + long).rstrip("”’\"'")
    # A long form no longer than its short form, or holding it as a word (`skin (Skin)`), is none;
    # the package checks only a shorter one, and the word in the same case.
    if len(long) <= len(short) or short.lower() in long.lower().split() or _JOINED.search(long) or _INNER_NAME.search(long):
        return None
    return long


def _select_definition(short: str, window: str) -> str | None:
    definition = _schwartz_hearst.Candidate(window)
    definition.set_position(0, len(window))
    try:
        return str(_schwartz_hearst.select_definition(definition, _schwartz_hearst.Candidate(short))).strip() or None
    except (ValueError, IndexError):
        # The package says by raising that the window holds no long form of `short`.
        return None
