"""The built-in rules judge (pipeline/audit/rules_judge.py): numbers as papers print them, each
contradiction rule on a small passage, the evidence it shows, its rules file, the sample page's
verdicts, and its figures on the labelled set of real papers."""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from pathlib import Path

import pytest

from pipeline.audit import audit_page
from pipeline.audit.judges import make_judge
from pipeline.audit.numbers import read_quantities
from pipeline.audit.records import CitationVerdict, Passage, SentenceVerdict
from pipeline.audit.rules import load_audit_rules
from pipeline.audit.rules_judge import RulesJudge
from pipeline.errors import RulesError
from pipeline.index.database import open_readonly
from pipeline.ingest import IngestOptions, ingest_folder

PROJECT = Path(__file__).resolve().parents[2]
RULES = load_audit_rules()
JUDGE = RulesJudge(RULES)


def _passage(text: str, chunk_id: str = "paper.md:3") -> Passage:
    return Passage(chunk_id=chunk_id, paper="paper.md", title=None, heading_path=("Results",), section_type="results",
                   text=text, line_start=10, line_end=12, page_start=None, page_end=None, char_start=100)


def _judge(passage: str, claim: str):
    return JUDGE.judge_one((_passage(passage),), claim)


# ---------------------------------------------------------------- numbers as papers print them


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("The majority (68·7%) of patients", [(68.7, "percent")]),
        ("a reduction of −2·46 points", [(2.46, None)]),
        ("9\u2009153 patients", [(9153.0, None)]),
        ("1,839 samples", [(1839.0, None)]),
        ("2.5 × 10−3 mg", [(0.0025, "mass:mg")]),
        ("47.9 per cent", [(47.9, "percent")]),
        ("ranged from 45.4 to 74.5 min", [(45.4, "time:minute"), (74.5, "time:minute")]),
        ("aged 5–52 years", [(5.0, "time:year"), (52.0, "time:year")]),
        ("between 3 and 12 months", [(3.0, "time:month"), (12.0, "time:month")]),
        ("nine participants and 5 days", [(9.0, None), (5.0, "time:day")]),
        ("p<0·05", [(0.05, None)]),
        ("seven (3.2%)", [(7.0, None), (3.2, "percent")]),
        ("a three-fold difference", [(3.0, "fold")]),
        ("three times higher", [(3.0, "fold")]),
        ("twofold", [(2.0, "fold")]),
        ("halved the time", [(0.5, "fold")]),
        ("true about one in four times", [(1.0, None), (4.0, "fold")]),
        ("if R = 1:10.", [(0.1, "ratio")]),
    ],
)
def test_numbers_are_read_as_papers_print_them(text, read):
    assert [(round(q.value, 6), q.unit) for q in read_quantities(text, RULES)] == read


@pytest.mark.parametrize(
    "text",
    ["datasets with 9,898 patients [16]–[57]", "as in Figure 3D and Tables S4–S7", "the PHQ-9, PBDE-47 and T4 levels", "cited [1–3] and [9,10]"],
)
def test_markers_figures_tables_and_names_hold_no_claim_number(text):
    numbers = [q.value for q in read_quantities(text, RULES)]
    assert not {16.0, 57.0, 3.0, 4.0, 7.0, 9.0, 47.0, 1.0, 10.0} & set(numbers)


# ---------------------------------------------------------------- one rule each

RESULT = "Homogenization decreased S. mansoni FECs (p = 0.026), while no effect was observed for hookworm."


def test_a_faithful_sentence_is_supported_and_shows_its_evidence_sentence():
    judgement = _judge("Methods\n\nWe sampled 222 people. " + RESULT, "Homogenization decreased S. mansoni FECs (p = 0.026).")
    assert judgement.supported and judgement.rule == "coverage"
    (evidence,) = judgement.evidence
    assert evidence.text == RESULT and evidence.char_start == 100 + len("Methods\n\nWe sampled 222 people. ")
    assert "FECs" in evidence.agreeing and "0.026" in evidence.agreeing


def test_a_reversed_direction_is_contradicted_by_the_direction_rule():
    judgement = _judge(RESULT, "Homogenization increased S. mansoni FECs.")
    assert (judgement.contradicted, judgement.rule) == (True, "direction")
    assert judgement.evidence[0].conflicting == ("increased ≠ decreased",)


def test_a_comparison_turned_round_says_the_same_thing():
    judgement = _judge("Males had higher plasma T4 levels than females.", "Females had lower plasma T4 levels than males.")
    assert judgement.supported


def test_a_flipped_negation_is_contradicted_within_its_clause():
    assert _judge(RESULT, "An effect was observed for hookworm.").rule == "negation"


def test_a_negation_in_another_clause_does_not_touch_the_claim():
    # `no effect … hookworm` is the second clause; the claim is the first.
    assert _judge(RESULT, "Homogenization decreased S. mansoni FECs.").supported


def test_not_significant_against_significant_is_the_significance_rule():
    judgement = _judge("The difference, −0·76 points, was not statistically significant.", "The difference, −0·76 points, was statistically significant.")
    assert (judgement.contradicted, judgement.rule) == (True, "significance")


def test_a_scale_point_named_never_is_no_negation():
    judgement = _judge("Answers are scored on 5-point scales, ranging from never (0) to very often (4).", "Answers are scored on five-point scales.")
    assert judgement.supported


def test_the_first_number_of_a_range_is_no_count_a_count_of_the_passage_can_contradict():
    # `5 to 52 years` says 5 years: not a number of participants set against `Nine`.
    judgement = _judge("Nine participants were old enough to give samples.", "The participants were 5 to 52 years old.")
    assert (judgement.contradicted, judgement.rule) == (False, "number")


def test_above_all_says_no_direction():
    judgement = _judge("Above all, patients valued the trial.", "Patients valued the trial less.")
    assert not judgement.contradicted


def test_at_least_and_above_all_are_read_as_no_direction_word():
    clauses = JUDGE.reader.clauses("Above all, at least two patients had higher scores.")
    assert [direction.written for clause in clauses for direction in clause.directions] == ["higher"]


def test_a_direction_word_after_another_is_what_that_one_qualifies():
    # `more depressed` says more depression: the direction is `more`, borne on `depressed`.
    clauses = JUDGE.reader.clauses("People with no data were younger and more depressed at the outset.")
    assert [(direction.written, direction.pole) for clause in clauses for direction in clause.directions] == [("younger", "down"), ("more", "up")]


def test_a_changed_number_is_contradicted_by_the_number_rule():
    judgement = _judge("The majority (68·7%) of all patients were taking antidepressants.", "The majority (68·2%) of all patients were taking antidepressants.")
    assert (judgement.contradicted, judgement.rule, judgement.evidence[0].conflicting) == (True, "number", ("68·2% ≠ 68·7%",))


def test_a_changed_number_is_set_against_the_number_said_of_the_same_thing_not_the_nearest():
    passage = "IL-6 fell by 12% in the treated group and by 35% in the control group."
    judgement = _judge(passage, "IL-6 fell by 30% in the treated group.")
    assert (judgement.rule, judgement.evidence[0].conflicting) == ("number", ("30% ≠ 12%",))


@pytest.mark.parametrize(
    ("claim", "named"),
    [("For MRI, kappa was 0.77.", "0.77 ≠ 0.71"), ("For FDG-PET/CT, kappa was 0.70.", "0.70 ≠ 0.78")],
)
def test_a_changed_number_is_set_against_the_number_the_paper_gives_for_the_claims_subject_not_the_nearest_in_value(claim, named):
    judgement = _judge("Kappa was 0.71 for MRI and 0.78 for FDG-PET/CT.", claim)
    assert (judgement.rule, judgement.evidence[0].conflicting) == ("number", (named,))


def test_the_same_number_with_the_decimal_point_the_page_prints_is_supported():
    assert _judge("Around half (47·9%) of patients were taking analgesics.", "Around 47.9 per cent of patients were taking analgesics.").supported


def test_another_unit_of_the_same_dimension_is_contradicted_by_the_unit_rule():
    judgement = _judge("The mean lysis time was 65.1 min.", "The mean lysis time was 65.1 hours.")
    assert (judgement.contradicted, judgement.rule) == (True, "unit")


def test_a_bibliography_marker_does_not_supply_a_changed_number():
    judgement = _judge("Datasets held 9,898 patients [16]–[57]. Pooled treatment success was 75%.", "Pooled treatment success was 57%.")
    assert not judgement.supported and judgement.rule == "number"


def test_a_missing_key_term_is_not_enough_evidence_even_where_most_words_are_there():
    judgement = _judge("The use of later generation quinolones was associated with treatment success.",
                       "The use of linezolid was associated with treatment success.")
    assert (judgement.supported, judgement.contradicted, judgement.rule) == (False, False, "key term")
    assert "linezolid" in judgement.note


def test_the_words_not_in_the_passages_are_each_named_once_in_order():
    claim = " ".join(["Hookworm eggs decayed in warm stool samples."] + ["Warm stool samples kept hookworm eggs poorly."] * 50)
    key_terms = _judge("Ice slowed down decay (p<0.005).", claim)
    coverage = _judge("Ice slowed down decay (p<0.005).", claim.replace("Hookworm", "Some").replace("hookworm", "some"))
    assert key_terms.note == "key term(s) not in the passages: Hookworm"
    listed = coverage.note.partition("not in them: ")[2].rstrip(")").split(", ")
    assert [word.lower() for word in listed] == list(dict.fromkeys(word.lower() for word in listed))
    assert listed == ["eggs", "warm", "stool", "samples", "poorly"]


def test_a_paraphrase_that_drops_only_verbs_and_adverbs_is_supported():
    assert _judge("Storing stool samples on ice slowed down hookworm egg decay (p<0.005).",
                  "Keeping stool samples on ice roughly slowed the decay of hookworm eggs (p<0.005).").supported


def test_two_passages_together_support_a_claim_neither_holds_alone():
    first, second = _passage("In total 755 patients were recruited.", "a.md:1"), _passage("Acupuncture reduced PHQ-9 scores by 2·46 points.", "a.md:2")
    claim = "Of the 755 patients recruited, acupuncture reduced PHQ-9 scores by 2.46 points."
    assert JUDGE.judge_one((first, second), claim).supported
    assert not JUDGE.judge_one((first,), claim).supported and not JUDGE.judge_one((second,), claim).supported


# ---------------------------------------------------------------- the rules file


def test_the_report_names_the_judge_its_version_and_its_rules_digest():
    description = make_judge("rules", None, None, 30, RULES).description
    assert description.name == "rules" and description.version.startswith("1.2, audit.toml ")


def test_a_bad_pattern_in_the_audit_rules_is_an_error_naming_the_file_and_the_rule(tmp_path):
    text = (PROJECT / "rules" / "audit.toml").read_text(encoding="utf-8").replace('scale_label = "', 'scale_label = "(', 1)
    path = tmp_path / "audit.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesError, match=rf"audit rules {path}: negation.scale_label: .*compare with rules/audit.toml"):
        load_audit_rules(path)


def test_a_threshold_beside_the_rules_is_their_min_coverage():
    assert make_judge("rules", 0.8, None, 30, RULES).rules.thresholds.min_coverage == 0.8


# ---------------------------------------------------------------- the sample page of the README's tour

SAMPLE_PAGE = PROJECT / "docs" / "examples" / "wiki-page.md"


@pytest.fixture(scope="module")
def sample_report(tmp_path_factory, rules):
    db = tmp_path_factory.mktemp("sample") / "papers.duckdb"
    ingest_folder(PROJECT / "corpus", db, rules, IngestOptions(workers=1))
    return audit_page(SAMPLE_PAGE.read_text(encoding="utf-8"), "wiki-page.md", open_readonly(db), JUDGE, RULES)


def test_the_sample_page_gets_the_verdict_each_sentence_is_written_for(sample_report):
    verdicts = [judged.verdict for judged in sample_report.sentences]
    assert verdicts == [
        SentenceVerdict.supported,  # verbatim
        SentenceVerdict.supported,  # paraphrase
        SentenceVerdict.contradicted,  # a number changed
        SentenceVerdict.contradicted,  # a negation flipped
        SentenceVerdict.contradicted,  # a direction reversed
        SentenceVerdict.not_enough_evidence,  # the wrong chunk
        SentenceVerdict.supported,  # two citations, one needed
        SentenceVerdict.supported,  # two chunks combined
        SentenceVerdict.not_enough_evidence,  # invented
    ]


def test_the_sample_page_s_changed_kappa_is_set_against_the_paper_s_kappa_for_the_same_modality(sample_report):
    changed = sample_report.sentences[2]  # the paper: 0.71 for magnetic resonance imaging, 0.78 for FDG-PET/CT
    assert changed.joint.note == "number: 0.77 ≠ 0.71"


def test_alce_precision_on_the_sample_page_drops_the_unneeded_citation_and_keeps_both_combined(sample_report):
    one_needed, combined = sample_report.sentences[6], sample_report.sentences[7]
    assert [c.verdict for c in one_needed.citations] == [CitationVerdict.relevant, CitationVerdict.irrelevant]
    assert [c.verdict for c in combined.citations] == [CitationVerdict.relevant, CitationVerdict.relevant]
    scores = sample_report.scores
    assert (scores.supported, scores.sentences, scores.relevant_citations, scores.citations) == (4, 9, 5, 11)


# ---------------------------------------------------------------- the labelled set, on real papers

SHARED = PROJECT.parent / "shared" / "corpus" / "jats_md" / "nested"
LABELLED = PROJECT / "tests" / "audit" / "audit_pages" / "labelled_sentences.toml"


def _labelled_script():
    spec = importlib.util.spec_from_file_location("audit_labelled_set", PROJECT / "scripts" / "audit_labelled_set.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_labelled_set_has_twelve_sentences_of_each_kind():
    kinds = [entry["kind"] for entry in tomllib.loads(LABELLED.read_text(encoding="utf-8"))["sentence"]]
    assert len(kinds) >= 100 and {kind: kinds.count(kind) for kind in set(kinds)} == {kind: 12 for kind in _labelled_script().KINDS}


@pytest.fixture(scope="module")
def labelled(tmp_path_factory, rules):
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent: the labelled set's papers are in ../shared/corpus")
    script = _labelled_script()
    fixture = tomllib.loads(LABELLED.read_text(encoding="utf-8"))
    folder = tmp_path_factory.mktemp("labelled") / "papers"
    folder.mkdir()
    for doc_id in fixture["papers"].values():
        (folder / doc_id).symlink_to(SHARED / doc_id)
    db = folder.parent / "papers.duckdb"
    ingest_folder(folder, db, rules, IngestOptions(workers=1))
    connection = open_readonly(db)
    items = script.load_set(connection, fixture)
    report = audit_page(script.page_of(items), "labelled", connection, JUDGE, RULES)
    return items, report


def _caught(items, report, kinds) -> float:
    pairs = [(item, judged) for item, judged in zip(items, report.sentences) if item.kind in kinds]
    return sum((judged.verdict == SentenceVerdict.supported) == (item.expected == "supported") for item, judged in pairs) / len(pairs)


def test_every_labelled_sentence_is_one_sentence_of_the_page(labelled):
    items, report = labelled
    assert len(report.sentences) == len(items)


@pytest.mark.parametrize(
    ("kinds", "floor"),
    [
        (("verbatim", "paraphrase", "changed_number", "flipped_negation", "reversed_direction", "wrong_chunk", "one_needed", "combined", "invented"), 0.90),
        (("flipped_negation", "reversed_direction"), 0.80),
        (("changed_number",), 0.95),
        (("invented",), 0.80),
        (("paraphrase",), 0.80),
    ],
)
def test_the_rules_judge_meets_the_issue_targets_on_the_labelled_set(labelled, kinds, floor):
    items, report = labelled
    assert _caught(items, report, kinds) >= floor


def test_the_printed_recall_and_precision_are_within_five_hundredths_of_the_labels(labelled):
    items, report = labelled
    true_recall = sum(item.expected == "supported" for item in items) / len(items)
    true_precision = sum(sum(item.relevant) for item in items if item.expected == "supported") / sum(len(item.chunk_ids) for item in items)
    assert abs(report.scores.citation_recall - true_recall) <= 0.05
    assert abs(report.scores.citation_precision - true_precision) <= 0.05
