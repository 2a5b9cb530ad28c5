"""`pipeline search`'s results as text: how the query was read, then each hit with where it
came from and what it links to. The search itself is `pipeline.index.search_request`'s.
"""

from __future__ import annotations

from pipeline.crosslingual.glossary import Mapped
from pipeline.crosslingual.prepare import PreparedQuery
from pipeline.index.cited_papers import CitedPaperChunk
from pipeline.index.expand import Expansion
from pipeline.index.paragraphs import ParagraphHit
from pipeline.index.search import SearchHit
from pipeline.index.search_request import SearchResults
from pipeline.index.unit import SearchMode

# A neighbouring paragraph is shown by its start, this many characters, in the text output.
_WINDOW_SHOWN = 160


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
            lines.append(f"{_score(hit)}  {hit.paragraph_key}  [{hit.section_type}]  {hit.path} ({_where(span.page_start, span.page_end, span.line_start, span.line_end)}){_found_by(hit)}")
            lines.append(f"        {' › '.join(hit.heading_path) or '(front matter)'}   (in chunk {hit.chunk_id or 'none'})")
            lines.append(f"        {hit.snippet.marked()}")
            for neighbour in hit.window:
                side = "↑" if neighbour.char_start < span.char_start else "↓"
                text = " ".join(neighbour.text.split())
                lines.append(f"        {side} {neighbour.paragraph_id}: {text[:_WINDOW_SHOWN]}{'…' if len(text) > _WINDOW_SHOWN else ''}")
        else:
            lines.append(f"{_score(hit)}  {hit.chunk_id}  [{hit.section_type}]  {hit.path} ({_where(hit.page_start, hit.page_end, hit.line_start, hit.line_end)}){_found_by(hit)}")
            lines.append(f"        {' › '.join(hit.heading_path) or '(front matter)'}")
            lines.append(f"        {hit.snippet.marked()}")
        lines.extend(_expansion_lines(results.expansions.get(hit.chunk_id)))
        lines.extend(_cited_lines(results.cited.get(hit.chunk_id, [])))
        lines.append("")
    return lines


def mode_line(results: SearchResults) -> str | None:
    """How the hits were ranked, where not by BM25 alone; None where they were."""
    if results.mode is SearchMode.vector:
        return "ranked by:         meaning (cosine of the query's sentence vector, as typed, with each unit's)"
    if results.mode is SearchMode.hybrid:
        return (
            "ranked by:         words (BM25 of the query searched) and meaning (the query's sentence vector, as typed), "
            "fused by reciprocal rank"
        )
    return None


def _score(hit: SearchHit | ParagraphHit) -> str:
    """BM25 scores with two decimals; a cosine or a fused rank score, a few hundredths, with four."""
    return f"{hit.score:6.2f}" if hit.matched_by is None else f"{hit.score:6.4f}"


def _found_by(hit: SearchHit | ParagraphHit) -> str:
    return f"  [found by {hit.matched_by.replace('+', ' and ')}]" if hit.matched_by else ""


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
