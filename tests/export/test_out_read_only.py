"""`--out` in a folder nothing can be written to: one `Error:` line naming the path and the cause,
a non-zero exit, and nothing left behind, never a traceback.

A read-only file system refuses every change with EROFS, removing a name that is not there
included (Linux asks for write access to the mount before it looks the name up). A test cannot
mount one, so `read_only` makes a folder behave as one: opening a file in it for writing,
replacing, removing or making a name there fails with EROFS. A folder made read-only with chmod
is the same for a user other than root (for whom chmod restricts nothing), but a name that is not
there is removed with ENOENT there, so that folder never showed the traceback.
"""

from __future__ import annotations

import builtins
import errno
import io
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import ingested_papers
from pipeline.cli import app
from pipeline.errors import PipelineError
from pipeline.export.destination import write_out

runner = CliRunner()
PAPER = "# A paper\n\n## Results\n\nSerum IL-6 rose in the treated cohort.\n"


@pytest.fixture(scope="module")
def db(tmp_path_factory, rules) -> Path:
    return ingested_papers(tmp_path_factory.mktemp("out-read-only"), {"a.md": PAPER}, rules)


@pytest.fixture
def read_only(tmp_path, monkeypatch) -> Path:
    """A folder that refuses every change as a read-only mount does."""
    folder = tmp_path / "mounted"
    folder.mkdir()

    def inside(path) -> bool:
        return isinstance(path, (str, os.PathLike)) and os.path.abspath(path).startswith(f"{folder}{os.sep}")

    def refuse(path) -> OSError:
        return OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

    def guarded(change):
        def call(path, *args, **kwargs):
            if inside(path):
                raise refuse(path)
            return change(path, *args, **kwargs)
        return call

    real_open = builtins.open

    def open_(path, mode="r", *args, **kwargs):
        if inside(path) and any(letter in mode for letter in "wax+"):
            raise refuse(path)
        return real_open(path, mode, *args, **kwargs)

    def replace(source, target, *args, **kwargs):
        if inside(source) or inside(target):
            raise refuse(target)
        return os_replace(source, target, *args, **kwargs)

    os_replace = os.replace
    monkeypatch.setattr(builtins, "open", open_)
    monkeypatch.setattr(io, "open", open_)
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "unlink", guarded(os.unlink))
    monkeypatch.setattr(os, "mkdir", guarded(os.mkdir))
    return folder


def _one_error_line(output: str) -> str:
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    assert lines[0].startswith("Error: "), output
    return lines[0]


@pytest.mark.parametrize("export_format", ["jsonl", "parquet"])
def test_export_to_a_read_only_folder_fails_with_one_error_line(db, read_only, export_format):
    out = read_only / f"chunks.{export_format}"
    result = runner.invoke(app, ["export", "--db", str(db), "--out", str(out), "--format", export_format, "--quiet"])
    assert result.exit_code == 1
    assert _one_error_line(result.output) == (
        f"Error: cannot write {out}: Read-only file system (EROFS); check that its folder is writable and has room"
    )
    assert list(read_only.iterdir()) == []


def test_show_out_to_a_read_only_folder_fails_with_one_error_line(db, read_only):
    out = read_only / "chunk.txt"
    result = runner.invoke(app, ["show", "a.md:1", "--db", str(db), "--out", str(out)])
    assert result.exit_code == 1
    assert _one_error_line(result.output) == (
        f"Error: cannot write {out}: Read-only file system (EROFS); check that its folder is writable and has room"
    )
    assert list(read_only.iterdir()) == []


def test_a_staged_file_that_cannot_be_removed_is_named(tmp_path, monkeypatch):
    """Where the write stopped after the staged file was made and the folder then refused every
    change, the error names the file left, for the user to delete."""
    def write_then_fail(staged: Path) -> None:
        staged.write_text("half")
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(staged))

    def refuse(path, *args, **kwargs) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

    monkeypatch.setattr(os, "unlink", refuse)
    with pytest.raises(PipelineError, match=r"cannot remove .*\.out\.txt\.\d+\.partial, which a failed write left behind: .*; delete it"):
        write_out(tmp_path / "out.txt", write_then_fail)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a folder chmod made read-only")
def test_export_to_a_folder_chmod_made_read_only_fails_with_one_error_line(db, tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        result = runner.invoke(app, ["export", "--db", str(db), "--out", str(folder / "chunks.jsonl"), "--quiet"])
        assert result.exit_code == 1
        assert "Permission denied (EACCES)" in _one_error_line(result.output)
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o755)
