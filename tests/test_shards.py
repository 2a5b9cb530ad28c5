"""Shard names and the groups of files a Ray task gets: what makes a retried task overwrite its
own shards and a second export skip what it exported. No Ray needed."""

from __future__ import annotations

from pathlib import Path

import duckdb

from pipeline.index.rows import paper_rows
from pipeline.ingest.cluster import group_files, over_time_marker
from pipeline.ingest.plan import Change, PlannedFile
from pipeline.ingest.scan import ScannedFile
from pipeline.ingest.shards import load_shards, remove_other_shards, shard_key, shard_path, shards_complete, write_shards
from pipeline.ingest.task import Task, document_row
from pipeline.models import DocumentStatus

from conftest import writable_database


def _task(path: str, sha256: str = "a" * 64) -> Task:
    return Task(f"/papers/{path}", path, path.removesuffix(".md"), sha256, 10, None)


def _planned(path: str) -> PlannedFile:
    return PlannedFile(ScannedFile(Path(f"/papers/{path}"), path, path.removesuffix(".md"), "a" * 64, 10, None), Change.added, False)


def test_a_task_given_the_same_files_gets_the_same_shard_name(rules):
    assert shard_key([_task("a.md"), _task("b.md")], rules) == shard_key([_task("a.md"), _task("b.md")], rules)


def test_a_changed_file_gives_its_task_another_shard_name(rules):
    assert shard_key([_task("a.md")], rules) != shard_key([_task("a.md", sha256="b" * 64)], rules)


def test_a_file_added_to_the_folder_changes_only_its_own_group():
    before = [_planned(f"paper-{number:03}.md") for number in range(200)]
    after = before + [_planned("paper-050a.md")]
    paths = lambda groups: {tuple(planned.scanned.path for planned in group) for group in groups}  # noqa: E731
    changed = paths(group_files(after, 8)) - paths(group_files(before, 8))
    assert len(changed) == 1 and "paper-050a.md" in next(iter(changed))


def _failed_rows(path: str, rules):
    return paper_rows(document_row(path, path, "c" * 64, 1, DocumentStatus.failed, f"{path}: broken", rules), None)


def test_shards_load_into_the_database_and_only_those_asked_for(tmp_path, rules):
    write_shards([_failed_rows("a.md", rules)], tmp_path / "shards", "one")
    write_shards([_failed_rows("b.md", rules)], tmp_path / "shards", "two")
    assert shards_complete(tmp_path / "shards", "one") and not shards_complete(tmp_path / "shards", "three")
    connection = writable_database(tmp_path / "papers.duckdb")
    load_shards(connection, tmp_path / "shards", ["one"])
    assert connection.execute("SELECT path, status, error FROM documents").fetchall() == [("a.md", "failed", "a.md: broken")]


def test_other_shards_and_half_written_ones_are_removed(tmp_path, rules):
    write_shards([_failed_rows("a.md", rules)], tmp_path, "kept")
    write_shards([_failed_rows("b.md", rules)], tmp_path, "stale")
    half_written = shard_path(tmp_path, "documents", "kept").with_name("kept.parquet.writing-123")
    half_written.write_bytes(b"PAR1")
    assert remove_other_shards(tmp_path, ["kept"]) == 2
    assert [path.name for path in (tmp_path / "documents").iterdir()] == ["kept.parquet"]
    assert duckdb.sql(f"SELECT path FROM read_parquet('{tmp_path}/documents/*.parquet')").fetchall() == [("a.md",)]


def test_word_of_a_file_stuck_past_its_time_limit_is_removed_with_half_written_shards(tmp_path, rules):
    write_shards([_failed_rows("a.md", rules)], tmp_path, "kept")
    marker = over_time_marker(tmp_path, "kept", "a.md")
    marker.touch()
    assert shards_complete(tmp_path, "kept")
    assert remove_other_shards(tmp_path, ["kept"]) == 1
    assert not marker.exists() and shards_complete(tmp_path, "kept")
