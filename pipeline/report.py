"""The `pipeline report` view: per paper, chunks by section type; the last runs; the files
failing now; and body chunk sizes against the rules' targets."""

from __future__ import annotations

import duckdb

from pipeline.models import SectionType
from pipeline.rules import ChunkRules

SECTION_TYPES = tuple(section_type.value for section_type in SectionType)
_SHORT_NAMES = {"figure_caption": "caption", "discussion": "discuss", "conclusion": "concl"}


def render_report(connection: duckdb.DuckDBPyConnection, sizes: ChunkRules) -> str:
    """A table of chunks per section type for every paper, the last runs, the failing files, then
    body chunk sizes against the rules' target and hard maximum."""
    parts = (
        _chunks_per_paper(connection) + _last_runs(connection) + _failing(connection) + _unresolved(connection)
        + _unstructured(connection, sizes)
    )
    return "\n".join(parts + _sizes(connection, sizes))


def _chunks_per_paper(connection: duckdb.DuckDBPyConnection) -> list[str]:
    counts = connection.execute("SELECT doc_id, section_type, count(*) FROM chunks GROUP BY ALL ORDER BY ALL").fetchall()
    per_doc: dict[str, dict[str, int]] = {}
    for doc_id, section_type, count in counts:
        per_doc.setdefault(doc_id, {})[section_type] = count
    header = ["paper"] + [_SHORT_NAMES.get(name, name) for name in SECTION_TYPES] + ["total"]
    width = max([len("paper")] + [len(doc_id) for doc_id in per_doc])
    lines = [f"{header[0]:<{width}}  " + "  ".join(f"{name:>7}" for name in header[1:])]
    for doc_id, types in per_doc.items():
        cells = [types.get(name, 0) for name in SECTION_TYPES] + [sum(types.values())]
        lines.append(f"{doc_id:<{width}}  " + "  ".join(f"{cell:>7}" for cell in cells))
    return lines


def _last_runs(connection: duckdb.DuckDBPyConnection) -> list[str]:
    runs = connection.execute(
        """SELECT run_id, started_at, seen, added, updated, unchanged, removed, failed, pages, chunks, duration_seconds,
                  (SELECT count(*) FILTER (WHERE change = 'added') FROM run_changes c WHERE c.run_id = r.run_id AND unit = 'chunk'),
                  (SELECT count(*) FILTER (WHERE change = 'changed') FROM run_changes c WHERE c.run_id = r.run_id AND unit = 'chunk'),
                  (SELECT count(*) FILTER (WHERE change = 'removed') FROM run_changes c WHERE c.run_id = r.run_id AND unit = 'chunk')
           FROM runs r ORDER BY run_id DESC LIMIT 5"""
    ).fetchall()
    if not runs:
        return []
    return ["", "Last runs (`pipeline export --since RUN` exports what the runs after RUN changed):"] + [
        f"  #{run_id} {started:%Y-%m-%d %H:%M} UTC: {seen} seen, {added} added, {updated} updated, "
        f"{unchanged} unchanged, {removed} removed, {failed} failed; {pages} pages, {chunks} chunks, {seconds:.1f} s; "
        f"chunks {new} added, {changed} changed, {gone} removed"
        for run_id, started, seen, added, updated, unchanged, removed, failed, pages, chunks, seconds, new, changed, gone in runs
    ]


def _unresolved(connection: duckdb.DuckDBPyConnection) -> list[str]:
    rows = connection.execute(
        """SELECT path, unresolved_citations, broken_links FROM documents
           WHERE unresolved_citations > 0 OR broken_links > 0 ORDER BY path"""
    ).fetchall()
    if not rows:
        return []
    return ["", "Unresolved citations and broken cross-references (pipeline inspect FILE --links lists them):"] + [
        f"  {path}: {citations} citation(s) name no entry or two, {links} link(s) lead nowhere" for path, citations, links in rows
    ]


def _unstructured(connection: duckdb.DuckDBPyConnection, sizes: ChunkRules) -> list[str]:
    """Long papers without section headings, or with most of their text before the first one
    (the test `chunk.structure.structure_warning` makes, on the stored sections)."""
    rows = connection.execute(
        """SELECT d.path, sum(s.word_count) AS words, sum(s.word_count) FILTER (WHERE s.level = 1) AS front,
                  count(*) FILTER (WHERE s.level >= 2) AS headed
           FROM documents d JOIN sections s USING (doc_id)
           GROUP BY d.path HAVING words > $least AND (headed = 0 OR front > $least) ORDER BY d.path""",
        {"least": sizes.unstructured_min_words},
    ).fetchall()
    if not rows:
        return []
    return ["", "Unstructured papers (no section heading found; pipeline inspect FILE shows what was read):"] + [
        f"  {path}: {words} body words, " + ("no section heading" if not headed else f"{front} before the first section heading")
        for path, words, front, headed in rows
    ]


def _failing(connection: duckdb.DuckDBPyConnection) -> list[str]:
    failed = connection.execute("SELECT path, status, error FROM documents WHERE status <> 'ingested' ORDER BY path").fetchall()
    if not failed:
        return []
    return ["", "Currently failing:"] + [f"  {path} [{status}]: {error}" for path, status, error in failed]


def _sizes(connection: duckdb.DuckDBPyConnection, sizes: ChunkRules) -> list[str]:
    low, high, hard = sizes.target_min_words, sizes.target_max_words, sizes.hard_max_words
    stats = connection.execute(
        """
        SELECT count(*), min(word_count), quantile_cont(word_count, 0.25), median(word_count),
               quantile_cont(word_count, 0.75), max(word_count),
               count(*) FILTER (WHERE word_count < $low), count(*) FILTER (WHERE word_count BETWEEN $low AND $high),
               count(*) FILTER (WHERE word_count > $high AND word_count <= $hard), count(*) FILTER (WHERE word_count > $hard)
        FROM chunks WHERE section_type <> 'figure_caption'
        """,
        {"low": low, "high": high, "hard": hard},
    ).fetchone()
    total, smallest, q1, median, q3, largest, *bands = stats
    if not total:
        return ["", "No body chunks yet."]
    lines = ["", f"Body chunk words: min {smallest}, 25% {q1:.0f}, median {median:.0f}, 75% {q3:.0f}, max {largest} ({total} chunks)"]
    labels = (f"< {low}", f"{low}-{high}", f"{high + 1}-{hard}", f"> {hard}")
    for label, count in zip(labels, bands):
        lines.append(f"  {label:>9} {count:5}  {'█' * round(40 * count / total)}")
    return lines
