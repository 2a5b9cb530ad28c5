"""What a command costs before it does its work: the modules it imports (`python -X importtime`)
and its wall time, for two or more source trees side by side, beside `python -c "import duckdb"`
in the same rounds.

    .venv/bin/python bench/startup.py [--rounds 7] TREE [TREE ...]

Each case is the command line from launch to exit, in a process of its own, importing `pipeline`
from its tree (PYTHONPATH, run from a scratch folder), over a database of the sample papers in
`corpus/` built first with the first tree. A case's imports are the sum of `-X importtime`'s
top-level cumulative figures: every module it loads, counted once (with `ingest`, the fork
server's too, which writes to the same stderr). The rounds take turns case by case and tree by
tree; the medians are printed, and each wall time as a multiple of `import duckdb`'s in that tree,
the figure to compare on a machine whose speed moves while it runs. docs/performance.md has
what it found.
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


def cases(scratch: Path) -> dict[str, list[str]]:
    db, corpus = str(scratch / "corpus.duckdb"), str(PROJECT / "corpus")
    return {
        "python -c pass": ["-c", "pass"],
        "import duckdb": ["-c", "import duckdb"],
        "--help": ["-m", "pipeline", "--help"],
        "search": ["-m", "pipeline", "search", "heading", "--db", db],
        "sql": ["-m", "pipeline", "sql", "SELECT count(*) FROM chunks", "--db", db],
        "show": ["-m", "pipeline", "show", "imrad/kim-2023.md:2", "--db", db, "--out", str(scratch / "shown.html"), "--folder", corpus],
        "report": ["-m", "pipeline", "report", "--db", db],
        "export": ["-m", "pipeline", "export", "--out", str(scratch / "chunks.jsonl"), "--db", db, "--quiet"],
        "ingest, nothing changed": ["-m", "pipeline", "ingest", corpus, "--db", db, "--quiet"],
    }


def imported_ms(stderr: str) -> float:
    """The sum of the top-level cumulative figures of `-X importtime`, in milliseconds."""
    total = 0
    for line in stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            _, cumulative, name = line.split("|")
            if name.startswith(" ") and not name.startswith("  ") and cumulative.strip().isdigit():
                total += int(cumulative)
    return total / 1000


def run(tree: Path, arguments: list[str], scratch: Path, flags: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    done = subprocess.run([sys.executable, *flags, *arguments], env=environment, cwd=scratch, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(arguments)} with the tree {tree} exited with {done.returncode}:\n{done.stderr[-2000:]}")
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        run(options.trees[0], ["-m", "pipeline", "ingest", str(PROJECT / "corpus"), "--db", str(scratch / "corpus.duckdb"), "--quiet"], scratch)
        imports: dict[tuple[Path, str], list[float]] = {}
        walls: dict[tuple[Path, str], list[float]] = {}
        for _ in range(options.rounds):
            for case, arguments in cases(scratch).items():
                for tree in options.trees:
                    imports.setdefault((tree, case), []).append(imported_ms(run(tree, arguments, scratch, ("-X", "importtime")).stderr))
                    started = time.perf_counter()
                    run(tree, arguments, scratch)
                    walls.setdefault((tree, case), []).append((time.perf_counter() - started) * 1000)
    print("load average at the end: " + " ".join(f"{load:.1f}" for load in os.getloadavg()))
    print("| case | " + " | ".join(f"{tree}: imports ms, wall ms, × import duckdb" for tree in options.trees) + " |")
    print("|---|" + "---|" * len(options.trees))
    for case in cases(Path(".")):
        cells = []
        for tree in options.trees:
            wall, duckdb_wall = statistics.median(walls[tree, case]), statistics.median(walls[tree, "import duckdb"])
            cells.append(f"{statistics.median(imports[tree, case]):.0f}, {wall:.0f}, {wall / duckdb_wall:.1f}")
        print(f"| {case} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
