"""Print hit@5 for the Korean questions over the shared papers (bench/korean_questions.toml):
asked in English, in Korean through the glossary, and in Korean with its Latin-script tokens
removed (so that `HIV`, `MRI`, `PHQ-9` typed in the question earn nothing), and what the
glossary left untranslated.

Usage: python bench/korean_search.py --db DB [--glossary rules/glossary-ko-en.toml] [--json out/korean.json]

DB is a database of the shared papers the questions are about: ingest them first, e.g.
    mkdir -p /tmp/papers && cp -r ../shared/corpus/jats_md/nested /tmp/papers/jats \
        && cp -r ../shared/corpus/pdf /tmp/papers/pdf && pipeline ingest /tmp/papers --db /tmp/papers.duckdb
A question's answer chunks are the chunks of its paper (`doc`) whose text holds one of its
`answer` phrases, lowered; hit@5 is the share of questions one of whose top 5 chunks is one, hit@1 the share whose first is.
"""

from __future__ import annotations

import argparse
import json
import re
import tomllib
from pathlib import Path

from pipeline.crosslingual.glossary import DEFAULT_GLOSSARY_PATH, load_glossary
from pipeline.crosslingual.korean import load_korean_analyser
from pipeline.index.database import open_readonly
from pipeline.index.search import Unit
from pipeline.rules import DEFAULT_RULES_PATH, load_rules
from pipeline.index.search_request import SearchRequest, run_search

QUESTIONS = Path(__file__).resolve().parent / "korean_questions.toml"
TOP = 5
# A token holding a Latin letter, with what is written onto it (`PHQ-9`, `IFN-γ`, `CD4`, `MDR-TB`):
# removed whole, with any Hangul particle after it (`HIV의`).
_LATIN_TOKEN = re.compile(r"[\w/-]*[A-Za-z][\w/-]*")


def without_latin(question: str) -> str:
    """The question with every token that holds a Latin letter removed, spaces tidied."""
    return " ".join(_LATIN_TOKEN.sub(" ", question).split())


def answer_chunks(connection, doc: str, phrases: list[str]) -> set[str]:
    rows = connection.execute("SELECT chunk_id, lower(text) FROM chunks WHERE doc_id = ?", [doc]).fetchall()
    return {chunk_id for chunk_id, text in rows if any(phrase.lower() in text for phrase in phrases)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--glossary", type=Path, default=DEFAULT_GLOSSARY_PATH)
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--no-analyser", action="store_true", help="Map Korean words without Kiwi, by the glossary's suffixes only.")
    arguments = parser.parse_args()
    questions = tomllib.loads(arguments.questions.read_text(encoding="utf-8"))["question"]
    connection = open_readonly(arguments.db)
    spelling = load_rules(DEFAULT_RULES_PATH).search
    glossary = load_glossary(arguments.glossary)
    analyser = None if arguments.no_analyser else load_korean_analyser()
    forms = {"en": None, "ko": glossary, "ko-no-latin": glossary}
    hits = {form: 0 for form in forms}
    firsts = {form: 0 for form in forms}
    untranslated: dict[str, int] = {}
    rows = []
    for question in questions:
        answers = answer_chunks(connection, question["doc"], question["answer"])
        if not answers:
            raise SystemExit(f"{arguments.questions}: question {question['id']}: no chunk of {question['doc']} holds {question['answer']}")
        asked = {"en": question["english"], "ko": question["korean"], "ko-no-latin": without_latin(question["korean"])}
        row = {"id": question["id"], "answers": len(answers)}
        for form, text in asked.items():
            results = run_search(connection, SearchRequest(text, Unit.chunk, limit=TOP), spelling, forms[form], analyser)
            ranks = [rank for rank, hit in enumerate(results.hits, 1) if hit.chunk_id in answers]
            hits[form] += bool(ranks)
            firsts[form] += bool(ranks) and ranks[0] == 1
            row[form] = {"query": text, "search_query": results.prepared.search_query, "rank": ranks[0] if ranks else None}
            if form == "ko" and results.prepared.mapping is not None:
                row["untranslated"] = list(results.prepared.mapping.unmapped)
                for word in results.prepared.mapping.unmapped:
                    untranslated[word] = untranslated.get(word, 0) + 1
        rows.append(row)
    n = len(questions)
    print(f"{'asked in':<14}{'n':>4}{'hit@5':>8}{'hit@1':>8}")
    for form in forms:
        print(f"{form:<14}{n:>4}{hits[form] / n:>8.3f}{firsts[form] / n:>8.3f}")
    left = sorted(untranslated, key=lambda word: (-untranslated[word], word))
    print(f"untranslated Korean words: {len(left)} distinct, in {sum(1 for row in rows if row.get('untranslated'))} of {n} questions")
    if left:
        print("  " + ", ".join(left))
    fully = sum(1 for row in rows if not row.get("untranslated"))
    print(f"questions with every Korean word translated: {fully} of {n}")
    if arguments.json:
        arguments.json.parent.mkdir(parents=True, exist_ok=True)
        arguments.json.write_text(json.dumps({"hit@5": {form: hits[form] / n for form in forms}, "hit@1": {form: firsts[form] / n for form in forms}, "questions": rows}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
