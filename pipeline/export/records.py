"""The exported records, as SQL over the database: one a chunk, or one a paragraph, each
`(id, text, metadata)`.

The same statements feed the files (`pipeline.export.files`), the loaders
(`pipeline.export.langchain`, `pipeline.export.llamaindex`) and the fingerprints a run records
its changes by (`pipeline.ingest.changes`), so a record changes exactly when what is exported of
it changes.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import cached_property

import duckdb

from pipeline.index.unit import Unit


@dataclass(frozen=True)
class Selection:
    """Which records an export holds."""

    unit: Unit = Unit.chunk
    section_types: tuple[str, ...] = ()
    """Only records of these section types; every type where empty."""
    include_bibliography: bool = False
    """The paper's own bibliography too: left out, as `search` leaves it out, unless this is set
    or `meta` (its section type) is asked for."""
    window: int = 0
    """Paragraph units only: the paragraphs on either side, within the same section, whose text
    goes into each record's `window`."""
    since_run_id: int | None = None
    """Only records added or changed by the runs after this one (`pipeline.ingest.changes`)."""
    doc_ids: tuple[str, ...] | None = field(default=None, repr=False)
    """Only these papers (the change fingerprints of one run's papers); every paper where None."""
    vectors: bool = False
    """Each record with its sentence vector (`vector`), where the database keeps them (`ingest --vectors`)."""

    @property
    def bibliography_included(self) -> bool:
        return self.include_bibliography or "meta" in self.section_types


# The papers a statement reads, the first thing it names: every CTE reads only theirs, so that
# fingerprinting one paper of a large database reads that paper and not every paper's citations
# and paragraphs (`{papers}` is `SELECT unnest(?)` over the selection's ids, or every paper).
_SELECTED_PAPERS = "selected AS ({papers})"
_IN_SELECTED = "doc_id IN (SELECT doc_id FROM selected)"

# The entries a record's citation markers name, once each, in the bibliography's order; the
# paper's own words, nothing looked up. `{owner}` is the record's key in the cited rows.
# `doc_ids` are the papers of the folder the entry is (`paper_links`): where to read the work it
# names, which the citing paper's own text is not.
_REFERENCES = """
SELECT {owner}, list({{'ref_id': b.ref_id, 'label': b.label, 'text': b.text, 'doi': b.doi, 'year': b.year,
                       'first_author': b.first_author, 'doc_ids': coalesce(held.doc_ids, [])}} ORDER BY b.ordinal) AS refs
FROM (SELECT DISTINCT {owner}, doc_id, ref_id FROM {cited}) c
JOIN bibliography b ON b.doc_id = c.doc_id AND b.ref_id = c.ref_id
LEFT JOIN (SELECT doc_id, ref_id, list(cited_doc_id ORDER BY cited_doc_id) AS doc_ids FROM paper_links GROUP BY ALL) held
  ON held.doc_id = c.doc_id AND held.ref_id = c.ref_id
GROUP BY {owner}
"""
_NO_REFERENCES = (
    "[]::STRUCT(ref_id VARCHAR, label VARCHAR, text VARCHAR, doi VARCHAR, year VARCHAR, first_author VARCHAR, doc_ids VARCHAR[])[]"
)
# The paper's own metadata (`papers`), as the paper prints it; NULLs where it does not.
_PAPER = "{'authors': coalesce(m.authors, []), 'year': m.year, 'journal': m.journal, 'volume': m.volume, 'doi': m.doi}"

_CHUNK_RECORDS = """
WITH {selected}, cited AS ({references})
SELECT c.chunk_id AS id, c.text,
       {{'doc_id': c.doc_id, 'path': d.path, 'title': d.title, 'section_id': c.section_id, 'section_type': c.section_type,
         'heading': c.heading, 'heading_path': c.heading_path, 'ordinal': c.ordinal, 'paragraph_ids': c.paragraph_ids,
         'page_start': c.page_start, 'page_end': c.page_end, 'pages': c.pages, 'line_start': c.line_start,
         'line_end': c.line_end, 'char_start': c.char_start, 'char_end': c.char_end, 'word_count': c.word_count,
         'split': c.split, 'in_bibliography': c.in_bibliography, 'paper': {paper}, 'table': t.markdown,
         'references': coalesce(cited.refs, {no_references})}}::JSON AS metadata
FROM chunks c JOIN documents d USING (doc_id) LEFT JOIN papers m USING (doc_id) LEFT JOIN cited USING (chunk_id) LEFT JOIN paper_tables t USING (chunk_id)
WHERE c.{in_selected} AND {where}
ORDER BY c.doc_id, c.ordinal
"""

# A paragraph's parent is the first chunk that holds it; one a size split cut in two is in both
# (`chunk_ids`). Its citations are the markers of its chunks that fall inside its own text. Its
# window is its section's paragraphs on either side in their order (`S2-P3` after `S2-P2`), not a
# stretch of text: a caption the extractor found at the paper's end keeps its place among them.
# Texts are cut from the paper's text in Python (`_cut_paragraphs`): DuckDB's
# `substr` counts its way through the paper's characters up to the offset, which made a paragraph
# export of the shared corpus take seconds, where Python's slices take milliseconds.
_PARAGRAPH_RECORDS = """
WITH {selected},
holding AS (
    SELECT doc_id, unnest(paragraph_ids) AS paragraph_id, chunk_id, ordinal, char_start, in_bibliography FROM chunks
    WHERE {in_selected}
),
parents AS (
    SELECT doc_id, paragraph_id, arg_min(chunk_id, ordinal) AS chunk_id, list(chunk_id ORDER BY ordinal) AS chunk_ids,
           bool_and(in_bibliography) AS in_bibliography
    FROM holding GROUP BY doc_id, paragraph_id
),
markers AS (
    SELECT p.doc_id || ':' || p.paragraph_id AS id, p.doc_id, m.ref_id
    FROM paragraphs p
    JOIN holding h ON h.doc_id = p.doc_id AND h.paragraph_id = p.paragraph_id
    JOIN chunk_citations m ON m.chunk_id = h.chunk_id
    WHERE p.{in_selected} AND m.ref_id IS NOT NULL
      AND h.char_start + m.char_start >= p.char_start AND h.char_start + m.char_end <= p.char_end
),
cited AS ({references}),
windowed AS (
    SELECT p.*,
           list(p.paragraph_id) OVER neighbours AS window_paragraph_ids,
           list([p.char_start, p.char_end]) OVER neighbours AS window_spans
    FROM paragraphs p
    WHERE p.{in_selected}
    WINDOW neighbours AS (
        PARTITION BY p.doc_id, p.section_id ORDER BY TRY_CAST(regexp_extract(p.paragraph_id, '-P(\\d+)$', 1) AS INTEGER), p.char_start
        ROWS BETWEEN {window} PRECEDING AND {window} FOLLOWING
    )
)
SELECT p.doc_id || ':' || p.paragraph_id AS id, p.doc_id, p.char_start, p.char_end, p.window_spans,
       {{'doc_id': p.doc_id, 'path': d.path, 'title': d.title, 'paragraph_id': p.paragraph_id, 'kind': p.kind,
         'chunk_id': parents.chunk_id, 'chunk_ids': parents.chunk_ids, 'section_id': p.section_id,
         'section_type': s.section_type, 'heading_path': s.heading_path, 'page_start': p.page_start, 'page_end': p.page_end,
         'line_start': p.line_start, 'line_end': p.line_end, 'char_start': p.char_start, 'char_end': p.char_end,
         'word_count': p.word_count, 'in_bibliography': parents.in_bibliography, 'paper': {paper},
         'references': coalesce(cited.refs, {no_references}){window_fields}}}::JSON AS metadata
FROM windowed p
JOIN documents d ON d.doc_id = p.doc_id
LEFT JOIN papers m ON m.doc_id = p.doc_id
JOIN sections s ON s.doc_id = p.doc_id AND s.section_id = p.section_id
JOIN parents ON parents.doc_id = p.doc_id AND parents.paragraph_id = p.paragraph_id
LEFT JOIN cited ON cited.id = p.doc_id || ':' || p.paragraph_id
WHERE {where}
ORDER BY p.doc_id, p.char_start
"""
# The ids of the records the two statements above return for every record of the selected
# papers, bibliography included, read without building their metadata: the same joins (a chunk
# with its paper; a paragraph with its paper, its section and a chunk that holds it), nothing more.
_CHUNK_IDS = """
WITH {selected}
SELECT c.chunk_id FROM chunks c JOIN documents d USING (doc_id) WHERE c.{in_selected}
"""
_PARAGRAPH_IDS = """
WITH {selected},
held AS (SELECT DISTINCT doc_id, unnest(paragraph_ids) AS paragraph_id FROM chunks WHERE {in_selected})
SELECT p.doc_id || ':' || p.paragraph_id FROM paragraphs p
JOIN documents d ON d.doc_id = p.doc_id
JOIN sections s ON s.doc_id = p.doc_id AND s.section_id = p.section_id
JOIN held h ON h.doc_id = p.doc_id AND h.paragraph_id = p.paragraph_id
WHERE p.{in_selected}
"""
_WINDOW_FIELDS = """,
         'window_paragraph_ids': p.window_paragraph_ids"""

WINDOW_SEPARATOR = "\n\n"
"""Between the paragraphs of a window."""

# The latest change of each record of a unit in the runs after a given one.
_LATEST_CHANGES = """
SELECT record_id, doc_id, change FROM run_changes
WHERE unit = ? AND run_id > ?
QUALIFY row_number() OVER (PARTITION BY record_id ORDER BY run_id DESC) = 1
"""


@dataclass(frozen=True)
class ExportRecord:
    """One exported record: a chunk or a paragraph."""

    id: str
    """The chunk_id, or `{doc_id}:{paragraph_id}`: stable while the paper's text is."""
    text: str
    """An exact slice of the paper's normalized text (`documents.text`), at `metadata`'s
    `char_start`..`char_end`."""
    metadata_json: str
    """Where the text sits and what it cites (docs/export.md lists the fields), as a JSON object:
    written to a file as it comes from DuckDB, read only by those who ask for `metadata`."""
    vector: list[float] | None = None
    """The unit's sentence vector (unit length) where the export was asked for vectors; else None."""

    @cached_property
    def metadata(self) -> dict:
        return json.loads(self.metadata_json)

    def as_json(self) -> str:
        """The record as one line of a JSONL export."""
        vector = f', "vector": {json.dumps(self.vector)}' if self.vector is not None else ""
        return f'{{"id": {json.dumps(self.id, ensure_ascii=False)}, "text": {json.dumps(self.text, ensure_ascii=False)}, "metadata": {self.metadata_json}{vector}}}'


def read_records(connection: duckdb.DuckDBPyConnection, selection: Selection) -> list[ExportRecord]:
    """The selected records, in the papers' order."""
    statement, parameters = _statement(selection)
    rows = connection.execute(statement, parameters).fetchall()
    if selection.unit is Unit.chunk:
        return [ExportRecord(record_id, text, metadata) for record_id, text, metadata in rows]
    return _cut_paragraphs(connection, rows, selection.window)


def _cut_paragraphs(connection: duckdb.DuckDBPyConnection, rows: list[tuple], window: int) -> list[ExportRecord]:
    """Paragraph records, their texts (and windows) cut from their papers' texts."""
    doc_ids = sorted({row[1] for row in rows})
    texts = dict(connection.execute("SELECT doc_id, text FROM documents WHERE doc_id IN (SELECT unnest(?::VARCHAR[]))", [doc_ids]).fetchall())
    records = []
    for record_id, doc_id, start, end, window_spans, metadata in rows:
        if window:
            # The last field of the object, written in after DuckDB's last one.
            text = WINDOW_SEPARATOR.join(texts[doc_id][span_start:span_end] for span_start, span_end in window_spans)
            metadata = f'{metadata[:-1]},"window":{json.dumps(text, ensure_ascii=False)}}}'
        records.append(ExportRecord(record_id, texts[doc_id][start:end], metadata))
    return records


def record_ids(connection: duckdb.DuckDBPyConnection, unit: Unit, doc_ids: Collection[str]) -> set[str]:
    """The ids of every record of `unit` of these papers, bibliography included: the ids
    `read_records` returns for them, at a fraction of its cost."""
    if not doc_ids:
        return set()
    return {record_id for (record_id,) in connection.execute(record_ids_statement(unit), [sorted(doc_ids)]).fetchall()}


def record_ids_statement(unit: Unit) -> str:
    """`record_ids`'s statement, one column of ids, for the papers whose doc_ids its one parameter
    lists: for a caller that keeps the ids in DuckDB."""
    return (_CHUNK_IDS if unit is Unit.chunk else _PARAGRAPH_IDS).format(
        selected=_SELECTED_PAPERS.format(papers="SELECT unnest(?::VARCHAR[]) AS doc_id"), in_selected=_IN_SELECTED
    )


def removed_ids(connection: duckdb.DuckDBPyConnection, unit: Unit, since_run_id: int) -> list[str]:
    """The ids of the records of `unit` whose latest change after `since_run_id` removed them."""
    statement = f"SELECT record_id FROM ({_LATEST_CHANGES}) WHERE change = 'removed' ORDER BY record_id"
    return [record_id for (record_id,) in connection.execute(statement, [unit.value, since_run_id]).fetchall()]


def metadata_type(connection: duckdb.DuckDBPyConnection, selection: Selection) -> str:
    """The SQL type of the selected records' metadata, a STRUCT: what a Parquet export holds."""
    statement, parameters = _statement(selection)
    described = connection.execute(f"SELECT * FROM ({statement.replace('::JSON AS metadata', ' AS metadata')}) LIMIT 0", parameters)
    struct = str(described.description[-1][1])
    return struct[:-1] + ', "window" VARCHAR)' if selection.window and selection.unit is Unit.paragraph else struct


def metadata_only_ids(connection: duckdb.DuckDBPyConnection, unit: Unit, since_run_id: int) -> set[str]:
    """The ids of the records of `unit` changed after `since_run_id` whose text no run since changed:
    an index updates their metadata and keeps their embeddings."""
    statement = (
        "SELECT record_id FROM run_changes WHERE unit = ? AND run_id > ? GROUP BY record_id "
        "HAVING NOT bool_or(text_changed) AND bool_and(change = 'changed')"
    )
    return {record_id for (record_id,) in connection.execute(statement, [unit.value, since_run_id]).fetchall()}


def bibliography_left_out(connection: duckdb.DuckDBPyConnection, selection: Selection) -> int:
    """How many records of the bibliography the selection leaves out: those `include_bibliography`
    would add."""
    if selection.bibliography_included:
        return 0
    statement, parameters = _statement(selection, bibliography_only=True)
    return connection.execute(f"SELECT count(*) FROM ({statement})", parameters).fetchone()[0]


def _statement(selection: Selection, bibliography_only: bool = False) -> tuple[str, list]:
    """The statement that returns the selected records' rows, in the papers' order, and its
    parameters; with `bibliography_only`, the bibliography's records that it would otherwise leave out."""
    is_chunk = selection.unit is Unit.chunk
    conditions, parameters = [], []
    if selection.doc_ids is None:
        papers = "SELECT doc_id FROM documents"
    else:
        papers = "SELECT unnest(?::VARCHAR[]) AS doc_id"
        parameters.append(list(selection.doc_ids))
    if selection.section_types:
        conditions.append(("c.section_type" if is_chunk else "s.section_type") + " IN (SELECT unnest(?::VARCHAR[]))")
        parameters.append(list(selection.section_types))
    if bibliography_only or not selection.bibliography_included:
        conditions.append(("c" if is_chunk else "parents") + f".in_bibliography = {str(bibliography_only).lower()}")
    if selection.since_run_id is not None:
        record_id = "c.chunk_id" if is_chunk else "p.doc_id || ':' || p.paragraph_id"
        latest = _LATEST_CHANGES
        if selection.window and not is_chunk:
            # A neighbour's change changes a window: every paragraph of a paper with a change goes.
            conditions.append(f"p.doc_id IN (SELECT doc_id FROM ({latest}))")
        else:
            conditions.append(f"{record_id} IN (SELECT record_id FROM ({latest}) WHERE change <> 'removed')")
        parameters += [selection.unit.value, selection.since_run_id]
    where = " AND ".join(conditions) or "true"
    selected = _SELECTED_PAPERS.format(papers=papers)
    if is_chunk:
        cited = f"chunk_citations WHERE ref_id IS NOT NULL AND {_IN_SELECTED}"
        references = _REFERENCES.format(owner="chunk_id", cited=cited)
        statement = _CHUNK_RECORDS.format(
            selected=selected, in_selected=_IN_SELECTED, references=references, no_references=_NO_REFERENCES, paper=_PAPER, where=where
        )
    else:
        statement = _PARAGRAPH_RECORDS.format(
            selected=selected, in_selected=_IN_SELECTED, references=_REFERENCES.format(owner="id", cited="markers"),
            no_references=_NO_REFERENCES, paper=_PAPER, where=where, window=int(selection.window),
            window_fields=_WINDOW_FIELDS if selection.window else "",
        )
    return statement, parameters
