"""De-hyphenation: whether a hyphen at the end of a line is a word broken by the typesetter
(`previ-` / `ously`: the hyphen goes) or a compound's own (`non-small-` / `cell`: it stays).

A typesetter breaks a word at a syllable, and what follows the break is then a fragment the paper
never writes on its own (`ously`, `tion`, `pared`); a compound breaks at its own hyphen, between
two words the paper writes (`small`, `cell`). So the hyphen goes where the paper writes the
joined word whole somewhere, or where the part after the break is a word the paper writes nowhere
else; it stays where the paper writes the compound with its hyphen inside a line, where the part
after the break is a word of the paper's, where the hyphen ends a compound of several parts
(`non-small-`), and before a capital or a digit (`IL-` / `6`, `Fc-` / `Gamma`). A soft hyphen at a line's end (kept there by the cleaning) is
a typesetter's break by its definition: it always goes, and the word is mended.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from pipeline.normalize.characters import SOFT_HYPHEN

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
# Tried only where a word starts: from inside one, `$` failed again at every later letter of a
# long word before `.-` (minutes for one of 160,000 letters).
_LINE_END_HYPHEN = re.compile(r"(?<![^\W\d_])([^\W\d_]+)-$")
_LINE_START_WORD = re.compile(r"^([^\W\d_]+)")
_AFTER_A_BREAK = re.compile(r"[-\u00ad]\n[ \t]*([^\W\d_]+)", re.UNICODE)
_COMPOUND = re.compile(r"(?<![^\W\d_])([^\W\d_]+-[^\W\d_]+)(?![^\W\d_])", re.UNICODE)


@dataclass(frozen=True)
class Vocabulary:
    """What a paper writes, lower-cased: the evidence each line-end hyphen is judged by."""

    written: frozenset[str] = frozenset()
    """Every word, fragments after a break included: a joined word found here is written whole."""
    alone: frozenset[str] = frozenset()
    """Words written somewhere other than right after a line-end hyphen."""
    compounds: frozenset[str] = frozenset()
    """Two words joined by a hyphen inside a line (`well-known`)."""


NO_VOCABULARY = Vocabulary()


def paper_vocabulary(texts: list[str]) -> Vocabulary:
    """The vocabulary of a paper's blocks; empty where no line ends in a hyphen, since then
    nothing will ask."""
    if not any("-\n" in text or SOFT_HYPHEN in text for text in texts):
        return NO_VOCABULARY
    counts: Counter[str] = Counter()
    after_breaks: Counter[str] = Counter()
    compounds: set[str] = set()
    for text in texts:
        lowered = text.lower()  # once a block, not once a word
        counts.update(_WORD.findall(lowered))
        if "-\n" in text or SOFT_HYPHEN in text:
            after_breaks.update(_AFTER_A_BREAK.findall(lowered))
        if "-" in text:
            # Sought in the words that hold a hyphen only: the pattern is tried at every letter.
            compounds.update(_COMPOUND.findall(" ".join(word for word in lowered.split() if "-" in word)))
    alone = frozenset(word for word, count in counts.items() if count > after_breaks[word])
    return Vocabulary(frozenset(counts), alone, frozenset(compounds))


def line_joint(previous: str, line: str, vocabulary: Vocabulary) -> tuple[str, bool]:
    """What goes between two lines of one paragraph, and whether the line-end hyphen goes."""
    if previous.endswith(SOFT_HYPHEN):
        return "", True  # the PDF says so itself: a soft hyphen is a typesetter's break
    # Searched only where the line ends in a hyphen: the pattern is tried at every word of the line.
    hyphenated = _LINE_END_HYPHEN.search(previous) if previous.endswith("-") else None
    if not hyphenated:
        return " ", False
    continued = _LINE_START_WORD.match(line)
    if not continued or not continued.group(1)[0].islower():
        return "", False  # `IL-` / `6`: a hyphen before a digit or a capital is written
    before, after = hyphenated.group(1).lower(), continued.group(1).lower()
    if before + after in vocabulary.written:
        return "", True  # `diag-` / `nosis`: the paper writes `diagnosis` whole elsewhere
    chained = hyphenated.start() > 0 and previous[hyphenated.start() - 1] == "-"
    if chained or f"{before}-{after}" in vocabulary.compounds or after in vocabulary.alone:
        return "", False  # `non-small-` / `cell`, `well-` / `known`: a compound broken at its hyphen
    return "", True  # `previ-` / `ously`: what follows the break is no word of the paper's


def last_line(line: str) -> str:
    """A paragraph's last line, a soft hyphen at its end dropped: the word it broke goes on in a
    block of its own (a column or page later), and nothing joins the two here."""
    return line[:-1] if line.endswith(SOFT_HYPHEN) else line


def soft_breaks_mended(text: str) -> str:
    """`text` with each soft hyphen that ends a line (or the text) taken out with its line break:
    the words they broke whole again."""
    if SOFT_HYPHEN not in text:
        return text
    return last_line(text.replace(SOFT_HYPHEN + "\n", ""))
