"""Each table to the chunk of its caption, which becomes the table's own chunk (`section_type`
`table`): a user filters table chunks by type, a `Table 2` cross-reference, which leads to the
caption chunk, leads to the table, and the chunk's boxes take in the table's grid, so `show`
draws the table."""

from __future__ import annotations

import re

from pipeline.models import Chunk, ChunkBox, ChunkSplit, SectionType, Table

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


def with_table_boxes(boxes: list[ChunkBox], tables: list[Table]) -> list[ChunkBox]:
    """The chunks' boxes with each table's grid after its chunk's own (PDF only: Markdown has none)."""
    grids: dict[str, list[ChunkBox]] = {}
    for table in tables:
        if table.chunk_id is not None:
            grids.setdefault(table.chunk_id, []).extend(
                ChunkBox(chunk_id=table.chunk_id, **box.model_dump()) for box in table.boxes
            )
    if not grids:
        return boxes
    result: list[ChunkBox] = []
    for index, box in enumerate(boxes):
        result.append(box)
        if box.chunk_id in grids and (index + 1 == len(boxes) or boxes[index + 1].chunk_id != box.chunk_id):
            result.extend(grids.pop(box.chunk_id))
    return result + [box for grid in grids.values() for box in grid]
