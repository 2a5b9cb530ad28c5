"""The hand-written Korean QA questions map through the starter glossary to the English
questions' key terms, and scripts/score_qa.py counts a hit as its docstring says."""

from __future__ import annotations

import json
import tomllib

import pytest

from conftest import PROJECT, shared_corpus, project_script
from pipeline.crosslingual.glossary import load_glossary, map_query
from pipeline.index.terms import TermCounter

KOREAN_FILE = PROJECT / "tests" / "crosslingual" / "qa_korean.toml"
QUESTIONS = tomllib.loads(KOREAN_FILE.read_text(encoding="utf-8"))["question"]


score_qa = project_script("scripts/score_qa.py")


def test_the_file_holds_at_least_30_questions_each_once():
    ids = [question["id"] for question in QUESTIONS]
    assert len(ids) >= 30 and len(set(ids)) == len(ids)


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda question: question["id"])
def test_a_korean_question_s_search_query_holds_its_english_question_s_key_terms(question):
    counter = TermCounter()
    mapping = map_query(question["korean"], load_glossary())
    searched = set(counter.query_terms(mapping.search_query))
    missing = [term for term in question["key_terms"] if not set(counter.query_terms(term)) <= searched]
    assert mapping.mapped and not missing, f"searched as {mapping.search_query!r}; no glossary entry brings {missing}"


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda question: question["id"])
def test_a_key_term_is_written_in_the_english_question(question):
    assert [term for term in question["key_terms"] if term.lower() not in question["english"].lower()] == []


def test_each_english_question_is_the_qa_set_s_question_of_that_id():
    corpus = shared_corpus("qa")
    pubmedqa = json.loads((corpus / "pubmedqa" / "ori_pqal.json").read_text())
    _, qasper = score_qa.qasper_papers(corpus / "qasper" / "qasper_sample_small.json")
    asked = {f"pubmedqa:{pmid}": entry["QUESTION"] for pmid, entry in pubmedqa.items()} | {q.question_id: q.question for q in qasper}
    assert {question["id"]: question["english"] for question in QUESTIONS} == {question["id"]: asked[question["id"]] for question in QUESTIONS}


# ---------------------------------------------------------------- score_qa's hit, on made-up units

EVIDENCE = "The seed lexicon holds 15 words."


def _unit(text: str, *pieces: tuple[str, int]):
    return score_qa.ScoredUnit("paper.md", text, pieces or ((text, len(text.split())),))  # a chunk is its own piece


def test_a_unit_holds_the_evidence_whole_with_its_lines_rewrapped():
    assert score_qa.holds_whole("Method. The seed\nlexicon  holds 15 words. Then", EVIDENCE)


def test_a_unit_missing_a_word_of_the_evidence_does_not_hold_it_whole_but_may_softly():
    text = "The seed lexicon holds words."  # 5 of the quote's 6 tokens: 0.83
    assert (score_qa.holds_whole(text, EVIDENCE), score_qa.holds_soft(text, EVIDENCE)) == (False, True)


def test_the_soft_overlap_counts_a_repeated_token_as_often_as_the_quote_has_it():
    assert score_qa.token_overlap("seed", "seed seed lexicon") == pytest.approx(1 / 3)


def test_the_rank_is_that_of_the_first_unit_holding_one_of_the_quotes():
    units = [_unit("Nothing here."), _unit("The seed lexicon holds 15 words."), _unit(EVIDENCE)]
    assert score_qa.first_rank(units, ["absent quote", EVIDENCE], score_qa.holds_whole) == 2


def test_the_budget_takes_units_in_rank_order_while_their_words_fit():
    units = [_unit("a " * 600), _unit("b " * 300), _unit("c " * 200), _unit("d " * 10)]
    assert [unit.text[0] for unit in score_qa.within_budget(units, budget=1000)] == ["a", "b"]


def test_the_budget_counts_a_paragraph_in_two_windows_once():
    first = _unit("p1 p2", ("doc:P1", 400), ("doc:P2", 400))
    second = _unit("p2 p3", ("doc:P2", 400), ("doc:P3", 200))  # only P3 is new: 1,000 words in all
    assert len(score_qa.within_budget([first, second], budget=1000)) == 2


def test_the_budget_always_takes_the_first_unit_however_long():
    assert len(score_qa.within_budget([_unit("a " * 1500)], budget=1000)) == 1


def test_a_pubmedqa_entry_becomes_an_abstract_of_labelled_paragraphs_ending_with_its_conclusion(tmp_path):
    path = tmp_path / "pqal.json"
    entry = {"QUESTION": "Does it work?", "CONTEXTS": ["We asked.", "It worked."], "LABELS": ["BACKGROUND", "RESULTS"],
             "LONG_ANSWER": "It works."}
    path.write_text(json.dumps({"123": entry}))
    papers, (question,) = score_qa.pubmedqa_papers(path)
    assert papers == {"pubmedqa/123.md": "# PubMed 123\n\n## Abstract\n\nBackground: We asked.\n\nResults: It worked.\n\nConclusions: It works.\n"}
    assert (question.question_id, question.doc_file, question.evidence) == ("pubmedqa:123", "pubmedqa/123.md", ("It works.",))
