"""Following a search hit's citations into the papers of the folder they cite (`paper_links`):
for each paper a hit's markers cite that the folder holds, its chunk that best answers the same
query (its first chunk where none does). The cited paper's text is shown as the cited paper's,
apart from the hit's links inside its own paper: citing a paper is not reading it, and a reader
who follows the citation reads the cited paper's own words."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from pipeline.index.search import Unit, UnitFilters, rank_units, read_chunk_hits
from pipeline.rules import SearchRules

_CITED_PAPERS = """
SELECT cc.chunk_id, cc.marker, cc.ref_id, l.cited_doc_id, l.matched_by
FROM chunk_citations cc JOIN paper_links l ON l.doc_id = cc.doc_id AND l.ref_id = cc.ref_id
WHERE cc.chunk_id IN (SELECT unnest(?::VARCHAR[]))
ORDER BY cc.chunk_id, cc.char_start, l.cited_doc_id
"""
_FIRST_CHUNK = """
SELECT c.chunk_id, c.heading_path, c.section_type, d.path, d.title FROM chunks c JOIN documents d USING (doc_id)
WHERE c.doc_id = ? ORDER BY c.ordinal LIMIT 1
"""
_TITLE = "SELECT title FROM documents WHERE doc_id = ?"


@dataclass(frozen=True)
class CitedPaperChunk:
    """A chunk of a paper of the folder that a hit's citation names."""

    chunk_id: str
    """A chunk of the cited paper, not of the hit's."""
    doc_id: str
    """The cited paper."""
    title: str | None
    path: str
    heading_path: list[str]
    section_type: str
    cited_from: str
    """The hit's chunk, whose marker cites the paper."""
    marker: str
    ref_id: str
    matched_by: str
    """How the entry was found to be this paper: `doi`, or `title_year_author`."""
    best_for_query: bool
    """The cited paper's chunk that best answers the query; False where none does and its first
    chunk is shown."""

    @property
    def why(self) -> str:
        found = "its best chunk for the query" if self.best_for_query else "its first chunk (nothing in it matches the query)"
        return f'cited by {self.cited_from} as "{self.marker}" ({self.ref_id}, the same work by {self.matched_by}): {found}'


def cited_papers(
    connection: duckdb.DuckDBPyConnection, hits: list[str], query: str, spelling: SearchRules | None, limit: int
) -> dict[str, list[CitedPaperChunk]]:
    """For each hit chunk, a chunk of each paper of the folder its markers cite (at most `limit`,
    in the order the markers stand), each paper once a hit."""
    rows = connection.execute(_CITED_PAPERS, [hits]).fetchall()
    followed: dict[str, list[CitedPaperChunk]] = {hit: [] for hit in hits}
    seen: set[tuple[str, str]] = set()
    for hit, marker, ref_id, cited, matched_by in rows:
        if (hit, cited) in seen or len(followed[hit]) == limit:
            continue
        seen.add((hit, cited))
        best = rank_units(connection, query, Unit.chunk, UnitFilters(doc_id=cited), 1, spelling, read_chunk_hits)
        title = connection.execute(_TITLE, [cited]).fetchone()[0]
        if best:
            chunk = best[0]
            shown = (chunk.chunk_id, chunk.heading_path, chunk.section_type, chunk.path)
        else:
            first = connection.execute(_FIRST_CHUNK, [cited]).fetchone()
            if first is None:
                continue
            shown = first[:4]
        followed[hit].append(CitedPaperChunk(shown[0], cited, title, shown[3], shown[1], shown[2], hit, marker, ref_id, matched_by, bool(best)))
    return {hit: chunks for hit, chunks in followed.items() if chunks}
