"""Score flat-shape section typing over a grid of absorption caps, to choose the defaults.

Usage: python scripts/tune_absorb_caps.py [--jats-md PATH]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.rules import load_rules
from shape_scoring import score_shape

DEFAULT_JATS_MD = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "jats_md"
SIBLING_CAPS = (8, 12, 16, 20, 30, 50)
WORD_CAPS = (2500, 5000, 8000, 12000, 20000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jats-md", type=Path, default=DEFAULT_JATS_MD)
    arguments = parser.parse_args()
    rules = load_rules()
    print("flat-shape score by max_siblings (rows) and max_words (columns)")
    print("siblings " + " ".join(f"{words:>7}" for words in WORD_CAPS))
    for siblings in SIBLING_CAPS:
        scores = []
        for words in WORD_CAPS:
            absorb = rules.absorb.model_copy(update={"max_siblings": siblings, "max_words": words})
            scores.append(score_shape(arguments.jats_md, "flat", rules.model_copy(update={"absorb": absorb})).score)
        print(f"{siblings:>8} " + " ".join(f"{score:7.3f}" for score in scores), flush=True)


if __name__ == "__main__":
    main()
