"""Shard names and the groups of files a Ray task gets: what makes a retried task overwrite its
own shards and a second export skip what it exported; and the options that say where the shards
go and how many files share one, refused with what to do. No Ray needed."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from pipeline.index.rows import paper_rows
from pipeline.ingest.cluster import group_files, over_time_marker
from pipeline.ingest.plan import Change, PlannedFile
from pipeline.ingest.scan import ScannedFile
from pipeline.cli import app
from pipeline.errors import IndexingError, PipelineError
from pipeline.ingest.run import IngestOptions
from pipeline.ingest.shards import (
    load_shards,
    new_run_folder,
    remove_other_shards,
    shard_key,
    shard_path,
    shards_complete,
    write_shards,
)
from pipeline.ingest.task import Task, document_row
from pipeline.records.base import DocumentStatus

from conftest import writable_database


def _task(path: str, sha256: str = "a" * 64) -> Task:
    return Task(f"/papers/{path}", path, path.removesuffix(".md"), sha256, 10, None, "key")


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


def test_a_shard_folder_gone_read_only_gives_the_cause_not_the_cleanups_error(tmp_path, rules, monkeypatch):
    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr("pipeline.ingest.shards.run_over_json_lines", read_only)
    monkeypatch.setattr(Path, "unlink", read_only)
    with pytest.raises(IndexingError, match="cannot write the shard .*Read-only file system"):
        write_shards([_failed_rows("a.md", rules)], tmp_path, "one")


def test_one_file_a_task_gives_every_file_a_group_of_its_own():
    files = [_planned(f"paper-{number}.md") for number in range(5)]
    assert [len(group) for group in group_files(files, 1)] == [1, 1, 1, 1, 1]


def test_files_per_task_below_one_is_refused_with_what_to_pass():
    with pytest.raises(PipelineError, match=r"^files_per_task is 0: a Ray task needs 1 file or more; pass --files-per-task 1 or more$"):
        IngestOptions(files_per_task=0)


def test_each_run_gets_a_new_empty_folder_in_the_shards_dir_which_is_created_if_missing(tmp_path):
    first = new_run_folder(tmp_path / "shared" / "shards", "papers.duckdb.building-1")
    second = new_run_folder(tmp_path / "shared" / "shards", "papers.duckdb.building-1")
    assert first != second and first.parent == second.parent == tmp_path / "shared" / "shards"
    assert first.name.startswith("papers.duckdb.building-1.") and first.name.endswith(".shards")
    assert list(first.iterdir()) == [] and list(second.iterdir()) == []


def test_a_relative_shards_dir_is_made_absolute_for_the_workers(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert new_run_folder(Path("shards"), "run").parent == tmp_path / "shards"


def test_a_shards_dir_that_is_a_file_is_refused_with_what_to_do(tmp_path):
    (tmp_path / "shards").write_text("not a folder")
    with pytest.raises(PipelineError, match=r"is a file; pass a folder on storage that every Ray worker can write$"):
        new_run_folder(tmp_path / "shards", "run")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_shards_dir_that_cannot_be_written_is_refused_with_what_to_do(tmp_path):
    (tmp_path / "shards").mkdir(mode=0o500)
    with pytest.raises(PipelineError) as raised:
        new_run_folder(tmp_path / "shards", "run")
    assert str(raised.value) == (
        f"--shards-dir {tmp_path / 'shards'} cannot be created or written (Permission denied); pass a folder on shared "
        "storage that this machine and every Ray worker can write"
    )


def test_a_shards_dir_that_cannot_be_created_is_refused_with_what_to_do(tmp_path):
    (tmp_path / "mounted").write_text("a file where a folder should be")
    with pytest.raises(PipelineError, match=r"cannot be created or written \(Not a directory\); pass a folder on shared storage"):
        new_run_folder(tmp_path / "mounted" / "shards", "run")


def _ingest(tmp_path: Path, *options: str):
    (tmp_path / "papers").mkdir(exist_ok=True)
    (tmp_path / "papers" / "a.md").write_text("# A\n\n## Methods\n\nA short paper.\n")
    return CliRunner().invoke(app, ["ingest", str(tmp_path / "papers"), "--db", str(tmp_path / "papers.duckdb"), "--quiet", *options])


def test_the_ray_options_without_the_ray_engine_are_refused_on_the_command_line(tmp_path):
    result = _ingest(tmp_path, "--shards-dir", str(tmp_path / "shards"), "--files-per-task", "4")
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "Error: --shards-dir and --files-per-task apply only to Ray tasks; add --engine ray, or leave "
        "--shards-dir and --files-per-task out"
    )


def test_a_ray_option_alone_without_the_ray_engine_is_refused_on_the_command_line(tmp_path):
    result = _ingest(tmp_path, "--shards-dir", str(tmp_path / "shards"))
    assert result.exit_code == 1
    assert result.stderr.strip() == "Error: --shards-dir applies only to Ray tasks; add --engine ray, or leave --shards-dir out"
    assert not (tmp_path / "shards").exists()


def test_a_shards_dir_that_is_a_file_stops_an_ingest_before_ray_starts(tmp_path):
    (tmp_path / "shards").write_text("not a folder")
    result = _ingest(tmp_path, "--engine", "ray", "--shards-dir", str(tmp_path / "shards"))
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"Error: --shards-dir {tmp_path / 'shards'} is a file; pass a folder on storage that every Ray worker can write"
    )
    assert not (tmp_path / "papers.duckdb").exists()


def test_files_per_task_below_one_is_refused_by_the_command_line(tmp_path):
    result = _ingest(tmp_path, "--engine", "ray", "--files-per-task", "0")
    assert result.exit_code == 2 and "--files-per-task" in result.stderr
