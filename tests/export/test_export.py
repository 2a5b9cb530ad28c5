"""Exports: JSONL and Parquet files whose records are the database's chunks and paragraphs,
and `--since` exactly as the runs after it changed them."""

from __future__ import annotations

import json
import shutil

import duckdb
import pytest
from typer.testing import CliRunner

from conftest import PROJECT
from pipeline.cli import app
from pipeline.errors import PipelineError
from pipeline.export import ExportFormat, Selection, Unit, export_database
from pipeline.export.records import read_records, record_ids
from pipeline.index.database import open_readonly
from pipeline.ingest import IngestOptions, ingest_folder

OPTIONS = IngestOptions(workers=1)


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory, rules):
    """The project's sample papers, ingested once."""
    folder = tmp_path_factory.mktemp("export")
    shutil.copytree(PROJECT / "corpus", folder / "papers", ignore=shutil.ignore_patterns("*.py", "*.txt"))
    db = folder / "papers.duckdb"
    ingest_folder(folder / "papers", db, rules, OPTIONS)
    return db


def _jsonl(path):
    header, *records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return header, records


def _chunk_rows(db, where="NOT in_bibliography"):
    connection = open_readonly(db)
    try:
        return connection.execute(
            f"""SELECT chunk_id, text, doc_id, section_id, section_type, heading_path, paragraph_ids, pages, line_start, line_end,
                       char_start, char_end, split FROM chunks WHERE {where} ORDER BY doc_id, ordinal"""
        ).fetchall()
    finally:
        connection.close()


def test_a_jsonl_export_holds_every_chunk_but_the_bibliography_with_its_metadata(sample_db, tmp_path):
    out = tmp_path / "chunks.jsonl"
    summary = export_database(sample_db, out, ExportFormat.jsonl, Selection())
    header, records = _jsonl(out)
    expected = _chunk_rows(sample_db)
    assert (header["schema"], header["unit"], header["run_id"], header["records"]) == ("paper-pipeline.export", "chunk", 1, len(expected))
    assert summary.records == len(records) == len(expected)
    exported = [
        (r["id"], r["text"], *(r["metadata"][key] for key in (
            "doc_id", "section_id", "section_type", "heading_path", "paragraph_ids", "pages", "line_start", "line_end",
            "char_start", "char_end", "split")))
        for r in records
    ]
    assert exported == [tuple(row) for row in expected]


def test_a_chunk_carries_the_entries_its_markers_cite(sample_db, tmp_path):
    out = tmp_path / "chunks.jsonl"
    export_database(sample_db, out, ExportFormat.jsonl, Selection())
    connection = open_readonly(sample_db)
    cited = connection.execute(
        """SELECT c.chunk_id, list(DISTINCT b.ref_id ORDER BY b.ref_id) FROM chunk_citations c
           JOIN bibliography b USING (doc_id, ref_id) GROUP BY 1"""
    ).fetchall()
    connection.close()
    references = {r["id"]: sorted(ref["ref_id"] for ref in r["metadata"]["references"]) for r in _jsonl(out)[1]}
    assert cited and all(references[chunk_id] == ref_ids for chunk_id, ref_ids in cited if chunk_id in references)


@pytest.mark.parametrize("selection", [Selection(include_bibliography=True), Selection(section_types=("meta",))])
def test_the_bibliography_is_exported_with_all_or_meta_as_search_finds_it(sample_db, tmp_path, selection):
    out = tmp_path / "chunks.jsonl"
    export_database(sample_db, out, ExportFormat.jsonl, selection)
    ids = {r["id"] for r in _jsonl(out)[1]}
    bibliography = {row[0] for row in _chunk_rows(sample_db, "in_bibliography")}
    assert bibliography and bibliography <= ids


def test_a_parquet_export_reads_back_in_duckdb_with_the_header_as_key_value_metadata(sample_db, tmp_path):
    out = tmp_path / "chunks.parquet"
    export_database(sample_db, out, ExportFormat.parquet, Selection())
    reader = duckdb.connect()
    rows = reader.execute(f"SELECT id, text, metadata.char_start FROM '{out}'").fetchall()
    header = dict(reader.execute(f"SELECT decode(key), decode(value) FROM parquet_kv_metadata('{out}')").fetchall())
    assert rows == [(row[0], row[1], row[10]) for row in _chunk_rows(sample_db)]
    assert (header["schema"], header["run_id"], header["unit"]) == ("paper-pipeline.export", "1", "chunk")


def test_a_paragraph_is_its_slice_of_the_paper_with_its_parent_chunk_and_window(sample_db, tmp_path):
    out = tmp_path / "paragraphs.jsonl"
    export_database(sample_db, out, ExportFormat.jsonl, Selection(unit=Unit.paragraph, window=1))
    header, records = _jsonl(out)
    connection = open_readonly(sample_db)
    texts = dict(connection.execute("SELECT doc_id, text FROM documents").fetchall())
    chunks = {chunk_id: paragraphs for chunk_id, paragraphs in connection.execute("SELECT chunk_id, paragraph_ids FROM chunks").fetchall()}
    connection.close()
    assert header["unit"] == "paragraph" and records
    for record in records:
        metadata = record["metadata"]
        assert record["id"] == f"{metadata['doc_id']}:{metadata['paragraph_id']}"
        assert record["text"] == texts[metadata["doc_id"]][metadata["char_start"] : metadata["char_end"]]
        assert metadata["paragraph_id"] in chunks[metadata["chunk_id"]]
        assert record["text"] in metadata["window"] and metadata["paragraph_id"] in metadata["window_paragraph_ids"]


def test_a_window_holds_the_neighbouring_paragraphs_of_the_same_section(sample_db, tmp_path):
    out = tmp_path / "paragraphs.jsonl"
    export_database(sample_db, out, ExportFormat.jsonl, Selection(unit=Unit.paragraph, window=1))
    by_id = {r["id"]: r for r in _jsonl(out)[1]}
    middle = next(r for r in by_id.values() if len(r["metadata"]["window_paragraph_ids"]) == 3)
    doc_id = middle["metadata"]["doc_id"]
    before, _, after = middle["metadata"]["window_paragraph_ids"]
    assert middle["metadata"]["window"] == "\n\n".join(
        [by_id[f"{doc_id}:{before}"]["text"], middle["text"], by_id[f"{doc_id}:{after}"]["text"]]
    )


def _paper(title, result):
    return f"# {title}\n\n## Methods\n\nWe enrolled patients.\n\n## Results\n\n{result}\n\n## Discussion\n\nIt matters.\n"


def test_since_gives_exactly_the_edited_added_and_removed_chunks(tmp_path, rules):
    papers, db = tmp_path / "papers", tmp_path / "papers.duckdb"
    papers.mkdir()
    for name in ("edited", "removed", "kept"):
        (papers / f"{name}.md").write_text(_paper(name.title(), "IL-6 rose."))
    first = ingest_folder(papers, db, rules, OPTIONS)
    before = {row[0]: row[1] for row in _chunk_rows(db, "true")}
    (papers / "edited.md").write_text(_paper("Edited", "IL-6 fell."))
    (papers / "removed.md").unlink()
    (papers / "added.md").write_text(_paper("Added", "CRP rose."))
    second = ingest_folder(papers, db, rules, OPTIONS)
    out = tmp_path / "since.jsonl"
    export_database(db, out, ExportFormat.jsonl, Selection(since_run_id=first.run_id))
    header, records = _jsonl(out)
    after = {row[0]: row[1] for row in _chunk_rows(db, "true")}
    changed = {chunk_id for chunk_id in after if chunk_id in before and before[chunk_id] != after[chunk_id]}
    assert changed == {r["id"] for r in records if r["id"].startswith("edited.md")} == {"edited.md:2"}
    assert {r["id"] for r in records} == changed | {chunk_id for chunk_id in after if chunk_id.startswith("added.md")}
    assert header["removed_ids"] == sorted(chunk_id for chunk_id in before if chunk_id.startswith("removed.md"))
    assert (header["since_run_id"], header["run_id"], header["metadata_only_ids"]) == (first.run_id, second.run_id, [])


def test_since_the_last_run_exports_nothing(sample_db, tmp_path):
    out = tmp_path / "since.jsonl"
    export_database(sample_db, out, ExportFormat.jsonl, Selection(since_run_id=1))
    header, records = _jsonl(out)
    assert (records, header["removed_ids"], header["records"]) == ([], [], 0)


def test_since_a_run_the_database_does_not_hold_says_to_export_everything(sample_db, tmp_path):
    with pytest.raises(PipelineError, match="--since 7: the database holds runs 1 to 1 only .* export without --since"):
        export_database(sample_db, tmp_path / "x.jsonl", ExportFormat.jsonl, Selection(since_run_id=7))


def test_the_run_summary_names_the_run_that_since_takes(tmp_path, rules):
    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "a.md").write_text(_paper("A", "IL-6 rose."))
    summary = ingest_folder(tmp_path / "papers", tmp_path / "db.duckdb", rules, OPTIONS)
    assert "; run 1, " in summary.line()
    assert summary.chunk_changes == {"added": 3, "changed": 0, "removed": 0}


@pytest.mark.parametrize("unit", list(Unit))
def test_record_ids_are_the_ids_of_the_records_read(sample_db, unit):
    connection = open_readonly(sample_db)
    try:
        papers = [doc_id for (doc_id,) in connection.execute("SELECT doc_id FROM documents ORDER BY doc_id").fetchall()]
        assert len(papers) >= 2  # so that every other paper is a proper part of them
        selections = [papers, papers[::2]]
        read = [read_records(connection, Selection(unit=unit, include_bibliography=True, doc_ids=tuple(chosen))) for chosen in selections]
        assert all(read)
        assert [record_ids(connection, unit, chosen) for chosen in selections] == [{record.id for record in records} for records in read]
    finally:
        connection.close()


def test_a_first_run_records_every_record_of_its_papers_as_added(sample_db):
    connection = open_readonly(sample_db)
    try:
        recorded = set(connection.execute("SELECT unit, record_id, change, text_changed FROM run_changes WHERE run_id = 1").fetchall())
        exported = {
            (unit.value, record.id, "added", True)
            for unit in Unit
            for record in read_records(connection, Selection(unit=unit, include_bibliography=True))
        }
    finally:
        connection.close()
    assert recorded == exported


def test_the_cli_refuses_a_window_for_chunks(sample_db, tmp_path):
    result = CliRunner().invoke(app, ["export", "--db", str(sample_db), "--out", str(tmp_path / "x.jsonl"), "--window", "2"])
    assert result.exit_code == 1
    assert "Error: --window takes the neighbouring paragraphs: use it with --unit paragraph" in result.stderr


def test_the_cli_exports_parquet_and_says_which_run_to_pass_next(sample_db, tmp_path):
    out = tmp_path / "out" / "chunks.parquet"
    result = CliRunner().invoke(app, ["export", "--db", str(sample_db), "--format", "parquet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.exists() and "(run 1: pass --since 1 next time)" in result.stderr
    assert not list(out.parent.glob(".*partial"))
