"""Search: BM25-ranked chunks from the postings `pipeline.index.writer` keeps."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import duckdb

from pipeline.index.database import require_search_index
from pipeline.index.terms import TermCounter

# BM25 as DuckDB fts' match_bm25 scores it (k1 = 1.2, b = 0.75; document frequency, chunk count
# and mean length over every chunk), from the postings of the query's terms alone. Each term is
# written into the statement as a branch of its own, `term = '…'`: DuckDB pushes an equality into
# the scan and skips the row groups of other terms, while a bound list is not pushed down at all
# and an `IN` list only prunes by zone maps, then filters every row left (about twice as slow).
# Texts are read last, for the winners alone.
# Counts become DOUBLE before any arithmetic: with integers, DuckDB computes `df + 0.5` and the rest
# in DECIMAL, which is slower over the many postings of a common term.
_TERM_POSTINGS = "SELECT chunk_id, tf::DOUBLE AS tf, (count(*) OVER ())::DOUBLE AS df FROM chunk_postings WHERE term = {term}"
_RANKED_SEARCH = """
WITH stats AS (SELECT count(*)::DOUBLE AS chunks, avg(term_count) AS mean_terms FROM chunks),
hits AS ({term_postings})
SELECT hits.chunk_id,
       sum(log((stats.chunks - hits.df + 0.5) / (hits.df + 0.5) + 1)
           * (hits.tf * (1.2 + 1) / (hits.tf + 1.2 * (1 - 0.75 + 0.75 * c.term_count::DOUBLE / stats.mean_terms)))) AS score
FROM hits JOIN chunks c USING (chunk_id) CROSS JOIN stats
WHERE (? IS NULL OR c.section_type = ?) AND (? IS NULL OR c.doc_id = ?)
GROUP BY hits.chunk_id
ORDER BY score DESC, hits.chunk_id
LIMIT ?
"""
# The winners' rows, by their ids written in as constants: only a filter on constants against
# chunks alone is looked up in its index (`chunks_by_id`); joined to documents, or with the ids
# bound as a list, DuckDB scans thousands of rows of chunk text for them.
_HIT_DETAILS = """
SELECT chunk_id, doc_id, heading_path, section_type, line_start, line_end, page_start, page_end, text
FROM chunks WHERE chunk_id IN ({chunk_ids})
"""
_HIT_PATHS = "SELECT doc_id, path FROM documents WHERE doc_id IN (SELECT unnest(?::VARCHAR[]))"


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


def _snippet(text: str, terms: set[str], counter: TermCounter, width: int = 220) -> str:
    """About `width` characters of `text`, cut between words, around the stretch that holds the
    most of the query's terms as the index matched them: `routing` for a query's `routed`, never
    its `of`. The text's start where none occurs (a hit on the heading path alone)."""
    found = counter.find_terms(text, terms)
    start = _between_words(text, max(0, _most_varied_stretch(found, width * 2 // 3) - width // 4)) if found else 0
    end = len(text) if start + width >= len(text) else _between_words(text, start + width)
    snippet = " ".join(text[start:end].split())
    return ("…" if start else "") + snippet + ("…" if end < len(text) else "")


def _most_varied_stretch(found: list[tuple[int, str]], reach: int) -> int:
    """Where the stretch of `reach` characters that holds the most distinct terms begins (the
    earliest of equals): the offset of its first occurrence."""
    best_offset, best_distinct = found[0][0], 0
    in_stretch: Counter[str] = Counter()
    end = 0
    for offset, term in found:
        while end < len(found) and found[end][0] < offset + reach:
            in_stretch[found[end][1]] += 1
            end += 1
        if len(in_stretch) > best_distinct:
            best_offset, best_distinct = offset, len(in_stretch)
        in_stretch[term] -= 1
        if not in_stretch[term]:
            del in_stretch[term]
    return best_offset


# A word longer than this (a URL, a sequence) is cut where the width falls, not kept whole.
_LONGEST_KEPT_WORD = 40


def _between_words(text: str, position: int) -> int:
    """`position`, moved back to the start of the word it falls inside, if any."""
    for back in range(position, max(0, position - _LONGEST_KEPT_WORD) - 1, -1):
        if back == 0 or text[back - 1].isspace() or text[back].isspace():
            return back
    return position


def search(
    connection: duckdb.DuckDBPyConnection,
    query: str,
    section_type: str | None = None,
    doc_id: str | None = None,
    limit: int = 10,
) -> list[SearchHit]:
    """BM25-ranked chunks for `query`, optionally within one section type or one paper."""
    require_search_index(connection)
    counter = TermCounter()
    terms = counter.query_terms(query)
    if not terms:
        return []
    term_postings = " UNION ALL ".join(_TERM_POSTINGS.replace("{term}", _literal(term)) for term in terms)
    statement = _RANKED_SEARCH.replace("{term_postings}", term_postings)
    ranked = connection.execute(statement, [section_type, section_type, doc_id, doc_id, limit]).fetchall()
    if not ranked:
        return []
    query_terms = set(terms)
    chunk_ids = ", ".join(_literal(chunk_id) for chunk_id, _ in ranked)
    details = {row[0]: row for row in connection.execute(_HIT_DETAILS.replace("{chunk_ids}", chunk_ids)).fetchall()}
    paths = dict(connection.execute(_HIT_PATHS, [sorted({row[1] for row in details.values()})]).fetchall())
    hits = []
    for chunk_id, score in ranked:
        _, hit_doc_id, heading_path, hit_type, line_start, line_end, page_start, page_end, text = details[chunk_id]
        hits.append(
            SearchHit(
                chunk_id, hit_doc_id, paths[hit_doc_id], heading_path, hit_type,
                line_start, line_end, page_start, page_end, score, snippet=_snippet(text, query_terms, counter),
            )
        )
    return hits


def _literal(value: str) -> str:
    """A string as a SQL literal, quotes doubled."""
    return "'" + value.replace("'", "''") + "'"
