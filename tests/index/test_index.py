"""DuckDB: rows, provenance, ids and BM25 search over the sample corpus."""

from __future__ import annotations

import errno
import subprocess
import sys

import duckdb
import pytest

from conftest import PROJECT, writable_database
from pipeline.index import writer as index_writer
from pipeline.chunk import chunk
from pipeline.link import link
from pipeline.errors import IndexingError
from pipeline.extract.markdown.document import extract_markdown_text
from pipeline.normalize.stage import normalize
from pipeline.index.layout import LAYOUT_TABLES
from pipeline.index.terms import TermCounter, count_paper_terms
from pipeline.index.writer import DocumentWriter
from pipeline.index.rows import COLUMNS, RECORD_TABLES, DocumentRow, PaperRows, paper_rows
from pipeline.index.search import _HIT_DETAILS, search
from pipeline.ingest import ingest_folder
from pipeline.ingest.scan import doc_id_for
from pipeline.index.database import open_readonly
from pipeline.records.chunked import ChunkedDocument


@pytest.fixture(scope="module")
def database(tmp_path_factory, rules):
    db = tmp_path_factory.mktemp("db") / "papers.duckdb"
    summary = ingest_folder(PROJECT / "corpus", db, rules)
    assert not summary.failed
    connection = open_readonly(db)
    yield connection
    connection.close()


def test_every_chunk_is_an_exact_slice_of_its_document_text(database):
    mismatches = database.execute(
        """SELECT count(*) FROM chunks c JOIN documents d USING (doc_id)
           WHERE substr(d.text, c.char_start + 1, c.char_end - c.char_start) <> c.text"""
    ).fetchone()[0]
    assert mismatches == 0


def test_markdown_chunks_have_no_pages_and_documents_no_page_count(database):
    assert database.execute("SELECT count(*) FROM chunks WHERE page_start IS NOT NULL OR len(pages) > 0").fetchone()[0] == 0
    assert database.execute("SELECT count(*) FROM documents WHERE page_count IS NOT NULL").fetchone()[0] == 0


def test_chunk_line_ranges_hold_the_chunk_words(database):
    rows = database.execute("SELECT d.path, c.text, c.line_start, c.line_end FROM chunks c JOIN documents d USING (doc_id)").fetchall()
    assert rows
    for path, text, line_start, line_end in rows:
        source_lines = (PROJECT / "corpus" / path).read_text().splitlines()[line_start - 1 : line_end]
        source_words = set(" ".join(source_lines).split())
        first, last = text.split()[0], text.split()[-1]
        assert any(first in word for word in source_words), (path, line_start, first)
        assert any(last in word for word in source_words), (path, line_end, last)


@pytest.mark.parametrize("query", ["IL-6", "p53", "CO2", "FDG-PET/CT", "정확도", "BRCA1"])
def test_search_finds_digits_hyphenated_terms_and_non_latin_words(database, query):
    hits = search(database, query)
    assert hits, f"no chunk found for {query}"
    assert query.lower() in database.execute("SELECT lower(text) FROM chunks WHERE chunk_id = ?", [hits[0].chunk_id]).fetchone()[0]


def test_search_can_be_limited_to_a_section_type(database):
    hits = search(database, "IL-6", section_type="results")
    assert hits and all(hit.section_type == "results" for hit in hits)


def test_search_can_be_limited_to_one_paper(database):
    hits = search(database, "FDG-PET/CT", doc_id="flat/lee-2022.md")
    assert hits and {hit.doc_id for hit in hits} == {"flat/lee-2022.md"}


def test_a_search_hit_s_row_is_looked_up_in_the_chunk_id_index_not_scanned_for(database):
    chunk_id = database.execute("SELECT chunk_id FROM chunks ORDER BY chunk_id DESC LIMIT 1").fetchone()[0]
    # DuckDB picks index or scan as the query runs, so only the profiled plan says which it took.
    plan = database.execute("EXPLAIN ANALYZE " + _HIT_DETAILS.replace("{chunk_ids}", f"'{chunk_id}'")).fetchall()[0][1]
    assert "Index Scan" in plan


def test_search_hits_carry_their_paper_s_path(database):
    hit = search(database, "FDG-PET/CT", doc_id="flat/lee-2022.md")[0]
    assert hit.path == database.execute("SELECT path FROM documents WHERE doc_id = 'flat/lee-2022.md'").fetchone()[0]


@pytest.mark.parametrize("read_only", [False, True])
def test_connections_draw_no_progress_bar_into_the_output(tmp_path, read_only):
    # DuckDB's Python client draws it on standard output, for statements over two seconds, in a
    # session with no main file (`python -c`, a notebook), even where that output is a pipe or a
    # log. Asked from `python -c`, where it would be on: under pytest it is off anyway. (Shortening
    # its two seconds for a quicker test, `progress_bar_time`, switches it back on.)
    db = tmp_path / "papers.duckdb"
    writable_database(db).close()
    code = (
        "import sys; from pathlib import Path; from pipeline.index.database import open_for_writing, open_readonly; "
        f"connection = {'open_readonly' if read_only else 'open_for_writing'}(Path(sys.argv[1])); "
        "print(connection.execute(\"SELECT current_setting('enable_progress_bar')\").fetchone()[0])"
    )
    shown = subprocess.run([sys.executable, "-c", code, str(db)], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "False"


def test_chunk_pages_view_lists_nothing_for_markdown(database):
    assert database.execute("SELECT count(*) FROM chunk_pages").fetchone()[0] == 0


def test_bibliography_is_kept_apart_by_its_anchor(database):
    rows = database.execute(
        "SELECT DISTINCT c.section_type FROM chunks c JOIN sections s USING (doc_id, section_id) WHERE s.anchor = 'references'"
    ).fetchall()
    assert rows == [("meta",)]


def test_ids_are_the_same_byte_for_byte_across_runs(tmp_path, rules):
    def snapshot(db):
        ingest_folder(PROJECT / "corpus", db, rules)
        connection = open_readonly(db)
        rows = connection.execute("SELECT chunk_id, section_id, paragraph_ids, char_start, char_end, text FROM chunks ORDER BY chunk_id").fetchall()
        connection.close()
        return rows

    assert snapshot(tmp_path / "a.duckdb") == snapshot(tmp_path / "b.duckdb")


def test_reingesting_replaces_a_papers_rows_instead_of_adding_them(tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    ingest_folder(PROJECT / "corpus", db, rules)
    ingest_folder(PROJECT / "corpus", db, rules)
    connection = open_readonly(db)
    assert connection.execute("SELECT count(*), count(DISTINCT chunk_id) FROM chunks").fetchone()[0] == \
        connection.execute("SELECT count(DISTINCT chunk_id) FROM chunks").fetchone()[0]
    assert connection.execute("SELECT count(*) FROM documents").fetchone()[0] == 6


@pytest.mark.parametrize(
    ("path", "doc_id"),
    [
        ("reviews/berek-2021.md", "reviews/berek-2021.md"),
        ("Reviews/Berek 2021.md", "Reviews/Berek%202021.md"),
        ("a/b.c.pdf", "a/b.c.pdf"),
        ("정확도/논문.md", "정확도/논문.md"),
        ("ratio 3:1 (50%).md", "ratio%203%3A1%20%2850%25%29.md"),
    ],
)
def test_a_doc_id_is_the_relative_path_with_what_is_not_a_letter_digit_or_path_mark_escaped(path, doc_id):
    assert doc_id_for(path) == doc_id


@pytest.mark.parametrize(
    ("first", "second"),
    [("a.md", "a.pdf"), ("A.md", "a.md"), ("a b.md", "a-b.md"), ("a%20b.md", "a b.md")],
)
def test_two_paths_never_share_a_doc_id(first, second):
    assert doc_id_for(first) != doc_id_for(second)


def test_a_bad_file_is_recorded_and_costs_no_other_file(tmp_path, rules):
    (tmp_path / "good.md").write_text("# Good\n\n## Results\n\nIL-6 rose.\n")
    (tmp_path / "empty.md").write_bytes(b"")
    summary = ingest_folder(tmp_path, tmp_path / "out" / "papers.duckdb", rules)
    assert summary.added == 2 and list(summary.failed) == ["empty.md"]
    connection = open_readonly(tmp_path / "out" / "papers.duckdb")
    assert connection.execute("SELECT path, status, error FROM documents ORDER BY path").fetchall() == [
        ("empty.md", "failed", "empty.md: the file is empty; nothing to ingest"),
        ("good.md", "ingested", None),
    ]


def test_the_columns_workers_build_rows_by_and_the_writer_loads_them_as_match_the_tables(database):
    tables = [name for (name,) in database.execute(
        "SELECT table_name FROM duckdb_tables() WHERE table_name NOT IN (SELECT unnest(?::VARCHAR[])) ORDER BY table_name", [list(LAYOUT_TABLES)]
    ).fetchall()]
    assert sorted(COLUMNS) == tables
    described = {
        table: [(name, data_type) for name, data_type, *_ in database.execute(f"DESCRIBE {table}").fetchall()]
        for table in tables
    }
    assert described == {table: list(columns.items()) for table, columns in COLUMNS.items()}


def test_the_tables_a_record_is_written_to_whole_have_its_fields_and_the_doc_id_as_columns():
    """A bibliography entry, a citation and a link are each serialized whole into a row: a field
    the table lacks, or a column the record lacks, would be lost on loading, and the rows are
    read from the paper's list of that record."""
    assert RECORD_TABLES
    assert {table: set(COLUMNS[table]) for table in RECORD_TABLES} == {
        table: {"doc_id", *record.model_fields} for table, (record, _) in RECORD_TABLES.items()
    }
    assert {table: ChunkedDocument.model_fields[field].annotation for table, (_, field) in RECORD_TABLES.items()} == {
        table: list[record] for table, (record, _) in RECORD_TABLES.items()
    }


def _paper(doc_id: str, path: str) -> PaperRows:
    row = DocumentRow(doc_id=doc_id, path=path, format="markdown", sha256="0" * 64, bytes=1, status="failed",
                      error="empty", rules_sha256="r", pipeline_version="0")
    return paper_rows(row, None)


def test_batches_written_in_the_background_are_all_there_after_flush(tmp_path):
    connection = writable_database(tmp_path / "papers.duckdb")
    writer = DocumentWriter(connection, max_bytes=1)  # every paper its own batch
    for index in range(5):
        writer.add(_paper(f"p{index}", f"p{index}.md"))
    writer.flush()
    assert connection.execute("SELECT count(*) FROM documents").fetchone()[0] == 5


def test_papers_are_written_within_a_small_duckdb_memory_limit(tmp_path, rules):
    # DuckDB's limit is 80% of the machine's memory by default: 256 MB stands for a small machine.
    raw = extract_markdown_text("# A paper\n\n## Results\n\nSerum IL-6 rose.\n", "a.md", rules.page_markers)
    chunked = link(chunk(normalize(raw, "a", rules), rules), rules)
    row = DocumentRow(doc_id="a", path="a.md", format="markdown", sha256="0" * 64, bytes=1, status="ingested",
                      error=None, rules_sha256="r", pipeline_version="0")
    connection = writable_database(tmp_path / "papers.duckdb")
    connection.execute("SET memory_limit = '256MB'")
    writer = DocumentWriter(connection)
    writer.add(paper_rows(row, chunked, ("key", raw.model_dump_json()), count_paper_terms(chunked, TermCounter())))
    writer.flush()
    assert connection.execute("SELECT count(*) FROM chunks").fetchone()[0] == len(chunked.chunks)
    assert connection.execute("SELECT count(*) FROM chunk_postings WHERE term = 'il-6'").fetchone()[0] == 1


def test_rows_that_cannot_be_staged_for_loading_say_where_and_why(tmp_path, monkeypatch):
    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(index_writer.tempfile, "NamedTemporaryFile", full_disk)
    writer = DocumentWriter(writable_database(tmp_path / "papers.duckdb"))
    writer.add(_paper("p0", "p0.md"))
    with pytest.raises(IndexingError, match="cannot stage documents rows for loading in .*: No space left on device; free space there"):
        writer.flush()


def test_a_background_batch_that_fails_raises_its_error_in_the_callers_thread(tmp_path):
    connection = writable_database(tmp_path / "papers.duckdb")
    writer = DocumentWriter(connection, max_bytes=1)
    broken = _paper("p0", "p0.md")
    broken.lines["documents"] = b"{not json\n"
    writer.add(broken)
    with pytest.raises(duckdb.Error):
        writer.flush()
