"""The `pipeline report` view: per paper, chunks by section type; the last runs; the files
failing now; and body chunk sizes against the rules' targets."""

from __future__ import annotations

from pathlib import Path

import duckdb

from pipeline.index.checks import last_check
from pipeline.index.database import has_table
from pipeline.report import data
from pipeline.report.data import SECTION_TYPES
from pipeline.report.provenance import confidence_note, ocr_papers, text_sources
from pipeline.rules import ChunkRules
from pipeline.wording import counted

_SHORT_NAMES = {"figure_caption": "caption", "discussion": "discuss", "conclusion": "concl"}
_RUNS_SHOWN = 5


def render_report(connection: duckdb.DuckDBPyConnection, sizes: ChunkRules) -> str:
    """A table of chunks per section type for every paper, the last runs, the failing files, then
    body chunk sizes against the rules' target and hard maximum."""
    parts = (
        _chunks_per_paper(connection) + _papers(connection) + _last_runs(connection) + _failing(connection) + _warnings(connection)
        + _read_by_ocr(connection)
        + _unresolved(connection)
        + _unstructured(connection, sizes)
    )
    return "\n".join(parts + _sizes(connection, sizes))


def _chunks_per_paper(connection: duckdb.DuckDBPyConnection) -> list[str]:
    per_doc = data.chunks_per_paper(connection)
    header = ["paper"] + [_SHORT_NAMES.get(name, name) for name in SECTION_TYPES] + ["total"]
    width = max([len("paper")] + [len(doc_id) for doc_id in per_doc])
    lines = [f"{header[0]:<{width}}  " + "  ".join(f"{name:>7}" for name in header[1:])]
    for doc_id, types in per_doc.items():
        cells = [types.get(name, 0) for name in SECTION_TYPES] + [sum(types.values())]
        lines.append(f"{doc_id:<{width}}  " + "  ".join(f"{cell:>7}" for cell in cells))
    return lines


_MOST_CITED_SHOWN = 10


def _papers(connection: duckdb.DuckDBPyConnection) -> list[str]:
    """Each paper's metadata (`papers`), then the papers of the folder that others of it cite most."""
    if not has_table(connection, "papers"):
        return []
    rows = data.paper_metadata(connection)
    if not rows:
        return []
    lines = ["", "Papers (authors, year, journal, DOI as each paper prints them; blank where it does not):"]
    for row in sorted(rows, key=lambda row: row.doc_id):
        authors = ", ".join(row.authors[:3]) + (" et al." if len(row.authors) > 3 else "")
        said = "; ".join(part for part in (authors, str(row.year or ""), row.journal or "", f"doi:{row.doi}" if row.doi else "") if part)
        lines.append(f"  {row.doc_id}: {row.title or '(no title)'}" + (f" ({said})" if said else ""))
    cited = [row for row in rows if row.cited_by][:_MOST_CITED_SHOWN]
    if cited:
        lines += ["", "Most cited in the folder (papers of it whose bibliography holds them, paper_links):"]
        lines += [f"  {row.cited_by:4}  {row.doc_id}: {row.title or '(no title)'}" for row in cited]
    return lines


def _last_runs(connection: duckdb.DuckDBPyConnection) -> list[str]:
    runs = data.last_runs(connection, _RUNS_SHOWN)
    if not runs:
        return []
    return ["", "Last runs (`pipeline export --since RUN` exports what the runs after RUN changed):"] + [
        f"  #{run.run_id} {run.started_at:%Y-%m-%d %H:%M} UTC: {run.seen} seen, {run.added} added, {run.updated} updated, "
        f"{run.unchanged} unchanged, {run.removed} removed, {run.failed} failed; {counted(run.pages, 'page')}, {counted(run.chunks, 'chunk')}, "
        f"{run.duration_seconds:.1f} s; chunks {run.chunks_added} added, {run.chunks_changed} changed, {run.chunks_removed} removed"
        for run in runs
    ] + _last_check(connection, runs[0].run_id)


def _last_check(connection: duckdb.DuckDBPyConnection, last_run_id: int) -> list[str]:
    """The last ingest that found nothing to change since the last run: it published nothing, and
    is logged beside the database (`pipeline.index.checks`)."""
    path = connection.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchone()[0]
    check = last_check(Path(path)) if path else None
    if check is None or check.run_id != last_run_id:
        return []
    return [f"  last checked {check.checked_at:%Y-%m-%d %H:%M} UTC: {counted(check.seen, 'file')}, nothing changed since #{last_run_id}"]


def _unresolved(connection: duckdb.DuckDBPyConnection) -> list[str]:
    rows = data.unresolved_links(connection)
    if not rows:
        return []
    return ["", "Unresolved citations and broken cross-references (pipeline inspect FILE --links lists them):"] + [
        f"  {row.path}: {row.citations} citation(s) name no entry or two, {row.links} link(s) lead nowhere" for row in rows
    ]


def _unstructured(connection: duckdb.DuckDBPyConnection, sizes: ChunkRules) -> list[str]:
    rows = data.unstructured_papers(connection, sizes)
    if not rows:
        return []
    return ["", "Unstructured papers (no section heading found; pipeline inspect FILE shows what was read):"] + [
        f"  {row.path}: {row.words} body words, "
        + ("no section heading" if not row.headed_sections else f"{row.front_words} before the first section heading")
        for row in rows
    ]


def _failing(connection: duckdb.DuckDBPyConnection) -> list[str]:
    failed = data.failing_files(connection)
    if not failed:
        return []
    return ["", "Currently failing:"] + [f"  {row.path} [{row.status}]: {row.error}" for row in failed]


def _warnings(connection: duckdb.DuckDBPyConnection) -> list[str]:
    rows = data.paper_warnings(connection)
    if not rows:
        return []
    return ["", "Stored with a warning (pipeline inspect FILE shows what was read):"] + [f"  {row.path}: {row.warning}" for row in rows]


def _read_by_ocr(connection: duckdb.DuckDBPyConnection) -> list[str]:
    """Each paper some pages of which OCR read: every page's text source, and how sure the recognizer was."""
    papers = ocr_papers(connection)
    if not papers:
        return []
    return ["", "Read by OCR (each page's text source; pipeline show CHUNK marks a chunk's):"] + [
        f"  {paper.path}: {text_sources(paper.pages, range(1, (paper.page_count or 0) + 1))}; "
        f"{paper.ocr_chunks} of {counted(paper.chunks, 'chunk')} read by OCR"
        + (f", {confidence_note(paper.min_confidence)}" if paper.min_confidence is not None else "")
        for paper in papers
    ]


def _sizes(connection: duckdb.DuckDBPyConnection, sizes: ChunkRules) -> list[str]:
    low, high, hard = sizes.target_min_words, sizes.target_max_words, sizes.hard_max_words
    stats = data.body_sizes(connection, sizes)
    if not stats.total:
        return ["", "No body chunks yet."]
    lines = [
        "", f"Body chunk words: min {stats.smallest}, 25% {stats.q1:.0f}, median {stats.median:.0f}, "
        f"75% {stats.q3:.0f}, max {stats.largest} ({counted(stats.total, 'chunk')})",
    ]
    labels = (f"< {low}", f"{low}-{high}", f"{high + 1}-{hard}", f"> {hard}")
    for label, count in zip(labels, stats.bands):
        lines.append(f"  {label:>9} {count:5}  {'█' * round(40 * count / stats.total)}")
    return lines
