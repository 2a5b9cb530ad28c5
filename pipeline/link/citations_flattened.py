"""Superscript citation numbers that a conversion flattened into the text, as Markdown made
from publisher HTML or from a PDF has them: `…administration.24–31 Authors…`, `…below 4.5
mmol/l.1 The infusion…`, `…as reported previously3,5–7.` Read only where they can be nothing
else, and never guessed: a number that cannot be told apart is left unread.

Digits glued to the end of a word, or right after the punctuation that ends a clause, are also
decimals (`4.5`), units and exponents (`m2`, `cm3`), formulae (`CO2`, `H2O`), residues (`Ser15`),
symbols with an index (`x1`), names with a number (`Skp2`) and footnote marks. So a run of
digits (`flattened`) is a citation only where: no letter, sign, unit or decimal digit follows
it; the text before it is no abbreviation, symbol, unit, function, residue or formula
(`flattened_not_after`); the word it is glued to is not written with it again and again
(`flattened_name_repeats`); it lies
outside the front matter, the bibliography and what a PDF printed raised (read as superscripts,
or found to be none); no number of it is a footnote the paper defines; the bibliography is
numbered and labels every number of it; and it fits the paper's order of first citation, which
a paper that cites in superscripts follows: its numbers are first written in rising order. And the paper as a whole must be seen to cite this
way: at least `flattened_min_markers` such runs, most of those the bibliography labels
(`flattened_in_order_share`) in that order, naming between them much of the bibliography (`flattened_min_coverage`), and more
of them than markers in brackets."""

from __future__ import annotations

import bisect
import re
from collections import Counter
from typing import NamedTuple

from pipeline.link.cited_bibliography import Bibliography
from pipeline.link.citations import _members, _resolved
from pipeline.link.citations_superscript import defined_footnotes
from pipeline.link.matches import Matches
from pipeline.records.chunks import Chunk
from pipeline.records.document import Document
from pipeline.records.links import Citation, CitationResolution
from pipeline.rules import CitationRules

_WORD_BEFORE = re.compile(r"[^\W\d_]{1,40}$")
_WORD_REACH = 40
"""Characters before the digits searched for the word they are glued to: a name is shorter."""
_BEFORE_REACH = 12
"""Characters before the digits that `flattened_not_after` is tried on: the longest word it names, and its full stop."""


class _Run(NamedTuple):
    """A run of digits glued to a word that may be a flattened citation: where it is, and its numbers."""

    chunk: Chunk
    match: re.Match[str]
    members: list[str]


class _Candidate(NamedTuple):
    """A run of flattened digits that may be a citation: where it is, its numbers, and whether the
    bibliography (the list the chunk cites) labels every one of them."""

    chunk: Chunk
    match: re.Match[str]
    members: list[str]
    listed: bool


def flattened_citations(
    chunks: list[Chunk],
    document: Document,
    bibliography: Bibliography,
    bracketed: dict[str, list[re.Match[str]]],
    skip: set[str],
    rules: CitationRules,
) -> list[Citation]:
    """The flattened superscript citations of every chunk but those in `skip` (the bibliography's
    own and the front matter's), in text order; none where the paper does not cite this way.
    `bracketed` has the chunks' matches of the rules' `brackets` (of every chunk read, at least)."""
    if not any(label.isdigit() for label in bibliography.by_label):
        return []
    read = [chunk for chunk in sorted(chunks, key=lambda chunk: chunk.char_start) if chunk.chunk_id not in skip]
    glued = [(chunk, match) for chunk in read for match in Matches(chunk.text).finditer(rules.flattened)]
    in_brackets = sum(len(bracketed[chunk.chunk_id]) for chunk in read)
    # Each check below keeps some of these runs at most: a paper with too few of them fails them
    # all, and the words before the runs and its footnotes need not be read.
    if _too_few(len(glued), in_brackets, rules):
        return []
    runs = _glued_runs(glued, document, rules)
    if _too_few(len(runs), in_brackets, rules):
        return []
    candidates = _candidates(runs, bibliography, defined_footnotes(chunks, skip, rules), rules)
    if len(candidates) < rules.flattened_min_markers:
        return []
    fitting = _in_first_citation_order(candidates)
    if len(fitting) < rules.flattened_in_order_share * sum(candidate.listed for candidate in candidates):
        return []
    # A paper cites most of its bibliography; runs that name a few of its entries over and over
    # are names with a number (`Skp2`, `Jag1`), which fit any order once their numbers are cited.
    named = {member for candidate in fitting for member in candidate.members}
    if len(named) < rules.flattened_min_coverage * bibliography.highest_of_all:
        return []
    if len(fitting) <= in_brackets:
        return []  # a paper that cites in brackets glues digits to words for other reasons
    found = []
    for candidate in fitting:
        labels = bibliography.labels_for(candidate.chunk)
        start, end = candidate.match.span("members")
        found += [
            _resolved(candidate.chunk, start, end, labels[member], CitationResolution.number, f"flattened superscript {member}")
            for member in candidate.members
        ]
    return found


def _too_few(runs: int, in_brackets: int, rules: CitationRules) -> bool:
    """Whether a paper with this many runs of flattened digits at most does not cite with them:
    fewer than `flattened_min_markers`, or no more than its markers in brackets."""
    return runs < rules.flattened_min_markers or runs <= in_brackets


def _glued_runs(glued: list[tuple[Chunk, re.Match[str]]], document: Document, rules: CitationRules) -> list[_Run]:
    """The runs of digits glued to a word (each chunk and its match of `flattened`), in text order,
    that are neither after a word that counts or names them (`flattened_not_after`) nor printed
    raised."""
    raised_starts = [start for start, _ in document.superscripts]
    found = []
    for chunk, match in glued:
        start, end = match.span("members")
        if rules.flattened_not_after.search(chunk.text, max(0, start - _BEFORE_REACH), start):
            continue
        if _raised(document, raised_starts, chunk.char_start + start, chunk.char_start + end):
            continue  # the PDF printed it raised: read, or found to be no citation, as a superscript
        members = _members(match["members"], rules)
        if members is not None:
            found.append(_Run(chunk, match, members))
    return found


def _candidates(runs: list[_Run], bibliography: Bibliography, footnotes: set[str], rules: CitationRules) -> list[_Candidate]:
    """The runs that nothing but the paper's order of citation tells from a citation: those that
    name no footnote of the paper, glued to a word that is not written with them again and again."""
    found = [
        _Candidate(run.chunk, run.match, run.members, all(member in labels for member in run.members))
        for run in runs
        if not footnotes.intersection(run.members)
        for labels in [bibliography.labels_for(run.chunk)]
    ]
    # A word written with the same number again and again is a name (`Cft1`, `Skp2`, `Aβ42`): a
    # paper cites an entry after a different word each time.
    written = Counter(_glued(candidate) for candidate in found)
    return [candidate for candidate in found if not _glued(candidate) or written[_glued(candidate)] < rules.flattened_name_repeats]


def _glued(candidate: _Candidate) -> str:
    """The word the candidate's digits are glued to, with them, in lower case (`cft1`); empty
    where punctuation stands between them."""
    start, end = candidate.match.span("members")
    word = _WORD_BEFORE.search(candidate.chunk.text, max(0, start - _WORD_REACH), start)
    return (word.group() + candidate.chunk.text[start:end]).casefold() if word else ""


def _raised(document: Document, starts: list[int], start: int, end: int) -> bool:
    """Whether `[start, end)` of the document's text overlaps a superscript the PDF printed."""
    index = bisect.bisect_right(starts, start) - 1
    for raised_start, raised_end in document.superscripts[max(index, 0) : index + 2]:
        if raised_start < end and start < raised_end:
            return True
    return False


def _in_first_citation_order(candidates: list[_Candidate]) -> list[_Candidate]:
    """The candidates that fit the order of first citation: those whose every number labels an
    entry and is one of the longest run, in the order the numbers are first written, that
    rises. A paper that cites in superscripts numbers its entries as it first cites them, so its
    numbers come first in rising order, some skipped (cited first in a table, or in a part left
    unread); a number first written out of that order (`Aβ40` before the first citation) is
    something else, and so is each later run that holds it, even where it is a citation."""
    first_written: list[int] = []
    seen: set[int] = set()
    for candidate in candidates:
        if candidate.listed:
            for number in sorted({int(member) for member in candidate.members} - seen):
                seen.add(number)
                first_written.append(number)
    in_order = _longest_rising(first_written)
    return [candidate for candidate in candidates if candidate.listed and all(int(member) in in_order for member in candidate.members)]


def _longest_rising(numbers: list[int]) -> set[int]:
    """The numbers of a longest strictly rising subsequence of `numbers` (patience sorting)."""
    ends: list[int] = []  # the smallest last number of a rising run of each length
    end_at: list[int] = []  # where in `numbers` that run ends
    before = [-1] * len(numbers)  # the index of the number before each in its run
    for index, number in enumerate(numbers):
        length = bisect.bisect_left(ends, number)
        before[index] = end_at[length - 1] if length else -1
        if length == len(ends):
            ends.append(number)
            end_at.append(index)
        else:
            ends[length], end_at[length] = number, index
    found = set()
    index = end_at[-1] if end_at else -1
    while index >= 0:
        found.add(numbers[index])
        index = before[index]
    return found
