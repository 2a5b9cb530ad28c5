"""Top-level headings set on the line of what follows them: a section's name in bold capitals, then
on the same baseline its first sub-heading in bold, its text, or both (`METHODS Search strategy We
searched…`, `RESULTS Search results`, `DISCUSSION Our findings…`).

`split_shared_lines` cuts such a line where the capitals end, and again where a bold sub-heading
after them ends, into rows of their own (`run_in.split_row`, each part keeping its box), and
marks the parts as headings before typography reads the others: the section at the top level, the
sub-heading one below. Marked first, their styles fix the levels of the headings set alone in the
same styles, as the outline's do. Capitals that open a line are often an acronym or emphasis; only
the name of a section that opens a paper's part (an anchor rule's, `Methods`, `Results`) is taken.
"""

from __future__ import annotations

from dataclasses import replace

from pipeline.extract.pdf.heading_styles import without_numbering
from pipeline.extract.pdf.headings import TOP_LEVEL
from pipeline.extract.pdf.records import Layout, Lead, PdfBlock, Row
from pipeline.extract.pdf.typography import SAME_SIZE
from pipeline.extract.pdf.run_in import RunInRules, split_row
from pipeline.text.numbering import pdf_section_number
from pipeline.records.base import BlockKind

_CAPITALS_MIN_LETTERS = 4
"""Letters of a section's name in capitals: fewer (`DNA`, `PCR`) is an acronym opening a sentence."""
_LABEL_CLOSING = ".:"
"""Capitals closed by a full stop or colon are a run-in label (`KEYWORDS:`), not a heading set apart."""


def split_shared_lines(blocks: list[PdfBlock], layout: Layout, rules: RunInRules) -> list[PdfBlock]:
    """The blocks with every block whose first line opens with a section's name in bold capitals,
    other text following on the line, cut into that heading, the bold sub-heading after it if
    any, and the rest."""
    result: list[PdfBlock] = []
    for block in blocks:
        result.extend(_split(block, layout, rules))
    return result


def _split(block: PdfBlock, layout: Layout, rules: RunInRules) -> list[PdfBlock]:
    row = block.rows[0]
    lead = row.lead
    if block.kind is not BlockKind.paragraph or lead is None or not lead.bold or row.aside or row.rotated:
        return [block]
    if row.size < (1 - SAME_SIZE) * layout.body_size:
        return [block]
    end = _capitals_end(row.text, lead)
    if end is None or not rules.names_section(row.text[:end]):
        return [block]
    name, rest = split_row(row, _cut(row, lead, end))
    heading = PdfBlock(
        kind=BlockKind.heading, rows=(name,), level=TOP_LEVEL,
        evidence=("a section's name in bold capitals, set on the line of what follows it",)
        + (("numbered",) if pdf_section_number(name.text) else ()),
    )
    parts = [heading]
    sub = rest.lead
    if sub is not None and sub.bold and not rules.heads_meta(name.text) and _reads_as_heading(rest.text[: sub.end], rules):
        if sub.end < len(rest.text):
            sub_row, rest = split_row(rest, sub)
            parts.append(_sub_heading((sub_row,)))
        else:
            parts.append(_sub_heading((rest, *block.rows[1:])))
            return parts
    return [*parts, replace(block, rows=(rest, *block.rows[1:]))]


def _sub_heading(rows: tuple[Row, ...]) -> PdfBlock:
    return PdfBlock(
        kind=BlockKind.heading, rows=rows, level=TOP_LEVEL + 1,
        evidence=("in bold after a section's name on its line",),
    )


def _capitals_end(text: str, lead: Lead) -> int | None:
    """Where the run of words in capitals that opens the line (its numbering aside) ends, if it
    lies within the bold lead, has a name's letters, and text follows it on the line."""
    start = len(text) - len(without_numbering(text))
    end = start
    for word in text[start:].split(" "):
        if not any(ch.isalpha() for ch in word) or word.upper() != word:
            break
        end += len(word) + 1
    end = max(start, end - 1)
    if end <= start or end > lead.end or end >= len(text) or text[end - 1] in _LABEL_CLOSING:
        return None  # `KEYWORDS:` labels what follows it; the run-in pass reads such labels
    if sum(ch.isalpha() for ch in text[start:end]) < _CAPITALS_MIN_LETTERS or not text[end:].lstrip()[:1].isalnum():
        return None  # a remark in brackets after a name (`(online only)`) is no text of its section
    return end


def _cut(row: Row, lead: Lead, end: int) -> Lead:
    """The lead cut at `end` characters. Inside the lead, where the line's spans say nothing, the
    place along the line is the share of the lead's characters before it."""
    if end == lead.end:
        return lead
    advance = (lead.x1 - row.x0) / lead.end
    start = end + len(row.text[end:]) - len(row.text[end:].lstrip())
    return replace(lead, end=end, x1=row.x0 + end * advance, rest_x0=row.x0 + start * advance)


def _reads_as_heading(text: str, rules: RunInRules) -> bool:
    """Whether a bold run after a section's name reads as a sub-heading: a few words that start
    with a capital and are no sentence's opening clause."""
    words = without_numbering(text).split()
    return 1 <= len(words) <= rules.max_words and words[0][:1].isupper() and text[-1] not in ",;"
