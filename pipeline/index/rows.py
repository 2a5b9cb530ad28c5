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

from pipeline.errors import IndexingError
from pipeline.index.ocr_rows import ocr_rows
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
    warning: str | None = None
    """What the reading of an ingested file lost, for the user to check (`paper_warning`)."""


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
    content = {
        "doc_id": row.doc_id, "path": row.path, "format": row.format, "sha256": row.sha256, "bytes": row.bytes,
        "title": title,
        "page_count": document.page_count if document else None,
        "text": document.text if document else None,
        "status": row.status, "error": row.error,
        "encoding": document.encoding if document else None,
        "removed_running_lines": document.removed_running_lines if document else None,
        "layout": document.layout if document else None,
        "layout_reason": document.layout_reason if document else None,
        "unresolved_citations": unresolved_citations(chunked) if chunked else None,
        "broken_links": broken_links(chunked) if chunked else None,
    }
    tables: dict[str, list[dict]] = {}
    if extraction is not None:
        tables["extractions"] = [{"doc_id": row.doc_id, "sha256": row.sha256, "extract_key": extraction[0], "raw_document": extraction[1]}]
    if chunked is not None:
        if terms is None:
            raise ValueError(f"{row.path}: a chunked paper's rows need its index terms (count_paper_terms)")
        tables.update(_chunked_rows(chunked, terms))
    if chunked is not None and metadata is not None:
        tables["papers"] = [{"doc_id": row.doc_id, **metadata.model_dump(mode="json")}]
    # pydantic's serializer, in Rust, writes these rows several times faster than `json.dumps`.
    encoded = {table: [to_json(values) for values in in_column_order(table, rows)] for table, rows in tables.items()}
    if chunked is not None:
        encoded.update(_bibliography_lines(chunked))
    lines = {table: b"\n".join(table_lines) + b"\n" if table_lines else b"" for table, table_lines in encoded.items()}
    digest = records_digest(content, lines, tables) if chunked is not None else None
    written = {
        "warning": row.warning, "records_digest": digest, "rules_sha256": row.rules_sha256, "pipeline_version": row.pipeline_version,
    }
    documents = {**content, **written, "ingested_at": datetime.now(timezone.utc).replace(tzinfo=None)}
    lines["documents"] = to_json(in_column_order("documents", [documents])[0]) + b"\n"
    longest = max([len(lines["documents"]) - 1, *(max(map(len, table_lines), default=0) for table_lines in encoded.values())])
    postings = sum(len(values["terms"]) for table in POSTINGS_TABLES for values in tables.get(table, []))
    return PaperRows(row.doc_id, lines, postings, longest)


def row_columns(table: str) -> tuple[str, ...]:
    """The columns a row of `table` names, in order: the table's, or for postings the staged
    rows' (one a chunk or paragraph, unnested on the way in)."""
    return tuple(POSTINGS_TABLES[table][2] if table in POSTINGS_TABLES else COLUMNS[table])


def in_column_order(table: str, rows: list[dict]) -> list[dict]:
    """`rows`, each checked to name every column of `table` and nothing else, in the schema's
    order: a column left out, named wrong or out of place is an error here, never a value in the
    wrong column (the writer reads the rows by name; the records' digest reads them in order)."""
    columns = row_columns(table)
    for values in rows:
        if tuple(values) != columns:
            missing, extra = [c for c in columns if c not in values], [c for c in values if c not in columns]
            problem = f"missing {missing}, unknown {extra}" if missing or extra else "its columns out of the schema's order"
            raise IndexingError(f"a row for the table {table} does not match the schema ({problem}): a bug in pipeline/index/rows.py")
    return rows


# What a paper's records are not made of: its extraction (written only when the file was read
# afresh, so a re-chunk from the stored one would differ by it alone) and, of its documents row,
# when and under which rules and pipeline it was written.
_NOT_IN_RECORDS = frozenset({"extractions", "documents"})
# Columns no exported record reads that a rules change rewrites in papers whose records it
# leaves as they were: a section's decisions name the thresholds they were taken against, so a
# tweak to one would otherwise send every paper it was weighed in to be fingerprinted.
NOT_READ_BY_RECORDS = {"sections": frozenset({"decisions"})}


def records_digest(content: dict, lines: dict[str, bytes], tables: dict[str, list[dict]]) -> str:
    """A digest of everything a paper's exported records (`pipeline.export.records`) may read:
    its documents row but when and how it was written (`content`), and every other table's rows
    (`lines`, or the `tables` they were written from) but its extraction and the columns in
    `NOT_READ_BY_RECORDS`. Two runs that give a paper the same digest gave it the same records,
    so a run that re-chunks it under new rules into the same rows has changed none of them
    (`pipeline.ingest.changes`) and need not fingerprint them. It covers more than the records
    read (the postings, the boxes): a paper whose digest changed is fingerprinted, and the
    fingerprints decide."""
    digest = hashlib.blake2b(to_json(list(content.values())), digest_size=16)
    for table in sorted(lines.keys() - _NOT_IN_RECORDS):
        if table in NOT_READ_BY_RECORDS:
            left_out = NOT_READ_BY_RECORDS[table]
            written = to_json([[value for name, value in row.items() if name not in left_out] for row in tables[table]])
        else:
            written = lines[table]
        digest.update(f"{table} {len(written)}\n".encode())
        digest.update(written)
    return digest.hexdigest()


def _chunked_rows(chunked: ChunkedDocument, terms: PaperTerms) -> dict[str, list[dict]]:
    """The sections, paragraphs, chunks, postings and boxes of one paper, as rows by column name
    (postings as one row per chunk or paragraph: its id, terms, frequencies)."""
    return {
        "sections": _section_rows(chunked),
        "paragraphs": _paragraph_rows(chunked, terms),
        "chunks": _chunk_rows(chunked, terms),
        "chunk_postings": [{"chunk_id": c.unit_id, "terms": c.terms, "frequencies": c.frequencies} for c in terms.chunks],
        "paragraph_postings": [{"paragraph_key": p.unit_id, "terms": p.terms, "frequencies": p.frequencies} for p in terms.paragraphs],
        **_box_rows(chunked),
        # Only where a page was read by OCR: a text paper's rows, and so its records' digest, stay as they were.
        **ocr_rows(chunked),
    }


def _section_rows(chunked: ChunkedDocument) -> list[dict]:
    doc_id = chunked.document.doc_id
    return [
        {
            "doc_id": doc_id, "section_id": s.section_id, "parent_id": s.parent_id, "ordinal": ordinal, "level": s.level,
            "heading": s.heading, "heading_path": s.heading_path, "section_type": s.section_type.value,
            "type_source": s.type_source.value, "type_rule": s.type_rule, "is_anchor": s.anchor is not None, "anchor": s.anchor,
            "absorbed_into": s.absorbed_into, "word_count": s.word_count, "char_start": s.char_start, "char_end": s.char_end,
            "line_start": s.line_start, "line_end": s.line_end, "page_start": s.page_start, "page_end": s.page_end,
            "decisions": s.decisions,
        }
        for ordinal, s in enumerate(chunked.sections, start=1)
    ]


def _paragraph_rows(chunked: ChunkedDocument, terms: PaperTerms) -> list[dict]:
    doc_id = chunked.document.doc_id
    parents = {paragraph_id: chunk for chunk in chunked.chunks for paragraph_id in chunk.paragraph_ids}
    section_types = {section.section_id: section.section_type.value for section in chunked.sections}
    return [
        {
            "doc_id": doc_id, "paragraph_id": p.paragraph_id, "section_id": p.section_id, "kind": p.kind.value,
            "char_start": p.char_start, "char_end": p.char_end, "line_start": p.line_start, "line_end": p.line_end,
            "page_start": p.page_start, "page_end": p.page_end, "word_count": p.word_count, "paragraph_key": counted.unit_id,
            "chunk_id": parent.chunk_id if parent else None,
            "section_type": parent.section_type.value if parent else section_types[p.section_id],
            "term_count": counted.term_count, "in_bibliography": parent.in_bibliography if parent else False,
        }
        for p, counted in zip(chunked.paragraphs, terms.paragraphs, strict=True)
        for parent in [parents.get(p.paragraph_id)]
    ]


def _chunk_rows(chunked: ChunkedDocument, terms: PaperTerms) -> list[dict]:
    return [
        {
            "chunk_id": c.chunk_id, "doc_id": c.doc_id, "ordinal": c.ordinal, "section_id": c.section_id,
            "section_type": c.section_type.value, "heading": c.heading, "heading_path": c.heading_path, "text": c.text,
            "word_count": c.word_count, "term_count": counted.term_count, "char_start": c.char_start, "char_end": c.char_end,
            "line_start": c.line_start, "line_end": c.line_end, "page_start": c.page_start, "page_end": c.page_end,
            "pages": c.pages, "paragraph_ids": c.paragraph_ids, "absorbed_into": c.absorbed_into, "split": c.split.value,
            "in_bibliography": c.in_bibliography,
        }
        for c, counted in zip(chunked.chunks, terms.chunks, strict=True)
    ]


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


def _box_rows(chunked: ChunkedDocument) -> dict[str, list[dict]]:
    """Where the paper's chunks and sections are printed (PDF only; none for Markdown)."""
    doc_id = chunked.document.doc_id
    return {
        "chunk_boxes": [
            {"chunk_id": b.chunk_id, "page": b.page, "x0": b.x0, "y0": b.y0, "x1": b.x1, "y1": b.y1} for b in chunked.chunk_boxes
        ],
        "section_boxes": [
            {"doc_id": doc_id, "section_id": b.section_id, "page": b.page, "x0": b.x0, "y0": b.y0, "x1": b.x1, "y1": b.y1}
            for b in chunked.section_boxes
        ],
    }


def unresolved_citations(chunked: ChunkedDocument) -> int:
    """Citation markers (or members of a range) that name no entry, or more than one."""
    return sum(1 for citation in chunked.citations if citation.ref_id is None)


def broken_links(chunked: ChunkedDocument) -> int:
    """Cross-references to a part of the paper that is not there (supplementary material and
    equations left out: they may lie outside the text)."""
    return sum(1 for link in chunked.links if link.target_chunk_id is None and link.kind in BROKEN_WHEN_MISSING)
