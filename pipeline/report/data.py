"""What the reports show, read from the database: each query once, for the text view and the HTML page."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import duckdb

from pipeline.records.kinds import SectionType
from pipeline.rules import ChunkRules

if TYPE_CHECKING:  # the records are built for a paper's page alone: the text report needs none
    from pipeline.records.chunks import Chunk, Section

SECTION_TYPES = tuple(section_type.value for section_type in SectionType)


@dataclass(frozen=True)
class RunRow:
    """One ingest run, with what it changed in the exported chunks."""

    run_id: int
    started_at: datetime
    seen: int
    added: int
    updated: int
    unchanged: int
    removed: int
    failed: int
    pages: int
    chunks: int
    duration_seconds: float
    chunks_added: int
    chunks_changed: int
    chunks_removed: int


@dataclass(frozen=True)
class PaperWarning:
    """An ingested paper whose reading lost something (`documents.warning`), or that has no chunk."""

    path: str
    warning: str


@dataclass(frozen=True)
class FailingFile:
    """A file that is stored without chunks, and why."""

    path: str
    status: str
    error: str | None


@dataclass(frozen=True)
class UnresolvedLinks:
    """A paper with citations that name no entry (or two) or cross-references that lead nowhere."""

    doc_id: str
    path: str
    citations: int
    links: int


@dataclass(frozen=True)
class UnstructuredPaper:
    """A long paper whose body headings were not found (`chunk.structure.structure_warning`)."""

    doc_id: str
    path: str
    words: int
    front_words: int
    """Body words before the first section heading."""
    headed_sections: int


@dataclass(frozen=True)
class BodySizes:
    """Body chunk words (captions left out) as quartiles, and counted in the rules' bands."""

    total: int
    smallest: int | None
    q1: float | None
    median: float | None
    q3: float | None
    largest: int | None
    bands: tuple[int, int, int, int]
    """Chunks below target_min, within the target, above it up to hard_max, above hard_max."""


@dataclass(frozen=True)
class PaperRow:
    """A stored file, as the report lists it."""

    doc_id: str
    path: str
    format: str
    sha256: str
    title: str | None
    page_count: int | None
    status: str
    error: str | None
    layout: str | None = None
    """A PDF's reading: rules or model (`documents.layout`)."""
    layout_reason: str | None = None


def chunks_per_paper(connection: duckdb.DuckDBPyConnection) -> dict[str, dict[str, int]]:
    """Chunks by section type, per paper (doc_id), in doc_id order."""
    counts = connection.execute("SELECT doc_id, section_type, count(*) FROM chunks GROUP BY ALL ORDER BY ALL").fetchall()
    per_doc: dict[str, dict[str, int]] = {}
    for doc_id, section_type, count in counts:
        per_doc.setdefault(doc_id, {})[section_type] = count
    return per_doc


def last_runs(connection: duckdb.DuckDBPyConnection, limit: int) -> list[RunRow]:
    """The last `limit` runs, newest first."""
    rows = connection.execute(
        """SELECT run_id, started_at, seen, added, updated, unchanged, removed, failed, pages, chunks, duration_seconds,
                  (SELECT count(*) FILTER (WHERE change = 'added') FROM run_changes c WHERE c.run_id = r.run_id AND unit = 'chunk'),
                  (SELECT count(*) FILTER (WHERE change = 'changed') FROM run_changes c WHERE c.run_id = r.run_id AND unit = 'chunk'),
                  (SELECT count(*) FILTER (WHERE change = 'removed') FROM run_changes c WHERE c.run_id = r.run_id AND unit = 'chunk')
           FROM runs r ORDER BY run_id DESC LIMIT $limit""",
        {"limit": limit},
    ).fetchall()
    return [RunRow(*row) for row in rows]


def failing_files(connection: duckdb.DuckDBPyConnection) -> list[FailingFile]:
    rows = connection.execute("SELECT path, status, error FROM documents WHERE status <> 'ingested' ORDER BY path").fetchall()
    return [FailingFile(*row) for row in rows]


def paper_warnings(connection: duckdb.DuckDBPyConnection) -> list[PaperWarning]:
    """Ingested papers with a warning, and any without a chunk (a database from before the
    `warning` column holds such papers too, unnamed)."""
    warned = connection.execute(
        "SELECT count(*) FROM information_schema.columns WHERE table_name = 'documents' AND column_name = 'warning'"
    ).fetchone()[0]
    rows = connection.execute(
        f"""SELECT path, coalesce({'warning' if warned else 'NULL'}, 'stored with no chunks') FROM documents d
            WHERE status = 'ingested' AND ({'warning IS NOT NULL OR' if warned else ''}
                  NOT EXISTS (SELECT 1 FROM chunks c WHERE c.doc_id = d.doc_id))
            ORDER BY path"""
    ).fetchall()
    return [PaperWarning(*row) for row in rows]


def unresolved_links(connection: duckdb.DuckDBPyConnection) -> list[UnresolvedLinks]:
    rows = connection.execute(
        """SELECT doc_id, path, unresolved_citations, broken_links FROM documents
           WHERE unresolved_citations > 0 OR broken_links > 0 ORDER BY path"""
    ).fetchall()
    return [UnresolvedLinks(*row) for row in rows]


def unstructured_papers(connection: duckdb.DuckDBPyConnection, sizes: ChunkRules) -> list[UnstructuredPaper]:
    """Long papers without section headings, or with most of their text before the first one
    (the test `chunk.structure.structure_warning` makes, on the stored sections)."""
    rows = connection.execute(
        """SELECT d.doc_id, d.path, sum(s.word_count) AS words, sum(s.word_count) FILTER (WHERE s.level = 1) AS front,
                  count(*) FILTER (WHERE s.level >= 2) AS headed
           FROM documents d JOIN sections s USING (doc_id)
           GROUP BY d.doc_id, d.path HAVING words > $least AND (headed = 0 OR front > $least) ORDER BY d.path""",
        {"least": sizes.unstructured_min_words},
    ).fetchall()
    return [UnstructuredPaper(*row) for row in rows]


def body_sizes(connection: duckdb.DuckDBPyConnection, sizes: ChunkRules) -> BodySizes:
    low, high, hard = sizes.target_min_words, sizes.target_max_words, sizes.hard_max_words
    total, smallest, q1, median, q3, largest, *bands = connection.execute(
        """
        SELECT count(*), min(word_count), quantile_cont(word_count, 0.25), median(word_count),
               quantile_cont(word_count, 0.75), max(word_count),
               count(*) FILTER (WHERE word_count < $low), count(*) FILTER (WHERE word_count BETWEEN $low AND $high),
               count(*) FILTER (WHERE word_count > $high AND word_count <= $hard), count(*) FILTER (WHERE word_count > $hard)
        FROM chunks WHERE section_type NOT IN ('figure_caption', 'table')
        """,
        {"low": low, "high": high, "hard": hard},
    ).fetchone()
    return BodySizes(total, smallest, q1, median, q3, largest, tuple(bands))


def word_counts_by_type(connection: duckdb.DuckDBPyConnection) -> dict[str, list[int]]:
    """Every chunk's words, by section type, in the order of `SECTION_TYPES` (types without chunks left out)."""
    rows = connection.execute("SELECT section_type, list(word_count ORDER BY word_count) FROM chunks GROUP BY ALL").fetchall()
    by_type = dict(rows)
    return {kind: by_type[kind] for kind in SECTION_TYPES if kind in by_type}


def papers(connection: duckdb.DuckDBPyConnection) -> list[PaperRow]:
    """Every stored file, in path order."""
    rows = connection.execute(
        "SELECT doc_id, path, format, sha256, title, page_count, status, error, layout, layout_reason FROM documents ORDER BY path"
    ).fetchall()
    return [PaperRow(*row) for row in rows]


def latest_folder(connection: duckdb.DuckDBPyConnection) -> str | None:
    """The folder the last run read: the stored paths are relative to it."""
    row = connection.execute("SELECT folder FROM runs ORDER BY run_id DESC LIMIT 1").fetchone()
    return row[0] if row else None


def paper_sections(connection: duckdb.DuckDBPyConnection, doc_id: str) -> list[Section]:
    """A paper's sections as the chunker made them, rebuilt from their rows."""
    from pipeline.records.chunks import Section

    return _records(connection, Section, "sections", doc_id)


def paper_chunks(connection: duckdb.DuckDBPyConnection, doc_id: str) -> list[Chunk]:
    from pipeline.records.chunks import Chunk

    return _records(connection, Chunk, "chunks", doc_id)


def _records(connection: duckdb.DuckDBPyConnection, model: type, table: str, doc_id: str) -> list:
    # The tables are the models' fields plus keys and derived columns (doc_id, is_anchor,
    # term_count): select the fields by name, so each row becomes the record it was written from.
    fields = list(model.model_fields)
    rows = connection.execute(
        f"SELECT {', '.join(fields)} FROM {table} WHERE doc_id = $doc_id ORDER BY ordinal", {"doc_id": doc_id}
    ).fetchall()
    return [model(**dict(zip(fields, row))) for row in rows]


def chunk_boxes(connection: duckdb.DuckDBPyConnection, doc_id: str) -> dict[int, list[tuple[str, float, float, float, float]]]:
    """The `chunk_boxes` rows of a paper's chunks by physical page: (chunk_id, x0, y0, x1, y1) in PDF
    points, origin top left. Call only where `has_table(connection, "chunk_boxes")` (`pipeline.index.database`)."""
    rows = connection.execute(
        """SELECT b.page, b.chunk_id, b.x0, b.y0, b.x1, b.y1 FROM chunk_boxes b JOIN chunks c USING (chunk_id)
           WHERE c.doc_id = $doc_id ORDER BY b.page, c.ordinal, b.y0, b.x0""",
        {"doc_id": doc_id},
    ).fetchall()
    by_page: dict[int, list[tuple[str, float, float, float, float]]] = {}
    for page, *box in rows:
        by_page.setdefault(page, []).append(tuple(box))
    return by_page


@dataclass(frozen=True)
class PaperMetadataRow:
    """A paper's metadata as `papers` holds it (`pipeline.metadata`)."""

    doc_id: str
    title: str | None
    authors: list[str]
    year: int | None
    journal: str | None
    doi: str | None
    cited_by: int
    """Papers of the folder whose bibliography holds it (`paper_links`)."""


def paper_metadata(connection: duckdb.DuckDBPyConnection) -> list[PaperMetadataRow]:
    """Every paper's metadata and how many papers of the folder cite it, most cited first."""
    rows = connection.execute(
        """SELECT p.doc_id, p.title, p.authors, p.year, p.journal, p.doi,
                  (SELECT count(DISTINCT l.doc_id) FROM paper_links l WHERE l.cited_doc_id = p.doc_id) AS cited_by
           FROM papers p ORDER BY cited_by DESC, p.doc_id"""
    ).fetchall()
    return [PaperMetadataRow(*row) for row in rows]
