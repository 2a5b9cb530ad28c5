"""In-text citations: the markers in each chunk that cite the paper's own bibliography, each
resolved to its entry or kept, unresolved, with why. Never dropped, never attached to a wrong
entry: a marker that matches two entries names neither."""

from __future__ import annotations

import bisect
import re

from pipeline.link.cited_bibliography import NO_ENTRY, Bibliography
from pipeline.link.matches import Matches, search
from pipeline.metadata.names import letters
from pipeline.records.chunked import EntrySpan
from pipeline.records.chunks import Chunk
from pipeline.records.links import Citation, CitationResolution, Reference
from pipeline.rules import CitationRules

# Separators with the spaces about them, matched from where the spaces start: tried inside a long
# run of spaces, each start would read it to its end.
_MEMBERS = re.compile(r"(?<!\s)\s*[,;]\s*")
_PARENTHESIS = re.compile(r"\(([^()]{4,400})\)")
_CITATIONS_IN_PARENTHESIS = re.compile(r"[^;]+")
_COMMA = re.compile(r",\s+")
# Where a style parts the works of a parenthesis with commas (`Coelho et al. 2017, Ita & Ndukwe
# 2017`): a comma after a year (with its letter) and before a capital. Another year (`2019,
# 2020`) or a page (`2019, p. 5`) after the comma is the same work's.
_WORK_AFTER_YEAR = re.compile(r"(?<=\d\d\d\d)[a-z]?\s*,\s+(?=[A-ZÀ-ÖØ-ÞĆČĐŁŃŘŚŠŞŢŽŹŻ])")
# A year as the code reads it out of a citation's `years`: its digits and letter (`2020a`), not
# what else the rules' `year` allows after it (a converter's link mark, `1990 ▶`).
_YEAR_READ = re.compile(r"\d{4}(?-i:[a-z])?")
_NAME_MAX_WORDS = 3
"""Words of an author's name parted from the next by a semicolon (`Di Bitetti; Ferreras, 2017`):
a surname with a particle or two; a longer part is a note, not a name."""
# Where a narrative citation can end: a parenthesis that opens on a year. The narrative pattern
# is tried only in the stretch of text before each (see `_narrative`).
_YEAR_IN_PARENTHESES = re.compile(r"\(\s*(?:1[89]|20)\d\d")
_NARRATIVE_REACH = 100
"""Characters before `(2020)` searched for `Smith and Lee `: far more than any two surnames."""
_YEARS_REACH = 60
"""Characters after the `(` searched for the years and the closing parenthesis."""
_RELATION_REACH = 8
"""Characters before a bracket searched for a relation sign and the spaces after it (`\\in `)."""


def cite(
    chunks: list[Chunk],
    bibliography: Bibliography,
    bracketed: dict[str, list[re.Match[str]]],
    paper_text: str,
    rules: CitationRules,
    superscripted: bool = False,
) -> list[Citation]:
    """The citation markers of the chunks that `bracketed` holds (all but the bibliography's
    own), in order; `bracketed` has each one's matches of the rules' `brackets`. A paper that
    cites in superscripts (`superscripted`) numbers other things in parentheses: compounds,
    items."""
    # Only a numbered bibliography is cited by numbers. Brackets first: their pattern starts with
    # a literal, found fast, and most papers have them; the equations' pattern is tried at every
    # position of the text.
    numbered_in_parentheses = bool(bibliography.by_label) and (
        not superscripted and not _cites_in_brackets(paper_text, bibliography, rules) and search(rules.equations, paper_text) is None
    )
    citations = []
    for chunk in chunks:
        if chunk.chunk_id not in bracketed:
            continue
        found = _numeric(chunk, bracketed[chunk.chunk_id], bibliography, rules)
        if numbered_in_parentheses:
            found += _numeric(chunk, list(rules.parentheses.finditer(chunk.text)), bibliography, rules)
        found += _by_id(chunk, bibliography, rules)
        found += _author_year(chunk, bibliography, rules)
        citations.extend(sorted(found, key=lambda citation: citation.char_start))
    return citations


def _cites_in_brackets(paper_text: str, bibliography: Bibliography, rules: CitationRules) -> bool:
    """Whether the paper writes numbers in brackets as markers: `[2019]` past its numbering does
    not show it, `[95-2000]` (a range too long to cite) does."""
    for match in rules.brackets.finditer(paper_text):
        members = _members(match["members"], rules)
        if members is None or bibliography.numbers_that_far(members, None, rules):
            return True
    return False


def _members(written: str, rules: CitationRules) -> list[str] | None:
    """The numbers a numeric marker cites, ranges expanded, whichever of the rules' dashes joins
    their bounds; None where a range is too long (`max_range`) or runs backwards, so the marker
    is no citation (`[95-2000]`)."""
    if written.isdigit():
        return [written]  # most markers cite one entry
    members: list[str] = []
    for part in _MEMBERS.split(written.strip()):
        bounds = rules.range_dash.split(part)
        if len(bounds) == 1:
            members.append(bounds[0])
            continue
        first, last = int(bounds[0]), int(bounds[1])
        if not 0 < last - first < rules.max_range:
            return None
        members.extend(str(number) for number in range(first, last + 1))
    return members


def _numeric(chunk: Chunk, matches: list[re.Match[str]], bibliography: Bibliography, rules: CitationRules) -> list[Citation]:
    """The citations of the numeric markers `matches` (of the rules' `brackets` or `parentheses`) in the chunk."""
    found = []
    labels = bibliography.labels_for(chunk) if matches else {}
    missing = bibliography.missing_because(chunk) if matches else NO_ENTRY
    highest = bibliography.highest_for(chunk) if matches else 0
    for match, following in zip(matches, [*matches[1:], None]):
        members = _members(match["members"], rules)
        if members is None or not bibliography.numbers_that_far(members, chunk, rules) or _values(chunk.text, match, members, highest, rules):
            continue
        start, end = match.span()
        for member in members:
            entries = labels.get(member, [])
            found.append(_resolved(chunk, start, end, entries, CitationResolution.number, f"number {member}", missing))
        # Only a dash between them, matched in place: the text between two markers may be long.
        if following is not None and rules.range_dash.fullmatch(chunk.text, end, following.start()):
            found += _between(chunk, match, following, bibliography, rules)
    return found


def _values(text: str, match: re.Match[str], members: list[str], highest: int, rules: CitationRules) -> bool:
    """Whether a list of numbers in brackets is values, not a marker: most of its numbers past
    the numbering of a numbered bibliography and its largest far past it (`values_beyond`:
    `[50, 100, 200]` of 30 entries is a grid; `[39, 40]` of 36 cites entries a bibliography cut
    short has lost; one number past it, `[9]` of 6, is a marker whose entry is missing), or the
    list after a relation sign (`k ∈ [5, 10, 15]`, `= [5, 10]`)."""
    if not _MEMBERS.search(match["members"]):
        return False  # one number, or a range: a marker as `numbers_that_far` allows
    numbers = [int(member) for member in members]
    if highest and 2 * sum(number > highest for number in numbers) > len(numbers) and max(numbers) > rules.values_beyond * highest:
        return True
    return rules.values_after.search(text, max(0, match.start() - _RELATION_REACH), match.start()) is not None


def _between(chunk: Chunk, first: re.Match[str], last: re.Match[str], bibliography: Bibliography, rules: CitationRules) -> list[Citation]:
    """`[11]–[13]`: a range written as two markers joined by a dash cites the members between them too."""
    low, high = _members(first["members"], rules), _members(last["members"], rules)
    if not low or not high or not (low[-1].isdigit() and high[0].isdigit()) or not 0 < int(high[0]) - int(low[-1]) < rules.max_range:
        return []
    if not bibliography.numbers_that_far(high, chunk, rules):
        return []  # `[1004]–[1010]` of 1,005 entries: the second is no marker, and ends no range
    labels = bibliography.labels_for(chunk)
    missing = bibliography.missing_because(chunk)
    return [
        _resolved(chunk, first.start(), last.end(), labels.get(str(number), []), CitationResolution.number, f"number {number}", missing)
        for number in range(int(low[-1]) + 1, int(high[0]))
    ]


def _by_id(chunk: Chunk, bibliography: Bibliography, rules: CitationRules) -> list[Citation]:
    found = []
    for match in rules.ref_ids.finditer(chunk.text):
        for ref_id in _MEMBERS.split(match["ids"]):
            entry = bibliography.by_id.get(ref_id)
            found.append(_resolved(chunk, match.start(), match.end(), [entry] if entry else [], CitationResolution.ref_id, ref_id))
    return found


def _author_year(chunk: Chunk, bibliography: Bibliography, rules: CitationRules) -> list[Citation]:
    found = []
    # Most parentheses hold no citation: one search for what every citation holds (its year, in
    # the default rules) costs less than trying each of their parts.
    places = Matches(chunk.text).places(rules.author_year)
    for group in _PARENTHESIS.finditer(chunk.text) if places != [] else ():
        offset = group.start(1)
        if places is not None and not _holds_one(places, offset, group.end(1)):
            continue
        for part_start, part_end in _citations_in(group.group(1)):
            part = group.group(1)[part_start:part_end]
            citation = rules.author_year.match(part.strip())
            start = offset + part_start + (len(part) - len(part.lstrip()))
            end = offset + part_start + len(part.rstrip())
            if citation is None:
                found += _by_organisation(chunk, part.strip(), start, end, bibliography, rules) or _after_prose(
                    chunk, start, end, bibliography, rules
                )
                continue
            found += _by_author(chunk, citation, start, end, bibliography)
    for match in _narrative(chunk.text, rules.narrative, bibliography.surnames):
        found += _by_author(chunk, match, match.start(), match.end(), bibliography)
    return found


def _citations_in(inside: str) -> list[tuple[int, int]]:
    """Where each citation a parenthesis holds starts and ends: its parts between semicolons,
    a part that is only a name (no digit, no comma, a few words) joined to the next, for the
    authors of one work that a style parts with semicolons (`Rodrigues; Fachin, 2010`, `Zhao;
    Pan; Hua, 2021`) rather than the works; a note (`Lema SC, Dickey JT, unpublished data`)
    stays apart."""
    spans: list[tuple[int, int]] = []
    pending: int | None = None
    for part in _CITATIONS_IN_PARENTHESIS.finditer(inside):
        start = part.start() if pending is None else pending
        text = part.group()
        if any(character.isdigit() for character in text) or "," in text or len(text.split()) > _NAME_MAX_WORDS:
            spans += _works_of(inside, start, part.end())
            pending = None
        else:
            pending = start
    if pending is not None:
        spans.append((pending, len(inside)))
    return spans


def _works_of(inside: str, start: int, end: int) -> list[tuple[int, int]]:
    """The part `inside[start:end]` cut after each year that a comma and a capital follow
    (`_WORK_AFTER_YEAR`), where the piece after the comma is a citation of its own."""
    cuts = [(comma.start(), comma.end()) for comma in _WORK_AFTER_YEAR.finditer(inside, start, end)]
    if not cuts:
        return [(start, end)]
    bounds = [start, *(at for cut in cuts for at in cut), end]
    return [(bounds[index], bounds[index + 1]) for index in range(0, len(bounds), 2)]


def _holds_one(places: list[int], start: int, end: int) -> bool:
    """Whether one of the sorted `places` is in `[start, end)`."""
    index = bisect.bisect_left(places, start)
    return index < len(places) and places[index] < end


def _by_organisation(chunk: Chunk, part: str, start: int, end: int, bibliography: Bibliography, rules: CitationRules) -> list[Citation]:
    """`World Health Organization, 2010`: the citation of an author of several words, where the
    whole of it is the first author of an entry of every year it names (a capitalised phrase
    before a year, `In March 2020`, is often none)."""
    citation = rules.organisation.match(part)
    if citation is None:
        return []
    author = letters(citation["first"])
    years = _YEAR_READ.findall(citation["years"])
    entries = [bibliography.by_whole_author_year.get((author, year[:4]), []) for year in years]
    if not all(entries):
        return []
    return [
        _resolved(chunk, start, end, [entry for entry in listed if not year[4:] or entry.year == year], CitationResolution.author_year, f"{citation['first']} {year}")
        for year, listed in zip(years, entries)
    ]


def _after_prose(chunk: Chunk, start: int, end: int, bibliography: Bibliography, rules: CitationRules) -> list[Citation]:
    """`(including work on adaptation, e.g., Daumé, 2007)`: the citation that ends a part of a
    parenthesis after a comma and some prose. As with a narrative citation, the surname must be
    a first author of the bibliography, and every year must name an entry of that author."""
    part = chunk.text[start:end]
    for comma in _COMMA.finditer(part):
        citation = rules.author_year.match(part[comma.end() :])
        if citation is None:
            continue
        cited = _by_author(chunk, citation, start + comma.end(), end, bibliography)
        return cited if cited and all(found.ref_id for found in cited) else []
    return []


def _narrative(text: str, pattern: re.Pattern[str], surnames: set[str]) -> list[re.Match[str]]:
    """The matches of `pattern` whose first author is one of the bibliography's `surnames`, left
    to right, searched only near each `(` that opens on a year. A case-blind pattern that starts
    with a name cannot skip ahead to a literal, so scanning all the text with it tries every
    position of the text; each narrative citation holds such a `(`. A capitalised word before
    a year in parentheses is often no author (`Recently, Smith and Lee (2019)`): where the first
    is none, the search goes on from the word after it."""
    found: list[re.Match[str]] = []
    searched_to = 0
    for year in _YEAR_IN_PARENTHESES.finditer(text):
        start = max(searched_to, year.start() - _NARRATIVE_REACH)
        end = min(len(text), year.start() + _YEARS_REACH)
        match = pattern.search(text, start, end)
        while match is not None:
            if letters(match["first"]) in surnames:
                found.append(match)
                searched_to = match.end()
                match = pattern.search(text, searched_to, end)
            else:
                match = pattern.search(text, match.end("first"), end)
    return found


def _by_author(chunk: Chunk, citation: re.Match[str], start: int, end: int, bibliography: Bibliography) -> list[Citation]:
    first, second = letters(citation["first"]), citation["second"]
    found = []
    for year in _YEAR_READ.findall(citation["years"]):
        # An entry whose title prints a year before its own (ABNT prints the year last) is found
        # by the year it prints later, where no entry of the author has that year first.
        entries = bibliography.by_author_year.get((first, year[:4])) or bibliography.by_author_later_year.get((first, year[:4]), [])
        if year[4:]:  # `2020a`: that entry, of the author's 2020 ones
            entries = [entry for entry in entries if entry.year == year]
        if len(entries) > 1 and second:
            entries = [entry for entry in entries if letters(second) in letters(entry.text[:200])]
            # `Braun and Bugnyar 2012` cites the entry of two whose second author Bugnyar is, not
            # the one of four Bugnyar ends (`Braun A, Walsdorff T, Fraser ON, Bugnyar T`).
            seconds = [entry for entry in entries if _second_author_is(entry, letters(second))]
            entries = seconds if seconds else entries
        found.append(_resolved(chunk, start, end, entries, CitationResolution.author_year, f"{citation['first']} {year}"))
    return found


_BEFORE_SECOND_AUTHOR = re.compile(r"^[\s,;&.]*(?:and\s+)?")
_AFTER_AUTHOR = re.compile(r",|;|&|\band\b|\(|\d")


def _second_author_is(entry: Reference, surname: str) -> bool:
    """Whether the author the entry names after its first has `surname` (as `letters` gives it)."""
    start = entry.text.find(entry.first_author) if entry.first_author else -1
    if start < 0:
        return False
    rest = entry.text[start + len(entry.first_author) : start + len(entry.first_author) + 120]
    rest = rest[_BEFORE_SECOND_AUTHOR.match(rest).end() :]
    end = _AFTER_AUTHOR.search(rest)
    return surname in letters(rest[: end.start() if end else len(rest)])


def _resolved(
    chunk: Chunk, start: int, end: int, entries: list[Reference], how: CitationResolution, member: str, missing: str = NO_ENTRY
) -> Citation:
    """The citation of `member` by the marker at `chunk.text[start:end]`, given the entries that
    match it, and, where none does, why (`missing`)."""
    if len(entries) == 1:
        resolution, ref_id, detail = how, entries[0].ref_id, member
    elif entries:
        resolution, ref_id = CitationResolution.ambiguous, None
        detail = f"{member}: {len(entries)} entries match ({', '.join(entry.ref_id for entry in entries)}); none is chosen"
    else:
        resolution, ref_id, detail = CitationResolution.missing, None, f"{member}: {missing}"
    return Citation(
        chunk_id=chunk.chunk_id, ref_id=ref_id, marker=chunk.text[start:end], char_start=start, char_end=end,
        resolution=resolution, detail=detail,
    )


def outside_entries(citations: list[Citation], entries: list[EntrySpan], chunks: list[Chunk]) -> list[Citation]:
    """The citations that are not inside the run of entries beyond the bibliography's sections
    (`EntrySpan.beyond_sections`): a chunk that ends in one holds entries whose years and names
    read like markers (`Smith J (2020)`), and an entry cites no other entry. A bibliography's
    sections are skipped whole, chunk by chunk, and the text between two of them (an appendix)
    keeps its citations."""
    beyond = [entry for entry in entries if entry.beyond_sections]
    if not beyond:
        return citations
    start_of: dict[str, int] = {chunk.chunk_id: chunk.char_start for chunk in chunks}
    first, last = beyond[0].char_start, beyond[-1].char_end
    return [
        citation for citation in citations if not first <= start_of[citation.chunk_id] + citation.char_start < last
    ]
