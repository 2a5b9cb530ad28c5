"""Incremental runs: exact about what changed, and equal to a fresh ingest of the final folder."""

from __future__ import annotations

import json
import tomllib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import PROJECT, edited_rules_file, table_snapshot, writable_database
from pipeline import __version__
from pipeline.errors import MassRemovalError
from pipeline.extract import extraction_key
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.ingest.task import Task, run_task, worker_context
from pipeline.index.database import open_readonly
from pipeline.rules import load_rules

PAPER = "# {title}\n\n## Methods\n\n{body} cohort.\n\n## Results\n\nIL-6 rose in {body}.\n"
OPTIONS = IngestOptions(workers=1)


def _write(folder, name, title, body="the patients"):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PAPER.format(title=title, body=body))


def _counts(summary):
    return summary.added, summary.updated, summary.unchanged, summary.removed


@pytest.fixture()
def folder(tmp_path):
    papers = tmp_path / "papers"
    for name in ("a.md", "b.md", "c.md"):
        _write(papers, name, name)
    return papers


def test_a_second_run_over_the_same_files_changes_nothing(folder, tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    assert _counts(ingest_folder(folder, db, rules, OPTIONS)) == (3, 0, 0, 0)
    assert _counts(ingest_folder(folder, db, rules, OPTIONS)) == (0, 0, 3, 0)


def test_edits_additions_and_removals_are_counted_exactly(folder, tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    _write(folder, "a.md", "a", body="the edited cohort")
    _write(folder, "d.md", "d")
    (folder / "b.md").unlink()
    summary = ingest_folder(folder, db, rules, OPTIONS)
    assert _counts(summary) == (1, 1, 1, 1)
    connection = open_readonly(db)
    assert connection.execute("SELECT path FROM documents ORDER BY path").fetchall() == [("a.md",), ("c.md",), ("d.md",)]
    assert connection.execute("SELECT count(*) FROM chunks WHERE doc_id = 'b.md'").fetchone()[0] == 0
    assert "edited" in connection.execute("SELECT text FROM documents WHERE doc_id = 'a.md'").fetchone()[0]


def test_every_run_that_changes_the_database_is_recorded_with_its_counts(folder, tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    ingest_folder(folder, db, rules, OPTIONS)  # changes nothing: logged beside the database (test_no_change.py)
    _write(folder, "d.md", "d")
    ingest_folder(folder, db, rules, OPTIONS)
    runs = open_readonly(db).execute("SELECT run_id, seen, added, unchanged, chunks FROM runs ORDER BY run_id").fetchall()
    assert runs == [(1, 3, 3, 0, 6), (2, 4, 1, 3, 2)]


def test_a_rules_change_rechunks_from_the_stored_extraction(folder, tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    # Tamper with the stored extraction: if the next run re-extracted the file, this would vanish.
    connection = writable_database(db)
    raw = json.loads(connection.execute("SELECT raw_document FROM extractions WHERE doc_id = 'a.md'").fetchone()[0])
    raw["blocks"][-1]["segments"][0]["text"] = "Text that only the stored extraction holds."
    connection.execute("UPDATE rows.extractions SET raw_document = ? WHERE doc_id = 'a.md'", [json.dumps(raw)])
    connection.close()
    changed = rules.model_copy(update={"sha256": "a-different-rules-file"})
    summary = ingest_folder(folder, db, changed, OPTIONS)
    assert _counts(summary) == (0, 3, 0, 0)
    text = open_readonly(db).execute("SELECT text FROM documents WHERE doc_id = 'a.md'").fetchone()[0]
    assert text.endswith("Text that only the stored extraction holds.")


def test_a_rules_change_leaves_each_papers_stored_extraction_as_it_was(folder, tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    query = "SELECT doc_id, sha256, extract_key, raw_document FROM extractions ORDER BY doc_id"
    before = open_readonly(db).execute(query).fetchall()
    ingest_folder(folder, db, rules.model_copy(update={"sha256": "a-different-rules-file"}), OPTIONS)
    assert open_readonly(db).execute(query).fetchall() == before


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("first_page = 0", "first_page = 1"),
        ("min_pages = 3", "min_pages = 4"),
        ("gutter_min_width = 0.5", "gutter_min_width = 0.8"),
        ("max_floats_between = 6", "max_floats_between = 3"),
        ('labels = "fig', 'labels = "photo|fig'),
        ('pdf_start = "^', 'pdf_start = "^ ?'),
        ('opening_words = ["summary", ', "opening_words = ["),
        ('pattern = "abstract|', 'pattern = "abstracts?|'),
    ],
    ids=["page marker", "running lines", "columns", "continuations", "caption labels", "caption start", "opening words", "opening anchor"],
)
def test_a_change_to_rules_extraction_reads_changes_the_extraction_key(tmp_path, rules, old, new):
    assert extraction_key(load_rules(edited_rules_file(tmp_path, old, new))) != extraction_key(rules)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("target_min_words = 500", "target_min_words = 400"),
        ("max_siblings = 30", "max_siblings = 20"),
        ("meta_max_words = 3000", "meta_max_words = 2000"),
        ('paragraph = "^', 'paragraph = "^ ?'),
        ('pattern = "results?|', 'pattern = "results?|outcomes|'),
        ('pattern = "conclu|', 'pattern = "conclu|summary|'),
    ],
    ids=["chunk size", "absorb cap", "inherit cap", "caption paragraph", "results anchor", "classify pattern"],
)
def test_a_change_to_rules_extraction_does_not_read_keeps_the_extraction_key(tmp_path, rules, old, new):
    assert extraction_key(load_rules(edited_rules_file(tmp_path, old, new))) == extraction_key(rules)


def test_a_paper_rechunked_from_its_stored_extraction_sends_no_copy_of_it_back_to_be_written(tmp_path, rules):
    # Its row stays as stored: writing every paper's extraction again cost a rules change on the
    # shared corpus 30 MB of rows to load.
    _write(tmp_path, "a.md", "A")
    paper = tmp_path / "a.md"
    fresh = run_task(Task(str(paper), "a.md", "a", "hash", paper.stat().st_size, None, extraction_key(rules)), worker_context(rules))
    stored = json.loads(fresh.rows.lines["extractions"])["raw_document"]
    reused = run_task(Task(str(paper), "a.md", "a", "hash", paper.stat().st_size, stored, extraction_key(rules)), worker_context(rules))
    assert "extractions" not in reused.rows.lines
    assert reused.rows.lines["chunks"] == fresh.rows.lines["chunks"]


def test_a_run_that_would_remove_most_papers_refuses_and_changes_nothing(folder, tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    before = db.read_bytes()
    empty = tmp_path / "unmounted"
    empty.mkdir()
    with pytest.raises(MassRemovalError, match="would remove 3 of the 3 papers .*--allow-mass-removal"):
        ingest_folder(empty, db, rules, OPTIONS)
    assert db.read_bytes() == before


def test_mass_removal_goes_through_when_allowed(folder, tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    (folder / "a.md").unlink()
    (folder / "b.md").unlink()
    summary = ingest_folder(folder, db, rules, IngestOptions(workers=1, allow_mass_removal=True))
    assert summary.removed == 2


# ---------------------------------------------------------------- incremental = fresh, always



# `a.markdown` shares its slug with `a.md`: adding it renames the other paper's doc_id.
NAMES = st.sampled_from(["a.md", "a.markdown", "b.md", "sub/c.md", "sub/deeper/d e.md", "é.md"])
EDITS = st.one_of(
    st.tuples(st.just("write"), NAMES, st.sampled_from(["the patients", "a new cohort", "mice"])),
    st.tuples(st.just("remove"), NAMES, st.just("")),
    # Another rules file: every paper is re-chunked, from its stored extraction where it has one.
    st.tuples(st.just("rules"), st.just(""), st.sampled_from(["rules-one", "rules-two"])),
)


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.lists(EDITS, min_size=1, max_size=3), min_size=1, max_size=4))
def test_incremental_runs_end_equal_to_a_fresh_ingest_of_the_final_folder(tmp_path_factory, rules, steps):
    root = tmp_path_factory.mktemp("property")
    papers = root / "papers"
    papers.mkdir()
    options = IngestOptions(workers=1, allow_mass_removal=True)
    current = rules
    for step in steps:
        for action, name, body in step:
            if action == "write":
                _write(papers, name, name, body)
            elif action == "remove":
                (papers / name).unlink(missing_ok=True)
            else:
                current = rules.model_copy(update={"sha256": body})
        ingest_folder(papers, root / "incremental.duckdb", current, options)
    ingest_folder(papers, root / "fresh.duckdb", current, options)
    assert table_snapshot(root / "incremental.duckdb") == table_snapshot(root / "fresh.duckdb")


def test_a_new_file_beside_a_paper_of_the_same_name_changes_neither_its_id_nor_its_rows(folder, tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, OPTIONS)
    _write(folder, "a.markdown", "the newcomer")  # a slug of the name alone would give both `a`
    summary = ingest_folder(folder, db, rules, OPTIONS)
    assert _counts(summary) == (1, 0, 3, 0)
    rows = open_readonly(db).execute(
        "SELECT d.path, d.doc_id, count(c.chunk_id) FROM documents d JOIN chunks c USING (doc_id) GROUP BY ALL ORDER BY 1"
    ).fetchall()
    assert rows == [("a.markdown", "a.markdown", 2), ("a.md", "a.md", 2), ("b.md", "b.md", 2), ("c.md", "c.md", 2)]


def test_the_package_and_its_metadata_give_one_version():
    # An upgrade re-processes every stored paper because the stored pipeline_version differs;
    # a bump made in one of the two places only would not reach the database.
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]
    assert project["version"] == __version__
