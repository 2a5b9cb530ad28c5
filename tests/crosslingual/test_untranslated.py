"""Say what was not understood: each result names the words left untranslated, a loanword the
glossary lacks is matched by sound and says so, a failing translator is a field of --json, and
--strict makes either an error exit; a user's glossary is layered over ours."""

from __future__ import annotations

import json
import shlex
import sys

import pytest
from typer.testing import CliRunner

from conftest import ingested_papers
from pipeline.cli import app
from pipeline.crosslingual.glossary import layered, load_glossary
from pipeline.errors import RulesError
from pipeline.rules import DEFAULT_RULES_PATH

runner = CliRunner()
PAPERS = {
    "diabetes.md": "# D\n\n## Results\n\nMetformin lowered glucose in patients with diabetes.\n",
    "other.md": "# O\n\n## Results\n\nBlood pressure fell in the treated group.\n",
}
GLOSSARY = 'query_language = "ko"\nevidence_language = "en"\nsuffixes = ["의", "을", "는"]\n[terms]\n"환자" = ["patients"]\n"당뇨병" = ["diabetes"]\n'
FAILING = shlex.join([sys.executable, "-c", "import sys; sys.exit(3)"])


@pytest.fixture(scope="module")
def database(tmp_path_factory, rules):
    return ingested_papers(tmp_path_factory.mktemp("untranslated"), PAPERS, rules)


@pytest.fixture(scope="module")
def glossary(tmp_path_factory):
    path = tmp_path_factory.mktemp("glossary") / "small.toml"
    path.write_text(GLOSSARY)
    return path


def _search(database, *arguments):
    return runner.invoke(app, ["search", *arguments, "--db", str(database)])


def test_a_loanword_the_glossary_lacks_is_matched_by_sound_to_a_term_of_the_papers(database, glossary):
    output = json.loads(_search(database, "당뇨병 메트포르민", "--glossary", str(glossary), "--json").stdout)
    assert [(m["typed"], m["terms"], m["by_sound"]) for m in output["mapped"]] == [("당뇨병", ["diabetes"], None), ("메트포르민", ["metformin"], 1.0)]
    assert output["search_query"] == "diabetes metformin" and output["untranslated"] == []


def test_the_terminal_says_a_word_was_matched_by_sound_and_to_what(database, glossary):
    result = _search(database, "메트포르민", "--glossary", str(glossary))
    assert "메트포르민 → metformin (by sound, 1.00 alike: no glossary entry)" in result.stdout


def test_each_result_names_the_words_left_untranslated(database, glossary):
    result = _search(database, "환자의 놀이터", "--glossary", str(glossary), "--json")
    assert json.loads(result.stdout)["untranslated"] == ["놀이터"]
    text = _search(database, "환자의 놀이터", "--glossary", str(glossary)).stdout
    assert "  untranslated:    놀이터   (no entry, nothing alike by sound: searched as typed)" in text.splitlines()


def test_a_failing_translator_is_a_field_of_the_json(database, glossary):
    output = json.loads(_search(database, "당뇨병", "--glossary", str(glossary), "--translate-cmd", FAILING, "--json").stdout)
    assert (output["translator_failed"], output["translator"]["reason"], output["searched_with"]) == (True, "it exited with code 3", "glossary")


def test_strict_makes_a_failing_translator_an_error_exit_after_the_results(database, glossary):
    result = _search(database, "당뇨병", "--glossary", str(glossary), "--translate-cmd", FAILING, "--strict", "--json")
    assert result.exit_code == 1 and json.loads(result.stdout)["hits"]
    assert result.stderr.splitlines()[-1].startswith("Error: --strict: the translator failed (it exited with code 3)")


def test_strict_makes_an_untranslated_word_an_error_exit_naming_it(database, glossary):
    result = _search(database, "환자의 놀이터", "--glossary", str(glossary), "--strict")
    assert result.exit_code == 1
    assert "Error: --strict: 1 word(s) were left untranslated (놀이터); add the words to a glossary of yours" in result.stderr


def test_strict_passes_a_query_whose_every_word_is_translated(database, glossary):
    assert _search(database, "당뇨병 환자", "--glossary", str(glossary), "--strict").exit_code == 0


def test_a_user_glossary_is_layered_over_the_one_named(database, glossary, tmp_path):
    user = tmp_path / "mine.toml"
    user.write_text('query_language = "ko"\nevidence_language = "en"\n[terms]\n"혈압" = ["blood pressure"]\n"환자" = ["group"]\n')
    output = json.loads(_search(database, "환자의 혈압", "--glossary", str(glossary), "--user-glossary", str(user), "--json").stdout)
    assert output["search_query"] == "group blood pressure" and output["hits"][0]["source"]["doc_id"] == "other.md"


def test_the_rules_name_a_user_glossary_beside_them(database, glossary, tmp_path):
    (tmp_path / "mine.toml").write_text('query_language = "ko"\nevidence_language = "en"\n[terms]\n"혈압" = ["blood pressure"]\n')
    rules = DEFAULT_RULES_PATH.read_text(encoding="utf-8").replace("[search]\n", '[search]\nuser_glossary = "mine.toml"\n')
    (tmp_path / "rules.toml").write_text(rules, encoding="utf-8")
    result = _search(database, "혈압", "--glossary", str(glossary), "--rules", str(tmp_path / "rules.toml"), "--json")
    assert json.loads(result.stdout)["search_query"] == "blood pressure", result.stderr


def test_a_user_glossary_for_other_languages_is_refused_naming_both_files(glossary, tmp_path):
    user = tmp_path / "ja.toml"
    user.write_text('query_language = "ja"\nevidence_language = "en"\n[terms]\n"患者" = ["patients"]\n')
    with pytest.raises(RulesError, match=r"ja\.toml maps ja to en, but .*small\.toml, which it is layered over, maps ko to en"):
        layered(load_glossary(glossary), load_glossary(user))
