"""Cross-references: the labels in each chunk that point to another part of the paper (`Table 2`,
`Fig. 3B`, `Section 4.2`, `Appendix A`, `Eq. (4)`, `@C03`, `[see S2-P1]`), each followed to the
chunk it names, or kept with why it leads nowhere."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import cached_property

from pipeline.link.matches import Pieces
from pipeline.text.numbering import NumberKind, section_number
from pipeline.records.base import ChunkSplit
from pipeline.records.chunks import Chunk, Section
from pipeline.records.links import Link, LinkKind
from pipeline.rules import LinkRules

# Matched from where the spaces before a separator start (see citations._MEMBERS).
_SEPARATORS = re.compile(r"(?<!\s)\s*(?:,|and|&|to)\s*")
_RANGE = re.compile(r"(?<!\s)\s*[-–]\s*")
_APPENDIX_HEADING = re.compile(r"(?i)appendix\s+([A-Z]\d*)\b")
_PANEL = re.compile(r"(?<=\d)[A-Za-z]$")
"""The panel letter after a figure's number (`3B`): the link is to the figure."""
# How a paper tags an equation: LaTeX's `\tag{4}`, or `(4)` ending a line. Two patterns, each
# starting with a literal that `re` skips ahead to, where one with both would test a set of first
# characters at every position of the text.
_TAGS = (re.compile(r"\\tag\{(\d+)\}"), re.compile(r"\((\d+)\)\s*(?:\$\$)?\s*$", re.MULTILINE))
# Supplementary material first: `Supplementary Table S1` is not the paper's own Table S1.
_KINDS_IN_ORDER = (LinkKind.supplementary, LinkKind.table, LinkKind.figure, LinkKind.section, LinkKind.appendix, LinkKind.equation, LinkKind.anchor)
# Kinds whose target, where it is not found, is a broken link: the paper names a part of itself
# that is not there. Supplementary material lies outside the paper, and an equation may be an image.
BROKEN_WHEN_MISSING = frozenset({LinkKind.table, LinkKind.figure, LinkKind.section, LinkKind.appendix, LinkKind.anchor})


@dataclass
class _Targets:
    """The paper's parts a label can name, each by the chunk that holds it."""

    captions: dict[tuple[LinkKind, str], str]
    sections: dict[str, str]
    appendices: dict[str, str]
    labels: dict[str, str]
    chunks: list[Chunk]
    section_chunks: dict[str, str]
    """Section id → the chunk it leads to (`_section_chunks`)."""

    @cached_property
    def ids(self) -> dict[str, str]:
        """Section or paragraph id → its chunk: read only in a paper whose text names one (few
        do), as it lists every paragraph of the paper."""
        by_paragraph = {paragraph_id: chunk.chunk_id for chunk in self.chunks for paragraph_id in chunk.paragraph_ids}
        return {**self.section_chunks, **by_paragraph}

    @cached_property
    def equations(self) -> dict[str, str]:
        """Equation number → the chunk whose text tags it: read only in a paper whose text
        refers to an equation, as looking for tags means reading every chunk's text."""
        equations: dict[str, str] = {}
        for chunk in self.chunks:
            for pattern in _TAGS:
                for tag in pattern.finditer(chunk.text):
                    equations.setdefault(tag.group(1), chunk.chunk_id)
        return equations


def link_labels(chunks: list[Chunk], sections: list[Section], skip: set[str], paper_text: str, rules: LinkRules) -> list[Link]:
    """The cross-references of every chunk but those in `skip` (the bibliography's), in order."""
    targets = _targets(chunks, sections, rules)
    patterns = [(kind, getattr(rules, kind.value)) for kind in _KINDS_IN_ORDER]
    links = []
    for run in _runs(chunks, skip):
        links.extend(_links_of(run, paper_text, patterns, targets, rules))
    return links


def _runs(chunks: list[Chunk], skip: set[str]) -> list[list[Chunk]]:
    """The chunks but those in `skip`, in runs with none of `skip` between their chunks: a run's
    text is searched at once (`Pieces`, which also checks that they follow one another in the
    text), and the bibliography's not at all."""
    runs: list[list[Chunk]] = [[]]
    for chunk in chunks:
        if chunk.chunk_id not in skip:
            runs[-1].append(chunk)
        elif runs[-1]:
            runs.append([])
    return [run for run in runs if run]


def _targets(chunks: list[Chunk], sections: list[Section], rules: LinkRules) -> _Targets:
    chunk_of = _section_chunks(chunks, sections)
    captions: dict[tuple[LinkKind, str], str] = {}
    for chunk in chunks:
        if chunk.split is ChunkSplit.caption and (label := _caption_label(chunk.text, rules)):
            captions.setdefault(label, chunk.chunk_id)
    numbered, appendices, labels = {}, {}, {}
    for section in sections:
        chunk_id = chunk_of.get(section.section_id)
        if chunk_id is None or not section.heading:
            continue
        heading = section.heading.strip("*_ ")
        # `Section 4.2` names an arabic number, of any digits, closed by a full stop or nothing.
        number = section_number(section.heading)
        if number is not None and number.kind is NumberKind.arabic and number.closer != ")":
            numbered.setdefault(number.label, chunk_id)
        if appendix := _APPENDIX_HEADING.match(heading):
            appendices.setdefault(appendix.group(1).upper(), chunk_id)
        labels.setdefault(heading.split(maxsplit=1)[0].rstrip(".:"), chunk_id)  # `C03 Exceptions` is @C03
    return _Targets(captions, numbered, appendices, labels, chunks, chunk_of)


def _section_chunks(chunks: list[Chunk], sections: list[Section]) -> dict[str, str]:
    """The chunk each section leads to: the one its heading is in (a sub-section merged into its
    parent's chunk is in that chunk), else, for a section with no text of its own, the first
    chunk of the sub-sections after it."""
    body = sorted((chunk for chunk in chunks if chunk.split not in (ChunkSplit.caption, ChunkSplit.aside)), key=lambda chunk: chunk.char_start)
    starts = [chunk.char_start for chunk in body]
    found: dict[str, str] = {}
    for section in sections:
        position = bisect.bisect_right(starts, section.char_start) - 1
        if position >= 0 and section.char_start < body[position].char_end:
            found[section.section_id] = body[position].chunk_id
    # Sections come in document order, a section's sub-sections right after it.
    for index, section in enumerate(sections):
        if section.section_id in found:
            continue
        for later in sections[index + 1 :]:
            if not later.section_id.startswith(section.section_id + "."):
                break
            if later.section_id in found:
                found[section.section_id] = found[later.section_id]
                break
    return found


def _caption_label(text: str, rules: LinkRules) -> tuple[LinkKind, str] | None:
    match = rules.caption_label.match(text)
    if match is None:
        return None
    word = (match["word"] or match["plosword"]).lower()
    number = (match["number"] or match["plos"]).upper()
    return (LinkKind.table if word.startswith("tab") else LinkKind.figure), number


def _numbers(written: str, limit: int) -> list[str]:
    """`1 and 2` → 1, 2; `3-5` → 3, 4, 5; `3B` → 3 (a panel of figure 3); `S1` stays S1."""
    if written.isdigit():
        return [written]  # most labels name one table or figure
    found: list[str] = []
    for part in _SEPARATORS.split(written.strip()):
        bounds = [_PANEL.sub("", bound).upper() for bound in _RANGE.split(part) if bound]
        if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit() and 0 < int(bounds[1]) - int(bounds[0]) < limit:
            found.extend(str(number) for number in range(int(bounds[0]), int(bounds[1]) + 1))
        else:
            found.extend(bounds)
    return list(dict.fromkeys(found))


def _links_of(
    run: list[Chunk], paper_text: str, patterns: list[tuple[LinkKind, re.Pattern[str]]], targets: _Targets, rules: LinkRules
) -> list[Link]:
    """The links of a run of chunks, chunk after chunk, given each kind's pattern in `_KINDS_IN_ORDER`."""
    found: list[list[Link]] = [[] for _ in run]
    taken: list[list[tuple[int, int]]] = [[] for _ in run]
    searched = Pieces(paper_text, [(chunk.text, chunk.char_start) for chunk in run])
    for kind, pattern in patterns:
        for index, match in searched.finditer(pattern):
            chunk = run[index]
            match_start, match_end = match.span()
            if taken[index] and any(start < match_end and match_start < end for start, end in taken[index]):
                continue
            if match_start == 0 and chunk.split is ChunkSplit.caption:
                continue  # the caption's own label
            taken[index].append((match_start, match_end))
            found[index].extend(_followed(chunk, kind, match, targets, rules))
    return [
        link
        for chunk, links in zip(run, found)
        for link in sorted(links, key=lambda link: link.char_start)
        if link.target_chunk_id != chunk.chunk_id
    ]


def _followed(chunk: Chunk, kind: LinkKind, match: re.Match[str], targets: _Targets, rules: LinkRules) -> list[Link]:
    label, start, end = match.group(), match.start(), match.end()
    if kind is LinkKind.anchor:
        name = match["id"] or match["paragraph"]
        target = targets.ids.get(name) or targets.labels.get(name)
        reason = None if target else f"no section, paragraph or heading of this paper is {name}"
        return [Link(chunk_id=chunk.chunk_id, kind=kind, label=label, char_start=start, char_end=end, target_chunk_id=target, reason=reason)]
    written = match["numbers"] if "numbers" in match.re.groupindex and match["numbers"] else (match["plos"] if "plos" in match.re.groupindex else "")
    links = []
    for number in _numbers(written or "", rules.max_range):
        named = kind
        if kind in (LinkKind.table, LinkKind.figure) and number.startswith("S") and (kind, number) not in targets.captions:
            named = LinkKind.supplementary  # `Table S1` without its caption in the paper: published beside it
        target, reason = _target(named, number, targets)
        links.append(Link(chunk_id=chunk.chunk_id, kind=named, label=label, char_start=start, char_end=end, target_chunk_id=target, reason=reason))
    return links


def _target(kind: LinkKind, number: str, targets: _Targets) -> tuple[str | None, str | None]:
    if kind is LinkKind.supplementary:
        for caption_kind in (LinkKind.table, LinkKind.figure):
            if (caption_kind, number) in targets.captions:
                return targets.captions[(caption_kind, number)], None
        return None, f"supplementary material {number}, published beside the paper and not in it"
    if kind in (LinkKind.table, LinkKind.figure):
        target = targets.captions.get((kind, number))
        return target, None if target else f"the paper has no {kind.value} {number} caption"
    if kind is LinkKind.section:
        target = targets.sections.get(number)
        return target, None if target else f"no section of the paper is numbered {number}"
    if kind is LinkKind.appendix:
        target = targets.appendices.get(number)
        return target, None if target else f"the paper has no appendix {number}"
    target = targets.equations.get(number)
    return target, None if target else f"equation ({number}) is not in the text (it may be an image)"
