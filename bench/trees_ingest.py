"""Wall time of a whole `pipeline ingest` of the shared corpus into a fresh database, for two or
more source trees side by side, the trees taking turns round by round.

    .venv/bin/python bench/trees_ingest.py [--corpus ../shared/corpus] [--workers 2] [--rounds 12] TREE TREE [...]

What it is for: the cost of a feature to a whole run, with the feature switched off in a worktree
of the same commit (its passes returning nothing), or a change against an older commit. Each run
is the command line from launch to exit, in a process of its own, importing `pipeline` from its
tree (PYTHONPATH, run from a neutral folder so that the current one does not come first); the
database is new each run. This machine's speed moves by tens of percent within minutes, more
than a feature's cost, so the figures are read several ways: the sums and medians of each
tree's times, the fastest runs, and the ratio of each round's pair (runs made seconds apart), whose
median and spread it prints. The first tree is the one the others are compared to.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent


def _python(tree: Path) -> str:
    own = tree / ".venv" / "bin" / "python"
    return str(own if own.exists() else sys.executable)


def _environment(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree.resolve())}


def check_imports(tree: Path, scratch: Path) -> None:
    """Stop where `tree`'s interpreter, run as the ingests are, imports `pipeline` from elsewhere."""
    done = subprocess.run(
        [_python(tree), "-c", "import pipeline; print(pipeline.__file__)"],
        env=_environment(tree), cwd=scratch, capture_output=True, text=True, check=True,
    )
    if Path(done.stdout.strip()).resolve().parent.parent != tree.resolve():
        raise SystemExit(f"{_python(tree)} imports pipeline from {done.stdout.strip()}, not from {tree}: give the tree its own .venv")


def ingest_seconds(tree: Path, corpus: Path, workers: int, scratch: Path) -> float:
    """Launch to exit of `pipeline ingest corpus` into a new database, with `pipeline` from `tree`."""
    for leftover in scratch.glob("papers.duckdb*"):
        leftover.unlink()
    command = [_python(tree), "-m", "pipeline", "ingest", str(corpus), "--db", str(scratch / "papers.duckdb"), "--workers", str(workers), "--quiet"]
    started = time.perf_counter()
    done = subprocess.run(command, env=_environment(tree), cwd=scratch, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 3):  # 3: published, some files failed (the corpus's bad files)
        raise SystemExit(f"ingest with the tree {tree} exited with {done.returncode}:\n{done.stderr}")
    return seconds


def print_comparison(trees: list[Path], seconds: dict[Path, list[float]]) -> None:
    first = trees[0]
    print("| tree | runs | sum s | median s | fastest s |")
    print("|---|---|---|---|---|")
    for tree in trees:
        times = seconds[tree]
        print(f"| {tree} | {len(times)} | {sum(times):.2f} | {statistics.median(times):.2f} | {min(times):.2f} |")
    for tree in trees[1:]:
        pairs = sorted(b / a for a, b in zip(seconds[first], seconds[tree]))
        print(
            f"\n{tree} against {first}: sums {sum(seconds[tree]) / sum(seconds[first]) - 1:+.1%}, "
            f"medians {statistics.median(seconds[tree]) / statistics.median(seconds[first]) - 1:+.1%}, "
            f"fastest {min(seconds[tree]) / min(seconds[first]) - 1:+.1%}; round by round: median pair "
            f"{statistics.median(pairs) - 1:+.1%}, middle half {pairs[len(pairs) // 4] - 1:+.1%} to "
            f"{pairs[(3 * len(pairs)) // 4 - 1 if len(pairs) > 1 else 0] - 1:+.1%}, all {pairs[0] - 1:+.1%} to {pairs[-1] - 1:+.1%}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path, help="source trees, the first the one the others are compared to")
    parser.add_argument("--corpus", type=Path, default=PROJECT.parent / "shared" / "corpus", help="the folder to ingest")
    parser.add_argument("--workers", type=int, default=2, help="ingest's --workers")
    parser.add_argument("--rounds", type=int, default=12, help="rounds; each tree runs once a round")
    args = parser.parse_args(argv)
    seconds: dict[Path, list[float]] = {tree: [] for tree in args.trees}
    with tempfile.TemporaryDirectory(prefix="trees-ingest-") as scratch:
        for tree in args.trees:
            check_imports(tree, Path(scratch))
        for round_number in range(args.rounds):
            # Which tree goes first alternates, so that neither always runs on a warmer machine.
            order = args.trees if round_number % 2 == 0 else list(reversed(args.trees))
            for tree in order:
                seconds[tree].append(ingest_seconds(tree, args.corpus.resolve(), args.workers, Path(scratch)))
            print(f"round {round_number + 1}: " + ", ".join(f"{tree.name} {seconds[tree][-1]:.2f} s" for tree in args.trees), file=sys.stderr)
    print_comparison(args.trees, seconds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
