"""Print hit@5 of the real search on the shared QA sets (PubMedQA, the QASPER sample), by unit,
and the same questions asked in Korean through the glossary; write the figures as JSON.

Usage: python scripts/score_qa.py [--corpus PATH] [--rules rules/default.toml]
       [--glossary rules/glossary-ko-en.toml] [--korean tests/crosslingual/qa_korean.toml] [--json out/qa.json]

The papers the questions are about are written out as Markdown and ingested into a temporary
database by the pipeline itself (`ingest_folder`), all into one, so that every question is
searched among every paper's units. A PubMedQA entry is a structured abstract: its labelled
contexts and its long answer (the conclusion the abstract ends with, which PubMedQA holds apart)
become the paragraphs of one `## Abstract` section, as the shared JATS papers render theirs. The
QASPER sample's paper becomes its title, abstract and sections (`A ::: B` nesting B under A).

A question's evidence is what the data marks as answering it: for QASPER its answers' `evidence`
paragraphs (answers marked unanswerable and `FLOAT SELECTED` tables left out: neither is text a
search can return); for PubMedQA its `LONG_ANSWER`. A result holds the evidence
- whole: one evidence quote occurs in the unit's text, whitespace and Unicode forms aside;
- soft: at least SOFT_OVERLAP of one quote's word tokens (counted with repeats) occur in it.
hit@5 is the share of questions one of whose top 5 units holds the evidence. The 1,000-word
budget takes units in rank order while their words stay within the budget (the first always,
a paragraph already taken not counted twice) and asks whether one of them holds a quote whole.
With --window, a paragraph unit is the paragraph and its neighbours, joined.

The ingest takes seconds; the searches (each question, each unit, 50 units ranked for the
budget, each with its snippet) take most of the run's 7 to 12 minutes on two cores.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
import tomllib
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pipeline.crosslingual.glossary import DEFAULT_GLOSSARY_PATH, Glossary, load_glossary
from pipeline.index.database import open_readonly
from pipeline.index.paragraphs import ParagraphHit
from pipeline.index.search import SearchHit, Unit
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.rules import DEFAULT_RULES_PATH, SearchRules, load_rules
from pipeline.index.search_request import SearchRequest, run_search

PROJECT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = PROJECT.parent / "shared" / "corpus"
DEFAULT_KOREAN = PROJECT / "tests" / "crosslingual" / "qa_korean.toml"
DEFAULT_JSON = PROJECT / "out" / "qa.json"
PUBMEDQA = Path("qa/pubmedqa/ori_pqal.json")
QASPER = Path("qa/qasper/qasper_sample_small.json")

TOP = 5
"""hit@TOP: how many of the ranked units are looked at."""
SOFT_OVERLAP = 0.8
"""The least share of a quote's word tokens a unit must hold for a soft hit."""
CONTEXT_BUDGET_WORDS = 1000
"""The words of context a reader (or a model) is given: units in rank order up to this many."""
RANKED_FOR_BUDGET = 50
"""Units ranked per question to fill the budget from: 50 paragraphs of 20 words; a unit costs its
snippet, so ranking far more slows the run for nothing."""

_TOKEN = re.compile(r"\w+")


@dataclass(frozen=True)
class Question:
    """A question of a QA set, the paper it is about, and the quotes that answer it."""

    question_id: str
    dataset: str
    question: str
    doc_file: str
    """The Markdown file (relative to the ingested folder) of the question's paper."""
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class ScoredUnit:
    """A ranked unit as scored: its paper, its text, and the pieces it is made of with their
    words (the chunk itself, or the paragraph and its window), so a budget counts each once."""

    doc_file: str
    text: str
    pieces: tuple[tuple[str, int], ...]

    @property
    def words(self) -> int:
        return sum(words for _, words in self.pieces)


@dataclass(frozen=True)
class Config:
    """One way of searching: a unit and a window."""

    name: str
    unit: Unit
    window: int = 0


CONFIGS = (Config("chunk", Unit.chunk), Config("paragraph", Unit.paragraph), Config("paragraph --window 1", Unit.paragraph, 1))


# ---------------------------------------------------------------- the hit definition


def normalized(text: str) -> str:
    """Text as compared whole: Unicode compatibility forms folded (ligatures, wide forms) and every
    run of whitespace one space, since the pipeline normalizes both and Markdown rewraps lines."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def holds_whole(unit_text: str, quote: str) -> bool:
    """Whether the quote occurs in the unit's text as written, whitespace and Unicode forms aside."""
    return normalized(quote) in normalized(unit_text)


def token_overlap(unit_text: str, quote: str) -> float:
    """The share of the quote's word tokens (lowered, counted with repeats) that the unit holds."""
    wanted = Counter(_TOKEN.findall(normalized(quote).lower()))
    if not wanted:
        return 0.0
    held = Counter(_TOKEN.findall(normalized(unit_text).lower()))
    return sum(min(count, held[token]) for token, count in wanted.items()) / sum(wanted.values())


def holds_soft(unit_text: str, quote: str) -> bool:
    return token_overlap(unit_text, quote) >= SOFT_OVERLAP


def first_rank(units: Sequence[ScoredUnit], evidence: Iterable[str], holds) -> int | None:
    """The 1-based rank of the first unit that holds one of the quotes by `holds`; None if none does."""
    quotes = tuple(evidence)
    return next((rank for rank, unit in enumerate(units, 1) if any(holds(unit.text, quote) for quote in quotes)), None)


def within_budget(units: Sequence[ScoredUnit], budget: int = CONTEXT_BUDGET_WORDS) -> list[ScoredUnit]:
    """The units a context of `budget` words takes, in rank order: the first always, then each
    whose new pieces keep the words within the budget (a paragraph already taken, in another
    unit's window, is not counted again); it stops at the first unit that does not fit."""
    taken: list[ScoredUnit] = []
    seen: set[str] = set()
    words = 0
    for unit in units:
        new_words = sum(count for key, count in unit.pieces if key not in seen)
        if taken and words + new_words > budget:
            break
        taken.append(unit)
        seen.update(key for key, _ in unit.pieces)
        words += new_words
    return taken


# ---------------------------------------------------------------- the QA sets as papers


def pubmedqa_papers(path: Path) -> tuple[dict[str, str], list[Question]]:
    """Each PubMedQA entry as a paper (Markdown by file name) and its question."""
    entries = json.loads(path.read_text())
    papers, questions = {}, []
    for pmid, entry in entries.items():
        doc_file = f"pubmedqa/{pmid}.md"
        parts = [f"{_label(label)}: {context}" for label, context in zip(entry["LABELS"], entry["CONTEXTS"])]
        parts.append(f"Conclusions: {entry['LONG_ANSWER']}")
        papers[doc_file] = f"# PubMed {pmid}\n\n## Abstract\n\n" + "\n\n".join(parts) + "\n"
        questions.append(Question(f"pubmedqa:{pmid}", "pubmedqa", entry["QUESTION"], doc_file, (entry["LONG_ANSWER"],)))
    return papers, questions


def _label(label: str) -> str:
    return label.capitalize() if label != "UNLABELLED" else "Text"


def qasper_papers(path: Path) -> tuple[dict[str, str], list[Question]]:
    """Each QASPER paper as Markdown and its questions that have text evidence. A question id is
    the paper's id and the question's 1-based place: the sample repeats one `question_id`."""
    papers, questions = {}, []
    for paper_id, paper in json.loads(path.read_text()).items():
        doc_file = f"qasper/{paper_id}.md"
        lines = [f"# {paper['title']}", "", "## Abstract", "", paper["abstract"], ""]
        for section in paper["full_text"]:
            names = [name.strip() for name in (section["section_name"] or "").split(":::")]
            lines += [f"{'#' * min(len(names) + 1, 6)} {names[-1]}", ""]
            lines += [item for paragraph in section["paragraphs"] if paragraph.strip() for item in (paragraph, "")]
        papers[doc_file] = "\n".join(lines)
        for place, qa in enumerate(paper["qas"], 1):
            evidence = tuple(dict.fromkeys(
                quote for answer in qa["answers"] if not answer["answer"]["unanswerable"]
                for quote in answer["answer"]["evidence"] if quote.strip() and not quote.startswith("FLOAT SELECTED")
            ))
            if evidence:
                questions.append(Question(f"qasper:{paper_id}:{place}", "qasper", qa["question"], doc_file, evidence))
    return papers, questions


def load_korean(path: Path) -> list[dict]:
    """The hand-written Korean questions: `[[question]]` tables of id, english and korean."""
    return tomllib.loads(path.read_text(encoding="utf-8"))["question"]


# ---------------------------------------------------------------- searching and scoring


def ranked_units(connection, query: str, config: Config, spelling: SearchRules, glossary: Glossary | None, paths: dict[str, str]):
    """The real search's ranked units for `query`, as scored, and what the query was searched as."""
    request = SearchRequest(query, config.unit, limit=RANKED_FOR_BUDGET, window=config.window)
    results = run_search(connection, request, spelling, glossary)
    return [_as_unit(hit, paths) for hit in results.hits], results.prepared


def _as_unit(hit: SearchHit | ParagraphHit, paths: dict[str, str]) -> ScoredUnit:
    if isinstance(hit, ParagraphHit):
        spans = hit.context()
        pieces = tuple((f"{hit.doc_id}:{span.paragraph_id}", len(span.text.split())) for span in spans)
        return ScoredUnit(paths[hit.doc_id], " ".join(span.text for span in spans), pieces)
    return ScoredUnit(paths[hit.doc_id], hit.text, ((hit.chunk_id, len(hit.text.split())),))


def score_question(units: Sequence[ScoredUnit], question: Question) -> dict:
    """Where the evidence first shows among the ranked units, and whether the budget holds it."""
    budget = within_budget(units)
    if len(budget) == RANKED_FOR_BUDGET:
        print(f"(warning: {question.question_id}: the budget took all {RANKED_FOR_BUDGET} units ranked and may want more:"
              " raise RANKED_FOR_BUDGET)", file=sys.stderr)
    return {
        "rank_whole": first_rank(units, question.evidence, holds_whole),
        "rank_soft": first_rank(units, question.evidence, holds_soft),
        "rank_own_paper": next((rank for rank, unit in enumerate(units, 1) if unit.doc_file == question.doc_file), None),
        "budget_whole": first_rank(budget, question.evidence, holds_whole) is not None,
        "budget_units": len(budget),
        "budget_words": sum(dict(piece for unit in budget for piece in unit.pieces).values()),
    }


def summary(scores: Sequence[dict]) -> dict:
    """hit@TOP (whole, soft), the own paper in the top TOP, and the budget's figures, over `scores`."""
    count = len(scores)
    if not count:
        return {"questions": 0}

    def share(predicate) -> float:
        return round(sum(1 for score in scores if predicate(score)) / count, 3)

    return {
        "questions": count,
        "hit_at_5_whole": share(lambda s: s["rank_whole"] is not None and s["rank_whole"] <= TOP),
        "hit_at_5_soft": share(lambda s: s["rank_soft"] is not None and s["rank_soft"] <= TOP),
        "own_paper_at_5": share(lambda s: s["rank_own_paper"] is not None and s["rank_own_paper"] <= TOP),
        "budget_whole": share(lambda s: s["budget_whole"]),
        "budget_mean_units": round(sum(s["budget_units"] for s in scores) / count, 1),
        "budget_mean_words": round(sum(s["budget_words"] for s in scores) / count),
    }


# ---------------------------------------------------------------- the run


def ingest_qa_sets(corpus: Path, folder: Path, rules) -> tuple[Path, list[Question]]:
    """Write the QA sets' papers under `folder`/papers, ingest them into one database with the
    pipeline, and return it with the questions."""
    papers: dict[str, str] = {}
    questions: list[Question] = []
    for read, path in ((pubmedqa_papers, corpus / PUBMEDQA), (qasper_papers, corpus / QASPER)):
        if not path.exists():
            raise SystemExit(f"Error: no QA set at {path}: pass --corpus PATH to the shared corpus (the folder that holds qa/)")
        set_papers, set_questions = read(path)
        papers |= set_papers
        questions += set_questions
    source = folder / "papers"
    for name, text in papers.items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(text, encoding="utf-8")
    db = folder / "qa.duckdb"
    run = ingest_folder(source, db, rules, IngestOptions())
    if run.failed:
        raise SystemExit(f"Error: {len(run.failed)} QA papers failed to ingest, e.g. {next(iter(run.failed.items()))}")
    return db, questions


def score_all(connection, questions: list[Question], spelling: SearchRules, paths: dict[str, str]) -> dict[str, dict[str, dict]]:
    """Each config's score of each question, by question id."""
    return {
        config.name: {question.question_id: score_question(ranked_units(connection, question.question, config, spelling, None, paths)[0], question)
                      for question in questions}
        for config in CONFIGS
    }


def score_korean(connection, korean: list[dict], questions: dict[str, Question], spelling, glossary, paths) -> dict[str, dict[str, dict]]:
    """Each config's score of each Korean question, searched through the glossary, with what it was searched as."""
    scored: dict[str, dict[str, dict]] = {}
    for config in CONFIGS:
        scored[config.name] = {}
        for entry in korean:
            question = questions[entry["id"]]
            units, prepared = ranked_units(connection, entry["korean"], config, spelling, glossary, paths)
            mapping = prepared.mapping
            scored[config.name][entry["id"]] = {
                **score_question(units, question), "search_query": prepared.search_query,
                "unmapped": list(mapping.unmapped) if mapping else [],
            }
    return scored


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES_PATH)
    parser.add_argument("--glossary", type=Path, default=DEFAULT_GLOSSARY_PATH)
    parser.add_argument("--korean", type=Path, default=DEFAULT_KOREAN, help="the hand-written Korean questions")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where to write the figures")
    arguments = parser.parse_args()
    rules = load_rules(arguments.rules)
    with tempfile.TemporaryDirectory(prefix="score-qa-") as folder:
        clock = time.monotonic()
        db, questions = ingest_qa_sets(arguments.corpus, Path(folder), rules)
        print(f"(ingested the QA sets' papers in {time.monotonic() - clock:.0f} s; searching {len(questions)} questions)", file=sys.stderr)
        clock = time.monotonic()
        connection = open_readonly(db)
        paths = dict(connection.execute("SELECT doc_id, path FROM documents").fetchall())
        english = score_all(connection, questions, rules.search, paths)
        korean = load_korean(arguments.korean)
        by_id = {question.question_id: question for question in questions}
        translated = score_korean(connection, korean, by_id, rules.search, load_glossary(arguments.glossary), paths)
        connection.close()
        print(f"(searched in {time.monotonic() - clock:.0f} s)", file=sys.stderr)
    report = _report(questions, english, korean, translated, arguments)
    _print(report)
    arguments.json.parent.mkdir(parents=True, exist_ok=True)
    arguments.json.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    print(f"\n(written to {arguments.json})")


def _report(questions, english, korean, translated, arguments) -> dict:
    datasets = {"pubmedqa": [q for q in questions if q.dataset == "pubmedqa"], "qasper": [q for q in questions if q.dataset == "qasper"],
                "overall": questions}
    korean_ids = [entry["id"] for entry in korean]
    return {
        "definition": {
            "top": TOP, "soft_overlap": SOFT_OVERLAP, "context_budget_words": CONTEXT_BUDGET_WORDS,
            "evidence": {"pubmedqa": "LONG_ANSWER (the abstract's conclusion)", "qasper": "answers' evidence paragraphs (answerable, not FLOAT SELECTED)"},
        },
        "english": {config: {name: summary([english[config][q.question_id] for q in members]) for name, members in datasets.items()}
                    for config in english},
        "korean": {config: {"english": summary([english[config][qid] for qid in korean_ids]),
                            "korean_glossary": summary(list(translated[config].values()))} for config in translated},
        "korean_questions": {qid: {"korean": entry["korean"], **{config: translated[config][qid] for config in translated}}
                             for qid, entry in zip(korean_ids, korean)},
        "per_question": {config: english[config] for config in english},
        "command": "python scripts/score_qa.py",
    }


def _print(report: dict) -> None:
    header = f"{'dataset':9} {'unit':22} {'n':>5} {'hit@5 whole':>11} {'hit@5 soft':>10} {'own paper@5':>11} {'1,000 words: whole':>18} {'units':>5} {'words':>5}"
    print(header)
    for config, datasets in report["english"].items():
        for name, figures in datasets.items():
            print(_row(name, config, figures))
    print()
    print("The same questions asked in Korean (--glossary), beside the English:")
    print(header)
    for config, pair in report["korean"].items():
        for name, figures in pair.items():
            print(_row("en" if name == "english" else "ko", config, figures))
    unmapped = Counter(word for entry in report["korean_questions"].values() for word in entry["chunk"]["unmapped"])
    print(f"\nKorean words left unmapped (searched as typed): {sum(unmapped.values())}" + (f" ({', '.join(unmapped)})" if unmapped else ""))


def _row(name: str, config: str, figures: dict) -> str:
    return (f"{name:9} {config:22} {figures['questions']:5} {figures['hit_at_5_whole']:11.3f} {figures['hit_at_5_soft']:10.3f} "
            f"{figures['own_paper_at_5']:11.3f} {figures['budget_whole']:18.3f} {figures['budget_mean_units']:5} {figures['budget_mean_words']:5}")


if __name__ == "__main__":
    main()
