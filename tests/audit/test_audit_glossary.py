"""The abbreviations a paper defines (pipeline/audit/glossary.py), read from its whole text and
given to the cited passages that use them, so that a claim may name a thing as the paper first did."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from pipeline.audit.glossary import defined_abbreviations, spelled_out, used_in
from pipeline.audit.passages import read_passages
from pipeline.audit.records import Abbreviation, Passage
from pipeline.audit.rules import load_audit_rules
from pipeline.audit.rules_judge import RulesJudge

JUDGE = RulesJudge(load_audit_rules())
T4 = Abbreviation(short="T4", long="thyroxine")


def _defined(text: str) -> dict[str, str]:
    return {abbreviation.short: abbreviation.long for abbreviation in defined_abbreviations(text)}


@pytest.mark.parametrize(
    ("text", "short", "long"),
    [
        ("Minnows exposed to PBDE-47 had depressed plasma thyroxine (T4), but not T3.", "T4", "thyroxine"),
        ("Stools were homogenized and fecal egg counts (FECs) compared.", "FECs", "fecal egg counts"),
        ("We used a two-factor analysis of variance (ANOVA) throughout.", "ANOVA", "analysis of variance"),
        ("Eggs of Schistosoma mansoni were counted. S. mansoni eggs were clustered.", "S. mansoni", "Schistosoma mansoni"),
        ("Cells were stimulated with interleukin-4 (IL-4) for two days.", "IL-4", "interleukin-4"),
        ("Cancer screening in the prostate, lung, colorectal and ovarian (PLCO) trial.", "PLCO", "prostate, lung, colorectal and ovarian"),
        ("Films of poly(vinyl alcohol) (PVA) were spun.", "PVA", "poly(vinyl alcohol)"),
        ("Traits were scored by the Autism Spectrum Quotient [23], [24] (ASQ) online.", "ASQ", "Autism Spectrum Quotient"),
        ("Spectra were split by non-negative matrix factorization (NMF) first.", "NMF", "non-negative matrix factorization"),
        ("Peptides were adjusted to 0.065% TFA by addition of 10% trifluoroacetic acid (TFA).", "TFA", "trifluoroacetic acid"),
    ],
)
def test_a_paper_defines_an_abbreviation_by_writing_it_in_brackets_after_its_long_form(text, short, long):
    assert _defined(text)[short] == long


@pytest.mark.parametrize(
    ("text", "short", "long"),
    [
        ("Use was inversely associated with risk (hazard ratio (HR), 0.92; 95% CI 0.85-0.99).", "HR", "hazard ratio"),
        ("We used two-factor analysis of variance (ANOVA) models.", "ANOVA", "analysis of variance"),
        ("Minnows exposed to PBDE-47 had depressed plasma thyroxine (T4), but not T3.", "T4", "thyroxine"),
    ],
)
def test_a_definition_is_found_where_the_packages_own_loop_misses_it(text, short, long):
    # abbreviations.schwartz_hearst.extract_abbreviation_definition_pairs finds none of these: a
    # definition inside a bracket, a short form with two `a`s after one word in `a`, a numbered one.
    assert _defined(text)[short] == long


def test_reading_abbreviations_leaves_the_logging_of_other_libraries_as_it_was():
    # The package calls logging.basicConfig(level=INFO) when imported.
    script = "import logging, pipeline.audit.glossary; print(len(logging.getLogger().handlers), logging.getLogger().level)"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2])
    assert result.stdout.split() == ["0", str(logging.WARNING)]


@pytest.mark.parametrize(
    "text",
    [
        "Scores fell (p = 0.002) after treatment.",
        "Scores fell after treatment (see below).",
        "The dose was given (Figure 1) daily.",
        "Abstract BackgroundPolybrominated diphenyl ethers (PBDE) are flame retardants.",
        "Arms are shown (A) and bones (B).",
    ],
)
def test_a_bracket_that_abbreviates_nothing_before_it_defines_nothing(text):
    assert _defined(text) == {}


def test_a_long_form_holding_another_definition_is_none():
    assert _defined("Extracts held glucose-6-phosphate dehydrogenase (G6PD), gluconolactonase (6PGL).") == {"G6PD": "glucose-6-phosphate dehydrogenase"}


def test_a_genus_is_shortened_only_where_the_paper_writes_the_short_form():
    assert _defined("Eggs of Schistosoma mansoni were counted.") == {}


def test_a_passage_is_given_the_abbreviations_it_writes_as_words_of_their_own():
    defined = [T4, Abbreviation(short="T3", long="triiodothyronine")]
    assert used_in(defined, "Plasma T4 fell, but anti-L-T3 antiserum was used.") == (T4,)


def test_spelled_out_follows_each_short_form_with_its_long_form_unless_it_is_there():
    assert spelled_out("Exposure decreased plasma T4 levels.", (T4,)) == "Exposure decreased plasma T4 (thyroxine) levels."
    assert spelled_out("Plasma thyroxine (T4) fell.", (T4,)) == "Plasma thyroxine (T4) fell."


def _passage(text: str, abbreviations: tuple[Abbreviation, ...]) -> Passage:
    return Passage(chunk_id="paper.md:4", paper="paper.md", title=None, heading_path=("Results",), section_type="results",
                   text=text, line_start=10, line_end=12, page_start=None, page_end=None, abbreviations=abbreviations)


def test_a_claim_naming_the_long_form_is_supported_by_a_passage_writing_the_short_form():
    passage = _passage("We observed decreased plasma T4 levels in both sexes after dietary PBDE-47 exposure.", (T4,))
    judgement = JUDGE.judge_one((passage,), "Dietary PBDE-47 exposure decreased plasma thyroxine in both sexes.")
    assert (judgement.supported, judgement.rule) == (True, "coverage")


def test_a_reversed_direction_on_the_long_form_is_contradicted():
    passage = _passage("We observed decreased plasma T4 levels in both sexes after dietary PBDE-47 exposure.", (T4,))
    judgement = JUDGE.judge_one((passage,), "Dietary PBDE-47 exposure increased plasma thyroxine levels in both sexes.")
    assert (judgement.contradicted, judgement.rule) == (True, "direction")


def test_a_species_named_in_full_is_found_in_its_genus_initial():
    passage = _passage("S. mansoni FECs decreased after homogenization of stool samples.",
                       (Abbreviation(short="S. mansoni", long="Schistosoma mansoni"), Abbreviation(short="FECs", long="fecal egg counts")))
    judgement = JUDGE.judge_one((passage,), "Schistosoma mansoni egg counts decreased after homogenization of stool samples.")
    assert (judgement.supported, judgement.rule) == (True, "coverage")


def test_the_cited_passages_carry_the_abbreviations_their_paper_defines_elsewhere():
    connection = duckdb.connect()
    connection.execute("CREATE TABLE documents (doc_id VARCHAR, path VARCHAR, title VARCHAR, text VARCHAR)")
    connection.execute("CREATE TABLE chunks (chunk_id VARCHAR, doc_id VARCHAR, ordinal INTEGER, heading_path VARCHAR[], section_type VARCHAR, text VARCHAR,"
                       " line_start INTEGER, line_end INTEGER, page_start INTEGER, page_end INTEGER, char_start INTEGER, char_end INTEGER)")
    connection.execute("CREATE TABLE paragraphs (doc_id VARCHAR, paragraph_id INTEGER, char_start INTEGER, char_end INTEGER,"
                       " line_start INTEGER, line_end INTEGER, page_start INTEGER, page_end INTEGER)")
    abstract, results = "Exposure depressed plasma thyroxine (T4).", "Plasma T4 fell in both sexes."
    connection.execute("INSERT INTO documents VALUES ('p.md', 'p.md', NULL, ?)", [f"{abstract}\n\n{results}"])
    connection.execute("INSERT INTO chunks VALUES ('p.md:1', 'p.md', 1, [], 'abstract', ?, 1, 1, NULL, NULL, 0, 41),"
                       " ('p.md:2', 'p.md', 2, [], 'results', ?, 3, 3, NULL, NULL, 43, 72)", [abstract, results])
    passage = read_passages(connection, ["p.md:2"]).found["p.md:2"]
    assert passage.abbreviations == (T4,)
    assert "abbreviations" not in passage.model_dump()
