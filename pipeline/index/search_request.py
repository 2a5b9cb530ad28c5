"""`pipeline search` from request to results: the query prepared (as typed, through a glossary
or the user's translator), the units ranked, and the hits' links followed where asked.

A result keeps three things apart: the query as typed, the search query that was run, and the
evidence, quoted from the papers in their own words. `pipeline.report.search_results` prints it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import partial

import duckdb

from pipeline.crosslingual.command import DEFAULT_TIMEOUT_SECONDS
from pipeline.crosslingual.glossary import Glossary
from pipeline.crosslingual.korean import KoreanAnalyser
from pipeline.crosslingual.prepare import PreparedQuery, prepare_query, with_sound_matches
from pipeline.crosslingual.sound import match_by_sound
from pipeline.index.cited_papers import CitedPaperChunk, cited_papers
from pipeline.index.expand import Expansion, expand
from pipeline.index.paragraphs import ParagraphHit, read_paragraph_hits, search_paragraphs, with_windows
from pipeline.index.search import SearchHit, Unit, UnitFilters, index_terms_starting, rank_units, read_chunk_hits, why_nothing_matched
from pipeline.index.unit import SearchMode
from pipeline.rules import SearchRules


@dataclass(frozen=True)
class SearchRequest:
    """What `pipeline search` was asked."""

    query: str
    unit: Unit = Unit.chunk
    filters: UnitFilters = field(default_factory=UnitFilters)
    limit: int = 10
    window: int = 0
    """Paragraphs on either side of a paragraph hit, within its section."""
    expand: bool = False
    depth: int = 2
    expand_limit: int = 10
    translate_command: str | None = None
    translate_timeout: float = DEFAULT_TIMEOUT_SECONDS
    mode: SearchMode = SearchMode.bm25
    """Rank by words (BM25), by meaning (the stored vectors: the query as typed, through the
    encoder), or both fused; `hybrid` and `vector` need a database ingested with --vectors."""


@dataclass(frozen=True)
class SearchResults:
    prepared: PreparedQuery
    unit: Unit
    hits: list[SearchHit] | list[ParagraphHit]
    expansions: dict[str, Expansion]
    """What each hit's chunk (a paragraph's parent chunk) links to, with --expand."""
    nothing_found: str | None
    """Why nothing matched, in words; None where something did."""
    cited: dict[str, list[CitedPaperChunk]] = field(default_factory=dict)
    """With --expand: for each hit's chunk, a chunk of each paper of the folder its markers cite."""
    bibliography_left_out: bool = False
    """Whether the filters left out bibliography chunks that could have matched: those of the
    section type and paper asked for, where --all and --section-type meta were not given."""
    mode: SearchMode = SearchMode.bm25

    def as_json(self) -> dict:
        return {
            **self.prepared.as_json(),
            **({"mode": self.mode.value} if self.mode is not SearchMode.bm25 else {}),
            "unit": self.unit.value,
            "nothing_found": self.nothing_found,
            "hits": [_hit_json(hit, self.expansions, self.cited) for hit in self.hits],
        }


def run_search(
    connection: duckdb.DuckDBPyConnection,
    request: SearchRequest,
    spelling: SearchRules | None,
    glossary: Glossary | None = None,
    analyser: KoreanAnalyser | None = None,
) -> SearchResults:
    """Prepare the search query, rank the units, and follow the hits' links where asked."""
    prepared = prepare_query(request.query, glossary, request.translate_command, request.translate_timeout, analyser)
    unanswerable = _why_unanswerable(connection, prepared.search_query, request)
    if unanswerable is not None:
        return SearchResults(prepared, request.unit, [], {}, unanswerable)
    if prepared.mapping is not None and prepared.mapping.unmapped and glossary is not None and glossary.query_language == "ko":
        # Words the glossary lacks may be loanwords, which sound like a term of the papers.
        found = match_by_sound(prepared.mapping.unmapped_searched, partial(index_terms_starting, connection))
        prepared = with_sound_matches(prepared, found)
    hits = _ranked_hits(connection, prepared, request, spelling)
    chunk_ids = list(dict.fromkeys(chunk_id for hit in hits if (chunk_id := hit.chunk_id) is not None))
    expansions = expand(connection, chunk_ids, request.depth, request.expand_limit) if request.expand else {}
    cited = cited_papers(connection, chunk_ids, prepared.search_query, spelling, request.expand_limit) if request.expand else {}
    nothing_found = None if hits else _why_nothing(prepared, request.unit)
    return SearchResults(
        prepared, request.unit, hits, expansions, nothing_found, cited, _bibliography_left_out(connection, request.filters), request.mode
    )


def _ranked_hits(
    connection: duckdb.DuckDBPyConnection, prepared: PreparedQuery, request: SearchRequest, spelling: SearchRules | None
) -> list[SearchHit] | list[ParagraphHit]:
    """The best units for the request: by BM25 over the search query, or by meaning (the query as
    typed, which the multilingual encoder reads in its own language) alone or fused with BM25."""
    if request.mode is SearchMode.bm25:
        if request.unit is Unit.paragraph:
            return search_paragraphs(connection, prepared.search_query, request.filters, request.limit, spelling, request.window)
        return rank_units(connection, prepared.search_query, Unit.chunk, request.filters, request.limit, spelling, read_chunk_hits)
    from pipeline.index.vector_search import search_by_meaning  # loads numpy and, for the query, the encoder

    read_hits = read_paragraph_hits if request.unit is Unit.paragraph else read_chunk_hits
    hits = search_by_meaning(
        connection, prepared.query, prepared.search_query, request.unit, request.filters, request.limit, spelling, read_hits,
        hybrid=request.mode is SearchMode.hybrid,
    )
    return with_windows(connection, hits, request.window) if request.window and hits else hits


def _bibliography_left_out(connection: duckdb.DuckDBPyConnection, filters: UnitFilters) -> bool:
    if filters.bibliography or filters.section_type == "meta":
        return False
    statement = "SELECT 1 FROM chunks WHERE in_bibliography AND (? IS NULL OR section_type = ?) AND (? IS NULL OR doc_id = ?) LIMIT 1"
    parameters = [filters.section_type, filters.section_type, filters.doc_id, filters.doc_id]
    return connection.execute(statement, parameters).fetchone() is not None


_LETTER_OR_DIGIT = re.compile(r"[^\W_]")


def _why_unanswerable(connection: duckdb.DuckDBPyConnection, search_query: str, request: SearchRequest) -> str | None:
    """Why the search cannot find anything before it is run, or None: a query without a letter or
    digit, or a --doc that names no stored paper."""
    if not _LETTER_OR_DIGIT.search(search_query):
        # `-` and `/` are indexed inside terms (IL-6, FDG-PET/CT) and so alone too (R's `<-`):
        # a query of them alone, like one of `*`, asks for no word.
        return why_nothing_matched("", request.unit)
    doc_id = request.filters.doc_id
    if doc_id is not None and connection.execute("SELECT 1 FROM documents WHERE doc_id = ?", [doc_id]).fetchone() is None:
        return f'no stored paper has the doc_id {doc_id!r} (pipeline sql "SELECT doc_id FROM documents" lists them)'
    return None


def _why_nothing(prepared: PreparedQuery, unit: Unit) -> str:
    mapping = prepared.mapping
    if mapping is not None and not mapping.mapped and mapping.unmapped and not mapping.kept:
        return (
            f"no word of it has an entry in the glossary {prepared.glossary} ({', '.join(mapping.unmapped)}), "
            f"and searched as typed {why_nothing_matched(prepared.search_query, unit)}"
        )
    return why_nothing_matched(prepared.search_query, unit)


def _hit_json(hit: SearchHit | ParagraphHit, expansions: dict[str, Expansion], cited: dict[str, list[CitedPaperChunk]]) -> dict:
    shown = hit.as_json()
    if hit.chunk_id in expansions:
        expansion = expansions[hit.chunk_id]
        shown["linked"] = [{**linked.__dict__, "why": linked.why} for linked in expansion.linked]
        shown["not_followed"] = expansion.cut
        # Other papers' chunks, apart from the hit's own paper's: the works it cites, as written by them.
        shown["cited_papers"] = [{**chunk.__dict__, "why": chunk.why} for chunk in cited.get(hit.chunk_id, [])]
    return shown
