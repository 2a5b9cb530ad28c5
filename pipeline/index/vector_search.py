"""Search by meaning (`search --mode vector`) and by words and meaning fused (`--mode hybrid`),
over the vectors `ingest --vectors` keeps (`pipeline.index.vectors`).

The query, as typed, is read by the same sentence encoder as the units; the encoder is
multilingual, so a question in Korean meets the English passages it is about without a
glossary. Vector ranking is the cosine of the query's vector with every stored vector of the
unit asked for, brute force in DuckDB (`array_inner_product`: the vectors are of unit length),
under the same filters as BM25. Hybrid fuses the two rankings by weighted reciprocal rank fusion
(Cormack et al., 2009): a unit scores 1 / (RRF_K + its BM25 rank) plus VECTOR_WEIGHT / (RRF_K +
its vector rank), over the rankings it is in, so neither ranking's scale matters. Each hit says
what found it (`matched_by`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import duckdb
import numpy as np

from pipeline.errors import IndexingError
from pipeline.index.search import HitReader, Unit, UnitFilters, rank_units
from pipeline.index.terms import TermCounter
from pipeline.index.query import parse_query
from pipeline.index.vectors import stored_encoding
from pipeline.rules import SearchRules

RRF_K = 60
"""Reciprocal rank fusion's constant, as Cormack et al. chose it: the larger, the more a unit
ranked low in both rankings gains on one ranked high in one."""
VECTOR_WEIGHT = 0.2
"""What a rank of the vector ranking weighs in the fusion, against 1 for BM25's: alike, the
weaker ranking (vector on English questions with the papers' own terms) pulled the right unit
out of the top 5; at 0.2 it reorders BM25's near ties and brings in what words missed
(bench/fusion_weights.py, docs/search.md)."""
FUSED_DEPTH = 50
"""Units of each ranking that hybrid fuses: a unit below this in both is not found."""

# Every stored vector of one unit kind that the filters let through, by its cosine with the
# query's vector, which is written in as a constant: bound as a parameter, DuckDB takes a tenth
# of a second to convert a list of 512 floats.
_VECTOR_RANKING = """
SELECT v.unit_id, array_inner_product(v.vector, {query_vector}) AS score
FROM vectors v JOIN {units} c ON c.{key} = v.unit_id
WHERE v.unit = ? AND (? IS NULL OR c.section_type = ?) AND (? IS NULL OR c.doc_id = ?) AND (? OR NOT c.in_bibliography)
ORDER BY score DESC, v.unit_id
LIMIT ?
"""
_UNIT_TABLES = {Unit.chunk: ("chunks", "chunk_id"), Unit.paragraph: ("paragraphs", "paragraph_key")}
NO_VECTORS = (
    "the database keeps no vectors, which --mode {mode} searches; run `pipeline ingest FOLDER --db DB --vectors` once "
    "(it needs pip install -e '.[semantic]'), and every later ingest keeps them, or search with --mode bm25"
)


def require_vectors(connection: duckdb.DuckDBPyConnection, mode: str) -> None:
    """Refuse a vector or hybrid search of a database that keeps no vectors, saying how to add them."""
    if stored_encoding(connection) is None:
        raise IndexingError(NO_VECTORS.format(mode=mode))


def query_vector(query: str) -> np.ndarray:
    """The query as the encoder reads it (the `[semantic]` extra; `EncoderMissing` says how to add it)."""
    from pipeline.meaning.encoder import load_encoder

    return load_encoder().encode([query])[0]


def vector_ranking(
    connection: duckdb.DuckDBPyConnection, vector: np.ndarray, unit: Unit, filters: UnitFilters, limit: int
) -> list[tuple[str, float]]:
    """The `limit` units nearest the query's `vector`, as (unit id, cosine) pairs, best first."""
    units, key = _UNIT_TABLES[unit]
    literal = "[" + ",".join(f"{value:.7g}" for value in vector.tolist()) + f"]::FLOAT[{len(vector)}]"
    statement = _VECTOR_RANKING.replace("{query_vector}", literal).replace("{units}", units).replace("{key}", key)
    return connection.execute(statement, [unit.value, *filters.parameters(), limit]).fetchall()


def search_by_meaning(
    connection: duckdb.DuckDBPyConnection,
    typed_query: str,
    search_query: str,
    unit: Unit,
    filters: UnitFilters,
    limit: int,
    spelling: SearchRules | None,
    read_hits: HitReader,
    hybrid: bool,
) -> list:
    """The best `limit` units by the cosine of `typed_query`'s vector with theirs, or, with
    `hybrid`, by that ranking fused with BM25's for `search_query` (what the glossary or the
    translator made of it); each hit's `matched_by` says which ranking found it: `words`,
    `vector` or both. Snippets mark `search_query`'s terms where a hit holds them."""
    require_vectors(connection, "hybrid" if hybrid else "vector")
    vector = query_vector(typed_query)
    depth = max(limit, FUSED_DEPTH) if hybrid else limit
    by_vector = vector_ranking(connection, vector, unit, filters, depth)
    counter = TermCounter()
    if not hybrid:
        stems = _stems(search_query, counter, spelling)
        return [replace(hit, matched_by="vector") for hit in read_hits(connection, by_vector, stems, counter)]
    by_words = rank_units(connection, search_query, unit, filters, depth, spelling, read_hits)
    return fuse(connection, by_words, by_vector, limit, _stems(search_query, counter, spelling), counter, read_hits)


def fuse(
    connection: duckdb.DuckDBPyConnection,
    by_words: list,
    by_vector: Sequence[tuple[str, float]],
    limit: int,
    stems: set[str],
    counter: TermCounter,
    read_hits: HitReader,
) -> list:
    """BM25's hits and the vector ranking's units fused by weighted reciprocal rank: the best `limit`,
    each scored by its fused score, those only the vectors found read by `read_hits`."""
    scores: dict[str, float] = {}
    found_by: dict[str, list[str]] = {}
    rankings = (([_unit_id(hit) for hit in by_words], "words", 1.0), ([unit_id for unit_id, _ in by_vector], "vector", VECTOR_WEIGHT))
    for ranking, name, weight in rankings:
        for rank, unit_id in enumerate(ranking, start=1):
            scores[unit_id] = scores.get(unit_id, 0.0) + weight / (RRF_K + rank)
            found_by.setdefault(unit_id, []).append(name)
    best = sorted(scores, key=lambda unit_id: (-scores[unit_id], unit_id))[:limit]
    read = {_unit_id(hit): hit for hit in by_words}
    unread = [(unit_id, scores[unit_id]) for unit_id in best if unit_id not in read]
    read.update({_unit_id(hit): hit for hit in read_hits(connection, unread, stems, counter)})
    return [replace(read[unit_id], score=scores[unit_id], matched_by="+".join(found_by[unit_id])) for unit_id in best]


def _unit_id(hit) -> str:
    return getattr(hit, "paragraph_key", None) or hit.chunk_id


def _stems(query: str, counter: TermCounter, spelling: SearchRules | None) -> set[str]:
    pairs, min_stem = (spelling.spelling, spelling.spelling_min_stem) if spelling else ((), 3)
    return {stem for term in parse_query(query, counter, pairs, min_stem).terms for stem in term.stems}
