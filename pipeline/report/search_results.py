"""`pipeline search` from request to results, and the results as text and as JSON.

A result says three things apart: the query as typed, the search query that was run (as typed,
through a glossary, or through the user's translator), and the evidence, quoted from the papers
in their own words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import duckdb

from pipeline.crosslingual.command import DEFAULT_TIMEOUT_SECONDS
from pipeline.crosslingual.glossary import Glossary, Mapped
from pipeline.crosslingual.korean import KoreanAnalyser
from pipeline.crosslingual.prepare import PreparedQuery, prepare_query, with_sound_matches
from pipeline.crosslingual.sound import match_by_sound
from pipeline.index.cited_papers import CitedPaperChunk, cited_papers
from pipeline.index.expand import Expansion, expand
from pipeline.index.paragraphs import ParagraphHit, search_paragraphs
from pipeline.index.search import SearchHit, Unit, UnitFilters, index_terms_starting, rank_units, read_chunk_hits, why_nothing_matched
from pipeline.rules import SearchRules

# A neighbouring paragraph is shown by its start, this many characters, in the text output.
_WINDOW_SHOWN = 160


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

    def as_json(self) -> dict:
        return {
            **self.prepared.as_json(),
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
    if prepared.mapping is not None and prepared.mapping.unmapped and glossary is not None and glossary.query_language == "ko":
        # Words the glossary lacks may be loanwords, which sound like a term of the papers.
        found = match_by_sound(prepared.mapping.unmapped_searched, partial(index_terms_starting, connection))
        prepared = with_sound_matches(prepared, found)
    if request.unit is Unit.paragraph:
        hits = search_paragraphs(connection, prepared.search_query, request.filters, request.limit, spelling, request.window)
    else:
        hits = rank_units(connection, prepared.search_query, Unit.chunk, request.filters, request.limit, spelling, read_chunk_hits)
    chunk_ids = list(dict.fromkeys(chunk_id for hit in hits if (chunk_id := hit.chunk_id) is not None))
    expansions = expand(connection, chunk_ids, request.depth, request.expand_limit) if request.expand else {}
    cited = cited_papers(connection, chunk_ids, prepared.search_query, spelling, request.expand_limit) if request.expand else {}
    return SearchResults(prepared, request.unit, hits, expansions, None if hits else _why_nothing(prepared, request.unit), cited)


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


def query_lines(prepared: PreparedQuery) -> list[str]:
    """What became of the query, before the hits: shown where a glossary or translator was asked for."""
    lines = [f"query (as typed):  {prepared.query}"]
    if prepared.searched_with == "translator" and prepared.translation:
        lines.append(f"searched as:       {prepared.search_query}   [translator: {prepared.translation.command}]")
        if prepared.untranslated:
            lines.append("  untranslated:    " + ", ".join(prepared.untranslated) + "   (left so by the translator: searched as written)")
    elif prepared.mapping is not None:
        mapping = prepared.mapping
        lines.append(f"searched as:       {prepared.search_query}   [glossary: {prepared.glossary}]")
        if mapping.mapped:
            lines.append("  mapped:          " + "; ".join(_mapped_text(m) for m in mapping.mapped))
        if mapping.unmapped:
            lines.append("  untranslated:    " + ", ".join(mapping.unmapped) + "   (no entry, nothing alike by sound: searched as typed)")
        if mapping.ignored:
            lines.append("  left out:        " + ", ".join(mapping.ignored))
    else:
        lines.append(f"searched as:       {prepared.search_query}   [as typed]")
    lines.append("evidence, below:   quoted from the papers, in their own words")
    return [*lines, ""]


def _mapped_text(mapped: Mapped) -> str:
    shown = f"{mapped.typed} → {', '.join(mapped.terms)}"
    return shown + (f" (by sound, {mapped.by_sound:.2f} alike: no glossary entry)" if mapped.by_sound is not None else "")


def hit_lines(results: SearchResults) -> list[str]:
    """Each hit as a few lines: score, id, type and where; heading path; the snippet; what follows it."""
    lines: list[str] = []
    for hit in results.hits:
        if isinstance(hit, ParagraphHit):
            span = hit.paragraph
            lines.append(f"{hit.score:6.2f}  {hit.paragraph_key}  [{hit.section_type}]  {hit.path} ({_where(span.page_start, span.page_end, span.line_start, span.line_end)})")
            lines.append(f"        {' › '.join(hit.heading_path) or '(front matter)'}   (in chunk {hit.chunk_id or 'none'})")
            lines.append(f"        {hit.snippet}")
            for neighbour in hit.window:
                side = "↑" if neighbour.char_start < span.char_start else "↓"
                text = " ".join(neighbour.text.split())
                lines.append(f"        {side} {neighbour.paragraph_id}: {text[:_WINDOW_SHOWN]}{'…' if len(text) > _WINDOW_SHOWN else ''}")
        else:
            lines.append(f"{hit.score:6.2f}  {hit.chunk_id}  [{hit.section_type}]  {hit.path} ({_where(hit.page_start, hit.page_end, hit.line_start, hit.line_end)})")
            lines.append(f"        {' › '.join(hit.heading_path) or '(front matter)'}")
            lines.append(f"        {hit.snippet}")
        lines.extend(_expansion_lines(results.expansions.get(hit.chunk_id)))
        lines.extend(_cited_lines(results.cited.get(hit.chunk_id, [])))
        lines.append("")
    return lines


def _expansion_lines(expansion: Expansion | None) -> list[str]:
    if expansion is None:
        return []
    lines = []
    for linked in expansion.linked:
        shown = " › ".join(linked.heading_path) or "(front matter)"
        lines.append(f"        {'  ' * linked.depth}→ {linked.chunk_id}  [{linked.section_type}]  {shown}  ({linked.why})")
    return lines + [f"        (not followed: {cut})" for cut in expansion.cut]


def _cited_lines(cited: list[CitedPaperChunk]) -> list[str]:
    """The papers of the folder a hit cites, marked as other papers' text."""
    lines = []
    for chunk in cited:
        shown = " › ".join(chunk.heading_path) or "(front matter)"
        lines.append(f"        ⇒ cited paper {chunk.path}: {chunk.title or '(no title)'}")
        lines.append(f"            {chunk.chunk_id}  [{chunk.section_type}]  {shown}  ({chunk.why})")
    return lines


def _where(page_start: int | None, page_end: int | None, line_start: int | None, line_end: int | None) -> str:
    if page_start is not None:
        return f"page {page_start}" if page_start == page_end else f"pages {page_start}-{page_end}"
    return f"lines {line_start}-{line_end}"
