"""The paper's own bibliography as records: each entry the chunk stage found (`EntrySpan`),
with where it sits and the label, DOI, year and first author it shows.

Nothing is looked up and nothing guessed: a field the entry does not show stays empty.
"""

from __future__ import annotations

from pipeline.link.matches import search
from pipeline.normalize.block_index import BlockIndex
from pipeline.records.chunked import EntrySpan
from pipeline.records.document import Document
from pipeline.records.links import Reference
from pipeline.rules import Rules
from pipeline.text.entry_text import DOI, NAME_AND_YEAR, YEAR, entry_body, printed_doi


def references(entries: list[EntrySpan], document: Document, index: BlockIndex, rules: Rules) -> list[Reference]:
    """The entries as records, with where they sit and what they show."""
    records = []
    for ordinal, entry in enumerate(entries, start=1):
        written = document.text[entry.char_start : entry.char_end]
        pages, line_start, line_end, _ = index.provenance(entry.char_start, entry.char_end)
        body = _without_number(entry_body(written, rules.references), entry.label, rules)
        doi = search(DOI, written)
        year = YEAR.search(body)
        records.append(
            Reference(
                ref_id=f"R{ordinal}",
                ordinal=ordinal,
                label=entry.label,
                text=written,
                char_start=entry.char_start,
                char_end=entry.char_end,
                line_start=line_start,
                line_end=line_end,
                page_start=pages[0] if pages else None,
                page_end=pages[-1] if pages else None,
                doi=printed_doi(doi.group()) if doi else None,
                year=(year["year"] + (year["letter"] or "")) if year else None,
                first_author=_first_author(body, rules),
            )
        )
    return records


def _without_number(body: str, label: str | None, rules: Rules) -> str:
    """An entry's body without the number a numbered bibliography prints before it unbracketed (`(12)`)."""
    number = rules.references.numbered.match(body) if label else None
    return body[number.end() :] if number and number["label"] == label else body


def _first_author(body: str, rules: Rules) -> str | None:
    """The first author as `[references] first_author` reads it, or else the name the entry
    prints alone before its year, as an organisation does (`OpenAI. 2023.`, `World Health
    Organization (2010)`), so that `(OpenAI, 2023)` finds it. Where initials stand inside that
    name (`Koenigswald Wv Braun A Pfeiffer T 2004`), it is several authors written without
    commas, and none is taken for the first."""
    match = rules.references.first_author.match(body)
    if match:
        return match["author"].strip()
    named = NAME_AND_YEAR.match(body)
    if named is None:
        return None
    words = named["name"].rstrip(".,").split()
    return None if any(word.isupper() and len(word) <= 3 for word in words[:-1]) else " ".join(words)
