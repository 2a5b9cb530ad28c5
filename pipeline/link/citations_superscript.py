"""Superscript citation numbers in PDFs (`word³`, `word³,⁵`, `word³⁻⁷`): read off the runs the
extractor printed as superscripts (MuPDF's flag, a smaller size, a raised baseline), never off
digits in the text, and taken as citations only where nothing says they are something else.

A superscript is also a footnote mark, an affiliation, an exponent (`10⁵`, `m²`, `R²`) or an
isotope (`¹H`). So a run is a citation only where: it holds numbers, ranges and commas alone;
it sits outside the front matter and the bibliography; no digit, single letter, unit, function
or sign of a formula comes right before it, and no letter, digit or operator right after; no
sign of a formula stands on both sides of it (an exponent inside a run of maths, `|y|² + |z|²`,
`fν ² F ν`, is set among them, a citation after prose); the bibliography is numbered and every
number of the run labels one of its entries; and the paper cites in superscripts more often
than in brackets (a paper cites one way; a few stray superscripts in a bracket-citing paper
are residue numbers or exponents).

A Markdown text writes its superscripts out (`<sup>3</sup>` from publisher HTML, `^3^` in
Pandoc's Markdown, `[^3]` a footnote reference): these are read as the PDF's are, the markup
whole the marker, except a number the paper defines as a footnote of its own (`[^3]: …`, a line
that starts `<sup>3</sup>`)."""

from __future__ import annotations

import bisect
import re

from pipeline.link.citations import _members, _resolved
from pipeline.link.cited_bibliography import Bibliography
from pipeline.records.chunks import Chunk
from pipeline.records.document import Document
from pipeline.records.links import Citation, CitationResolution
from pipeline.rules import CitationRules

_REACH = 12
"""Characters either side of a superscript that `superscript_not_after`, `superscript_not_before`
and `superscript_maths_sign` are tried on: the longest unit or function they name, and the
spaces a formula sets around a sign."""


def superscript_citations(
    chunks: list[Chunk],
    document: Document,
    bibliography: Bibliography,
    bracketed: dict[str, list[re.Match[str]]],
    skip: set[str],
    rules: CitationRules,
) -> list[Citation]:
    """The superscript citations of every chunk but those in `skip` (the bibliography's own and
    the front matter's), in order; none where the paper does not cite in superscripts.
    `bracketed` has the chunks' matches of the rules' `brackets` (of every chunk read, at least)."""
    runs = _superscript_runs(document, rules)
    marked = [
        (chunk, match) for chunk in chunks if chunk.chunk_id not in skip for match in rules.superscript_markup.finditer(chunk.text)
    ]
    if not runs and not marked:
        return []
    if not bibliography.by_label or not any(label.isdigit() for label in bibliography.by_label):
        return []
    starts = [start for start, _ in runs]
    found: list[Citation] = []
    for chunk in chunks if runs else ():
        if chunk.chunk_id in skip:
            continue
        first = bisect.bisect_left(starts, chunk.char_start)
        for start, end in runs[first:]:
            if start >= chunk.char_end:
                break
            if end <= chunk.char_end:
                written = chunk.text[start - chunk.char_start : end - chunk.char_start]
                found += _citations_of(chunk, start - chunk.char_start, end - chunk.char_start, written, bibliography, rules)
    footnotes = defined_footnotes(chunks, skip, rules) if marked else set()
    for chunk, match in marked:
        found += _citations_of(chunk, match.start(), match.end(), match[match.lastgroup], bibliography, rules, footnotes)
    in_brackets = sum(len(bracketed[chunk.chunk_id]) for chunk in chunks if chunk.chunk_id not in skip)
    markers = {(citation.chunk_id, citation.char_start) for citation in found}
    return found if len(markers) > in_brackets else []


def defined_footnotes(chunks: list[Chunk], skip: set[str], rules: CitationRules) -> set[str]:
    """The numbers of the footnotes that the chunks but those in `skip` define (`[^3]: …`, a
    line that starts `<sup>3</sup>`): a mark of one of them is that footnote's, not a citation."""
    return {
        match[match.lastgroup]
        for chunk in chunks
        if chunk.chunk_id not in skip
        for match in rules.footnote_definition.finditer(chunk.text)
    }


def _superscript_runs(document: Document, rules: CitationRules) -> list[tuple[int, int]]:
    """The document's superscripts in text order, those that touch (`3`, `,`, `5` set as three
    spans) joined into one run, and so are two that only a range's dash parts (`³‑⁶`, the dash
    set at body size where the font has no raised one)."""
    runs: list[tuple[int, int]] = []
    for start, end in document.superscripts:
        if runs and (start <= runs[-1][1] or rules.range_dash.fullmatch(document.text, runs[-1][1], start)):
            runs[-1] = (runs[-1][0], max(end, runs[-1][1]))
        else:
            runs.append((start, end))
    return runs


def _citations_of(
    chunk: Chunk, start: int, end: int, written: str, bibliography: Bibliography, rules: CitationRules, footnotes: set[str] = frozenset()
) -> list[Citation]:
    """The citations of the superscript at `chunk.text[start:end]` that reads `written` (itself,
    or the numbers inside its markup), where it is one: none where a number is one of the
    paper's `footnotes`."""
    text = chunk.text
    marker = rules.superscript.fullmatch(written)
    before, after = text[max(0, start - _REACH) : start], text[end : end + _REACH]
    if marker is None or rules.superscript_not_after.search(before) or rules.superscript_not_before.search(after):
        return []
    if rules.superscript_maths_sign.search(before) and rules.superscript_maths_sign.search(after):
        return []  # `fν ² F ν`: inside a formula
    if end < len(text) and text[end].isalnum():
        return []  # `¹H`, `¹³C`: a prefix of the word it stands before
    members = _members(marker["members"], rules)
    labels = bibliography.labels_for(chunk)
    if not members or footnotes.intersection(members) or not all(member in labels for member in members):
        return []  # a number beyond the bibliography is an exponent or a residue number
    return [
        _resolved(chunk, start, end, labels[member], CitationResolution.number, f"superscript {member}")
        for member in members
    ]


def merged(citations: list[Citation], superscripts: list[Citation], chunks: list[Chunk]) -> list[Citation]:
    """Both lists of citations as one, in chunk order and, inside a chunk, by where each marker starts."""
    if not superscripts:
        return citations
    ordinal = {chunk.chunk_id: chunk.ordinal for chunk in chunks}
    return sorted([*citations, *superscripts], key=lambda citation: (ordinal[citation.chunk_id], citation.char_start))
