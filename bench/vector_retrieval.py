"""hit@1 and hit@5 of `search --mode bm25|vector|hybrid` (chunks) on the shared QA sets, in English
and in Korean with and without the glossary, and on the hand-written Korean questions over the
shared papers; with the embedding's cost per chunk.

Usage: python bench/vector_retrieval.py qa [--corpus PATH] [--work /tmp/vector-qa]
       python bench/vector_retrieval.py korean --db DB [--questions bench/korean_questions.toml]

`qa` writes the QA sets' papers as scripts/score_qa.py does, ingests them, embeds their chunks
(paragraphs left out: they are not scored here, and would take three times as long) and scores
each question's evidence as score_qa.py does (whole, or soft). `korean` reads a database of the
shared papers (bench/korean_search.py says how to build one), embeds its chunks where it keeps no
vector yet, and scores as korean_search.py does. Each prints one row per mode and way of asking.
"""

from __future__ import annotations

import argparse
import sys
import time
import tomllib
from pathlib import Path

import duckdb

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT / "scripts"))

from score_qa import DEFAULT_CORPUS, PUBMEDQA, QASPER, holds_soft, holds_whole, load_korean, pubmedqa_papers, qasper_papers  # noqa: E402

from pipeline.crosslingual.glossary import DEFAULT_GLOSSARY_PATH, load_glossary  # noqa: E402
from pipeline.index.search import Unit  # noqa: E402
from pipeline.index.search_request import SearchRequest, run_search  # noqa: E402
from pipeline.index.unit import SearchMode  # noqa: E402
from pipeline.index.vectors import sync_vectors  # noqa: E402
from pipeline.ingest import IngestOptions, ingest_folder  # noqa: E402
from pipeline.meaning.encoder import load_encoder  # noqa: E402
from pipeline.rules import DEFAULT_RULES_PATH, load_rules  # noqa: E402

TOP = 5


def embed_chunks(db: Path) -> None:
    """Embed every chunk of `db` that has no vector, and print what it cost."""
    connection = duckdb.connect(str(db))
    wall, cpu = time.monotonic(), time.process_time()
    synced = sync_vectors(connection, [], True, load_encoder, units=("chunk",))
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    words = connection.execute("SELECT sum(word_count) FROM chunks").fetchone()[0]
    connection.execute("CHECKPOINT")
    connection.close()
    if synced.embedded:
        print(f"(embedded {synced.embedded} chunks of {words} words in all: {wall:.0f} s, {cpu:.0f} CPU s, "
              f"{1000 * cpu / synced.embedded:.0f} CPU ms a chunk)", file=sys.stderr)


def top_hits(connection, query: str, mode: SearchMode, spelling, glossary) -> list:
    return run_search(connection, SearchRequest(query, Unit.chunk, limit=TOP, mode=mode), spelling, glossary).hits


def ranks(connection, query: str, mode: SearchMode, spelling, glossary, found) -> int | None:
    """The rank of the first of the top 5 chunks that `found` accepts; None where none is."""
    return first_found(top_hits(connection, query, mode, spelling, glossary), found)


def first_found(hits: list, found) -> int | None:
    return next((rank for rank, hit in enumerate(hits, 1) if found(hit)), None)


def row(label: str, mode: SearchMode, found_at: list[int | None]) -> str:
    count = len(found_at)
    at1 = sum(1 for rank in found_at if rank == 1) / count
    at5 = sum(1 for rank in found_at if rank is not None) / count
    return f"{label:26} {mode.value:7} {count:5} {at1:7.3f} {at5:7.3f}"


def score_qa(corpus: Path, work: Path) -> None:
    rules = load_rules(DEFAULT_RULES_PATH)
    db = work / "qa.duckdb"
    if not db.exists():
        papers, questions = {}, []
        for read, path in ((pubmedqa_papers, corpus / PUBMEDQA), (qasper_papers, corpus / QASPER)):
            set_papers, set_questions = read(path)
            papers |= set_papers
            questions += set_questions
        for name, text in papers.items():
            (work / "papers" / name).parent.mkdir(parents=True, exist_ok=True)
            (work / "papers" / name).write_text(text, encoding="utf-8")
        ingest_folder(work / "papers", db, rules, IngestOptions())
    embed_chunks(db)
    questions = pubmedqa_papers(corpus / PUBMEDQA)[1] + qasper_papers(corpus / QASPER)[1]
    by_id = {question.question_id: question for question in questions}
    korean = load_korean(PROJECT / "tests" / "crosslingual" / "qa_korean.toml")
    glossary = load_glossary(DEFAULT_GLOSSARY_PATH)
    connection = duckdb.connect(str(db), read_only=True)
    print(f"{'asked':26} {'mode':7} {'n':>5} {'hit@1':>7} {'hit@5':>7}   (evidence whole / soft)")
    for mode in SearchMode:
        clock = time.monotonic()
        asked = [(f"{q.dataset} en", q, top_hits(connection, q.question, mode, rules.search, None)) for q in questions]
        for label, used in (("qa korean glossary", glossary), ("qa korean no glossary", None)):
            asked += [(label, by_id[e["id"]], top_hits(connection, e["korean"], mode, rules.search, used)) for e in korean]
        print(f"({len(asked)} searches in {time.monotonic() - clock:.0f} s)", file=sys.stderr)
        for label in dict.fromkeys(label for label, _, _ in asked):
            for holds, how in ((holds_whole, "whole"), (holds_soft, "soft")):
                found = [first_found(hits, _holder(q, holds)) for named, q, hits in asked if named == label]
                print(row(f"{label} ({how})", mode, found), flush=True)


def _holder(question, holds):
    return lambda hit: any(holds(hit.text, quote) for quote in question.evidence)


def score_korean(db: Path, questions_file: Path) -> None:
    rules = load_rules(DEFAULT_RULES_PATH)
    embed_chunks(db)
    questions = tomllib.loads(questions_file.read_text(encoding="utf-8"))["question"]
    glossary = load_glossary(DEFAULT_GLOSSARY_PATH)
    connection = duckdb.connect(str(db), read_only=True)
    answers = {}
    for question in questions:
        rows = connection.execute("SELECT chunk_id, lower(text) FROM chunks WHERE doc_id = ?", [question["doc"]]).fetchall()
        answers[question["id"]] = {chunk_id for chunk_id, text in rows if any(p.lower() in text for p in question["answer"])}
    print(f"{'asked':26} {'mode':7} {'n':>5} {'hit@1':>7} {'hit@5':>7}   ({questions_file.name})")
    for mode in SearchMode:
        for label, key, used in (("english", "english", None), ("korean glossary", "korean", glossary), ("korean no glossary", "korean", None)):
            found = [
                ranks(connection, q[key], mode, rules.search, used, lambda hit, q=q: hit.chunk_id in answers[q["id"]]) for q in questions
            ]
            print(row(label, mode, found), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", choices=("qa", "korean"))
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--work", type=Path, default=Path("/tmp/vector-qa"))
    parser.add_argument("--db", type=Path)
    parser.add_argument("--questions", type=Path, default=PROJECT / "bench" / "korean_questions.toml")
    arguments = parser.parse_args()
    if arguments.set == "qa":
        arguments.work.mkdir(parents=True, exist_ok=True)
        score_qa(arguments.corpus, arguments.work)
    else:
        score_korean(arguments.db, arguments.questions)


if __name__ == "__main__":
    main()
