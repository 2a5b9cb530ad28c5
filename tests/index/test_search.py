"""What `search` finds beyond single words: other spellings, quoted phrases, and why it found
nothing."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import ingested_papers
from pipeline.cli import app
from pipeline.index.database import open_readonly
from pipeline.index.search import search

runner = CliRunner()
PAPERS = {
    "british.md": "# B\n\n## Methods\n\nPatients were randomised to treatment. The tumour shrank.\n",
    "american.md": "# A\n\n## Methods\n\nPatients were randomized to placebo. The tumor grew.\n",
    "apart.md": "# C\n\n## Results\n\nSerum levels of many markers were high, and IL-6 was measured.\n",
    "together.md": "# D\n\n## Results\n\nSerum IL-6 rose. Quality of life improved.\n",
}


@pytest.fixture(scope="module")
def database(tmp_path_factory, rules):
    return ingested_papers(tmp_path_factory.mktemp("search"), PAPERS, rules)


def _papers(hits) -> set[str]:
    return {hit.doc_id for hit in hits}


@pytest.mark.parametrize("query", ["randomised", "randomized", "tumour", "tumor"])
def test_british_and_american_spellings_find_each_other(database, rules, query):
    hits = search(open_readonly(database), query, spelling=rules.search)
    assert _papers(hits) == {"british.md", "american.md"}


def test_without_the_spelling_rules_a_spelling_finds_only_itself(database):
    assert _papers(search(open_readonly(database), "randomised")) == {"british.md"}


def test_another_spelling_scores_as_the_query_s_own_would(database, rules):
    connection = open_readonly(database)
    crossed = {hit.doc_id: hit.score for hit in search(connection, "tumour", spelling=rules.search)}
    direct = {hit.doc_id: hit.score for hit in search(connection, "tumor")}
    assert crossed["american.md"] == pytest.approx(direct["american.md"])


def test_a_quoted_phrase_must_occur_as_written(database):
    connection = open_readonly(database)
    assert _papers(search(connection, "serum IL-6")) == {"apart.md", "together.md"}
    assert _papers(search(connection, '"serum IL-6"')) == {"together.md"}


def test_a_phrase_may_hold_words_too_common_to_be_indexed(database):
    assert _papers(search(open_readonly(database), '"quality of life"')) == {"together.md"}


def test_a_json_hit_carries_its_text_and_where_that_text_sits(database):
    result = runner.invoke(app, ["search", "IL-6", "--db", str(database), "--json"])
    hit = json.loads(result.stdout)["hits"][0]
    source = hit["source"]
    paper = open_readonly(database).execute("SELECT text FROM documents WHERE doc_id = ?", [source["doc_id"]]).fetchone()[0]
    assert paper[source["char_start"] : source["char_end"]] == hit["text"]


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("", "it holds no word the index could look for (letters or digits)"),
        ("the of and", "every word of it (the, of, and) is too common to be indexed"),
        ("zzyzx", "no chunk holds any of its words"),
    ],
)
def test_a_search_that_finds_nothing_says_why(database, query, why):
    result = runner.invoke(app, ["search", query, "--db", str(database)])
    assert result.exit_code == 0 and result.stderr.splitlines()[-1] == f"No chunks match {query!r}: {why}."


def test_a_long_query_that_finds_nothing_is_not_repeated_whole(database):
    result = runner.invoke(app, ["search", "zzyzx " * 400, "--db", str(database)])
    assert len(result.stderr.splitlines()[-1]) < 200


# ---------------------------------------------------------------- what the index leaves out

ENTRIES = "".join(f"{n}. Author{n} A. Title. J 2001.\n" for n in range(1, 7))
CITED = {
    "cites.md": f"# E\n\n## Results\n\nCytokines rose, as reported before [6].\n\n## References\n\n{ENTRIES}",
    "says.md": "# F\n\n## Results\n\nSerum IL-6 rose.\n",
    "lists.md": f"# G\n\n## Results\n\nCytokines rose.\n\n## References\n\n{ENTRIES}",
}


@pytest.fixture(scope="module")
def cited(tmp_path_factory, rules):
    return ingested_papers(tmp_path_factory.mktemp("cited"), CITED, rules)


def test_a_citation_marker_is_no_index_term_so_il_6_finds_the_chunk_that_says_it_not_the_one_citing_6(cited):
    hits = search(open_readonly(cited), "IL-6", section_type="results")
    assert [(hit.doc_id, hit.text) for hit in hits] == [("says.md", "Results\n\nSerum IL-6 rose.")]


def test_an_entry_s_own_number_is_no_index_term(cited):
    assert search(open_readonly(cited), "IL-6", doc_id="lists.md", bibliography=True) == []
