"""The text the search index reads of a paper: its own, with the numbers that only point into its
bibliography blanked, so that `IL-6` does not find a chunk by its `[6]` or by the bibliography's
sixth entry."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only named in hints: the search imports this module, and needs no records
    from pipeline.records.chunked import ChunkedDocument

# An entry's own number where it starts the entry, after at most a bullet, a bracket and markup
# around it: `6.`, `[6]`, `(6)`, `- **[6]**`.
_ENTRY_NUMBER = re.compile(r"[\W_]{0,8}?(?P<number>\d+)(?!\d)")


def text_to_index(chunked: ChunkedDocument) -> str:
    """`chunked.document.text` with a space for every character of a numeric citation marker that
    names an entry (`[6]`, `[3–5]`, a superscript `6`), and of each numbered entry's own number:
    as long as the text, so that every offset into it holds. A marker that names no entry is left
    as written: it may be no marker (`x[6]` in a paper whose bibliography is not numbered)."""
    text = chunked.document.text
    spans = _marker_spans(chunked) + _entry_number_spans(chunked)
    if not spans:
        return text
    pieces, at = [], 0
    for start, end in sorted(spans):
        start = max(start, at)
        if start < end:
            pieces += [text[at:start], " " * (end - start)]
            at = end
    pieces.append(text[at:])
    return "".join(pieces)


def _marker_spans(chunked: ChunkedDocument) -> list[tuple[int, int]]:
    """Where the numeric markers that name an entry sit in the document text. An author–year
    marker (`Smith et al., 2020`) names its author, which is worth finding, and stays."""
    chunk_start = {chunk.chunk_id: chunk.char_start for chunk in chunked.chunks}
    return [
        (chunk_start[citation.chunk_id] + citation.char_start, chunk_start[citation.chunk_id] + citation.char_end)
        for citation in chunked.citations
        if citation.ref_id is not None and not any(character.isalpha() for character in citation.marker)
    ]


def _entry_number_spans(chunked: ChunkedDocument) -> list[tuple[int, int]]:
    """Where each entry labelled with a number prints that number, at its start."""
    text = chunked.document.text
    spans = []
    for reference in chunked.references:
        if not (reference.label and reference.label.isdecimal()):
            continue
        number = _ENTRY_NUMBER.match(text, reference.char_start, reference.char_end)
        if number is not None and number["number"] == reference.label:
            spans.append(number.span("number"))
    return spans
