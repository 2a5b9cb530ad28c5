"""CPU seconds of the stages (extract, normalize, chunk) over the shared corpus's PDFs, for two or
more source trees side by side, the trees taking turns round by round, in one `--layout` mode.

    .venv/bin/python bench/trees_pdf_stages.py [--corpus ../shared/corpus] [--layout rules] [--rounds 6] [--worker-gc] TREE TREE [...]

What it is for: the cost of a PDF pass to the stages alone, without the database or the worker
pool around them (`bench/trees_ingest.py` times whole runs). Each round runs each tree once, in a
process of its own that imports `pipeline` from the tree and times the stages of every PDF of
`pdf/` and `pdf_jats/` with its process CPU clock. The machine's speed moves within minutes, so
the figure to read is the median of each round's ratio against the first tree (runs seconds apart).
`--worker-gc` sets the garbage collector as an ingest's worker does (`ingest.workers.prepare_worker`,
the same at 0.8.0): without it the figure also holds the default collector's walks (some 8% of the
stages' time), which a worker does not pay.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
_CHILD = """
import gc, sys, time
from pathlib import Path
from pipeline.chunk import chunk
from pipeline.extract import extract
try:
    from pipeline.normalize.stage import normalize
except ImportError:  # a tree from before 0.9.0, whose normalize was one module
    from pipeline.normalize import normalize
from pipeline.rules import load_rules, layout_overrides
rules = load_rules(overrides=layout_overrides(sys.argv[2]))
if sys.argv[3] == "worker":  # as ingest.workers.prepare_worker sets it
    gc.freeze()
    gc.set_threshold(10_000, *gc.get_threshold()[1:])
files = sorted(Path(sys.argv[1]).glob("pdf/*.pdf")) + sorted(Path(sys.argv[1]).glob("pdf_jats/*.pdf"))
pages = 0
start = time.process_time()
for file in files:
    try:
        raw = extract(file, file.name, rules)
    except Exception:
        continue  # the corpus's bad files fail alike in every tree
    pages += raw.page_count or 0
    chunk(normalize(raw, file.name, rules), rules)
print(time.process_time() - start, pages)
"""


def stage_seconds(tree: Path, corpus: Path, layout: str, collector: str = "default") -> tuple[float, int]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(corpus), layout, collector],
        env={**os.environ, "PYTHONPATH": str(tree.resolve())}, cwd="/", capture_output=True, text=True, check=True,
    )
    seconds, pages = done.stdout.split()
    return float(seconds), int(pages)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path, help="source trees, the first the one the others are compared to")
    parser.add_argument("--corpus", type=Path, default=PROJECT.parent / "shared" / "corpus")
    parser.add_argument("--layout", choices=["rules", "model", "auto"], default="rules")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--worker-gc", action="store_true", help="set the garbage collector as an ingest's worker does")
    args = parser.parse_args()
    seconds: dict[Path, list[float]] = {tree: [] for tree in args.trees}
    pages = 0
    for _ in range(args.rounds):
        for tree in args.trees:
            taken, pages = stage_seconds(tree, args.corpus.resolve(), args.layout, "worker" if args.worker_gc else "default")
            seconds[tree].append(taken)
    first = args.trees[0]
    collector = ", the worker's garbage collector" if args.worker_gc else ""
    print(f"{pages} PDF pages, --layout {args.layout}, {args.rounds} rounds{collector}")
    for tree in args.trees:
        ratios = [mine / theirs for mine, theirs in zip(seconds[tree], seconds[first])]
        print(
            f"{str(tree):40} median {statistics.median(seconds[tree]):6.2f} s  fastest {min(seconds[tree]):6.2f} s  "
            f"{pages / statistics.median(seconds[tree]):6.1f} pages/s  ratio to first: median {statistics.median(ratios):.3f} "
            f"(range {min(ratios):.3f}-{max(ratios):.3f})"
        )


if __name__ == "__main__":
    main()
