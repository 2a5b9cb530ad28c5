"""Following a search hit's cross-references: the chunks it links to, breadth first, each chunk
once (so a cycle stops), within a depth and a count limit, and what the limits cut."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import duckdb

from pipeline.wording import counted

_LINKS_FROM = """
SELECT l.chunk_id, l.label, l.target_chunk_id, c.heading_path, c.section_type, d.path
FROM chunk_links l JOIN chunks c ON c.chunk_id = l.target_chunk_id JOIN documents d ON d.doc_id = c.doc_id
WHERE l.chunk_id IN (SELECT unnest(?::VARCHAR[])) AND l.target_chunk_id IS NOT NULL
ORDER BY l.chunk_id, l.char_start
"""


@dataclass(frozen=True)
class LinkedChunk:
    chunk_id: str
    linked_from: str
    label: str
    """The words that link to it, as written (`Table 2`)."""
    depth: int
    """1 for a chunk the hit links to, 2 for one that chunk links to, …"""
    heading_path: list[str]
    section_type: str
    path: str

    @property
    def why(self) -> str:
        return f'linked from {self.linked_from} by "{self.label}"'


@dataclass(frozen=True)
class Expansion:
    linked: list[LinkedChunk] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)
    """What a limit left out, and where, in words."""


def expand(connection: duckdb.DuckDBPyConnection, hits: list[str], depth: int, limit: int) -> dict[str, Expansion]:
    """For each hit in order, the chunks its links lead to. A chunk already shown (a hit, or linked
    from an earlier one) is not shown again."""
    seen = set(hits)
    expansions = {}
    for hit in hits:
        expansions[hit] = _breadth_first(connection, hit, seen, depth, limit)
    return expansions


def _breadth_first(connection: duckdb.DuckDBPyConnection, hit: str, seen: set[str], depth: int, limit: int) -> Expansion:
    linked: list[LinkedChunk] = []
    cut: list[str] = []
    queue = deque([(hit, 0)])
    while queue:
        chunk_id, level = queue.popleft()
        outgoing = [row for row in _links_from(connection, chunk_id) if row[2] not in seen]
        if outgoing and level == depth:
            cut.append(f"depth {depth} reached at {chunk_id}: {counted(len(outgoing), 'link')} from it not followed")
            continue
        for _, label, target, heading_path, section_type, path in outgoing:
            if target in seen:
                continue  # two links from one chunk to the same target
            if len(linked) == limit:
                cut.append(f"limit of {counted(limit, 'chunk')} reached at {chunk_id}: its link to {target} and any after it not followed")
                return Expansion(linked, cut)
            seen.add(target)
            linked.append(LinkedChunk(target, chunk_id, label, level + 1, heading_path, section_type, path))
            queue.append((target, level + 1))
    return Expansion(linked, cut)


def _links_from(connection: duckdb.DuckDBPyConnection, chunk_id: str) -> list[tuple]:
    return connection.execute(_LINKS_FROM, [[chunk_id]]).fetchall()
