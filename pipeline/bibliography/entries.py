"""Where the paper's own bibliography's entries are: read off the blocks of its References
section (or of a list printed without a heading at the paper's end), each with the label it
prints. The chunk stage keeps each entry whole in one chunk; the link stage reads each entry's
fields (`pipeline/link/references.py`)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from pipeline.bibliography.hanging_indent import lines_at_margin, lines_ending_short
from pipeline.bibliography.lost_headings import ENTRY_KINDS, before_lost_heading, under_lost_heading
from pipeline.normalize.list_items import list_item_spans
from pipeline.records.base import BlockKind
from pipeline.records.chunked import EntrySpan
from pipeline.records.chunks import SectionNode
from pipeline.records.document import Block, Document
from pipeline.rules import Rules
from pipeline.rules.heading_matcher import HeadingMatcher
from pipeline.text.entry_text import (
    DOI,
    carries_on,
    entry_label,
    entry_number,
    printed_doi,
    reads_as_entry,
    starts_entry,
    title_key,
)

# How an entry cut off inside its author list ends: `Seckl, J. R. and`, `Breen,`, or inside a
# hyphenated name (`& El-` before `Naggar, S.A. 2017.`): no entry ends in a hyphen.
_UNFINISHED = re.compile(r"(?:[,;&]|\band|(?<=\w)-)\s*$")
_PARAGRAPH_BREAK = re.compile(r"(?<!\s)\s*\n\n\s*")
"""A blank line and the spaces about it, matched from where the spaces start (tried inside a long
run of spaces, each start would read it to its end)."""
_TITLE_KEY_LENGTH = 30
"""Letters and digits of the paper's title looked for in the back matter: enough that no entry's
text holds them by chance, few enough that a title the PDF reader broke off still matches."""


def bibliography_nodes(nodes: list[SectionNode], rules: Rules) -> list[SectionNode]:
    """The sections that hold the bibliography: those whose heading is one of the rules'
    bibliography anchors (`References`, `Bibliography`, `Literature cited`), sub-sections included."""
    found = []
    for top in nodes:
        for node in top.subtree():
            if node.anchor in rules.references.anchors and not any(node in chosen.subtree() for chosen in found):
                found.append(node)
    return found


def entry_spans(nodes: list[SectionNode], document: Document, rules: Rules, headings: HeadingMatcher) -> list[EntrySpan]:
    """The bibliography's entries in text order: a list's items, or a paragraph each; a paragraph
    that carries on the entry before it (a converter broke the entry at a blank line) joins it.
    A paper with no bibliography section may print one under a heading the PDF reader left as
    text (`under_lost_heading`), or end in one printed without a heading (`trailing_entries`)."""
    sections = bibliography_nodes(nodes, rules)
    blocks = sorted((block for node in sections for member in node.subtree() for block in member.body), key=lambda block: block.char_start)
    if blocks:
        blocks = [*before_lost_heading(blocks, document, headings), *continued_at_end(nodes, blocks, document, rules)]
    else:
        blocks = before_lost_heading(under_lost_heading(document, headings), document, headings)
        entries = _read_entries(blocks, document, rules, [blocks[0].char_start] if blocks else [])
        return entries if len(entries) >= rules.references.trailing_min_entries else trailing_entries(nodes, document, rules)
    # Where each bibliography section's text starts: a second one (a supplement's, a chapter's)
    # may number its entries from 1 again.
    return _read_entries(blocks, document, rules, sorted({node.body[0].char_start for node in sections if node.body}))


def _read_entries(blocks: list[Block], document: Document, rules: Rules, list_starts: list[int]) -> list[EntrySpan]:
    """The entries of the bibliography's `blocks`, each of its lists starting at one of `list_starts`."""
    text = document.text
    by_layout = by_hanging_indent(blocks, document, rules)
    if by_layout is not None:
        return before_own_citation(in_number_order(by_layout, document, rules, list_starts), document, list_starts)
    entries: list[EntrySpan] = []
    for block in blocks:
        for start, end in at_short_line_ends(block, one_a_line(block, _entry_ranges(block, text), document, rules), document, rules):
            item = text[start:end]
            if entries and carries_on(item, rules.references):
                entries[-1] = EntrySpan(entries[-1].char_start, end, entries[-1].label)
                continue
            entries.append(EntrySpan(start, end, entry_label(item, rules.references)))
    return before_own_citation(by_authors(in_number_order(entries, document, rules, list_starts), text, rules), document, list_starts)


def continued_at_end(nodes: list[SectionNode], blocks: list[Block], document: Document, rules: Rules) -> list[Block]:
    """The blocks that carry the bibliography (`blocks`) on under sections whose headings the PDF
    reader put after its first column (`ACKNOWLEDGMENTS` beside a bibliography that starts low on a
    page; `Consent for publication` set beside the entries, `Publisher's Note` still to come): of
    each section after it, the run of blocks that `_entry_run` reads as entries."""
    if not blocks:
        return []
    after = [member for node in nodes for member in node.subtree() if member.body and member.body[0].char_start >= blocks[-1].char_end]
    return [block for member in after for block in _entry_run(member.body, document, rules)]


def _entry_run(body: tuple[Block, ...], document: Document, rules: Rules) -> list[Block]:
    """`body` from its first block that reads as an entry to its last, where most do and at least
    `trailing_min_entries` do; else nothing. A block between two that reads as none
    (`acclimations and genetic diversity. Annu. Rev.`) is an entry's broken line."""
    text = document.text
    reads = [block.kind in ENTRY_KINDS and reads_as_entry(text[block.char_start : block.char_end], rules.references) for block in body]
    if sum(reads) < rules.references.trailing_min_entries:
        return []
    first, end = reads.index(True), len(reads) - reads[::-1].index(True)
    return list(body[first:end]) if 2 * sum(reads) > end - first else []


def by_hanging_indent(blocks: list[Block], document: Document, rules: Rules) -> list[EntrySpan] | None:
    """A PDF bibliography set with a hanging indent, cut into entries where a line starts at its
    column's margin (`lines_at_margin`), whatever paragraphs the PDF reader made of it; None
    where its layout shows no hanging indent, or where its lines at the margin start entries
    (a label or an author's name) no more often than its indented ones do (an indent that
    marks each entry's first line instead). A line at the margin that starts with neither
    carries on the entry before it: page furniture after the last entry, a DOI, a footnote's
    last line (`See Wang et al. (2020) for details.`), as `by_authors` joins such paragraphs."""
    text = document.text
    # A block with no letter or digit (a row of asterisks set between the columns) holds no
    # entry's text, and its line, alone far right of the column's, would pass for its margin.
    worded = [
        block for block in blocks if block.kind in ENTRY_KINDS and any(map(str.isalnum, text[block.char_start : block.char_end]))
    ]
    marked = lines_at_margin(worded, rules.references.hanging_indent)
    if marked is None:
        return None
    opening = [text[line.char_start : line.char_start + rules.references.year_within] for line, _ in marked]
    named = [entry_label(item, rules.references) is not None or starts_entry(item, rules.references) for item in opening]
    at_margin = [named_line for named_line, (_, margin) in zip(named, marked) if margin]
    indented = [named_line for named_line, (_, margin) in zip(named, marked) if not margin]
    if sum(at_margin) * len(indented) <= sum(indented) * len(at_margin):
        return None
    spans: list[list[int]] = []
    for (line, margin), named_line in zip(marked, named):
        if not spans or (margin and named_line):
            spans.append([line.char_start, line.char_end])
        else:
            spans[-1][1] = line.char_end
    return [EntrySpan(start, end, entry_label(text[start:end], rules.references)) for start, end in spans]


def one_a_line(block: Block, ranges: list[tuple[int, int]], document: Document, rules: Rules) -> list[tuple[int, int]]:
    """A paragraph of the bibliography set one entry a line (normalize joined its lines) as an
    entry a line: where every line of it reads as an entry (a label or an author's name first,
    and a year) and every line but the last ends a sentence. A line that carries an entry on
    (`Lee, K. (2020) Title.` after `Smith, J. and`) keeps the paragraph whole."""
    line_starts = _line_starts_inside(document, block.char_start, block.char_end)
    if not line_starts or block.kind is BlockKind.list or len(ranges) != 1:
        return ranges
    text = document.text
    bounds = [block.char_start, *line_starts, block.char_end]
    lines = [(bounds[index], len(text[: bounds[index + 1]].rstrip())) for index in range(len(bounds) - 1)]
    if all(reads_as_entry(text[start:end], rules.references) for start, end in lines) and all(
        text[end - 1 : end] in ".)" for _, end in lines[:-1]
    ):
        return lines
    return ranges


def at_short_line_ends(block: Block, ranges: list[tuple[int, int]], document: Document, rules: Rules) -> list[tuple[int, int]]:
    """A paragraph of a PDF bibliography set flush (no hanging indent) into which the PDF reader
    ran several entries, cut before each line that starts with an author's name after a line that
    ends short of its column's edge (`lines_ending_short`), where every piece then reads as an
    entry. A name after a line that reaches the edge carries the entry on (`… In: Biagioli, M.;`
    wrapped before `Lippman, A. Gaming the metrics`)."""
    if block.kind is not BlockKind.paragraph or len(ranges) != 1 or len(block.line_boxes) < 2:
        return ranges
    text, within = document.text, rules.references.year_within
    short = lines_ending_short(block.line_boxes, rules.references.hanging_indent)
    cuts = [
        line.char_start
        for ended, line in zip(short, block.line_boxes[1:])
        if ended and starts_entry(text[line.char_start : line.char_start + within], rules.references)
    ]
    bounds = [block.char_start, *cuts, block.char_end]
    pieces = [(bounds[index], len(text[: bounds[index + 1]].rstrip())) for index in range(len(bounds) - 1)]
    if len(pieces) > 1 and all(reads_as_entry(text[start:end], rules.references) for start, end in pieces):
        return pieces
    return ranges


def _line_starts_inside(document: Document, start: int, end: int) -> list[int]:
    """The line starts of `Document.line_starts` inside `(start, end)`."""
    starts = document.line_starts
    return starts[bisect.bisect_right(starts, start) : bisect.bisect_left(starts, end)]


def before_own_citation(entries: list[EntrySpan], document: Document, list_starts: list[int]) -> list[EntrySpan]:
    """The entries, the last of each bibliography section (`list_starts`) ending before a
    paragraph of it (not its first) that prints the paper's own title, or the DOI its front
    matter prints: the back matter after a bibliography (`Cite this article as: …`, a running
    head with the paper's DOI, the publisher's notices), which a paragraph that starts no entry
    had carried on. An entry that cites the paper's own earlier version prints the title in its
    first paragraph, and keeps it."""
    prints_own = _own_marks(document, min(_front_matter_end(document), entries[0].char_start)) if entries else None
    if prints_own is None:
        return entries
    text = document.text
    ends = [*(entry.char_start for entry in entries[1:]), len(text)]
    cut = []
    for entry, following_start in zip(entries, ends):
        if any(entry.char_start < start <= following_start for start in list_starts) or following_start == len(text):
            entry = _before_paragraph(entry, text, prints_own)
        cut.append(entry)
    return cut


def _own_marks(document: Document, front_end: int) -> Callable[[str], bool] | None:
    """Whether a text prints the paper's own title or a DOI its front matter (the text before
    `front_end`) prints, as the back matter after a bibliography does; None where the paper
    shows neither."""
    text = document.text
    title = title_key(document.title or "")[:_TITLE_KEY_LENGTH]
    own_dois = {printed_doi(printed) for printed in DOI.findall(text, 0, front_end)}
    if len(title) < _TITLE_KEY_LENGTH and not own_dois:
        return None

    def prints_own(printed: str) -> bool:
        return (len(title) == _TITLE_KEY_LENGTH and title in title_key(printed)) or any(doi in printed for doi in own_dois)

    return prints_own


def _front_matter_end(document: Document) -> int:
    """Where the paper's first section heading after its title starts (0 where it has none)."""
    return next((block.char_start for block in document.blocks if block.kind is BlockKind.heading and (block.level or 1) > 1), 0)


def _before_paragraph(entry: EntrySpan, text: str, ends_it: Callable[[str], bool]) -> EntrySpan:
    """`entry`, ending before its first paragraph after the first for which `ends_it` holds."""
    for paragraph in _PARAGRAPH_BREAK.finditer(text, entry.char_start, entry.char_end):
        following = text.find("\n\n", paragraph.end(), entry.char_end)
        if ends_it(text[paragraph.end() : following if following >= 0 else entry.char_end]):
            return EntrySpan(entry.char_start, paragraph.start(), entry.label)
    return entry


def in_number_order(entries: list[EntrySpan], document: Document, rules: Rules, list_starts: list[int] = ()) -> list[EntrySpan]:
    """A numbered bibliography's entries by their numbers: where the entries' numbers (`[12]`,
    `12.`, `(12)`, `12 `) run 1, 2, 3, … for most of them, an entry is cut where a line of it
    starts with the next number (entries set one a line, which normalize joined), and a
    paragraph that starts with no number of the run carries on the entry before it (an entry
    broken across a column or a page). Elsewhere the entries are left as they are.

    No entry carries on into another bibliography section (at one of `list_starts`, after the
    first): there, a supplement's or a chapter's list begins, which may number its entries from
    1 again."""
    numbered, text = rules.references.numbered, document.text
    pieces: list[tuple[EntrySpan, bool]] = []  # each with whether it starts an entry
    last = in_runs = 0
    sections_after = iter(list_starts[1:])
    next_section = next(sections_after, None)
    for entry in entries:
        number = entry_number(entry.label, text[entry.char_start : entry.char_end], numbered)
        start, label, in_run = entry.char_start, entry.label, number == last + 1
        new_section = next_section is not None and entry.char_start >= next_section
        while next_section is not None and entry.char_start >= next_section:
            next_section = next(sections_after, None)
        if new_section and number == 1:
            in_run = True
        if in_run:
            label, last, in_runs = str(number), number, in_runs + 1
        opens = in_run or new_section
        for line_start in _line_starts_inside(document, start, entry.char_end):
            line = text[line_start : entry.char_end]
            if entry_number(entry_label(line, rules.references), line, numbered) == last + 1:
                pieces.append((EntrySpan(start, len(text[:line_start].rstrip()), label), opens))
                start, label, opens, last, in_runs = line_start, str(last + 1), True, last + 1, in_runs + 1
        pieces.append((EntrySpan(start, entry.char_end, label), opens))
    if in_runs < 2 or 2 * in_runs < len(pieces):
        return entries
    ordered: list[EntrySpan] = []
    for piece, opens_entry in pieces:
        if not opens_entry and ordered:  # no number of the run: the entry before goes on here
            ordered[-1] = EntrySpan(ordered[-1].char_start, piece.char_end, ordered[-1].label)
        else:
            ordered.append(piece)
    return ordered


def by_authors(entries: list[EntrySpan], text: str, rules: Rules) -> list[EntrySpan]:
    """An author–year bibliography's entries by their authors: where most entries start with an
    author's name and most print no label, a paragraph that starts with no name (`The Galaxy
    platform: 2016 update.`, `2008. Patterns of …`, `MJ, Bickham JW, …`, the rest of an author
    list), or that follows an entry cut off inside its author list (`Smith, J. and`), carries on
    the entry before it; the PDF reader broke that entry where a line ended short."""
    starts = [entry.label is not None or starts_entry(text[entry.char_start : entry.char_end], rules.references) for entry in entries]
    if 2 * sum(entry.label is not None for entry in entries) >= len(entries) or 2 * sum(starts) <= len(entries):
        return entries
    joined: list[EntrySpan] = []
    for entry, starting in zip(entries, starts):
        if joined and (not starting or _UNFINISHED.search(text[joined[-1].char_start : joined[-1].char_end])):
            joined[-1] = EntrySpan(joined[-1].char_start, entry.char_end, None)
        else:
            joined.append(entry)
    return joined


def trailing_entries(nodes: list[SectionNode], document: Document, rules: Rules) -> list[EntrySpan]:
    """The run of entries that ends a paper whose bibliography has no heading (a heading the
    converter or the PDF reader lost, or a proceedings paper that prints none): the last blocks,
    read back from the end for as long as every item in them reads as an entry, kept only when
    the run holds enough entries that a closing list of findings cannot pass for it. Back matter after the run (`Cite this article as: …`
    and the publisher's notices after it: `_back_matter_start`) is read past. A block that opens
    with the end of an entry broken across a column, and one that prints the number before the
    run's first but breaks off before its year, belong to the run (`_carried_over`)."""
    text = document.text
    blocks = sorted((block for top in nodes for node in top.subtree() for block in node.body), key=lambda block: block.char_start)
    run: list[tuple[int, int]] = []
    first_number: int | None = None
    for block in reversed(blocks[: _back_matter_start(blocks, document, rules)]):
        if _beside_the_list(block, text, rules, bool(run)):
            continue
        ranges = _entries_of(block, text, rules)
        number = _number_at(text, ranges[0][0], rules) if ranges else None
        if not ranges:
            ranges, number = _carried_over(block, document, rules, first_number)
        if not ranges:
            break
        run[:0] = ranges
        first_number = number
    # A PDF's numbered list comes as a paragraph a column, its entries cut where a line starts
    # with the next number: it is counted by its entries, not by its paragraphs.
    entries = in_number_order([EntrySpan(start, end, entry_label(text[start:end], rules.references)) for start, end in run], document, rules)
    if len(entries) < rules.references.trailing_min_entries:
        return []
    return entries


def _beside_the_list(block: Block, text: str, rules: Rules, inside_run: bool) -> bool:
    """Whether the reverse walk of `trailing_entries` reads past `block`: an aside (a margin note,
    a side box), which stands beside the flow, or, after the last entry, a block shorter than an
    entry's opening (`year_within`) that reads as none (a journal line or a page's furniture
    printed in the margin)."""
    if block.kind is BlockKind.aside:
        return True
    written = text[block.char_start : block.char_end]
    return not inside_run and len(written) < rules.references.year_within and not reads_as_entry(written, rules.references)


def _number_at(text: str, start: int, rules: Rules) -> int | None:
    """The number of the entry that starts at `start`, if it prints one."""
    item = text[start : start + rules.references.year_within]
    return entry_number(entry_label(item, rules.references), item, rules.references.numbered)


def _carried_over(block: Block, document: Document, rules: Rules, next_number: int | None) -> tuple[list[tuple[int, int]], int | None]:
    """The block whole, with the number of the first entry it starts, where it belongs to a
    numbered run of entries though not every item of it reads as one: one of its lines starts a
    labelled entry (`(Amsterdam) 324, 30 (2009). [10] A. Milekhin, …`, the end of an entry broken
    across a column, then the next ones: `in_number_order` joins the end to its entry), or it
    prints the number before the run's first (`next_number`) and breaks off before its year
    (`[9] D. Tong, Quantum vortex strings: A review, Ann. Phys.`)."""
    text = document.text
    if block.kind not in ENTRY_KINDS:
        return [], None
    whole = [(block.char_start, block.char_end)]
    number = _number_at(text, block.char_start, rules)
    if next_number is not None and number is not None and number == next_number - 1:
        return whole, number
    for start in _line_starts_inside(document, block.char_start, block.char_end):
        item = text[start : block.char_end]
        if entry_label(item, rules.references) is not None and reads_as_entry(item, rules.references):
            return whole, _number_at(text, start, rules)
    return [], None


def _back_matter_start(blocks: list[Block], document: Document, rules: Rules) -> int:
    """The index in `blocks` of the last block that prints the paper's own title or DOI
    (`_own_marks`) with no entry after it, where the back matter starts; `len(blocks)` where
    there is none."""
    text, front_end = document.text, _front_matter_end(document)
    prints_own = _own_marks(document, front_end)
    if prints_own is None:
        return len(blocks)
    for index in range(len(blocks) - 1, -1, -1):
        block = blocks[index]
        if block.char_start < front_end:
            break
        if prints_own(text[block.char_start : block.char_end]):
            return index
        if _entries_of(block, text, rules):
            break  # an entry: the back matter, if any, lies after it
    return len(blocks)


def _entries_of(block: Block, text: str, rules: Rules) -> list[tuple[int, int]]:
    """The block's items (`_entry_ranges`) where every one reads as an entry, else none."""
    ranges = _entry_ranges(block, text)
    return ranges if ranges and all(reads_as_entry(text[start:end], rules.references) for start, end in ranges) else []


def _entry_ranges(block: Block, text: str) -> list[tuple[int, int]]:
    if block.kind == BlockKind.list:
        return list_item_spans(text, block.char_start, block.char_end)
    if block.kind in ENTRY_KINDS:
        return [(block.char_start, block.char_end)]
    return []  # a table, code or maths in a bibliography holds no entry the pipeline can read
