"""Search: BM25-ranked chunks from the postings `pipeline.index.writer` keeps."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import duckdb

from pipeline.index.database import require_search_index
from pipeline.index.query import ParsedQuery, parse_query, phrase_words
from pipeline.index.snippets import Snippet, snippet
from pipeline.index.terms import TermCounter
from pipeline.index.unit import Unit
from pipeline.rules import SearchRules

# BM25 as DuckDB fts' match_bm25 scores it (k1 = 1.2, b = 0.75; document frequency, chunk count
# and mean length over every chunk), from the postings of the query's terms alone. A query term's
# other spellings count as it: a chunk scores the best of them, once. Each stem is written into
# the statement as a branch of its own, `term = '…'`: DuckDB pushes an equality into the scan and
# skips the row groups of other terms, while a bound list is not pushed down at all and an `IN`
# list only prunes by zone maps, then filters every row left (about twice as slow). Texts are read
# last, for the winners alone.
# Counts become DOUBLE before any arithmetic: with integers, DuckDB computes `df + 0.5` and the rest
# in DECIMAL, which is slower over the many postings of a common term.
_TERM_POSTINGS = (
    "SELECT {key} AS unit_id, tf::DOUBLE AS tf, (count(*) OVER ())::DOUBLE AS df, {query_term} AS query_term "
    "FROM {postings} WHERE term = {term}"
)
_RANKED_SEARCH = """
WITH stats AS (SELECT count(*)::DOUBLE AS units, avg(term_count) AS mean_terms FROM {units}),
hits AS ({term_postings}),
per_term AS (
    SELECT hits.unit_id,
           max(log((stats.units - hits.df + 0.5) / (hits.df + 0.5) + 1)
               * (hits.tf * (1.2 + 1) / (hits.tf + 1.2 * (1 - 0.75 + 0.75 * c.term_count::DOUBLE / stats.mean_terms)))) AS score,
           hits.query_term
    FROM hits JOIN {units} c ON c.{key} = hits.unit_id CROSS JOIN stats
    WHERE (? IS NULL OR c.section_type = ?) AND (? IS NULL OR c.doc_id = ?) AND (? OR NOT c.in_bibliography)
    GROUP BY hits.unit_id, hits.query_term
)
SELECT unit_id, sum(score) AS score
FROM per_term
GROUP BY unit_id
{having}
ORDER BY score DESC, unit_id
LIMIT ? OFFSET ?
"""


# Each unit's table, its postings and the key both share.
_UNIT_TABLES = {Unit.chunk: ("chunks", "chunk_postings", "chunk_id"), Unit.paragraph: ("paragraphs", "paragraph_postings", "paragraph_key")}
# The winners' rows, by their ids written in as constants: only a filter on constants against
# chunks alone is looked up in its index (`chunks_by_id`); joined to documents, or with the ids
# bound as a list, DuckDB scans thousands of rows of chunk text for them.
_HIT_DETAILS = """
SELECT chunk_id, doc_id, heading_path, section_type, line_start, line_end, page_start, page_end, char_start, char_end, text,
       section_id, paragraph_ids, pages
FROM chunks WHERE chunk_id IN ({chunk_ids})
"""
# What each hit's markers cite, as the paper writes the entries: one row per chunk and entry.
_HIT_CITATIONS = """
SELECT DISTINCT c.chunk_id, b.ref_id, b.ordinal, b.label, b.text, b.doi
FROM chunk_citations c JOIN bibliography b ON b.doc_id = c.doc_id AND b.ref_id = c.ref_id
WHERE c.chunk_id IN (SELECT unnest(?::VARCHAR[]))
ORDER BY c.chunk_id, b.ordinal
"""
_HIT_PATHS = "SELECT doc_id, path FROM documents WHERE doc_id IN (SELECT unnest(?::VARCHAR[]))"
# Hits that a phrase must be checked in are read this many at a time, best first.
_PHRASE_CANDIDATES = 100


@dataclass(frozen=True)
class CitedReference:
    """An entry of the paper's own bibliography that a hit's markers cite, as the paper writes
    it: what the paper cites there, not a source anyone has read or checked."""

    ref_id: str
    label: str | None
    text: str
    doi: str | None


@dataclass(frozen=True)
class SearchHit:
    chunk_id: str
    doc_id: str
    path: str
    section_id: str
    paragraph_ids: list[str]
    heading_path: list[str]
    section_type: str
    line_start: int | None
    line_end: int | None
    page_start: int | None
    page_end: int | None
    pages: list[int]
    char_start: int
    """Offsets of the chunk's text in its paper's `documents.text`."""
    char_end: int
    score: float
    snippet: Snippet
    text: str
    cited_references: list[CitedReference]
    matched_by: str | None = None
    """What found it, with --mode vector or hybrid: `words` (BM25), `vector`, or `words+vector`."""

    def as_json(self) -> dict:
        """The hit for machines: where the text sits (`source`), apart from what the paper itself
        cites there (`cited_references`)."""
        return {
            "chunk_id": self.chunk_id,
            "score": self.score,
            "section_type": self.section_type,
            "heading_path": self.heading_path,
            **self.snippet.as_json(),
            "text": self.text,
            "source": {
                "chunk_id": self.chunk_id, "doc_id": self.doc_id, "path": self.path, "section_id": self.section_id,
                "paragraph_ids": self.paragraph_ids, "pages": self.pages, "line_start": self.line_start,
                "line_end": self.line_end, "char_start": self.char_start, "char_end": self.char_end,
            },
            "cited_references": [reference.__dict__ for reference in self.cited_references],
            **({"matched_by": self.matched_by} if self.matched_by else {}),
        }


def search(
    connection: duckdb.DuckDBPyConnection,
    query: str,
    section_type: str | None = None,
    doc_id: str | None = None,
    limit: int = 10,
    spelling: SearchRules | None = None,
    bibliography: bool = False,
) -> list[SearchHit]:
    """BM25-ranked chunks for `query`, optionally within one section type or one paper. With
    `spelling` (the rules' `[search]`), a term's other spellings count as it; a quoted phrase must
    occur as written, its words in order. The bibliography's chunks are left out unless
    `bibliography` is set or the section type asked for is `meta`."""
    filters = UnitFilters(section_type, doc_id, bibliography)
    return rank_units(connection, query, Unit.chunk, filters, limit, spelling, read_chunk_hits)


@dataclass(frozen=True)
class UnitFilters:
    """Which units a search may return: of one section type, of one paper; the bibliography's
    only where asked (or where the section type asked for is `meta`)."""

    section_type: str | None = None
    doc_id: str | None = None
    bibliography: bool = False

    def parameters(self) -> list:
        every = self.bibliography or self.section_type == "meta"
        return [self.section_type, self.section_type, self.doc_id, self.doc_id, every]


Hit = TypeVar("Hit")
# Reads the rows of ranked (unit id, score) pairs, given the query's stems to show in snippets.
HitReader = Callable[[duckdb.DuckDBPyConnection, Sequence[tuple], set[str], TermCounter], list[Hit]]


def rank_units(
    connection: duckdb.DuckDBPyConnection,
    query: str,
    unit: Unit,
    filters: UnitFilters,
    limit: int,
    spelling: SearchRules | None,
    read_hits: HitReader,
) -> list[Hit]:
    """The best `limit` units for `query` by BM25, read by `read_hits` (whose hits have a
    `heading_path` and a `text`, where quoted phrases are looked for)."""
    require_search_index(connection)
    counter = TermCounter()
    pairs, min_stem = (spelling.spelling, spelling.spelling_min_stem) if spelling else ((), 3)
    parsed = parse_query(query, counter, pairs, min_stem)
    if not parsed.terms:
        return []
    statement = _ranking_statement(parsed, unit)
    stems = {stem for term in parsed.terms for stem in term.stems}
    if not parsed.phrases:
        ranked = connection.execute(statement, [*filters.parameters(), limit, 0]).fetchall()
        return read_hits(connection, ranked, stems, counter)
    hits: list[Hit] = []
    offset = 0
    while len(hits) < limit:
        ranked = connection.execute(statement, [*filters.parameters(), _PHRASE_CANDIDATES, offset]).fetchall()
        hits.extend(hit for hit in read_hits(connection, ranked, stems, counter) if _holds_phrases(hit, parsed, counter))
        if len(ranked) < _PHRASE_CANDIDATES:
            break
        offset += _PHRASE_CANDIDATES
    return hits[:limit]


def index_terms_starting(connection: duckdb.DuckDBPyConnection, letter: str, shortest: int, longest: int) -> list[tuple[str, int]]:
    """The index's terms that start with `letter` and are `shortest` to `longest` characters
    long, each with the number of chunks it is in. The postings are in term order, so the range
    reads only the row groups that can hold it."""
    return connection.execute(
        "SELECT term, count(*) FROM chunk_postings WHERE term >= ? AND term < ? AND length(term) BETWEEN ? AND ? GROUP BY term",
        [letter, chr(ord(letter) + 1), shortest, longest],
    ).fetchall()


def why_nothing_matched(query: str, unit: Unit = Unit.chunk) -> str:
    """Why a search for `query` found nothing, in words, for the one who asked."""
    parsed = parse_query(query, TermCounter())
    if not parsed.words:
        return "it holds no word the index could look for (letters or digits)"
    if parsed.all_stopwords:
        return f"every word of it ({', '.join(dict.fromkeys(parsed.words))}) is too common to be indexed"
    if parsed.phrases:
        return f"no {unit.value} holds its words, or none holds its quoted phrases as written"
    return f"no {unit.value} holds any of its words"


def _ranking_statement(parsed: ParsedQuery, unit: Unit) -> str:
    units, postings, key = _UNIT_TABLES[unit]
    term_postings = _TERM_POSTINGS.replace("{postings}", postings).replace("{key}", key)
    branches = [
        term_postings.replace("{query_term}", str(index)).replace("{term}", sql_literal(stem))
        for index, term in enumerate(parsed.terms)
        for stem in term.stems
    ]
    having = ""
    if parsed.phrases:
        # Only units indexed under every word a phrase needs can hold it.
        needed = sorted({index for phrase in parsed.phrases for index, term in enumerate(parsed.terms) if term.stems[0] in phrase.required})
        if needed:
            having = f"HAVING count(*) FILTER (WHERE query_term IN ({', '.join(map(str, needed))})) = {len(needed)}"
    statement = _RANKED_SEARCH.replace("{units}", units).replace("{key}", key)
    return statement.replace("{term_postings}", " UNION ALL ".join(branches)).replace("{having}", having)


def _holds_phrases(hit, parsed: ParsedQuery, counter: TermCounter) -> bool:
    texts = [" ".join(hit.heading_path), hit.text]
    stemmed = [counter.stem_words(phrase_words(text)) for text in texts]
    return all(any(phrase.found_in(stems) for stems in stemmed) for phrase in parsed.phrases)


def read_chunk_hits(connection: duckdb.DuckDBPyConnection, ranked: Sequence[tuple], stems: set[str], counter: TermCounter) -> list[SearchHit]:
    """The ranked chunks' rows, with a snippet around the query's terms."""
    if not ranked:
        return []
    chunk_ids = ", ".join(sql_literal(chunk_id) for chunk_id, _ in ranked)
    details = {row[0]: row for row in connection.execute(_HIT_DETAILS.replace("{chunk_ids}", chunk_ids)).fetchall()}
    paths = dict(connection.execute(_HIT_PATHS, [sorted({row[1] for row in details.values()})]).fetchall())
    cited: dict[str, list[CitedReference]] = {}
    for chunk_id, ref_id, _, label, text, doi in connection.execute(_HIT_CITATIONS, [[chunk_id for chunk_id, _ in ranked]]).fetchall():
        cited.setdefault(chunk_id, []).append(CitedReference(ref_id, label, text, doi))
    hits = []
    for chunk_id, score in ranked:
        (_, hit_doc_id, heading_path, hit_type, line_start, line_end, page_start, page_end, start, end, text,
         section_id, paragraph_ids, pages) = details[chunk_id]
        hits.append(
            SearchHit(
                chunk_id, hit_doc_id, paths[hit_doc_id], section_id, paragraph_ids, heading_path, hit_type, line_start,
                line_end, page_start, page_end, pages, start, end, score, snippet=snippet(text, stems, counter),
                text=text, cited_references=cited.get(chunk_id, []),
            )
        )
    return hits


def sql_literal(value: str) -> str:
    """A string as a SQL literal, quotes doubled."""
    return "'" + value.replace("'", "''") + "'"
