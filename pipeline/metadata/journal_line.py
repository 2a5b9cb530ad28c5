"""The line where page 1 cites its own paper: the journal, the year and the volume, in one of the
forms `[metadata.journal_lines]` names (`BMC Genomics (2015) 16:413`, `J Clin Exp Dent.
2016;8(3):e230-5`). A running head opens it with a page number or `Name et al.`, left out."""

from __future__ import annotations

import re
from typing import NamedTuple

from pipeline.metadata.pdf_front import page_text
from pipeline.records.extract import FrontLine
from pipeline.rules.metadata import MetadataRules

_RUNNING_HEAD = re.compile(r"^(?:\d{1,5}\s+)?(?:.{0,60}?\bet al\.?\s+)?", re.IGNORECASE)
"""What a running head prints before the journal: a page number, the first author `et al.`."""


class JournalLine(NamedTuple):
    journal: str
    year: int
    volume: str


def journal_line(lines: list[FrontLine], year: int | None, rules: MetadataRules) -> JournalLine | None:
    """The first row of page 1 that one of the forms reads, whose year is the paper's `year`: a
    sentence that opens like a journal line (`We found in 2019, 12, …`) gives another year, or
    a paper with no year found has nothing to confirm it by."""
    if year is None:
        return None
    for text in page_text(lines):
        row = text[_RUNNING_HEAD.match(text).end() :]
        for form in rules.journal_lines:
            match = form.pattern.match(row)
            if match and int(match["year"]) == year:
                return JournalLine(" ".join(match["journal"].split()).strip(" .,"), year, match["volume"])
    return None
