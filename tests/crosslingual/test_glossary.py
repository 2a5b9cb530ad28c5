"""A glossary maps a query's words to the papers' terms: particles and spacing as Korean writes
them, nothing guessed, and the starter glossary's English terms found in real papers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import Stemmer
from typer.testing import CliRunner

from conftest import PROJECT, ingested_papers, shared_corpus
from pipeline.cli import app
from pipeline.crosslingual.glossary import DEFAULT_GLOSSARY_PATH, load_glossary, map_query
from pipeline.crosslingual.script import Script, query_language, query_script
from pipeline.errors import RulesError
from pipeline.index.query import spellings

runner = CliRunner()
ABSENT_FIXTURE = PROJECT / "tests" / "crosslingual" / "glossary_absent.txt"
SMALL = """
query_language = "ko"
evidence_language = "en"
suffixes = ["은", "는", "의", "에", "에서", "들", "인가"]
ignore = ["무엇", "대한"]
[terms]
"무작위 대조 시험" = ["randomized controlled trial", "RCT"]
"메타분석" = ["meta-analysis"]
"신뢰구간" = ["confidence interval"]
"환자" = ["patients"]
"연구" = ["study"]
"""


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    path = tmp_path_factory.mktemp("glossary") / "small.toml"
    path.write_text(SMALL)
    return load_glossary(path)


@pytest.mark.parametrize(
    ("query", "search_query"),
    [
        ("메타분석", "meta-analysis"),
        ("신뢰구간은", "confidence interval"),  # a particle written onto the word
        ("환자들에서", "patients"),  # two of them
        ("메타 분석", "meta-analysis"),  # spaced as Korean may space it
        ("무작위 대조 시험에서", "randomized controlled trial RCT"),  # an entry over three words
        ("메타분석연구", "meta-analysis study"),  # one word, two entries
        ("환자의 IL-6", "patients IL-6"),
        ("IL-6의 신뢰구간", "IL-6 confidence interval"),  # a particle written onto an English term
    ],
)
def test_a_query_s_words_map_to_the_glossary_s_terms(small, query, search_query):
    assert map_query(query, small).search_query == search_query


def test_a_mapping_records_the_words_as_typed_and_the_entries_they_are(small):
    (mapped,) = map_query("신뢰구간은", small).mapped
    assert (mapped.typed, mapped.entries, mapped.terms) == ("신뢰구간은", ("신뢰구간",), ("confidence interval",))


def test_a_word_with_no_entry_is_searched_as_typed_and_reported_unmapped(small):
    mapping = map_query("신뢰구간 혈압", small)
    assert (mapping.search_query, mapping.unmapped) == ("confidence interval 혈압", ("혈압",))


def test_an_entry_followed_by_letters_that_are_no_suffix_is_not_guessed_at(small):
    assert map_query("환자군", small).unmapped == ("환자군",)


def test_words_already_in_the_evidence_s_script_are_kept_not_unmapped(small):
    mapping = map_query("환자 IL-6 2019", small)
    assert (mapping.kept, mapping.unmapped) == (("IL-6", "2019"), ())


def test_a_spaced_out_entry_maps_before_a_word_that_is_both_a_suffix_and_ignored(tmp_path):
    # `인가` is a suffix and an ignored word: `시험인가` is the entry and either; the entry and the
    # suffix is what makes `무작위 대조 시험인가` one entry spaced out.
    path = tmp_path / "both.toml"
    path.write_text(SMALL.replace('ignore = ["무엇", "대한"]', 'ignore = ["무엇", "대한", "인가"]'))
    assert map_query("무작위 대조 시험인가", load_glossary(path)).search_query == "randomized controlled trial RCT"


def test_a_particle_written_onto_a_closing_bracket_is_left_out_not_unmapped(small):
    mapping = map_query("메타분석(MA)의 환자", small)
    assert (mapping.search_query, mapping.unmapped, mapping.ignored) == ("meta-analysis MA patients", (), ("의",))


def test_function_words_are_left_out_of_the_search_query_and_said_so(small):
    mapping = map_query("환자에 대한 연구는 무엇인가", small)
    assert (mapping.search_query, mapping.ignored) == ("patients study", ("대한", "무엇인가"))


def test_the_starter_glossary_holds_at_least_150_entries():
    assert len(load_glossary().terms) >= 150


def test_a_glossary_entry_without_terms_is_refused_naming_the_file_and_entry(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('query_language = "ko"\nevidence_language = "en"\n[terms]\n"환자" = []\n')
    with pytest.raises(RulesError, match=r"glossary .*bad\.toml: terms: '환자': give each entry at least one term"):
        load_glossary(path)


def test_a_glossary_that_is_not_toml_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[terms\n")
    with pytest.raises(RulesError, match=r"glossary .*bad\.toml is not valid TOML"):
        load_glossary(path)


def test_a_missing_glossary_says_to_pass_an_existing_file(tmp_path):
    with pytest.raises(RulesError, match="pass --glossary with an existing file"):
        load_glossary(tmp_path / "none.toml")


@pytest.mark.parametrize(
    ("text", "script", "language"),
    [("신뢰구간은?", Script.hangul, "ko"), ("信頼区間とは", Script.kana, "ja"), ("置信区间", Script.han, "zh"),
     ("IL-6 신뢰구간", Script.hangul, "ko"), ("2019", Script.none, None)],
)
def test_the_script_alone_tells_korean_japanese_and_chinese(text, script, language):
    assert (query_script(text), query_language(text)) == (script, language)


# ---------------------------------------------------------------- through the command line

PAPERS = {
    "meta.md": "# M\n\n## Results\n\nThe meta-analysis gave a pooled estimate with a 95% confidence interval.\n",
    "other.md": "# O\n\n## Results\n\nBlood pressure fell in the treated group.\n",
}


@pytest.fixture(scope="module")
def database(tmp_path_factory, rules):
    return ingested_papers(tmp_path_factory.mktemp("glossary-search"), PAPERS, rules)


def test_the_json_says_the_query_as_typed_the_search_query_and_what_mapped(database):
    arguments = ["search", "메타분석의 신뢰구간 놀이터", "--db", str(database), "--glossary", str(DEFAULT_GLOSSARY_PATH), "--json"]
    output = json.loads(runner.invoke(app, arguments).stdout)
    assert output["query"] == "메타분석의 신뢰구간 놀이터"
    assert output["search_query"] == "meta-analysis confidence interval CI 놀이터"
    assert [(m["typed"], m["terms"]) for m in output["mapped"]] == [("메타분석의", ["meta-analysis"]), ("신뢰구간", ["confidence interval", "CI"])]
    assert output["unmapped"] == ["놀이터"] and output["searched_with"] == "glossary"
    assert output["hits"][0]["source"]["doc_id"] == "meta.md"


def test_the_text_output_shows_the_query_the_search_query_and_the_evidence_apart(database):
    result = runner.invoke(app, ["search", "메타분석", "--db", str(database), "--glossary", str(DEFAULT_GLOSSARY_PATH)])
    lines = result.stdout.splitlines()
    assert lines[0] == "query (as typed):  메타분석"
    assert lines[1].startswith("searched as:       meta-analysis   [glossary: ")
    assert "The **meta-analysis** gave a pooled estimate" in result.stdout  # the query's terms marked


def test_a_query_whose_every_word_is_unmapped_and_finds_nothing_says_so(database):
    result = runner.invoke(app, ["search", "놀이터 미끄럼틀", "--db", str(database), "--glossary", str(DEFAULT_GLOSSARY_PATH)])
    assert result.stderr.splitlines()[-1] == (
        f"No chunks match '놀이터 미끄럼틀': no word of it has an entry in the glossary {DEFAULT_GLOSSARY_PATH} (놀이터, 미끄럼틀), "
        "and searched as typed no chunk holds any of its words."
    )


# ---------------------------------------------------------------- the starter glossary on real papers

_TOKEN = re.compile(r"[a-z0-9]+")


def _corpus_files(corpus: Path) -> list[Path]:
    """The shared corpus's text: converter Markdown, the JATS papers once (nested), the QA sets and
    the PDF tools' outputs. PDFs themselves are left out: their text is in those outputs."""
    return sorted(
        [*corpus.glob("markdown/**/*.md"), *corpus.glob("jats_md/nested/*.md"), *corpus.glob("qa/**/*.json"), *corpus.glob("pdf/groundtruth/*")]
    )


def _stemmed(text: str, stemmer) -> list[str]:
    return stemmer.stemWords(_TOKEN.findall(text.lower()))


def _absent_entries(corpus: Path, spelling) -> list[str]:
    """The starter glossary's entries none of whose English terms (in any of their spellings,
    any inflection) occurs in the corpus, as a run of words."""
    stemmer = Stemmer.Stemmer("porter")
    glossary = load_glossary()
    wanted: dict[tuple[str, ...], set[str]] = {}
    for entry, terms in glossary.terms.items():
        for term in terms:
            words = _TOKEN.findall(term.lower())
            for variant in _variants(words, spelling):
                wanted.setdefault(tuple(stemmer.stemWords(variant)), set()).add(entry)
    firsts = {phrase[0] for phrase in wanted}
    longest = max(map(len, wanted))
    found: set[str] = set()
    for path in _corpus_files(corpus):
        tokens = _stemmed(path.read_text(errors="replace"), stemmer)
        for index, token in enumerate(tokens):
            if token in firsts:
                for width in range(1, longest + 1):
                    found |= wanted.get(tuple(tokens[index : index + width]), set())
    return sorted(set(glossary.terms) - found)


def _variants(words: list[str], spelling) -> list[list[str]]:
    variants = [[]]
    for word in words:
        variants = [[*done, form] for done in variants for form in [word, *sorted(spellings(word, spelling.spelling, spelling.spelling_min_stem))]]
    return variants


def test_every_entry_s_english_term_is_found_in_the_shared_corpus_but_those_listed_absent(rules):
    corpus = shared_corpus()
    listed = [line.split("#")[0].strip() for line in ABSENT_FIXTURE.read_text().splitlines()]
    assert _absent_entries(corpus, rules.search) == sorted(entry for entry in listed if entry)
