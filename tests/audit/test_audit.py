"""`pipeline audit`: a page's sentences and citations, the passages they name, the judges, and
ALCE's citation recall and precision, on small pages and on real papers."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.audit import audit_page
from pipeline.audit.judges import CommandJudge, LexicalJudge, Pair, make_judge
from pipeline.audit.passages import CitedPassages
from pipeline.audit.rules import DEFAULT_AUDIT_RULES_PATH, load_audit_rules
from pipeline.audit.records import (
    PageCitation, CitationRule, CitationVerdict, Judgement, JudgeDescription, Passage, Sentence, SentenceVerdict,
)
from pipeline.audit.scores import alce_scores
from pipeline.audit.sentences import read_sentences
from pipeline.audit.verdicts import judge_sentences
from pipeline.cli import app
from pipeline.errors import AuditError
from pipeline.index.database import open_readonly
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.user_command import MAX_OUTPUT_BYTES
from tests.conftest import PROJECT, shared_corpus

runner = CliRunner()
JUDGE_SCRIPT = Path(__file__).with_name("audit_judge.py")
AUDIT_RULES = load_audit_rules()

TRIAL = """# A fictional trial of drug X in asthma

## Methods

We enrolled 120 adults with moderate asthma at three hospitals. Patients were randomised to drug X or placebo for 12 weeks.

## Results

Drug X lowered the rate of exacerbations by 40% compared with placebo. Lung function, measured as forced expiratory volume, rose by 0.21 litres in the drug X group.

## Safety

Headache was the most common adverse event, reported by 15 patients taking drug X.

## Discussion

Drug X is an inhaled antibody that blocks interleukin-5.
"""
# Its chunks: trial.md:1 Methods, trial.md:2 Results (Safety absorbed), trial.md:3 Discussion.


@pytest.fixture(scope="module")
def database(tmp_path_factory, rules) -> Path:
    folder = tmp_path_factory.mktemp("audit") / "papers"
    folder.mkdir()
    (folder / "trial.md").write_text(TRIAL)
    db = folder.parent / "papers.duckdb"
    ingest_folder(folder, db, rules, IngestOptions(workers=1))
    return db


def _audit(page: str, database: Path, judge=None):
    return audit_page(page, "page.md", open_readonly(database), judge or LexicalJudge(0.6), AUDIT_RULES)


# ---------------------------------------------------------------- sentences and their citations


def test_a_marker_cites_the_sentence_it_follows():
    sentences = read_sentences("Drug X worked [chunk:trial.md:2]. It is an antibody [chunk:trial.md:3].\n")
    assert [(s.text, [c.chunk_id for c in s.citations]) for s in sentences] == [
        ("Drug X worked.", ["trial.md:2"]), ("It is an antibody.", ["trial.md:3"]),
    ]


def test_each_sentence_of_a_paragraph_of_several_lines_has_its_own_lines():
    page = "# Drug X\n\nDrug X worked. It is an\nantibody [chunk:trial.md:3].\nIt was given\nonce.\n\nA second paragraph.\n"
    assert [(s.line_start, s.line_end) for s in read_sentences(page)] == [(3, 3), (3, 4), (5, 6), (8, 8)]



def test_several_ids_in_one_bracket_are_several_citations():
    (sentence,) = read_sentences("Drug X worked [chunk:trial.md:2, chunk:trial.md:3; trial.md:1].\n")
    assert [c.chunk_id for c in sentence.citations] == ["trial.md:2", "trial.md:3", "trial.md:1"]


def test_a_footnote_after_the_full_stop_belongs_to_the_sentence_before_it():
    sentences = read_sentences("Drug X worked.[^trial.md:2] It is an antibody.[^trial.md:3]\n")
    assert [[c.chunk_id for c in s.citations] for s in sentences] == [["trial.md:2"], ["trial.md:3"]]


def test_a_footnote_definition_names_the_ids_of_its_label():
    page = "Drug X worked.[^1]\n\n[^1]: Results of the trial, trial.md:2 and chunk:trial.md:3\n"
    (sentence,) = read_sentences(page)
    assert [(c.chunk_id, c.via_footnote) for c in sentence.citations] == [("trial.md:2", "1"), ("trial.md:3", "1")]


def test_a_footnote_without_an_id_is_an_error_of_its_sentence():
    (sentence,) = read_sentences("Drug X worked.[^1]\n\n[^1]: see the trial\n")
    assert sentence.citations == () and sentence.marker_errors == ("[^1]: its footnote names no chunk id (it reads 'see the trial')",)


def test_citations_after_a_paragraph_cover_its_sentences():
    sentences = read_sentences("Drug X worked. It is an antibody. [chunk:trial.md:2]\n")
    assert [(s.rule, [c.chunk_id for c in s.citations]) for s in sentences] == [
        (CitationRule.paragraph, ["trial.md:2"]), (CitationRule.paragraph, ["trial.md:2"]),
    ]


def test_a_citation_inside_the_last_sentence_covers_that_sentence_alone():
    sentences = read_sentences("Drug X worked. It is an antibody [chunk:trial.md:3].\n")
    assert [(s.rule, [c.chunk_id for c in s.citations]) for s in sentences] == [
        (CitationRule.none, []), (CitationRule.own, ["trial.md:3"]),
    ]


def test_headings_tables_and_code_are_not_sentences():
    page = "# Drug X\n\n| a | b |\n|---|---|\n| c. | d. |\n\n```\nx = 1. y = 2.\n```\n\nDrug X worked.\n"
    assert [s.text for s in read_sentences(page)] == ["Drug X worked."]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Smith et al. reported an AUC of 0.86 in 214 patients. The difference was 0.07.", 2),
        ("Staging follows FIGO (Fig. 2), e.g. stage IIIC vs. IVB. Dr. Kim disagreed.", 2),
        ("수술 전 영상 검사의 정확도가 중요하다. 환자의 87%가 동의했다. 검사 시간은 2.5시간이었다.", 3),
        ("Kim et al.은 AUC가 0.86이라고 보고했다. 차이는 유의했다.", 2),
    ],
)
def test_the_splitter_keeps_abbreviations_decimals_et_al_and_korean(text, expected):
    assert len(read_sentences(text + "\n")) == expected


# ---------------------------------------------------------------- the lexical judge on a small paper


def test_a_sentence_its_passage_holds_is_supported(database):
    report = _audit("Drug X lowered the rate of exacerbations by 40% compared with placebo [chunk:trial.md:2].\n", database)
    assert [s.verdict for s in report.sentences] == [SentenceVerdict.supported]
    assert (report.scores.citation_recall, report.scores.citation_precision) == (1.0, 1.0)


def test_a_sentence_its_passage_does_not_hold_is_unsupported(database):
    report = _audit("Drug X cured every patient of diabetes [chunk:trial.md:3].\n", database)
    assert [s.verdict for s in report.sentences] == [SentenceVerdict.not_enough_evidence]
    assert (report.scores.citation_recall, report.scores.citation_precision) == (0.0, 0.0)


def test_a_changed_number_is_unsupported_by_lexical_overlap(database):
    (sentence,) = _audit("Drug X lowered the rate of exacerbations by 60% compared with placebo [chunk:trial.md:2].\n", database).sentences
    assert sentence.verdict == SentenceVerdict.not_enough_evidence
    assert sentence.joint.note.startswith("not in the passages: number(s) 60")


def test_an_extra_irrelevant_citation_lowers_precision_but_not_recall(database):
    report = _audit("Drug X lowered the rate of exacerbations by 40% compared with placebo [chunk:trial.md:2, trial.md:1].\n", database)
    assert [c.verdict for c in report.sentences[0].citations] == [CitationVerdict.relevant, CitationVerdict.irrelevant]
    assert (report.scores.citation_recall, report.scores.citation_precision) == (1.0, 0.5)


def test_an_unknown_id_is_an_error_of_its_sentence_and_says_what_is_stored(database):
    report = _audit("Drug X lowered exacerbations by 40% [chunk:trial.md:2, trial.md:9]. It blocks interleukin-5 [chunk:trial:3].\n", database)
    assert [s.verdict for s in report.sentences] == [SentenceVerdict.error, SentenceVerdict.error]
    assert report.sentences[0].errors == ("no chunk trial.md:9: paper trial.md has chunks 1 to 3",)
    assert "did you mean trial.md:3?" in report.sentences[1].errors[0]
    assert (report.scores.unknown_ids, report.scores.citation_recall, report.scores.citation_precision) == (2, 0.0, 0.0)


def test_a_sentence_without_a_citation_counts_unsupported(database):
    report = _audit("Drug X blocks interleukin-5 [chunk:trial.md:3].\n\nIt is the best drug there is.\n", database)
    assert [s.verdict for s in report.sentences] == [SentenceVerdict.supported, SentenceVerdict.no_citation]
    assert (report.scores.citation_recall, report.scores.without_citation) == (0.5, 1)


def test_a_page_without_sentences_has_no_recall_and_no_precision(database):
    scores = _audit("", database).scores
    assert (scores.citation_recall, scores.citation_precision) == (None, None)


def test_a_page_that_cites_nothing_has_recall_zero_and_no_precision(database):
    scores = _audit("Drug X is the best drug there is.\n", database).scores
    assert (scores.citation_recall, scores.citation_precision, scores.sentences) == (0.0, None, 1)


def test_the_lexical_judge_says_it_measures_overlap_not_entailment():
    assert LexicalJudge(0.6).description.measures == "lexical overlap"


def test_the_lexical_judge_passes_a_reversed_effect_it_cannot_read():
    premise = "Drug X lowered the rate of exacerbations by 40% compared with placebo."
    (judgement,) = LexicalJudge(0.6).judge([Pair((_passage(premise),), "Placebo lowered the rate of exacerbations by 40% compared with drug X.")])
    assert judgement.supported


# ---------------------------------------------------------------- ALCE's figures, by hand


class TableJudge:
    """Support decided by hand: a premise supports a sentence when it holds every passage of one
    of the sentence's supporting sets."""

    description = JudgeDescription(name="table", version="by hand", measures="support by hand", detail="by hand", threshold=0.5, window="unlimited")

    def __init__(self, supporting: dict[str, list[set[str]]]) -> None:
        self.supporting = supporting

    def judge(self, pairs: list[Pair]) -> list[Judgement]:
        answers = []
        for pair in pairs:
            held = set(pair.premise.split("\n\n"))
            supported = any(needed <= held for needed in self.supporting.get(pair.hypothesis, []))
            answers.append(Judgement(score=float(supported), supported=supported))
        return answers


def _passage(name: str) -> Passage:
    return Passage(chunk_id=name, paper="p.md", title=None, heading_path=(), section_type="results", text=name,
                   line_start=1, line_end=1, page_start=None, page_end=None)


def _sentence(number: int, text: str, ids: list[str]) -> Sentence:
    citations = tuple(PageCitation(chunk_id=name, marker=f"[chunk:{name}]") for name in ids)
    return Sentence(number=number, text=text, line_start=1, line_end=1, citations=citations, rule=CitationRule.own)


def test_alce_toy_case_four_sentences_seven_citations_recall_half_precision_three_sevenths():
    # S1 cites A, which supports it. S2 cites B, C, D: B and C support it together, D adds
    # nothing (irrelevant). S3 cites E, F and S4 cites G, which do not support them.
    sentences = [_sentence(1, "S1", ["A"]), _sentence(2, "S2", ["B", "C", "D"]), _sentence(3, "S3", ["E", "F"]), _sentence(4, "S4", ["G"])]
    cited = CitedPassages({name: _passage(name) for name in "ABCDEFG"}, {})
    judge = TableJudge({"S1": [{"A"}], "S2": [{"B", "C"}]})
    scores = alce_scores(judge_sentences(sentences, cited, judge))
    assert (scores.sentences, scores.citations, scores.supported, scores.relevant_citations) == (4, 7, 2, 3)
    assert (f"{scores.citation_recall:.3f}", f"{scores.citation_precision:.3f}") == ("0.500", "0.429")


def test_a_citation_that_supports_alone_stays_relevant_beside_another_that_does():
    sentences = [_sentence(1, "S1", ["A", "B"])]
    cited = CitedPassages({name: _passage(name) for name in "AB"}, {})
    judged = judge_sentences(sentences, cited, TableJudge({"S1": [{"A"}, {"B"}]}))
    assert [c.verdict for c in judged[0].citations] == [CitationVerdict.relevant, CitationVerdict.relevant]


# ---------------------------------------------------------------- the command judge


def _command(*options: str) -> str:
    return shlex.join([sys.executable, str(JUDGE_SCRIPT), *options])


def test_the_command_judge_scores_every_pair_through_the_users_command(database):
    judge = make_judge(f"cmd:{_command()}", None, None, 30, AUDIT_RULES)
    report = _audit("Drug X blocks interleukin-5 [chunk:trial.md:3]. Drug X cures diabetes in children [chunk:trial.md:3].\n", database, judge)
    assert [s.verdict for s in report.sentences] == [SentenceVerdict.supported, SentenceVerdict.not_enough_evidence]
    assert report.judge.measures == "the command's score" and report.sentences[0].joint.score == 1.0


@pytest.fixture
def model_server():
    """A stand-in for a local model server's chat endpoint: it answers `contradiction` where the
    sentence says `does not`, `entailment` otherwise, as a served model would in one word."""
    import http.server
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            asked = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["messages"][1]["content"]
            word = "contradiction" if "does not" in asked.rpartition("Sentence:")[2] else "entailment"
            body = json.dumps({"choices": [{"message": {"content": word}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *arguments):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/v1/chat/completions"
    server.shutdown()


def test_the_documented_model_server_judge_gives_entailment_and_contradiction(database, model_server, monkeypatch):
    monkeypatch.setenv("JUDGE_SERVER", model_server)
    script = PROJECT / "docs" / "examples" / "judge_with_a_model_server.py"
    judge = CommandJudge(shlex.join([sys.executable, str(script)]), 0.5, None, 60)
    page = "Drug X blocks interleukin-5 [chunk:trial.md:3]. Drug X does not block interleukin-5 [chunk:trial.md:3].\n"
    report = _audit(page, database, judge)
    assert [s.verdict for s in report.sentences] == [SentenceVerdict.supported, SentenceVerdict.contradicted]
    assert report.sentences[1].joint.rule == "contradiction score" and report.judge.measures == "the command's score"


def test_a_command_judge_verdict_shows_the_evidence_sentence_located_in_its_passage(database):
    (sentence,) = _audit("Drug X blocks interleukin-5 [chunk:trial.md:3].\n", database, CommandJudge(_command(), 0.5, None, 30)).sentences
    assert "interleukin-5" in sentence.joint.evidence[0].text and sentence.joint.rule == "threshold"


def test_the_evidence_a_judge_did_not_give_is_located_by_the_audit_rules_passed_in(database, tmp_path):
    # A copy of rules/audit.toml taking one evidence sentence, where ours takes up to three: the
    # claim's words lie in two sentences of the Results chunk.
    mine = tmp_path / "audit.toml"
    mine.write_text(DEFAULT_AUDIT_RULES_PATH.read_text().replace("max_evidence_sentences = 3", "max_evidence_sentences = 1"))
    page = "Drug X lowered exacerbations and headache was common [chunk:trial.md:2].\n"
    (ours,) = _audit(page, database).sentences
    (theirs,) = audit_page(page, "page.md", open_readonly(database), LexicalJudge(0.6), load_audit_rules(mine)).sentences
    assert (len(ours.joint.evidence), len(theirs.joint.evidence)) == (2, 1)


def test_the_command_judge_cuts_premises_to_its_window_and_says_so(database):
    judge = CommandJudge(_command(), 0.5, 5, 30)
    report = _audit("Drug X blocks interleukin-5 [chunk:trial.md:3].\n", database, judge)
    assert report.sentences[0].joint.truncated and report.scores.truncated_premises == 1


def test_a_window_is_refused_for_a_judge_that_does_not_take_one():
    with pytest.raises(AuditError, match="--window is for a cmd: judge"):
        make_judge("lexical", None, 100, 30, AUDIT_RULES)


@pytest.mark.parametrize(
    "options, message",
    [
        (["--fail"], "exited with code 2 (the model ran out of memory)"),
        (["--short"], "wrote 0 lines for 1 pair; it must write one JSON line per input line"),
        (["--garbage"], "output line 1: 'not json' is no JSON object with an `entailment` number"),
        (["--sleep", "5"], "took over 1 s for 1 pair; raise --timeout or speed it up"),
    ],
)
def test_a_failing_judge_command_is_an_error_that_says_how(database, options, message):
    with pytest.raises(AuditError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _audit("Drug X blocks interleukin-5 [chunk:trial.md:3].\n", database, CommandJudge(_command(*options), 0.5, None, 1))


def _python_command(program: str) -> str:
    return shlex.join([sys.executable, "-c", program])


# Three times the cap, then it exits: more than the judge may read, yet a bounded test on any version.
_FLOOD = f"import sys; sys.{{stream}}.write(('y' * 1023 + '\\n') * {3 * MAX_OUTPUT_BYTES // 1024})"


@pytest.mark.parametrize(("stream", "words"), [("stdout", "standard output"), ("stderr", "standard error")])
def test_a_judge_command_that_writes_past_the_cap_is_stopped_and_the_error_names_the_cap(database, stream, words):
    judge = CommandJudge(_python_command(_FLOOD.format(stream=stream)), 0.5, None, 60)
    with pytest.raises(AuditError, match=rf"wrote more than {MAX_OUTPUT_BYTES // 2**20} MiB to its {words} and was stopped; "):
        _audit("Drug X blocks interleukin-5 [chunk:trial.md:3].\n", database, judge)


def test_a_judge_command_that_writes_without_end_is_stopped_and_gone(database, tmp_path):
    pid_file = tmp_path / "pid"
    endless = f"import os, sys; open({str(pid_file)!r}, 'w').write(str(os.getpid()))\nwhile True: sys.stdout.write('y' * 65536)"
    with pytest.raises(AuditError, match="MiB to its standard output and was stopped"):
        _audit("Drug X blocks interleukin-5 [chunk:trial.md:3].\n", database, CommandJudge(_python_command(endless), 0.5, None, 60))
    assert not Path(f"/proc/{pid_file.read_text()}").exists()


def test_a_judge_command_that_writes_bytes_that_are_not_utf8_is_an_error_not_a_crash(database):
    judge = CommandJudge(_python_command("import sys; sys.stdin.read(); sys.stdout.buffer.write(b'\\xff\\n')"), 0.5, None, 60)
    with pytest.raises(AuditError, match="output line 1: '\ufffd' is no JSON object"):
        _audit("Drug X blocks interleukin-5 [chunk:trial.md:3].\n", database, judge)


def test_audit_with_a_judge_command_it_cannot_split_says_so(database, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Drug X works [chunk:trial.md:3].\n")
    result = runner.invoke(app, ["audit", str(page), "--db", str(database), "--judge", "cmd:python 'judge.py"])
    assert result.exit_code == 1
    assert result.output.strip() == "Error: judge command python 'judge.py cannot be split into arguments (No closing quotation); check its quotes after cmd:"


def test_audit_with_a_judge_command_that_cannot_be_run_says_so(database, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Drug X works [chunk:trial.md:3].\n")
    result = runner.invoke(app, ["audit", str(page), "--db", str(database), "--judge", f"cmd:{tmp_path}"])
    assert result.exit_code == 1
    assert result.output.strip() == f"Error: judge command {tmp_path}: {tmp_path} cannot be run (permission denied); check the command after cmd:"


# ---------------------------------------------------------------- the hf judge


def test_an_hf_judge_without_a_model_folder_says_what_to_pass(tmp_path):
    with pytest.raises(AuditError, match="no Hugging Face model here"):
        make_judge(f"hf:{tmp_path}", None, None, 30, AUDIT_RULES)


@pytest.mark.skipif(importlib.util.find_spec("transformers") is not None, reason="transformers is installed: the nli extra is there")
def test_an_hf_judge_without_the_nli_extra_says_how_to_install_it(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(AuditError, match=r"--judge hf needs transformers and torch: pip install -e '\.\[nli\]'"):
        make_judge(f"hf:{tmp_path}", None, None, 30, AUDIT_RULES)


@pytest.mark.skipif(not os.environ.get("AUDIT_NLI_MODEL"), reason="no NLI model: set AUDIT_NLI_MODEL to a local model folder to run it")
def test_an_nli_model_supports_a_paraphrase_and_not_its_negation(database):
    judge = make_judge(f"hf:{os.environ['AUDIT_NLI_MODEL']}", None, None, 30, AUDIT_RULES)
    report = _audit("Drug X blocks interleukin-5 [chunk:trial.md:3]. Drug X does not block interleukin-5 [chunk:trial.md:3].\n", database, judge)
    assert [s.verdict for s in report.sentences] == [SentenceVerdict.supported, SentenceVerdict.not_enough_evidence]


# ---------------------------------------------------------------- the command line


def test_audit_prints_both_figures_and_the_judge_on_top(database, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Drug X blocks interleukin-5 [chunk:trial.md:3]. It is the best drug there is.\n")
    result = runner.invoke(app, ["audit", str(page), "--db", str(database)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "audited by claim coverage and contradiction rules (rules judge 1.2, audit.toml " in lines[0]
    assert lines[1].startswith("citation recall    0.500") and lines[2].startswith("citation precision 1.000")
    assert "[2] NO CITATION" in result.output and "trial.md › Discussion [discussion], lines 15-17" in result.output


@pytest.mark.parametrize(
    ("text", "recall", "precision"),
    [
        ("", "citation recall    n/a    (no sentences)", "citation precision n/a    (no citations)"),
        (
            "Drug X is the best drug there is.\n",
            "citation recall    0.000  (0 of 1 sentences supported by claim coverage and contradiction rules)",
            "citation precision n/a    (no citations)",
        ),
    ],
)
def test_audit_of_a_page_with_nothing_to_score_prints_no_score(database, tmp_path, text, recall, precision):
    page = tmp_path / "page.md"
    page.write_text(text)
    result = runner.invoke(app, ["audit", str(page), "--db", str(database)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1:3] == [recall, precision]


def test_audit_json_of_an_empty_page_gives_null_scores(database, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("")
    result = runner.invoke(app, ["audit", str(page), "--db", str(database), "--json"])
    scores = json.loads(result.output)["scores"]
    assert (scores["citation_recall"], scores["citation_precision"], scores["sentences"]) == (None, None, 0)


def test_audit_json_holds_every_sentence_with_its_passages(database, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Drug X blocks interleukin-5 [chunk:trial.md:3].\n")
    result = runner.invoke(app, ["audit", str(page), "--db", str(database), "--json"])
    report = json.loads(result.output)
    assert report["judge"]["measures"] == "claim coverage and contradiction rules"
    assert report["sentences"][0]["citations"][0]["passage"]["heading_path"] == ["Discussion"]


def test_audit_json_gives_the_evidence_sentence_with_its_offsets_in_the_paper(database, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Drug X blocks interleukin-5 [chunk:trial.md:3].\n")
    result = runner.invoke(app, ["audit", str(page), "--db", str(database), "--json"])
    (evidence, *_) = json.loads(result.output)["sentences"][0]["joint"]["evidence"]
    paper = open_readonly(database).execute("SELECT text FROM documents WHERE doc_id = 'trial.md'").fetchone()[0]
    assert paper[evidence["char_start"] : evidence["char_end"]] == evidence["text"]
    assert "interleukin-5" in evidence["agreeing"] and evidence["where"].startswith("paragraph ")


def test_audit_runs_a_command_judge_within_its_window(database, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Drug X blocks interleukin-5 [chunk:trial.md:3].\n")
    result = runner.invoke(app, ["audit", str(page), "--db", str(database), "--judge", f"cmd:{_command()}", "--window", "3", "--json"])
    report = json.loads(result.output)
    assert (report["judge"]["name"], report["judge"]["window"], report["scores"]["truncated_premises"]) == ("cmd", "3 words", 1)


def test_audit_of_a_missing_page_is_an_error_naming_it(database, tmp_path):
    result = runner.invoke(app, ["audit", str(tmp_path / "nope.md"), "--db", str(database)])
    assert result.exit_code == 1
    assert result.output.strip() == f"Error: cannot read {tmp_path / 'nope.md'}: No such file or directory; pass a Markdown file in UTF-8"


def test_audit_with_audit_rules_that_cannot_be_read_says_which_file_and_what_to_do(database, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Drug X works.\n")
    result = runner.invoke(app, ["audit", str(page), "--db", str(database), "--audit-rules", str(tmp_path / "mine.toml")])
    assert result.exit_code == 1
    assert result.output.strip() == f"Error: cannot read audit rules {tmp_path / 'mine.toml'}: No such file or directory; pass an existing file to --audit-rules"


def test_audit_rules_are_refused_for_another_judge(database, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Drug X works.\n")
    result = runner.invoke(app, ["audit", str(page), "--db", str(database), "--judge", "lexical", "--audit-rules", "rules/audit.toml"])
    assert result.exit_code == 1 and "--audit-rules is for the rules and meaning judges, not 'lexical'" in result.output


def test_audit_with_an_unknown_judge_says_which_there_are(database, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Drug X works.\n")
    result = runner.invoke(app, ["audit", str(page), "--db", str(database), "--judge", "nli"])
    assert result.exit_code == 1 and "pass --judge rules, --judge meaning, --judge lexical, --judge cmd:'COMMAND' or --judge hf:PATH/TO/MODEL" in result.output


# ---------------------------------------------------------------- real papers


def test_audit_of_a_page_on_the_sample_corpus_reads_every_citation_form(tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    ingest_folder(PROJECT / "corpus", db, rules, IngestOptions(workers=1))
    page = """# Imaging before cytoreduction

For predicting incomplete cytoreduction, the AUC was 0.86 for DWI-MRI and 0.79 for FDG-PET/CT [chunk:imrad/kim-2023.md:6]. At the prespecified threshold, DWI-MRI had a sensitivity of 80.0%.[^s]

수술 전 영상 검사의 정확도가 검사 시간보다 더 중요하다는 문항에 87%가 동의했다. Most participants preferred the shorter examination. [chunk:imrad/kim-2023.md:8]

FIGO staging is surgical [^reviews/berek-2021:4].

[^s]: Kim et al., results, imrad/kim-2023.md:6
"""
    report = audit_page(page, "page.md", open_readonly(db), LexicalJudge(0.6), AUDIT_RULES)
    rules_and_ids = [(s.sentence.rule.value, [c.citation.chunk_id for c in s.citations], s.verdict.value) for s in report.sentences]
    assert rules_and_ids == [
        ("own", ["imrad/kim-2023.md:6"], "supported"),
        ("own", ["imrad/kim-2023.md:6"], "supported"),
        ("paragraph", ["imrad/kim-2023.md:8"], "supported"),
        ("paragraph", ["imrad/kim-2023.md:8"], "supported"),
        ("own", ["reviews/berek-2021:4"], "error"),
    ]
    passage = report.sentences[0].citations[0].passage
    assert (passage.paper, passage.heading_path, passage.where) == ("imrad/kim-2023.md", ("Results",), "lines 61-85")


PLANTED = tomllib.loads((Path(__file__).with_name("audit_pages") / "shared_corpus.toml").read_text())


@pytest.fixture(scope="module")
def shared_database(tmp_path_factory, rules) -> Path:
    papers = shared_corpus("jats_md", "nested")
    folder = tmp_path_factory.mktemp("audit-shared") / "papers"
    folder.mkdir()
    for name in PLANTED["papers"]:
        shutil.copy(papers / name, folder / name)
    db = folder.parent / "papers.duckdb"
    ingest_folder(folder, db, rules, IngestOptions(workers=1))
    return db


def _paragraphs(kind: str) -> list:
    found = [paragraph for paragraph in PLANTED["paragraph"] if paragraph["kind"] == kind]
    return [pytest.param(paragraph, id=f"{kind}-{number}") for number, paragraph in enumerate(found, start=1)]


def _verdicts(paragraph: dict, db: Path) -> list[SentenceVerdict]:
    return [s.verdict for s in audit_page(paragraph["text"], "paragraph", open_readonly(db), LexicalJudge(0.6), AUDIT_RULES).sentences]


def test_the_planted_paragraphs_are_half_of_twenty_or_more():
    kinds = [paragraph["kind"] for paragraph in PLANTED["paragraph"]]
    assert len(kinds) >= 20 and kinds.count("faithful") * 2 == len(kinds)


@pytest.mark.parametrize("paragraph", _paragraphs("faithful"))
def test_the_lexical_judge_supports_every_sentence_of_a_faithful_paragraph(paragraph, shared_database):
    assert set(_verdicts(paragraph, shared_database)) == {SentenceVerdict.supported}


@pytest.mark.parametrize("paragraph", _paragraphs("wrong_chunk"))
def test_the_lexical_judge_flags_a_citation_to_the_wrong_chunk(paragraph, shared_database):
    assert SentenceVerdict.not_enough_evidence in _verdicts(paragraph, shared_database)


@pytest.mark.parametrize("paragraph", _paragraphs("changed_number"))
def test_the_lexical_judge_flags_a_changed_number_unless_the_passage_holds_it_elsewhere(paragraph, shared_database):
    report = audit_page(paragraph["text"], "paragraph", open_readonly(shared_database), LexicalJudge(0.6), AUDIT_RULES)
    flagged = SentenceVerdict.not_enough_evidence in [s.verdict for s in report.sentences]
    cited = " ".join(c.passage.text for s in report.sentences for c in s.citations)
    held_elsewhere = re.search(rf"(?<![\d.]){re.escape(paragraph['new_number'])}(?![\d])", cited) is not None
    assert flagged or held_elsewhere, paragraph["text"]


@pytest.mark.parametrize("paragraph", _paragraphs("wrong_direction"))
def test_the_lexical_judge_misses_a_reversed_direction_as_docs_audit_md_says(paragraph, shared_database):
    assert set(_verdicts(paragraph, shared_database)) == {SentenceVerdict.supported}
