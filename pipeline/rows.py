"""Stage 4, index, the part the pool workers do: the database schema, and a paper's rows built
for it as JSON lines, so that the single writer (`pipeline.index`) only loads them.

The schema lives here and only here; the README documents it for people writing their own SQL.
Nothing here opens a database: a worker that never imports DuckDB starts sooner, and every run
waits for its first worker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone

from pydantic_core import to_json

from pipeline.models import ChunkedDocument
from pipeline.terms import ChunkTerms

# Raised whenever a table changes; a database written with an older schema is rebuilt from the
# papers by the next ingest (every file is re-read, as after any pipeline upgrade).
SCHEMA_VERSION = 2
POSTINGS_COLUMNS = "term VARCHAR NOT NULL, chunk_id VARCHAR NOT NULL, tf INTEGER NOT NULL"
SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    doc_id VARCHAR NOT NULL,           -- readable slug of the path: reviews/berek-2021
    path VARCHAR NOT NULL,             -- relative to the ingested folder
    format VARCHAR NOT NULL,           -- markdown | pdf
    sha256 VARCHAR NOT NULL,           -- of the file's bytes
    bytes BIGINT NOT NULL,
    title VARCHAR,
    page_count INTEGER,                -- physical pages; NULL for Markdown
    text VARCHAR,                      -- normalized text every chunk's offsets point into
    status VARCHAR NOT NULL,           -- ingested | failed | no_text
    error VARCHAR,                     -- why it failed, NULL when ingested
    encoding VARCHAR,                  -- encoding a Markdown file was decoded with
    removed_running_lines INTEGER,     -- page furniture (running heads, page numbers) dropped
    rules_sha256 VARCHAR NOT NULL,
    pipeline_version VARCHAR NOT NULL,
    ingested_at TIMESTAMP NOT NULL
);
CREATE TABLE IF NOT EXISTS sections (
    doc_id VARCHAR NOT NULL,
    section_id VARCHAR NOT NULL,       -- S1, S2, ... ; children S3.1
    parent_id VARCHAR,
    ordinal INTEGER NOT NULL,          -- position in the paper, 1-based
    level INTEGER NOT NULL,            -- 1 title/front matter, 2 top-level, 3 child
    heading VARCHAR,                   -- as written; NULL for untitled front matter
    heading_path VARCHAR[] NOT NULL,
    section_type VARCHAR NOT NULL,
    type_source VARCHAR NOT NULL,      -- anchor:<rule> | classified:<rule> | inherited | absorbed | ...
    is_anchor BOOLEAN NOT NULL,        -- heading is a strict standalone label
    anchor VARCHAR,                    -- which anchor rule: methods, results, references, ...
    absorbed_into VARCHAR,             -- anchor section that absorbed this flat sibling
    word_count INTEGER NOT NULL,       -- own body words, children excluded
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    line_start INTEGER,
    line_end INTEGER,
    page_start INTEGER,
    page_end INTEGER,
    decisions VARCHAR[] NOT NULL       -- what the chunker decided here, in words
);
CREATE TABLE IF NOT EXISTS paragraphs (
    doc_id VARCHAR NOT NULL,
    paragraph_id VARCHAR NOT NULL,     -- S2-P1: first paragraph of S2
    section_id VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,             -- paragraph | list | table | code | caption | ...
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    line_start INTEGER,
    line_end INTEGER,
    page_start INTEGER,
    page_end INTEGER,
    word_count INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id VARCHAR NOT NULL,         -- {doc_id}:{ordinal}
    doc_id VARCHAR NOT NULL,
    ordinal INTEGER NOT NULL,
    section_id VARCHAR NOT NULL,
    section_type VARCHAR NOT NULL,
    heading VARCHAR,
    heading_path VARCHAR[] NOT NULL,
    text VARCHAR NOT NULL,             -- = substr(documents.text, char_start + 1, char_end - char_start)
    word_count INTEGER NOT NULL,
    term_count INTEGER NOT NULL,       -- terms BM25 counts in heading path and text: its length
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    line_start INTEGER,                -- source Markdown lines, inclusive; NULL for PDF
    line_end INTEGER,
    page_start INTEGER,                -- physical pages the text is on; NULL without pages
    page_end INTEGER,
    pages INTEGER[] NOT NULL,
    paragraph_ids VARCHAR[] NOT NULL,
    absorbed_into VARCHAR,
    split VARCHAR NOT NULL             -- why the chunk starts here: front | h2 | h3_soft | size | caption
);
-- Lets `search` fetch its hits' rows by id: 2 ms for ten of them at 100,000 chunks, against 44 ms
-- scanning for them (DuckDB only uses it for a filter on constants against this table alone).
CREATE INDEX IF NOT EXISTS chunks_by_id ON chunks (chunk_id);
-- The BM25 index: how often each term occurs in each chunk's heading path and text. Terms are
-- lowered, accent-stripped, stopped and Porter-stemmed words (pipeline/terms.py); `search` reads
-- the rows of the query's terms, which is fast while the table is in term order.
CREATE TABLE IF NOT EXISTS chunk_postings ({postings_columns});
-- Postings written since chunk_postings was last put in term order; search scans all of them.
CREATE TABLE IF NOT EXISTS search_index_state (unsorted_rows BIGINT NOT NULL);
INSERT INTO search_index_state SELECT 0 WHERE NOT EXISTS (SELECT * FROM search_index_state);
-- What extraction produced for a file, so a rules change re-chunks without re-extracting.
CREATE TABLE IF NOT EXISTS extractions (
    doc_id VARCHAR NOT NULL,
    sha256 VARCHAR NOT NULL,           -- of the file the extraction was made from
    extract_key VARCHAR NOT NULL,      -- pipeline version and the rules extraction depends on
    raw_document VARCHAR NOT NULL      -- pipeline.models.RawDocument as JSON text
);
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER NOT NULL,           -- 1, 2, ... in order
    started_at TIMESTAMP NOT NULL,
    finished_at TIMESTAMP NOT NULL,
    folder VARCHAR NOT NULL,
    seen INTEGER NOT NULL,             -- files found in the folder
    added INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    unchanged INTEGER NOT NULL,
    removed INTEGER NOT NULL,
    failed INTEGER NOT NULL,           -- files whose stage run failed in this run
    pages INTEGER NOT NULL,            -- PDF pages processed in this run
    chunks INTEGER NOT NULL,           -- chunks written in this run
    duration_seconds DOUBLE NOT NULL,
    pipeline_version VARCHAR NOT NULL,
    rules_sha256 VARCHAR NOT NULL
);
CREATE VIEW IF NOT EXISTS chunk_pages AS
    SELECT chunk_id, doc_id, unnest(pages) AS page FROM chunks;
CREATE TABLE IF NOT EXISTS pipeline_schema (version INTEGER NOT NULL);
INSERT INTO pipeline_schema SELECT {schema_version} WHERE NOT EXISTS (SELECT * FROM pipeline_schema);
"""

SCHEMA = SCHEMA.replace("{postings_columns}", POSTINGS_COLUMNS).replace("{schema_version}", str(SCHEMA_VERSION))


def _columns(schema: str) -> dict[str, dict[str, str]]:
    """Each table's columns in order, name → type, read off the schema: a pool worker builds rows
    without a connection, and the writer loads them without asking DuckDB for the types (5 ms a
    table, which was half the cost of writing a batch)."""
    uncommented = re.sub(r"--[^\n]*", "", schema)
    return {
        table: dict(column.split()[:2] for column in body.split(",") if column.strip())
        for table, body in re.findall(r"CREATE TABLE IF NOT EXISTS (\w+) \((.*?)\);", uncommented, flags=re.S)
    }


COLUMNS = _columns(SCHEMA)
# chunk_postings arrive as one row per chunk and are unnested on the way in.
STAGED_POSTINGS = {"chunk_id": "VARCHAR", "terms": "VARCHAR[]", "frequencies": "INTEGER[]"}

TABLES_BY_DOCUMENT = ("chunk_postings", "chunks", "paragraphs", "sections", "extractions", "documents")


@dataclass(frozen=True)
class DocumentRow:
    """What the documents table records of one file, whether or not it was ingested."""

    doc_id: str
    path: str
    format: str
    sha256: str
    bytes: int
    status: str
    error: str | None
    rules_sha256: str
    pipeline_version: str


@dataclass(frozen=True)
class PaperRows:
    """One paper's rows for every table as newline-delimited JSON, built where the paper was
    processed (a pool worker), so that the single writer only has to load them."""

    doc_id: str
    lines: dict[str, bytes]
    """Table → its rows, one UTF-8 JSON object a line (chunk_postings: one per chunk, see STAGED_POSTINGS)."""
    row_count: int
    posting_count: int
    longest_line: int = 0
    """Bytes of the longest of those lines: DuckDB's JSON reader is told to expect nothing longer."""


def paper_rows(
    row: DocumentRow,
    chunked: ChunkedDocument | None,
    extraction: tuple[str, str] | None = None,
    terms: tuple[ChunkTerms, ...] = (),
) -> PaperRows:
    """A paper's rows: its documents row, and where it was chunked its sections, paragraphs,
    chunks and postings.

    `extraction` is (extract_key, RawDocument JSON) of a fresh extraction, kept so a rules change
    can re-chunk (None where the paper was re-chunked from the one stored, whose row stays);
    `terms` are the chunks' index terms (`count_chunk_terms`), one for each chunk.
    """
    document = chunked.document if chunked else None
    tables: dict[str, list[list]] = {"documents": [[
        row.doc_id, row.path, row.format, row.sha256, row.bytes,
        document.title if document else None,
        document.page_count if document else None,
        document.text if document else None,
        row.status, row.error,
        document.encoding if document else None,
        document.removed_running_lines if document else None,
        row.rules_sha256, row.pipeline_version, datetime.now(timezone.utc).replace(tzinfo=None),
    ]]}
    if extraction is not None:
        tables["extractions"] = [[row.doc_id, row.sha256, extraction[0], extraction[1]]]
    if chunked is not None:
        tables.update(_chunked_rows(chunked, terms))
    lines = {}
    longest = 0
    for table, rows in tables.items():
        names = STAGED_POSTINGS if table == "chunk_postings" else COLUMNS[table]
        # pydantic's serializer, in Rust, writes these rows 3x faster than `json.dumps` (0.73 s →
        # 0.23 s of a worker's time on the shared Markdown corpus).
        encoded = [to_json(dict(zip(names, values))) for values in rows]
        longest = max(longest, max(map(len, encoded), default=0))
        lines[table] = b"".join(line + b"\n" for line in encoded)
    postings = sum(len(values[1]) for values in tables.get("chunk_postings", []))
    return PaperRows(row.doc_id, lines, sum(len(rows) for rows in tables.values()), postings, longest)


def _chunked_rows(chunked: ChunkedDocument, terms: tuple[ChunkTerms, ...]) -> dict[str, list[list]]:
    """The sections, paragraphs, chunks and postings of one paper, as rows in column order
    (postings as one row per chunk: chunk_id, terms, frequencies)."""
    doc_id = chunked.document.doc_id
    section_rows = [
        [
            doc_id, s.section_id, s.parent_id, ordinal, s.level, s.heading, s.heading_path, s.section_type.value,
            s.type_source, s.anchor is not None, s.anchor, s.absorbed_into, s.word_count, s.char_start, s.char_end,
            s.line_start, s.line_end, s.page_start, s.page_end, s.decisions,
        ]
        for ordinal, s in enumerate(chunked.sections, start=1)
    ]
    paragraph_rows = [
        [
            doc_id, p.paragraph_id, p.section_id, p.kind.value, p.char_start, p.char_end,
            p.line_start, p.line_end, p.page_start, p.page_end, p.word_count,
        ]
        for p in chunked.paragraphs
    ]
    chunk_rows = [
        [
            c.chunk_id, c.doc_id, c.ordinal, c.section_id, c.section_type.value, c.heading, c.heading_path, c.text,
            c.word_count, counted.term_count, c.char_start, c.char_end, c.line_start, c.line_end, c.page_start, c.page_end, c.pages,
            c.paragraph_ids, c.absorbed_into, c.split,
        ]
        for c, counted in zip(chunked.chunks, terms, strict=True)
    ]
    posting_rows = [[counted.chunk_id, counted.terms, counted.frequencies] for counted in terms]
    return {"sections": section_rows, "paragraphs": paragraph_rows, "chunks": chunk_rows, "chunk_postings": posting_rows}
