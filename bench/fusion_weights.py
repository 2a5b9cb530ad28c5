"""Hybrid search's fusion weights, swept offline: BM25's and the vector ranking's top 50 read once per
question (chunks), then fused with each weight on the vector's reciprocal ranks; prints hit@1/hit@5
per weight (w0.0 is BM25 alone, to depth 50, quotes dropped).

Usage: python bench/fusion_weights.py qa N                       (the first N PubMedQA questions and the
           Korean QA questions, over bench/vector_retrieval.py qa's database in /tmp/vector-qa)
       python bench/fusion_weights.py korean DB QUESTIONS.toml
"""
import sys
import tomllib
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from score_qa import PUBMEDQA, QASPER, holds_whole, load_korean, pubmedqa_papers, qasper_papers
import duckdb
from pipeline.crosslingual.glossary import DEFAULT_GLOSSARY_PATH, load_glossary
from pipeline.crosslingual.prepare import prepare_query
from pipeline.index.search import Unit, UnitFilters, rank_units
from pipeline.index.vector_search import query_vector, vector_ranking
from pipeline.rules import DEFAULT_RULES_PATH, load_rules

rules = load_rules(DEFAULT_RULES_PATH); glossary = load_glossary(DEFAULT_GLOSSARY_PATH)
pairs = lambda connection, ranked, stems, counter: list(ranked)
WEIGHTS = (1.0, 0.7, 0.5, 0.3, 0.2, 0.1, 0.0)

def lists(connection, typed, glossed):
    search_query = (prepare_query(typed, glossed).search_query if glossed else typed).replace(chr(34), " ")
    words = [u for u, _ in rank_units(connection, search_query, Unit.chunk, UnitFilters(), 50, rules.search, pairs)]
    vector = [u for u, _ in vector_ranking(connection, query_vector(typed), Unit.chunk, UnitFilters(), 50)]
    return words, vector

def fused(words, vector, w, k=60):
    s = {}
    for r, u in enumerate(words, 1): s[u] = s.get(u, 0) + 1 / (k + r)
    for r, u in enumerate(vector, 1): s[u] = s.get(u, 0) + w / (k + r)
    return sorted(s, key=lambda u: (-s[u], u))[:5]

def report(label, cases):
    out = [label, len(cases)]
    for w in WEIGHTS:
        tops = [fused(words, vector, w) for words, vector, _ in cases]
        at1 = sum(bool(t) and t[0] in rel for t, (_, _, rel) in zip(tops, cases)) / len(cases)
        at5 = sum(any(u in rel for u in t) for t, (_, _, rel) in zip(tops, cases)) / len(cases)
        out.append(f"w{w}:{at1:.3f}/{at5:.3f}")
    print(*out, flush=True)

which = sys.argv[1]
if which == "qa":
    c = duckdb.connect("/tmp/vector-qa/qa.duckdb", read_only=True)
    corpus = Path("/work/shared/corpus")
    qs = pubmedqa_papers(corpus / PUBMEDQA)[1][: int(sys.argv[2])]
    texts = {}
    def rel(question, words, vector):
        ids = set(words) | set(vector)
        missing = [i for i in ids if i not in texts]
        if missing:
            texts.update(c.execute("SELECT chunk_id, text FROM chunks WHERE chunk_id IN (SELECT unnest(?::VARCHAR[]))", [missing]).fetchall())
        return {i for i in ids if any(holds_whole(texts[i], q) for q in question.evidence)}
    cases = []
    for q in qs:
        w, v = lists(c, q.question, None); cases.append((w, v, rel(q, w, v)))
    report("pubmedqa en", cases)
    by_id = {q.question_id: q for q in pubmedqa_papers(corpus / PUBMEDQA)[1] + qasper_papers(corpus / QASPER)[1]}
    for label, g in (("qa korean glossary", glossary), ("qa korean none", None)):
        cases = []
        for e in load_korean(Path(__file__).resolve().parents[1] / "tests" / "crosslingual" / "qa_korean.toml"):
            w, v = lists(c, e["korean"], g); cases.append((w, v, rel(by_id[e["id"]], w, v)))
        report(label, cases)
else:
    c = duckdb.connect(sys.argv[2], read_only=True)
    questions = tomllib.loads(Path(sys.argv[3]).read_text())["question"]
    answers = {}
    for q in questions:
        rows = c.execute("SELECT chunk_id, lower(text) FROM chunks WHERE doc_id = ?", [q["doc"]]).fetchall()
        answers[q["id"]] = {i for i, t in rows if any(p.lower() in t for p in q["answer"])}
    for label, key, g in (("english", "english", None), ("korean glossary", "korean", glossary), ("korean none", "korean", None)):
        cases = []
        for q in questions:
            w, v = lists(c, q[key], g); cases.append((w, v, answers[q["id"]]))
        report(f"{Path(sys.argv[3]).stem} {label}", cases)
