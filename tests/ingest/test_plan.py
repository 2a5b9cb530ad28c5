"""What a run plans to do, worked out from the files found and what is stored, without a pool."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline import __version__
from pipeline.index.database import StoredDocument
from pipeline.ingest.plan import Change, StoredState, plan_run
from pipeline.ingest.scan import FolderScan, ScannedFile


def _found(path: str, sha256: str = "bytes-1", read_error: str | None = None) -> ScannedFile:
    return ScannedFile(Path("/papers") / path, path, path.rsplit(".", 1)[0], sha256, 100, read_error)


def _stored(path: str, sha256: str = "bytes-1", rules_sha256: str = "rules-1", status: str = "ingested",
            version: str = __version__) -> tuple[str, StoredDocument]:
    return path, StoredDocument(path.rsplit(".", 1)[0], sha256, rules_sha256, version, status)


@pytest.fixture()
def rules(rules):
    return rules.model_copy(update={"sha256": "rules-1"})


def _plan(found, stored, rules, extractions=None, unlisted=None):
    return plan_run(FolderScan(found, unlisted or {}), StoredState(dict(stored), extractions or {}), rules)


def test_a_file_nothing_is_stored_for_is_added(rules):
    plan = _plan([_found("a.md")], [], rules)
    assert [(p.scanned.path, p.change) for p in plan.to_process] == [("a.md", Change.added)]
    assert plan.stale_doc_ids == ()


def test_a_file_whose_bytes_rules_and_pipeline_match_is_left_alone(rules):
    plan = _plan([_found("a.md")], [_stored("a.md")], rules)
    assert plan.to_process == () and plan.unchanged == ("a.md",)


def test_an_unchanged_file_that_failed_is_still_failing(rules):
    plan = _plan([_found("a.pdf")], [_stored("a.pdf", status="no_text")], rules)
    assert plan.still_failing == {"a.pdf": "no_text"}


def test_changed_bytes_update_the_paper_and_its_old_rows_go(rules):
    plan = _plan([_found("a.md", sha256="bytes-2")], [_stored("a.md")], rules, extractions={"a": "bytes-1"})
    assert [(p.change, p.reuse_extraction) for p in plan.to_process] == [(Change.updated, False)]
    assert plan.stale_doc_ids == ("a",)


def test_a_rules_change_re_chunks_from_the_stored_extraction_of_the_same_bytes(rules):
    plan = _plan([_found("a.md")], [_stored("a.md", rules_sha256="rules-0")], rules, extractions={"a": "bytes-1"})
    assert [(p.change, p.reuse_extraction) for p in plan.to_process] == [(Change.updated, True)]
    assert plan.reused_extractions == ("a",)


def test_a_new_pipeline_version_processes_every_paper_again(rules):
    plan = _plan([_found("a.md")], [_stored("a.md", version="0.0.1")], rules)
    assert plan.updated == 1 and plan.unchanged == ()


def test_a_stored_paper_whose_file_vanished_is_removed(rules):
    plan = _plan([_found("a.md")], [_stored("a.md"), _stored("b.md")], rules)
    assert plan.removed == ("b.md",) and plan.stale_doc_ids == ("b",)


def test_a_file_that_cannot_be_read_is_processed_to_record_its_failure_never_left_as_stored(rules):
    plan = _plan([_found("a.md", sha256="", read_error="a.md: cannot read the file")], [_stored("a.md")], rules)
    assert [p.scanned.path for p in plan.to_process] == ["a.md"] and plan.unchanged == ()


def test_removing_more_than_half_of_the_stored_papers_is_flagged(rules):
    stored = [_stored(f"{name}.md") for name in "abc"]
    assert _plan([_found("a.md")], stored, rules).removes_most_papers
    assert not _plan([_found("a.md"), _found("b.md")], stored, rules).removes_most_papers


def test_papers_in_a_folder_that_cannot_be_listed_are_kept_and_reported_not_removed(rules):
    stored = [_stored("a.md"), _stored("sub/b.md"), _stored("subway/c.md")]
    plan = _plan([_found("a.md")], stored, rules, unlisted={"sub": "Permission denied"})
    assert plan.removed == ("subway/c.md",)
    assert plan.not_checked == {
        "sub/b.md": "sub/b.md: kept as stored: its folder sub cannot be listed (Permission denied); check its permissions"
    }


def test_a_folder_that_cannot_be_listed_and_holds_no_stored_paper_is_reported_itself(rules):
    plan = _plan([_found("a.md")], [], rules, unlisted={"new": "Permission denied"})
    assert list(plan.not_checked) == ["new/"]
