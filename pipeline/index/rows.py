"""A paper's rows for every table, built as JSON lines where the paper was processed (a pool
worker), so that the run's single writer (`pipeline.index.writer`) only loads them.

Nothing here opens a database: a worker that never imports DuckDB starts sooner, and every run
waits for its first worker.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timezone

from pydantic_core import to_json

from pipeline.index.schema import COLUMNS, POSTINGS_TABLES
from pipeline.index.terms import PaperTerms
from pipeline.link.crossrefs import BROKEN_WHEN_MISSING
from pipeline.records.base import DocumentStatus, SourceFormat
from pipeline.records.chunked import ChunkedDocument
from pipeline.records.extract import Table
from pipeline.records.links import Citation, Link, Reference
from pipeline.records.metadata import PaperMetadata


@dataclass(frozen=True)
class DocumentRow:
    """What the documents table records of one file, whether or not it was ingested."""

    doc_id: str
    path: str
    format: SourceFormat
    sha256: str
    bytes: int
    status: DocumentStatus
    error: str | None
    rules_sha256: str
    pipeline_version: str


@dataclass(frozen=True)
class PaperRows:
    """One paper's rows for every table as newline-delimited JSON, built where the paper was
    processed (a pool worker), so that the single writer only has to load them."""

    doc_id: str
    lines: dict[str, bytes]
    """Table → its rows, one UTF-8 JSON object a line (postings: one per chunk or paragraph, see POSTINGS_TABLES)."""
    posting_count: int
    longest_line: int = 0
    """Bytes of the longest of those lines: DuckDB's JSON reader is told to expect nothing longer."""

    @property
    def byte_count(self) -> int:
        """Bytes of all the lines."""
        return sum(map(len, self.lines.values()))


def paper_rows(
    row: DocumentRow,
    chunked: ChunkedDocument | None,
    extraction: tuple[str, str] | None = None,
    terms: PaperTerms | None = None,
    metadata: PaperMetadata | None = None,
) -> PaperRows:
    """A paper's rows: its documents row, and where it was chunked its sections, paragraphs,
    chunks and postings.

    `extraction` is (extract_key, RawDocument JSON) of a fresh extraction, kept so a rules change
    can re-chunk (None where the paper was re-chunked from the one stored, whose row stays);
    `terms` are the chunks' and paragraphs' index terms (`count_paper_terms`), which a chunked
    paper must have; `metadata` its row of `papers` (`pipeline.metadata`), where it was read.
    """
    document = chunked.document if chunked else None
    # The paper's title as its metadata read it, which weighs the byline under it and the file's
    # own metadata, over the extractor's title heading (the largest text on page 1, which can be a
    # journal's name), so that exports and citing papers name the paper as `papers` does.
    title = (metadata.title if metadata is not None and metadata.title else document.title) if document else None
    content = [
        row.doc_id, row.path, row.format, row.sha256, row.bytes,
        title,
        document.page_count if document else None,
        document.text if document else None,
        row.status, row.error,
        document.encoding if document else None,
        document.removed_running_lines if document else None,
        document.layout if document else None,
        document.layout_reason if document else None,
        unresolved_citations(chunked) if chunked else None,
        broken_links(chunked) if chunked else None,
    ]
    tables: dict[str, list[list]] = {}
    if extraction is not None:
        tables["extractions"] = [[row.doc_id, row.sha256, extraction[0], extraction[1]]]
    if chunked is not None:
        if terms is None:
            raise ValueError(f"{row.path}: a chunked paper's rows need its index terms (count_paper_terms)")
        tables.update(_chunked_rows(chunked, terms))
    if chunked is not None and metadata is not None:
        tables["papers"] = [[row.doc_id, *metadata.model_dump(mode="json").values()]]
    encoded: dict[str, list[bytes]] = {}
    for table, rows in tables.items():
        names = POSTINGS_TABLES[table][2] if table in POSTINGS_TABLES else COLUMNS[table]
        # pydantic's serializer, in Rust, writes these rows several times faster than `json.dumps`.
        encoded[table] = [to_json(dict(zip(names, values))) for values in rows]
    if chunked is not None:
        encoded.update(_bibliography_lines(chunked))
    lines = {table: b"\n".join(table_lines) + b"\n" if table_lines else b"" for table, table_lines in encoded.items()}
    digest = records_digest(content, lines, tables) if chunked is not None else None
    documents = [*content, digest, row.rules_sha256, row.pipeline_version, datetime.now(timezone.utc).replace(tzinfo=None)]
    lines["documents"] = to_json(dict(zip(COLUMNS["documents"], documents))) + b"\n"
    longest = max([len(lines["documents"]) - 1, *(max(map(len, table_lines), default=0) for table_lines in encoded.values())])
    postings = sum(len(values[1]) for table in POSTINGS_TABLES for values in tables.get(table, []))
    return PaperRows(row.doc_id, lines, postings, longest)


# What a paper's records are not made of: its extraction (written only when the file was read
# afresh, so a re-chunk from the stored one would differ by it alone) and, of its documents row,
# when and under which rules and pipeline it was written.
_NOT_IN_RECORDS = frozenset({"extractions", "documents"})
# Columns no exported record reads that a rules change rewrites in papers whose records it
# leaves as they were: a section's decisions name the thresholds they were taken against, so a
# tweak to one would otherwise send every paper it was weighed in to be fingerprinted.
NOT_READ_BY_RECORDS = {"sections": frozenset({"decisions"})}


def records_digest(content: list, lines: dict[str, bytes], tables: dict[str, list[list]]) -> str:
    """A digest of everything a paper's exported records (`pipeline.export.records`) may read:
    its documents row but when and how it was written (`content`), and every other table's rows
    (`lines`, or the `tables` they were written from) but its extraction and the columns in
    `NOT_READ_BY_RECORDS`. Two runs that give a paper the same digest gave it the same records,
    so a run that re-chunks it under new rules into the same rows has changed none of them
    (`pipeline.ingest.changes`) and need not fingerprint them. It covers more than the records
    read (the postings, the boxes): a paper whose digest changed is fingerprinted, and the
    fingerprints decide."""
    digest = hashlib.blake2b(to_json(content), digest_size=16)
    for table in sorted(lines.keys() - _NOT_IN_RECORDS):
        if table in NOT_READ_BY_RECORDS:
            kept = [index for index, name in enumerate(COLUMNS[table]) if name not in NOT_READ_BY_RECORDS[table]]
            written = to_json([[row[index] for index in kept] for row in tables[table]])
        else:
            written = lines[table]
        digest.update(f"{table} {len(written)}\n".encode())
        digest.update(written)
    return digest.hexdigest()


def _chunked_rows(chunked: ChunkedDocument, terms: PaperTerms) -> dict[str, list[list]]:
    """The sections, paragraphs, chunks and postings of one paper, as rows in column order
    (postings as one row per chunk or paragraph: its id, terms, frequencies)."""
    doc_id = chunked.document.doc_id
    parents = {paragraph_id: chunk for chunk in chunked.chunks for paragraph_id in chunk.paragraph_ids}
    section_types = {section.section_id: section.section_type.value for section in chunked.sections}
    section_rows = [
        [
            doc_id, s.section_id, s.parent_id, ordinal, s.level, s.heading, s.heading_path, s.section_type.value,
            s.type_source.value, s.type_rule, s.anchor is not None, s.anchor, s.absorbed_into, s.word_count, s.char_start, s.char_end,
            s.line_start, s.line_end, s.page_start, s.page_end, s.decisions,
        ]
        for ordinal, s in enumerate(chunked.sections, start=1)
    ]
    paragraph_rows = [
        [
            doc_id, p.paragraph_id, p.section_id, p.kind.value, p.char_start, p.char_end,
            p.line_start, p.line_end, p.page_start, p.page_end, p.word_count, counted.unit_id,
            parent.chunk_id if parent else None,
            parent.section_type.value if parent else section_types[p.section_id],
            counted.term_count, parent.in_bibliography if parent else False,
        ]
        for p, counted in zip(chunked.paragraphs, terms.paragraphs, strict=True)
        for parent in [parents.get(p.paragraph_id)]
    ]
    chunk_rows = [
        [
            c.chunk_id, c.doc_id, c.ordinal, c.section_id, c.section_type.value, c.heading, c.heading_path, c.text,
            c.word_count, counted.term_count, c.char_start, c.char_end, c.line_start, c.line_end, c.page_start, c.page_end, c.pages,
            c.paragraph_ids, c.absorbed_into, c.split.value, c.in_bibliography,
        ]
        for c, counted in zip(chunked.chunks, terms.chunks, strict=True)
    ]
    return {
        "sections": section_rows, "paragraphs": paragraph_rows, "chunks": chunk_rows,
        "chunk_postings": [[counted.unit_id, counted.terms, counted.frequencies] for counted in terms.chunks],
        "paragraph_postings": [[counted.unit_id, counted.terms, counted.frequencies] for counted in terms.paragraphs],
        **_box_rows(chunked),
    }


# The tables whose columns are the fields of a record of a paper's, and its doc_id: each
# table's record type, and the field of `ChunkedDocument` that holds the paper's records.
RECORD_TABLES = {
    "bibliography": (Reference, "references"),
    "chunk_citations": (Citation, "citations"),
    "chunk_links": (Link, "links"),
    "paper_tables": (Table, "tables"),
}


def _bibliography_lines(chunked: ChunkedDocument) -> dict[str, list[bytes]]:
    """The paper's bibliography entries, and its chunks' citations and cross-references, as JSON
    lines. These tables' columns are their records' fields and the doc_id, so each record is
    serialized whole, by pydantic in Rust: there are tens of them a chunk, and building each row
    value by value in Python cost twice as much."""
    doc_id = b'{"doc_id":' + to_json(chunked.document.doc_id) + b","
    return {
        table: [doc_id + serialized[1:] for serialized in map(record.__pydantic_serializer__.to_json, getattr(chunked, field))]
        for table, (record, field) in RECORD_TABLES.items()
    }


def _box_rows(chunked: ChunkedDocument) -> dict[str, list[list]]:
    """Where the paper's chunks and sections are printed (PDF only; none for Markdown)."""
    doc_id = chunked.document.doc_id
    return {
        "chunk_boxes": [[b.chunk_id, b.page, b.x0, b.y0, b.x1, b.y1] for b in chunked.chunk_boxes],
        "section_boxes": [[doc_id, b.section_id, b.page, b.x0, b.y0, b.x1, b.y1] for b in chunked.section_boxes],
    }


def unresolved_citations(chunked: ChunkedDocument) -> int:
    """Citation markers (or members of a range) that name no entry, or more than one."""
    return sum(1 for citation in chunked.citations if citation.ref_id is None)


def broken_links(chunked: ChunkedDocument) -> int:
    """Cross-references to a part of the paper that is not there (supplementary material and
    equations left out: they may lie outside the text)."""
    return sum(1 for link in chunked.links if link.target_chunk_id is None and link.kind in BROKEN_WHEN_MISSING)
