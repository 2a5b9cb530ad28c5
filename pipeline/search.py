"""Search: BM25-ranked chunks from the postings `pipeline.index` keeps."""

from __future__ import annotations

import re
from dataclasses import dataclass

import duckdb

from pipeline.errors import IndexingError
from pipeline.index import SCHEMA_VERSION, stored_schema_version
from pipeline.terms import TermCounter

_WORD = re.compile(r"[^\W_]+")

# BM25 as DuckDB fts' match_bm25 scores it (k1 = 1.2, b = 0.75; document frequency, chunk count
# and mean length over every chunk), from the postings of the query's terms alone. Each term is
# written into the statement as a branch of its own, `term = '…'`: DuckDB pushes an equality into
# the scan and skips the row groups of other terms, while a bound list is not pushed down at all
# and an `IN` list only prunes by zone maps, then filters every row left (the ranking took 29 ms
# at the median, 53 ms at p95, with `IN`, 14 and 35 ms so, over 100,000 chunks). Texts are read
# last, for the winners alone.
_TERM_POSTINGS = "SELECT chunk_id, tf, count(*) OVER () AS df FROM chunk_postings WHERE term = {term}"
_RANKED_SEARCH = """
WITH stats AS (SELECT count(*) AS chunks, avg(term_count) AS mean_terms FROM chunks),
hits AS ({term_postings})
SELECT hits.chunk_id,
       sum(log((stats.chunks - hits.df + 0.5) / (hits.df + 0.5) + 1)
           * (hits.tf * (1.2 + 1) / (hits.tf + 1.2 * (1 - 0.75 + 0.75 * c.term_count / stats.mean_terms)))) AS score
FROM hits JOIN chunks c USING (chunk_id) CROSS JOIN stats
WHERE (? IS NULL OR c.section_type = ?) AND (? IS NULL OR c.doc_id = ?)
GROUP BY hits.chunk_id
ORDER BY score DESC, hits.chunk_id
LIMIT ?
"""
_HIT_DETAILS = """
SELECT c.chunk_id, c.doc_id, d.path, c.heading_path, c.section_type, c.line_start, c.line_end,
       c.page_start, c.page_end, c.text
FROM chunks c JOIN documents d USING (doc_id)
WHERE c.chunk_id IN (SELECT unnest(?::VARCHAR[]))
"""


@dataclass(frozen=True)
class SearchHit:
    chunk_id: str
    doc_id: str
    path: str
    heading_path: list[str]
    section_type: str
    line_start: int | None
    line_end: int | None
    page_start: int | None
    page_end: int | None
    score: float
    snippet: str


def _first_whole_word(lowered: str, words: list[str]) -> int | None:
    """Where the first of `words` occurs in `lowered` as a word of its own (`il` in `il-6`, never in `will`)."""
    positions = [
        match.start()
        for word in words
        if (match := re.search(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", lowered))
    ]
    return min(positions, default=None)


def _snippet(text: str, query: str, width: int = 220) -> str:
    """The text around the query's first occurrence: a whole query word (`IL-6`), else one of
    its parts (`IL`), else the text's start."""
    lowered, words = text.lower(), query.lower().split()
    found = _first_whole_word(lowered, words)
    if found is None:
        found = _first_whole_word(lowered, _WORD.findall(query.lower()))
    start = max(0, (found or 0) - width // 3)
    snippet = " ".join(text[start : start + width].split())
    return ("…" if start else "") + snippet + ("…" if start + width < len(text) else "")


def search(
    connection: duckdb.DuckDBPyConnection,
    query: str,
    section_type: str | None = None,
    doc_id: str | None = None,
    limit: int = 10,
) -> list[SearchHit]:
    """BM25-ranked chunks for `query`, optionally within one section type or one paper."""
    if stored_schema_version(connection) != SCHEMA_VERSION:
        raise IndexingError(
            "the database has no search index of this pipeline's version; run `pipeline ingest`, which rebuilds it"
        )
    terms = TermCounter().query_terms(query)
    if not terms:
        return []
    term_postings = " UNION ALL ".join(_TERM_POSTINGS.replace("{term}", "'" + term.replace("'", "''") + "'") for term in terms)
    statement = _RANKED_SEARCH.replace("{term_postings}", term_postings)
    ranked = connection.execute(statement, [section_type, section_type, doc_id, doc_id, limit]).fetchall()
    if not ranked:
        return []
    details = {row[0]: row for row in connection.execute(_HIT_DETAILS, [[chunk_id for chunk_id, _ in ranked]]).fetchall()}
    rows = [(*details[chunk_id][:9], score, details[chunk_id][9]) for chunk_id, score in ranked]
    return [SearchHit(*row[:10], snippet=_snippet(row[10], query)) for row in rows]
