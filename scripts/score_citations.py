"""Print how well in-text citations resolve, against the JATS xrefs of ../shared/corpus/jats_md
and the gold of the shared PDFs that have one (a GROBID TEI or a CERMINE NLM that links citations).

Usage: python scripts/score_citations.py [--set jats_md|pdf|all] [--corpus PATH] [--rules rules/default.toml]
                                         [--worst N] [--explain]

For PDFs every file is listed; `--explain` adds, per PDF, each entry we cite more or less often
than its gold does, with the markers read for it, to sort the losses by their cause.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from citation_scoring import CitationScore, disagreements, pdf_gold, pdf_golds, score_jats_md, score_pdfs
from pipeline.ingest.process import process
from pipeline.rules import DEFAULT_RULES_PATH, load_rules

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=["jats_md", "pdf", "all"], default="all", help="which papers to score")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES_PATH)
    parser.add_argument("--worst", type=int, default=10, help="list the N Markdown papers of lowest recall")
    parser.add_argument("--explain", action="store_true", help="list each PDF's disagreements with its gold")
    arguments = parser.parse_args()
    rules = load_rules(arguments.rules)
    if arguments.set in ("jats_md", "all"):
        _print("jats_md", score_jats_md(arguments.corpus, rules), arguments.worst)
    if arguments.set in ("pdf", "all"):
        pdfs = score_pdfs(arguments.corpus, rules)
        _print("pdf", pdfs, len(pdfs.per_paper))
        if arguments.explain:
            for pdf, gold_file in pdf_golds(arguments.corpus):
                _explain(pdf, gold_file, rules)


def _print(name: str, score: CitationScore, worst: int) -> None:
    print(f"{name:8} precision {score.precision:.3f}  recall {score.recall:.3f}  "
          f"({score.agreed} agreed, {score.found} found, {score.gold} in the gold; {len(score.per_paper)} papers)")
    cited = {paper: figures for paper, figures in score.per_paper.items() if figures[1] or figures[0]}
    for paper, (precision, recall, ours, theirs) in sorted(cited.items(), key=lambda item: item[1][1])[:worst]:
        print(f"         P {precision:.2f}  R {recall:.2f}  entries {ours:3}/{theirs:3}  {paper}")


def _explain(pdf: Path, gold_file: Path, rules) -> None:
    gold, _ = pdf_gold(gold_file)
    chunked = process(pdf, pdf.name, pdf.name, rules).chunked
    print(f"\n{pdf.stem} (gold: {gold_file.name})")
    for position, ours, theirs, markers in disagreements(chunked, gold):
        entry = chunked.references[position - 1].text[:60] if position <= len(chunked.references) else "?"
        print(f"  entry {position:3}: ours {ours}, gold {theirs}  {' '.join(entry.split())}")
        for marker in markers:
            print(f"      {marker}")


if __name__ == "__main__":
    main()
