"""Search by paragraph: small units find, their parent chunks cite.

Each hit is one paragraph of the `paragraphs` table (`S2-P1`), ranked by BM25 over its section's
heading path and its text (`paragraph_postings`), and carries the chunk that holds it, so that a
caller retrieves paragraphs and cites, or expands to, the chunk ("parent document" retrieval).
A window adds the paragraphs on either side of it within the same section.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb

from pipeline.index.search import Unit, UnitFilters, rank_units, sql_literal
from pipeline.index.snippets import Snippet, snippet
from pipeline.index.terms import TermCounter
from pipeline.rules import SearchRules

# The winners' rows by their keys written in as constants, as `search` fetches chunks.
_HIT_DETAILS = """
SELECT p.paragraph_key, p.doc_id, p.paragraph_id, p.section_id, p.chunk_id, p.section_type, p.kind, p.char_start, p.char_end,
       p.line_start, p.line_end, p.page_start, p.page_end, p.word_count, s.heading_path
FROM paragraphs p JOIN sections s ON s.doc_id = p.doc_id AND s.section_id = p.section_id
WHERE p.paragraph_key IN ({keys})
"""
_HIT_DOCUMENTS = "SELECT doc_id, path, text FROM documents WHERE doc_id IN (SELECT unnest(?::VARCHAR[]))"
# Every paragraph of the hits' sections, in text order, to take a window from.
_SECTION_PARAGRAPHS = """
SELECT doc_id, section_id, paragraph_id, kind, char_start, char_end, line_start, line_end, page_start, page_end, word_count
FROM paragraphs
WHERE doc_id IN (SELECT unnest(?::VARCHAR[])) AND section_id IN (SELECT unnest(?::VARCHAR[]))
ORDER BY doc_id, section_id, char_start
"""


@dataclass(frozen=True)
class ParagraphSpan:
    """A paragraph of the paper and where it sits: lines (Markdown) or pages, and the offsets of
    its text in its paper's `documents.text`."""

    paragraph_id: str
    kind: str
    char_start: int
    char_end: int
    line_start: int | None
    line_end: int | None
    page_start: int | None
    page_end: int | None
    word_count: int
    text: str

    def as_json(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class ParagraphHit:
    """A ranked paragraph, the chunk it belongs to, and its window."""

    paragraph_key: str
    """`{doc_id}:{paragraph_id}`: the paragraph's id across papers."""
    doc_id: str
    path: str
    section_id: str
    chunk_id: str | None
    """The parent chunk, which holds the paragraph's start; what a citation points to."""
    heading_path: list[str]
    section_type: str
    score: float
    snippet: Snippet
    paragraph: ParagraphSpan
    window: list[ParagraphSpan] = field(default_factory=list)
    """The neighbouring paragraphs of the same section, before and after it, in text order."""
    matched_by: str | None = None
    """What found it, with --mode vector or hybrid: `words` (BM25), `vector`, or `words+vector`."""

    @property
    def text(self) -> str:
        return self.paragraph.text

    def context(self) -> list[ParagraphSpan]:
        """The paragraph and its window, in text order."""
        return sorted([self.paragraph, *self.window], key=lambda span: span.char_start)

    def as_json(self) -> dict:
        """The hit for machines: the paragraph, where it sits (`source`), its parent chunk and its window."""
        span = self.paragraph
        return {
            "id": self.paragraph_key,
            "paragraph_id": span.paragraph_id,
            "score": self.score,
            "section_type": self.section_type,
            "heading_path": self.heading_path,
            **self.snippet.as_json(),
            "text": span.text,
            "source": {
                "doc_id": self.doc_id, "path": self.path, "section_id": self.section_id, "paragraph_id": span.paragraph_id,
                "parent_chunk_id": self.chunk_id, "kind": span.kind, "page_start": span.page_start, "page_end": span.page_end,
                "line_start": span.line_start, "line_end": span.line_end, "char_start": span.char_start, "char_end": span.char_end,
            },
            "window": [neighbour.as_json() for neighbour in self.window],
            **({"matched_by": self.matched_by} if self.matched_by else {}),
        }


def search_paragraphs(
    connection: duckdb.DuckDBPyConnection,
    query: str,
    filters: UnitFilters = UnitFilters(),
    limit: int = 10,
    spelling: SearchRules | None = None,
    window: int = 0,
) -> list[ParagraphHit]:
    """BM25-ranked paragraphs for `query`, as `search` ranks chunks (same filters, spellings and
    phrases), each with its parent chunk and the `window` paragraphs on either side of it in its
    section."""
    hits = rank_units(connection, query, Unit.paragraph, filters, limit, spelling, read_paragraph_hits)
    return with_windows(connection, hits, window) if window and hits else hits


def read_paragraph_hits(
    connection: duckdb.DuckDBPyConnection, ranked: Sequence[tuple], stems: set[str], counter: TermCounter
) -> list[ParagraphHit]:
    """The ranked paragraphs' rows, their texts sliced from their papers', with snippets."""
    if not ranked:
        return []
    keys = ", ".join(sql_literal(key) for key, _ in ranked)
    details = {row[0]: row for row in connection.execute(_HIT_DETAILS.replace("{keys}", keys)).fetchall()}
    documents = {
        doc_id: (path, text)
        for doc_id, path, text in connection.execute(_HIT_DOCUMENTS, [sorted({row[1] for row in details.values()})]).fetchall()
    }
    hits = []
    for key, score in ranked:
        (_, doc_id, paragraph_id, section_id, chunk_id, section_type, kind, start, end, line_start, line_end, page_start,
         page_end, word_count, heading_path) = details[key]
        path, paper = documents[doc_id]
        text = paper[start:end]
        span = ParagraphSpan(paragraph_id, kind, start, end, line_start, line_end, page_start, page_end, word_count, text)
        hits.append(
            ParagraphHit(key, doc_id, path, section_id, chunk_id, heading_path, section_type, score, snippet(text, stems, counter), span)
        )
    return hits


def with_windows(connection: duckdb.DuckDBPyConnection, hits: list[ParagraphHit], window: int) -> list[ParagraphHit]:
    """The hits, each with up to `window` paragraphs of its section before it and after it."""
    doc_ids = sorted({hit.doc_id for hit in hits})
    section_ids = sorted({hit.section_id for hit in hits})
    texts = dict(connection.execute("SELECT doc_id, text FROM documents WHERE doc_id IN (SELECT unnest(?::VARCHAR[]))", [doc_ids]).fetchall())
    by_section: dict[tuple[str, str], list[ParagraphSpan]] = {}
    for doc_id, section_id, paragraph_id, kind, start, end, *where, word_count in connection.execute(
        _SECTION_PARAGRAPHS, [doc_ids, section_ids]
    ).fetchall():
        span = ParagraphSpan(paragraph_id, kind, start, end, *where, word_count, texts[doc_id][start:end])
        by_section.setdefault((doc_id, section_id), []).append(span)
    widened = []
    for hit in hits:
        section = by_section.get((hit.doc_id, hit.section_id), [])
        position = next(index for index, span in enumerate(section) if span.paragraph_id == hit.paragraph.paragraph_id)
        neighbours = section[max(0, position - window) : position] + section[position + 1 : position + 1 + window]
        widened.append(ParagraphHit(**{**hit.__dict__, "window": neighbours}))
    return widened
