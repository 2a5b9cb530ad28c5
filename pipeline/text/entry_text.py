"""How a bibliography entry's text reads: its list marker and label, the number it starts with,
whether it opens with an author's name, and the year and DOI it prints. The PDF reader finds a
bibliography's heading by the entry under it (`pipeline/extract/pdf/bibliography_heading.py`),
the chunk stage reads entries off the page (`pipeline/bibliography/`), and the link stage reads
each entry's fields (`pipeline/link/references.py`), all with these, so that every stage agrees
on what an entry shows. Here, in the rank every stage may import, rather than in one stage's
package, for that reason."""

from __future__ import annotations

import re

from pipeline.rules.sources import ReferenceRules
from pipeline.text.list_markers import BULLET_CLASS

# An item's number has at most three digits: `2008. Patterns of …` is an entry's year, carried
# over from the paragraph before.
_LIST_MARKER = re.compile(rf"[ \t]*(?:{BULLET_CLASS}|(?P<number>\d{{1,3}})[.)])[ \t]+")
# A DOI the PDF broke at a line's end after a `/` or a `-` (`10.1037// 1089-2680.5.4.323`) goes
# on after the space normalize joined the lines with: no DOI ends in either. One broken after a
# `.` is left at the break, which a sentence's end cannot be told from.
DOI = re.compile(r"\b10\.\d{4,9}/[^\s\"<>]+(?:(?<=[/-]) [^\s\"<>]+)*")
_AFTER_DOI = ".,;)]*_'\"’”"
"""Characters that end a sentence, a bracket, emphasis or a quote after a DOI; no DOI ends in one."""
# A year stands alone: not part of an arXiv number (`1908.04729`), a DOI, pages or an ISSN. What
# comes before it is looked at once its first two digits are read (`..`), so that the pattern
# starts with them and `re` skips ahead to each `1` or `2`: a look-behind first, it would try
# every position of every entry.
YEAR = re.compile(r"(?P<year>(?:1[89]|20)(?<![\d./:-]..)\d\d)(?P<letter>[a-z])?(?![\d]|[./-]\d)")
# A capital, as the rules' `first_author` has it: one of Latin's, accented ones included.
_CAPITAL = "[A-ZÀ-ÖØ-ÞĆČĐŁŃŘŚŠŞŢŽŹŻ]"
# A name before the year, as an author that is one word or an organisation prints it: `OpenAI. 2023.`
NAME_AND_YEAR = re.compile(
    rf"^(?P<name>{_CAPITAL}[\w&.'’´¨˘ˆ˜ˇ˚`-]*(?:\s+{_CAPITAL}[\w&.'’´¨˘ˆ˜ˇ˚`-]*){{0,5}})[.,]?\s+\(?(?:1[89]|20)\d\d"
)
# Markup a converter wraps around an entry's start, which is no part of its author.
_LEADING_MARKUP = re.compile(r"[\s*_`]+")


def printed_doi(printed: str) -> str:
    """A DOI as `DOI` finds it printed, without the spaces of its line breaks and the
    punctuation after it: a sentence's, a bracket's, the emphasis or quotes closed after it, or
    the target of a Markdown link whose text it is (`[10.1/x](https://doi.org/10.1/x)`)."""
    return printed.replace(" ", "").split("](")[0].rstrip(_AFTER_DOI)


def without_leading_markup(text: str) -> str:
    # A match and a slice: `sub` costs twice as much, and this runs several times an entry.
    markup = _LEADING_MARKUP.match(text)
    return text[markup.end() :] if markup else text


def title_key(text: str) -> str:
    """A title as it is looked for: lower case, letters and digits only, so that a title broken
    at a line's end with a hyphen, or spaced otherwise, still matches."""
    return "".join(filter(str.isalnum, text.casefold()))


def starts_entry(item: str, references: ReferenceRules) -> bool:
    """Whether an item starts with an author's name (`Smith, J.`, `Oren Etzioni.`), or with a
    name and the year (`OpenAI. 2023.`, `R Core Team. 2020.`)."""
    body = entry_body(item, references)
    return references.first_author.match(body) is not None or NAME_AND_YEAR.match(body) is not None


def entry_number(label: str | None, item: str, numbered: re.Pattern[str]) -> int | None:
    """The number an entry starts with: its label, or one printed without brackets (`(12)`, `12`)."""
    if label is not None:
        return int(label) if label.isdecimal() else None  # `[²]`: a digit to `isdigit`, and no number to `int`
    match = numbered.match(without_leading_markup(item))
    return int(match["label"]) if match else None


def reads_as_entry(item: str, references: ReferenceRules) -> bool:
    """An item that prints a label or starts with an author's name, and shows a year. A number
    printed without brackets before the name counts with it (`(1) Smith, J. A.;`, as chemistry
    journals print their entries, `1 A. Smith,`): alone, such a number could open any line."""
    body = entry_body(item, references)
    number = references.numbered.match(body)
    named = (
        entry_label(item, references) is not None
        or references.first_author.match(body) is not None
        or (number is not None and references.first_author.match(body[number.end() :]) is not None)
    )
    return named and YEAR.search(body[: references.year_within]) is not None


def without_marker(item: str) -> tuple[str, str | None]:
    marker = _LIST_MARKER.match(item)
    if marker is None:
        return item, None
    return item[marker.end() :], marker["number"]


def entry_label(item: str, references: ReferenceRules) -> str | None:
    rest, number = without_marker(item)
    label = references.label.match(without_leading_markup(rest))
    if label is not None:
        return label["label"]
    return number


def carries_on(item: str, references: ReferenceRules) -> bool:
    """Whether a paragraph continues the entry before it rather than starting one."""
    rest, number = without_marker(item)
    return number is None and rest == item and not references.label.match(rest) and rest[:1].islower()


def entry_body(written: str, references: ReferenceRules) -> str:
    """The entry without its list marker, its label and the markup around them."""
    rest, _ = without_marker(written)
    rest = without_leading_markup(rest)
    label = references.label.match(rest)
    return without_leading_markup(rest[label.end() :] if label else rest)
