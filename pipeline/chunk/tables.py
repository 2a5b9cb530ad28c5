"""Each table to the chunk of its caption, which becomes the table's own chunk (`section_type`
`table`): a user filters table chunks by type, a `Table 2` cross-reference, which leads to the
caption chunk, leads to the table, and the chunk's boxes take in the table's grid, so `show`
draws the table."""

from __future__ import annotations

import re

from pipeline.records.base import ChunkSplit, SectionType
from pipeline.records.chunks import Chunk
from pipeline.records.extract import Table

_EMPHASIS = re.compile(r"^[*_\s]+")
_LABEL_PARTS = re.compile(r"[\W_]+")


def _label_key(label: str) -> str:
    """`Table 2`, `TABLE 2.`, `Table-2`: compared without case, spaces or punctuation."""
    return _LABEL_PARTS.sub("", label).casefold()


def attach_tables(chunks: list[Chunk], tables: list[Table], caption: re.Pattern[str]) -> tuple[list[Chunk], list[Table]]:
    """The chunks with every table's caption chunk typed `table`, and the tables with the id of
    that chunk; a caption chunk serves the first table of its label, in order."""
    by_label: dict[str, list[int]] = {}
    for position, chunk in enumerate(chunks):
        if chunk.split is ChunkSplit.caption and (match := caption.match(_EMPHASIS.sub("", chunk.text))):
            by_label.setdefault(_label_key(match["label"]), []).append(position)
    chunks = list(chunks)
    attached = []
    for table in tables:
        positions = by_label.get(_label_key(table.label)) if table.label else None
        if not positions:
            attached.append(table)
            continue
        position = positions.pop(0)
        chunks[position] = chunks[position].model_copy(update={"section_type": SectionType.table})
        attached.append(table.model_copy(update={"chunk_id": chunks[position].chunk_id}))
    return chunks, attached

