"""What a run records in `run_changes`: exactly the exported records it added, changed and
removed, and, for a paper whose rows came out as they were, nothing and no fingerprints."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import chunk_markdown, edited_rules_file
from pipeline.export import Selection, Unit
from pipeline.ingest import changes as change_log
from pipeline.export import records as records_module
from pipeline.export.records import read_records
from pipeline.index.database import open_readonly
from pipeline.index.rows import NOT_READ_BY_RECORDS, DocumentRow, paper_rows
from pipeline.index.schema import COLUMNS
from pipeline.index.terms import TermCounter, count_paper_terms
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.records.base import DocumentStatus, SourceFormat
from pipeline.rules import load_rules

OPTIONS = IngestOptions(workers=1, allow_mass_removal=True)
# Under the default rules `## Outcomes` is no results section; under these it is.
OUTCOMES = ('pattern = "results?|', 'pattern = "results?|outcomes|')


def _paper(heading: str, finding: str = "IL-6 rose.") -> str:
    return f"# A trial\n\n## Methods\n\nWe enrolled patients.\n\n## {heading}\n\n{finding}\n\n## Discussion\n\nIt matters.\n"


def _records(db) -> dict[tuple[str, str], tuple[str, str]]:
    """Every exported record of the database, bibliography included: (unit, id) → (text, metadata)."""
    if not db.exists():
        return {}
    connection = open_readonly(db)
    try:
        return {
            (unit.value, record.id): (record.text, record.metadata_json)
            for unit in Unit
            for record in read_records(connection, Selection(unit=unit, include_bibliography=True))
        }
    finally:
        connection.close()


def _expected(before: dict, after: dict) -> set[tuple[str, str, str, bool]]:
    """The changes a diff of two whole exports shows: what `run_changes` must hold for the run between them."""
    expected = set()
    for key in before.keys() | after.keys():
        if key not in before:
            expected.add((*key, "added", True))
        elif key not in after:
            expected.add((*key, "removed", True))
        elif before[key] != after[key]:
            expected.add((*key, "changed", before[key][0] != after[key][0]))
    return expected


def _recorded(db, run_id: int) -> set[tuple[str, str, str, bool]]:
    connection = open_readonly(db)
    try:
        return set(connection.execute("SELECT unit, record_id, change, text_changed FROM run_changes WHERE run_id = ?", [run_id]).fetchall())
    finally:
        connection.close()


def _ingested(tmp_path, rules, papers_by_name: dict[str, str]):
    """These papers (name → Markdown) written into a folder and ingested: the folder and the database."""
    papers, db = tmp_path / "papers", tmp_path / "papers.duckdb"
    papers.mkdir()
    for name, text in papers_by_name.items():
        (papers / name).write_text(text)
    ingest_folder(papers, db, rules, OPTIONS)
    return papers, db


@pytest.fixture()
def fingerprinted(monkeypatch) -> list[str]:
    """The doc_ids the runs of a test fingerprint, as they ask for them."""
    asked: list[str] = []
    real = change_log.fingerprints
    monkeypatch.setattr(change_log, "fingerprints", lambda connection, doc_ids: asked.extend(doc_ids) or real(connection, doc_ids))
    return asked


def _digest(source: str, rules) -> str:
    """The records digest a worker gives the paper `a.md`, with this text under these rules."""
    chunked = chunk_markdown(source, rules, "a")
    row = DocumentRow("a", "a.md", SourceFormat.markdown, "sha", len(source), DocumentStatus.ingested, None, rules.sha256, "0")
    return json.loads(paper_rows(row, chunked, None, count_paper_terms(chunked, TermCounter())).lines["documents"])["records_digest"]


def test_a_papers_records_digest_ignores_which_rules_file_wrote_it_but_not_what_the_rules_did(tmp_path, rules):
    source = _paper("Outcomes")
    renamed_rules = rules.model_copy(update={"sha256": "another-file-same-rules"})
    outcomes_rules = load_rules(edited_rules_file(tmp_path, *OUTCOMES))
    assert _digest(source, rules) == _digest(source, renamed_rules)
    assert _digest(source, rules) != _digest(source, outcomes_rules)  # its third section is now results


def test_the_columns_the_records_digest_leaves_out_are_read_by_no_exported_record():
    statements = Path(records_module.__file__).read_text(encoding="utf-8")
    assert NOT_READ_BY_RECORDS
    for table, columns in NOT_READ_BY_RECORDS.items():
        assert table in COLUMNS and columns <= COLUMNS[table].keys()
        assert not any(re.search(rf"\b{column}\b", statements) for column in columns)


def test_a_rules_change_that_changes_one_paper_records_that_papers_changes_only(tmp_path, rules):
    papers, db = _ingested(tmp_path, rules, {"outcomes.md": _paper("Outcomes"), "results.md": _paper("Results")})
    before = _records(db)
    second = ingest_folder(papers, db, load_rules(edited_rules_file(tmp_path, *OUTCOMES)), OPTIONS)
    recorded = _recorded(db, second.run_id)
    assert recorded == _expected(before, _records(db))
    assert {record_id.split(":")[0] for _, record_id, _, _ in recorded} == {"outcomes.md"}
    # Its `Outcomes`, absorbed into Methods before, is a results chunk of its own now.
    assert ("chunk", "outcomes.md:3", "added", True) in recorded


def test_a_rules_change_that_leaves_every_paper_as_it_was_fingerprints_none(tmp_path, rules, fingerprinted):
    papers, db = _ingested(tmp_path, rules, {"a.md": _paper("Results"), "b.md": _paper("Results")})
    summary = ingest_folder(papers, db, rules.model_copy(update={"sha256": "another-file-same-rules"}), OPTIONS)
    assert summary.updated == 2
    assert (fingerprinted, _recorded(db, summary.run_id)) == ([], set())


def test_a_threshold_tweak_that_only_rewords_a_decision_fingerprints_none(tmp_path, rules, fingerprinted):
    # Results (two sub-sections of 450 words) is split at them under 800 words and under 850
    # alike; only its decision, `soft split … > 800`, says which.
    words = " ".join(["cells"] * 449)
    papers, db = _ingested(tmp_path, rules, {"a.md": f"# A\n\n## Results\n\n### Early\n\n{words}.\n\n### Late\n\n{words}.\n"})
    summary = ingest_folder(papers, db, load_rules(edited_rules_file(tmp_path, "target_max_words = 800", "target_max_words = 850")), OPTIONS)
    decisions = open_readonly(db).execute("SELECT decisions FROM sections WHERE heading = 'Results'").fetchone()[0]
    assert "soft split at 2 sub-sections: 901 words > 850" in decisions
    assert (summary.updated, fingerprinted, _recorded(db, summary.run_id)) == (1, [], set())


def test_an_edited_paper_is_fingerprinted_and_its_unedited_neighbour_is_not(tmp_path, rules, fingerprinted):
    papers, db = _ingested(tmp_path, rules, {"edited.md": _paper("Results"), "kept.md": _paper("Results")})
    before = _records(db)
    (papers / "edited.md").write_text(_paper("Results", "IL-6 fell."))
    # Another rules file too, so that both papers are written again.
    summary = ingest_folder(papers, db, rules.model_copy(update={"sha256": "another-file-same-rules"}), OPTIONS)
    assert sorted(set(fingerprinted)) == ["edited.md"]
    assert _recorded(db, summary.run_id) == _expected(before, _records(db))


NAMES = st.sampled_from(["a.md", "a.markdown", "b.md", "sub/c.md"])
EDITS = st.one_of(
    st.tuples(st.just("write"), NAMES, st.sampled_from(["Results", "Outcomes", "Findings"])),
    st.tuples(st.just("remove"), NAMES, st.just("")),
    st.tuples(st.just("rules"), st.just(""), st.sampled_from(["default", "outcomes", "default, another file"])),
)


@pytest.mark.slow
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.lists(EDITS, min_size=1, max_size=3), min_size=1, max_size=4))
def test_every_run_records_exactly_what_a_diff_of_the_whole_exports_shows(tmp_path_factory, rules, steps):
    root = tmp_path_factory.mktemp("changes")
    papers, db = root / "papers", root / "papers.duckdb"
    papers.mkdir()
    rules_by_name = {
        "default": rules,
        "outcomes": load_rules(edited_rules_file(root, *OUTCOMES)),
        "default, another file": rules.model_copy(update={"sha256": "another-file-same-rules"}),
    }
    current = rules
    assert steps  # each run is checked after its step: no step would check nothing
    for step in steps:
        for action, name, value in step:
            if action == "write":
                (papers / name).parent.mkdir(parents=True, exist_ok=True)
                (papers / name).write_text(_paper(value))
            elif action == "remove":
                (papers / name).unlink(missing_ok=True)
            else:
                current = rules_by_name[value]
        before = _records(db)
        summary = ingest_folder(papers, db, current, OPTIONS)
        # A run that finds nothing to change records no run: what it changed must be nothing.
        recorded = set() if summary.nothing_changed else _recorded(db, summary.run_id)
        assert recorded == _expected(before, _records(db))


def test_a_new_papers_records_are_listed_in_duckdb_not_held_in_python(tmp_path, rules, monkeypatch):
    # A first run adds every record of the library: held as Python objects, hundreds of MiB at 30×
    # the shared corpus, over the writer's memory limit.
    returned = []
    real = change_log.changes_of_run
    monkeypatch.setattr("pipeline.ingest.run.changes_of_run", lambda *args: returned.append(real(*args)) or returned[-1])
    _, db = _ingested(tmp_path, rules, {"a.md": _paper("Results"), "b.md": _paper("Outcomes")})
    assert [(changes.records, changes.new_papers) for changes in returned] == [([], ("a.md", "b.md"))]
    assert _recorded(db, 1) == _expected({}, _records(db))
