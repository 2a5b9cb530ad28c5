"""Run-in headings: a paragraph that opens with a few words in bold or italic, closed by a full
stop or colon, then its text in the body's face (`2.3. Animal Preparation. Male Wistar rats…`);
or, unclosed, set apart by its weight alone before a sentence that opens with a capital
(`Sample size A minimum of 3 patients…`, as BioMed Central sets its third-level headings).

`split_run_in_headings` cuts such a paragraph into a heading block of the lead and a paragraph of
the rest, splitting the first line's row where the lead ends (`Row.lead`), so that the heading's
text is an exact prefix of the line and each part keeps its own box. Publishers' XML makes each
such lead a section. A lead set for emphasis is told from one by its numbering or by recurring,
labels of short entries by the length of the paragraphs their style opens, and the labels of a
structured abstract or of back matter by the heading they stand under.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, replace

from pipeline.extract.pdf.heading_styles import numbering_depth, without_numbering
from pipeline.extract.pdf.headings import DEEPEST_LEVEL, TOP_LEVEL
from pipeline.extract.pdf.records import Layout, Lead, PdfBlock, Row
from pipeline.extract.pdf.typography import SAME_SIZE, TERMINAL
from pipeline.text.heading_key import heading_key
from pipeline.text.numbering import NumberKind, pdf_section_number
from pipeline.records.base import BlockKind, SectionType
from pipeline.rules import Rules

_LEAD_MIN_LETTERS = 3
"""Letters of a lead besides its numbering: `a.` or `(i)` in italic is a list label."""
_LEAD_MAX_WHOLE_ROWS = 2
"""Lines a lead may fill before the line where its text starts: a lead of a heading's length
(`[pdf.headings] max_words`) wraps onto a second or third line, never further."""
_UNNUMBERED_MIN = 2
"""Unnumbered leads of one style that make it a heading style: one bold opening may be emphasis,
a style that opens two paragraphs or more in the same way heads them."""
_TEXT_MIN_WORDS = 25
"""Median words of the paragraphs a style's leads open, from which it heads sections: a run-in
heading opens a paragraph of a few sentences, while bold labels of short entries (each author's
contribution, a glossary, the names of a reference) open a line or two."""
_CLOSING = ".:"
"""A run-in heading is closed by a full stop or a colon, or else by a sentence that opens with a capital after it."""
_RUNS_ON = ",;-–—(&/"
"""A lead that ends in one of these runs on into the text after it: no heading ends so."""


@dataclass(frozen=True, slots=True)
class RunInRules:
    """What the run-in pass reads from the rules."""

    max_words: int
    """Most words of a heading (`[pdf.headings]`), its numbering aside."""
    caption_start: re.Pattern[str]
    anchors: tuple[tuple[re.Pattern[str], bool], ...]
    """The anchor rules' patterns, each with whether it types a meta section (abstract, keywords,
    back matter): a heading's key must match one whole."""
    classes: tuple[tuple[re.Pattern[str], bool], ...]
    """The broad classification's patterns, the same way, found anywhere in a heading's key."""

    @classmethod
    def from_rules(cls, rules: Rules) -> RunInRules:
        return cls(
            max_words=rules.pdf.headings.max_words,
            caption_start=rules.captions.pdf_start,
            anchors=tuple((rule.pattern, rule.type == SectionType.meta) for rule in rules.anchors),
            classes=tuple((rule.pattern, rule.type == SectionType.meta) for rule in rules.classify),
        )

    def heads_meta(self, heading: str) -> bool:
        """Whether a heading names a meta section, as normalize will type it: by the first anchor
        that matches its key whole, else by the first class found in it."""
        key = heading_key(without_numbering(heading), keep_numbering=True)  # the numbering as a PDF writes it (`2 |`, `C.1`)
        anchor = next((meta for pattern, meta in self.anchors if pattern.fullmatch(key)), None)
        if anchor is not None:
            return anchor
        return next((meta for pattern, meta in self.classes if pattern.search(key)), False)

    def names_section(self, heading: str) -> bool:
        """Whether a heading's key is one an anchor rule matches whole: the name of a part of a paper."""
        key = heading_key(without_numbering(heading), keep_numbering=True)  # the numbering as a PDF writes it (`2 |`, `C.1`)
        return any(pattern.fullmatch(key) for pattern, _ in self.anchors)


@dataclass(frozen=True, slots=True)
class _Candidate:
    index: int
    whole_rows: int
    """Rows the lead fills before the row where it ends."""
    lead: Lead
    text: str
    numbered: bool
    text_words: int
    """Words of the paragraph after the lead."""
    closed: bool
    """Whether a full stop or colon closes the lead; an unclosed lead's style must recur on its own."""


def split_run_in_headings(blocks: list[PdfBlock], layout: Layout, rules: RunInRules) -> list[PdfBlock]:
    """The blocks with every paragraph that opens with a run-in heading cut into the heading, at the
    level of its numbering or one below the heading it stands under, and the paragraph."""
    candidates = [candidate for index in range(len(blocks)) if (candidate := _candidate(blocks, index, layout, rules)) is not None]
    by_style: dict[tuple[bool, bool, bool], list[_Candidate]] = defaultdict(list)
    for candidate in candidates:
        by_style[(candidate.lead.bold, candidate.lead.italic, candidate.closed)].append(candidate)
    chosen = {
        candidate.index: candidate
        for members in by_style.values()
        if statistics.median(member.text_words for member in members) >= _TEXT_MIN_WORDS
        for candidate in members
        if candidate.numbered or len(members) >= _UNNUMBERED_MIN
    }
    result: list[PdfBlock] = []
    enclosing = TOP_LEVEL - 1
    for index, block in enumerate(blocks):
        candidate = chosen.get(index)
        if candidate is None:
            if block.kind is BlockKind.heading and block.level is not None and block.level >= TOP_LEVEL:
                enclosing = block.level
            result.append(block)
            continue
        result.extend(_split(block, candidate, _level(candidate, enclosing)))
    return result


def _level(candidate: _Candidate, enclosing: int) -> int:
    """Arabic numbering gives the depth (`2.3.` is level 3); otherwise one below the heading above."""
    number = pdf_section_number(candidate.text)
    depth = numbering_depth(candidate.text, False) if number and number.kind is NumberKind.arabic else None
    level = depth + 1 if depth is not None else enclosing + 1
    return min(DEEPEST_LEVEL, max(TOP_LEVEL, level))


def _candidate(blocks: list[PdfBlock], index: int, layout: Layout, rules: RunInRules) -> _Candidate | None:
    """The run-in heading `blocks[index]` opens with, if it looks like one."""
    block = blocks[index]
    if block.kind is not BlockKind.paragraph or block.rows[0].rotated or block.rows[0].aside:
        return None
    whole, lead = _lead_rows(block.rows)
    if lead is None:
        return None
    rows = block.rows[: whole + 1]
    if any(abs(row.size - layout.body_size) >= SAME_SIZE * layout.body_size for row in rows):
        return None
    text = " ".join([row.text for row in rows[:-1]] + [rows[-1].text[: lead.end]])
    title = without_numbering(text)
    if not 1 <= len(title.split()) <= rules.max_words or sum(ch.isalpha() for ch in title) < _LEAD_MIN_LETTERS:
        return None
    after = rows[-1].text[lead.end :].lstrip()
    closed = text[-1] in _CLOSING
    if not title[:1].isupper() or rules.caption_start.match(text):
        return None
    if not closed and (not lead.bold or text[-1] in _RUNS_ON or not after[:1].isupper()):
        return None  # unclosed, only weight sets a heading apart, and a new sentence must follow it
    if not after[:1].isalpha():
        return None  # the text runs on as a sentence; a year or page after bold names is a reference
    if not _starts_paragraph(blocks, index) or not _under_a_body_heading(blocks, index, rules):
        return None
    text_words = len(rows[-1].text[lead.end :].split()) + sum(len(row.text.split()) for row in block.rows[whole + 1 :])
    return _Candidate(index, whole, lead, text, pdf_section_number(text) is not None, text_words, closed)


def _lead_rows(rows: tuple[Row, ...]) -> tuple[int, Lead | None]:
    """How many of `rows` are wholly in the lead's style, and the lead of the row where lighter text follows it."""
    first = rows[0].lead
    if first is None:
        return 0, None
    for whole, row in enumerate(rows[: _LEAD_MAX_WHOLE_ROWS + 1]):
        lead = row.lead
        if lead is None or (lead.bold, lead.italic) != (first.bold, first.italic):
            return 0, None
        if lead.end < len(row.text):
            return whole, lead
    return 0, None


def _starts_paragraph(blocks: list[PdfBlock], index: int) -> bool:
    """Whether the block opens a paragraph rather than carrying on one that a column or page end
    cut, which `join_continuations` joins later: the text before it ends a sentence."""
    before = next((block for block in reversed(blocks[:index]) if block.kind in (BlockKind.paragraph, BlockKind.list, BlockKind.heading)), None)
    return before is None or before.kind is BlockKind.heading or before.text[-1:] in TERMINAL


def _under_a_body_heading(blocks: list[PdfBlock], index: int, rules: RunInRules) -> bool:
    """Whether a heading below the title stands above the block and heads no meta section: before
    the first heading lie the title, authors and abstract, whose labels (`Background:`,
    `Keywords:`) head no section of the paper."""
    heading = next(
        (block for block in reversed(blocks[:index]) if block.kind is BlockKind.heading and block.level and block.level >= TOP_LEVEL),
        None,
    )
    return heading is not None and not rules.heads_meta(heading.text)


def _split(block: PdfBlock, candidate: _Candidate, level: int) -> list[PdfBlock]:
    """The heading block of the lead and the paragraph of the rest, the lead's last row split in two."""
    whole = candidate.whole_rows
    head, rest = split_row(block.rows[whole], candidate.lead)
    style = "bold" if candidate.lead.bold else "italic"
    closing = f"closed by '{candidate.text[-1]}'" if candidate.closed else "before a sentence that opens with a capital"
    evidence = (f"a run-in lead in {style}, {closing}, before its paragraph's text",)
    heading = PdfBlock(
        kind=BlockKind.heading, rows=(*block.rows[:whole], head), level=level,
        evidence=evidence + (("numbered",) if candidate.numbered else ()),
    )
    return [heading, replace(block, rows=(rest, *block.rows[whole + 1 :]))]


def split_row(row: Row, lead: Lead) -> tuple[Row, Row]:
    """`row` cut where `lead` (its own lead, or the opening part of it) ends: the lead's row, and
    the row of the text after it, which keeps the rest of the row's lead where the cut falls inside it."""
    head_text = row.text[: lead.end]
    tail = row.text[lead.end :]
    start = lead.end + len(tail) - len(tail.lstrip())
    rest_text = row.text[start:]
    x0, y0, x1, y1 = row.box if row.box is not None else (row.x0, row.y0, row.x1, row.y1)
    head = replace(
        row, x1=lead.x1, text=head_text, font=lead.font, bold=lead.bold, chars=_visible(head_text), cells=0,
        box=(x0, y0, lead.x1, y1), superscripts=tuple(r for r in row.superscripts if r[1] <= lead.end), lead=None,
    )
    rest = replace(
        row, x0=lead.rest_x0, text=rest_text, chars=_visible(rest_text), box=(lead.rest_x0, y0, x1, y1),
        superscripts=tuple((a - start, b - start) for a, b in row.superscripts if a >= start),
        lead=replace(row.lead, end=row.lead.end - start) if row.lead is not None and row.lead.end > start else None,
    )
    return head, rest


def _visible(text: str) -> int:
    return sum(not character.isspace() for character in text)
