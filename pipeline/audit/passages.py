"""The passages a page cites, read from the database with where each comes from, and for an id
no chunk has, what the database holds instead (never a guess taken in its place)."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from pipeline.audit.glossary import defined_abbreviations, used_in
from pipeline.audit.records import Abbreviation, ParagraphPlace, Passage

_PASSAGES = """
SELECT c.chunk_id, d.path, d.title, c.heading_path, c.section_type, c.text, c.line_start, c.line_end, c.page_start, c.page_end, c.char_start
FROM chunks c JOIN documents d USING (doc_id)
WHERE c.chunk_id IN (SELECT unnest(?::VARCHAR[]))
"""
# A chunk's paragraphs are those whose text lies inside the chunk's (a soft split cuts between
# paragraphs, never inside one).
_PARAGRAPHS = """
SELECT c.chunk_id, p.paragraph_id, p.char_start, p.char_end, p.line_start, p.line_end, p.page_start, p.page_end
FROM chunks c JOIN paragraphs p ON p.doc_id = c.doc_id AND p.char_start < c.char_end AND p.char_end > c.char_start
WHERE c.chunk_id IN (SELECT unnest(?::VARCHAR[]))
ORDER BY c.chunk_id, p.char_start
"""
# The whole text of each cited paper, for the abbreviations it defines.
_PAPER_TEXTS = """
SELECT DISTINCT c.chunk_id, d.doc_id, d.text FROM chunks c JOIN documents d USING (doc_id)
WHERE c.chunk_id IN (SELECT unnest(?::VARCHAR[]))
"""
_PAPERS = "SELECT doc_id, max(ordinal) FROM chunks WHERE doc_id IN (SELECT unnest(?::VARCHAR[])) OR starts_with(doc_id, ?) GROUP BY doc_id"


@dataclass(frozen=True)
class CitedPassages:
    found: dict[str, Passage]
    unknown: dict[str, str]
    """Each id no chunk has, and what the database holds instead, in words."""


def read_passages(connection: duckdb.DuckDBPyConnection, chunk_ids: list[str]) -> CitedPassages:
    """The stored chunks of `chunk_ids`, and why each of the others is not one."""
    found = {}
    ids = sorted(set(chunk_ids))
    places: dict[str, list[ParagraphPlace]] = {}
    for chunk_id, paragraph_id, char_start, char_end, line_start, line_end, page_start, page_end in connection.execute(_PARAGRAPHS, [ids]).fetchall():
        places.setdefault(chunk_id, []).append(ParagraphPlace(
            paragraph_id=paragraph_id, char_start=char_start, char_end=char_end, line_start=line_start,
            line_end=line_end, page_start=page_start, page_end=page_end,
        ))
    defined = _abbreviations_by_chunk(connection, ids)
    for chunk_id, path, title, heading_path, section_type, text, line_start, line_end, page_start, page_end, char_start in connection.execute(
        _PASSAGES, [ids]
    ).fetchall():
        found[chunk_id] = Passage(
            chunk_id=chunk_id, paper=path, title=title, heading_path=tuple(heading_path), section_type=section_type,
            text=text, line_start=line_start, line_end=line_end, page_start=page_start, page_end=page_end,
            char_start=char_start, paragraphs=tuple(places.get(chunk_id, ())),
            abbreviations=used_in(defined.get(chunk_id, []), text),
        )
    unknown = {chunk_id: _why_unknown(connection, chunk_id) for chunk_id in dict.fromkeys(chunk_ids) if chunk_id not in found}
    return CitedPassages(found, unknown)


def _abbreviations_by_chunk(connection: duckdb.DuckDBPyConnection, chunk_ids: list[str]) -> dict[str, list[Abbreviation]]:
    """For each chunk, the abbreviations its paper defines (each paper read once)."""
    rows = connection.execute(_PAPER_TEXTS, [chunk_ids]).fetchall()
    by_paper = {doc_id: defined_abbreviations(text or "") for doc_id, text in {doc_id: text for _, doc_id, text in rows}.items()}
    return {chunk_id: by_paper[doc_id] for chunk_id, doc_id, _ in rows}


def _why_unknown(connection: duckdb.DuckDBPyConnection, chunk_id: str) -> str:
    doc_id, _, ordinal = chunk_id.rpartition(":")
    papers = dict(connection.execute(_PAPERS, [[doc_id], doc_id + "."]).fetchall())
    if doc_id in papers:
        return f"no chunk {chunk_id}: paper {doc_id} has chunks 1 to {papers[doc_id]}"
    near = sorted(f"{other}:{ordinal}" for other, last in papers.items() if int(ordinal) <= last)
    if near:
        return f"no chunk {chunk_id}: no paper {doc_id} is stored (a doc_id is the path with its extension; did you mean {' or '.join(near)}?)"
    return f"no chunk {chunk_id}: no paper {doc_id} is stored; `pipeline sql \"SELECT DISTINCT doc_id FROM chunks\"` lists them"
