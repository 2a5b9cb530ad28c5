"""Where `--out` points: a regular file is replaced whole, and anything else is written through
(a device, a pipe, `-` for standard output, the target of a link), as a shell's `>` would."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import ingested_papers
from pipeline.cli import app

runner = CliRunner()
PAPER = "# A paper\n\n## Results\n\nSerum IL-6 rose in the treated cohort.\n"


@pytest.fixture(scope="module")
def db(tmp_path_factory, rules) -> Path:
    return ingested_papers(tmp_path_factory.mktemp("out-paths"), {"a.md": PAPER}, rules)


def _full_device(folder: Path) -> Path:
    """A device that refuses every write with ENOSPC, as /dev/full does: made in `folder` where
    the tests may (as root), so that a pipeline that replaced it would not replace the machine's."""
    device = folder / "full"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except PermissionError:
        return Path("/dev/full")
    return device


class _PipeReader:
    """A FIFO in `folder`, read to its end by a thread, as `pipeline export --out fifo` feeds a reader."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "pipe"
        os.mkfifo(self.path)
        self.data = b""
        # A daemon: on a pipeline that replaced the FIFO, nothing ever opens it for writing.
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        with open(self.path, "rb") as pipe:
            self.data = pipe.read()

    def received(self) -> bytes:
        self.thread.join(timeout=30)
        return self.data


def test_export_to_a_fifo_writes_through_it_and_leaves_the_fifo(db, tmp_path):
    reader = _PipeReader(tmp_path)
    result = runner.invoke(app, ["export", "--db", str(db), "--out", str(reader.path), "--quiet"])
    assert result.exit_code == 0, result.output
    assert stat.S_ISFIFO(os.lstat(reader.path).st_mode)
    assert json.loads(reader.received().splitlines()[0])["schema"] == "paper-pipeline.export"


def test_a_parquet_export_to_a_fifo_writes_the_parquet_file_through_it(db, tmp_path):
    reader = _PipeReader(tmp_path)
    result = runner.invoke(app, ["export", "--db", str(db), "--format", "parquet", "--out", str(reader.path), "--quiet"])
    assert result.exit_code == 0, result.output
    assert stat.S_ISFIFO(os.lstat(reader.path).st_mode)
    data = reader.received()
    assert data[:4] == data[-4:] == b"PAR1"


def test_export_to_a_symlink_replaces_its_target_and_keeps_the_link(db, tmp_path):
    target = tmp_path / "exports" / "chunks.jsonl"
    target.parent.mkdir()
    target.write_text("the last export\n")
    link = tmp_path / "latest.jsonl"
    link.symlink_to(target)
    result = runner.invoke(app, ["export", "--db", str(db), "--out", str(link), "--quiet"])
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and link.resolve() == target
    assert json.loads(target.read_text().splitlines()[0])["schema"] == "paper-pipeline.export"
    assert sorted(path.name for path in target.parent.iterdir()) == ["chunks.jsonl"]


def test_export_to_dash_writes_standard_output(db, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["export", "--db", str(db), "--out", "-", "--quiet"])
    assert result.exit_code == 0, result.output
    header, *records = [json.loads(line) for line in result.stdout.splitlines()]
    assert header["records"] == len(records) == 1
    assert list(tmp_path.iterdir()) == []


def test_export_to_a_full_device_fails_naming_enospc_and_leaves_the_device(db, tmp_path):
    device = _full_device(tmp_path)
    result = runner.invoke(app, ["export", "--db", str(db), "--out", str(device)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: cannot write {device}: No space left on device (ENOSPC); "
        "check the device or pipe it names, or pass a file path\n"
    )
    assert stat.S_ISCHR(os.lstat(device).st_mode)


def test_export_to_a_regular_file_replaces_it_whole_and_leaves_nothing_beside_it(db, tmp_path):
    out = tmp_path / "chunks.jsonl"
    out.write_text("the last export\n")
    result = runner.invoke(app, ["export", "--db", str(db), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text().splitlines()[0])["records"] == 1
    assert sorted(path.name for path in tmp_path.iterdir()) == ["chunks.jsonl"]


def _full_device_named(folder: Path, name: str) -> Path:
    """A device like /dev/full under a name whose suffix the command takes (show and report pick
    their format by it); only root may make one."""
    device = folder / name
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except PermissionError:
        pytest.skip("making a device node needs root")
    return device


def test_show_to_a_full_device_fails_naming_enospc_and_leaves_the_device(db, tmp_path):
    device = _full_device_named(tmp_path, "full.html")
    result = runner.invoke(app, ["show", "a.md:1", "--db", str(db), "--out", str(device)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: cannot write {device}: No space left on device (ENOSPC); check the device or pipe it names, or pass a file path\n"
    )
    assert stat.S_ISCHR(os.lstat(device).st_mode)


def test_report_html_to_a_full_device_fails_naming_enospc_and_leaves_the_device(db, tmp_path):
    device = _full_device_named(tmp_path, "full.html")
    result = runner.invoke(app, ["report", "--db", str(db), "--html", str(device)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: cannot write {device}: No space left on device (ENOSPC); check the device or pipe it names, or pass a file path\n"
    )
    assert stat.S_ISCHR(os.lstat(device).st_mode)


def test_export_to_a_name_of_standard_output_writes_through_it(db, tmp_path):
    import subprocess
    import sys

    # As /dev/stdout is, made here: a pipeline that replaced it would not replace the machine's.
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    command = [sys.executable, "-m", "pipeline", "export", "--db", str(db), "--out", str(link), "--quiet"]
    with open(tmp_path / "captured.jsonl", "a") as captured:
        captured.write("kept\n")
        captured.flush()
        result = subprocess.run(command, stdout=captured, stderr=subprocess.PIPE, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert link.is_symlink()
    first, header, *records = (tmp_path / "captured.jsonl").read_text().splitlines()
    assert (first, json.loads(header)["records"], len(records)) == ("kept", 1, 1)
