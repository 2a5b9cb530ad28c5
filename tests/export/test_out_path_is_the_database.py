"""An output path that is the database, or a file an ingest keeps beside it, is refused with one
line, and the database stays whole: every command that writes a file (`export --out`, `report
--html`, `show --out`), links followed."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import ingested_papers
from pipeline.cli import app
from pipeline.index.database import open_readonly

runner = CliRunner()
PAPER = "# A paper\n\n## Results\n\nSerum IL-6 rose in the treated cohort.\n"


@pytest.fixture
def db(tmp_path, rules) -> Path:
    return ingested_papers(tmp_path, {"a.md": PAPER}, rules)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _refusal(out: Path, db: Path) -> str:
    return (
        f"Error: {out} is the database {db} or a file an ingest keeps beside it; writing there would destroy "
        "the database: pass another path\n"
    )


def _still_a_database(db: Path, before: str) -> None:
    assert _digest(db) == before
    assert open_readonly(db).execute("SELECT count(*) FROM chunks").fetchone()[0] > 0


@pytest.mark.parametrize("export_format", ["jsonl", "parquet"])
def test_export_out_the_database_itself_is_refused(db, export_format):
    before = _digest(db)
    result = runner.invoke(app, ["export", "--db", str(db), "--out", str(db), "--format", export_format, "--quiet"])
    assert (result.exit_code, result.stderr) == (1, _refusal(db, db))
    _still_a_database(db, before)


def test_export_out_a_link_to_the_database_is_refused(db, tmp_path):
    link = tmp_path / "link.jsonl"
    link.symlink_to(db)
    before = _digest(db)
    result = runner.invoke(app, ["export", "--db", str(db), "--out", str(link), "--quiet"])
    assert (result.exit_code, result.stderr) == (1, _refusal(link, db))
    _still_a_database(db, before)


@pytest.mark.parametrize("beside", [".wal", ".lock"])
def test_export_out_the_databases_wal_or_lock_is_refused(db, beside):
    out = db.with_name(db.name + beside)
    before = out.read_bytes() if out.exists() else None  # an ingest leaves its (empty) lock file
    result = runner.invoke(app, ["export", "--db", str(db), "--out", str(out), "--quiet"])
    assert (result.exit_code, result.stderr) == (1, _refusal(out, db))
    assert (out.read_bytes() if out.exists() else None) == before


def test_report_html_over_the_database_is_refused_before_any_page_is_written(db):
    pytest.importorskip("matplotlib", reason="report --html draws its plots with matplotlib (the report extra)")
    before = _digest(db)
    result = runner.invoke(app, ["report", "--db", str(db), "--html", str(db)])
    assert (result.exit_code, result.stderr) == (1, _refusal(db, db))
    _still_a_database(db, before)
    assert not db.with_name(db.stem + "_files").exists()


def test_show_out_a_link_to_the_database_is_refused(db, tmp_path):
    link = tmp_path / "chunk.html"
    link.symlink_to(db)
    before = _digest(db)
    result = runner.invoke(app, ["show", "a.md:1", "--db", str(db), "--out", str(link)])
    assert (result.exit_code, result.stderr) == (1, _refusal(link, db))
    _still_a_database(db, before)


def test_export_beside_the_database_under_another_name_is_written(db):
    out = db.with_name("chunks.jsonl")
    result = runner.invoke(app, ["export", "--db", str(db), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.stderr
    assert out.read_text().count("\n") >= 1
