"""Print how well section typing matches the gold labels of ../shared/corpus/jats_md.

Usage: python scripts/score_section_types.py [--jats-md PATH] [--rules rules/default.toml] [--worst N]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.rules import DEFAULT_RULES_PATH, load_rules
from shape_scoring import score_shape

DEFAULT_JATS_MD = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "jats_md"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jats-md", type=Path, default=DEFAULT_JATS_MD)
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES_PATH)
    parser.add_argument("--worst", type=int, default=5, help="list the N worst papers and confusions per shape")
    arguments = parser.parse_args()
    rules = load_rules(arguments.rules)
    for shape in ("nested", "flat"):
        result = score_shape(arguments.jats_md, shape, rules)
        print(f"{shape:6} {result.score:.3f}  ({result.matched_words}/{result.scored_words} words, {len(result.per_paper)} papers)")
        for paper, score in sorted(result.per_paper.items(), key=lambda item: item[1])[: arguments.worst]:
            print(f"         {score:.2f}  {paper}")
        for (gold, predicted), words in sorted(result.confusions.items(), key=lambda item: -item[1])[: arguments.worst]:
            print(f"         gold {gold:>10} → {predicted:<10} {words} words")


if __name__ == "__main__":
    main()
