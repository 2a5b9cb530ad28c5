"""Print how well in-text citations resolve, against the JATS xrefs of ../shared/corpus/jats_md
and the GROBID TEI of the shared PDFs that have one.

Usage: python scripts/score_citations.py [--corpus PATH] [--rules rules/default.toml] [--worst N]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.citation_scoring import CitationScore, cited_positions, score_jats_md, tei_gold
from pipeline.ingest.task import process_file
from pipeline.rules import DEFAULT_RULES_PATH, load_rules

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES_PATH)
    parser.add_argument("--worst", type=int, default=10, help="list the N papers of lowest recall")
    arguments = parser.parse_args()
    rules = load_rules(arguments.rules)
    markdown = score_jats_md(arguments.corpus, rules)
    _print("jats_md", markdown, arguments.worst)
    pdfs = CitationScore()
    for tei in sorted((arguments.corpus / "pdf" / "groundtruth").glob("*.grobid.tei.xml")):
        pdf = arguments.corpus / "pdf" / (tei.name.split(".grobid")[0] + ".pdf")
        if pdf.exists():
            gold, entries = tei_gold(tei)
            chunked = process_file(pdf, pdf.name, pdf.name, rules)
            pdfs.add(pdf.stem, cited_positions(chunked), gold, (len(chunked.references), entries))
    _print("pdf", pdfs, arguments.worst)


def _print(name: str, score: CitationScore, worst: int) -> None:
    print(f"{name:8} precision {score.precision:.3f}  recall {score.recall:.3f}  "
          f"({score.agreed} agreed, {score.found} found, {score.gold} in the gold; {len(score.per_paper)} papers)")
    cited = {paper: figures for paper, figures in score.per_paper.items() if figures[1] or figures[0]}
    for paper, (precision, recall, ours, theirs) in sorted(cited.items(), key=lambda item: item[1][1])[:worst]:
        print(f"         P {precision:.2f}  R {recall:.2f}  entries {ours:3}/{theirs:3}  {paper}")


if __name__ == "__main__":
    main()
