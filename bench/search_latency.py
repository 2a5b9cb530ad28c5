"""Print how long `pipeline search` takes, English and Korean queries, in process and as the
command a user runs; run it from two checkouts to compare them side by side.

Usage: PYTHONPATH=CHECKOUT python bench/search_latency.py --db DB [--repeat 5]

In process: the median of `run_search` over the questions of bench/korean_questions.toml, each
asked `--repeat` times, English as typed and Korean through the default glossary (with Kiwi,
loaded once, where the checkout and the environment have it). As a command: the median wall time
of `python -m pipeline search` for one English and one Korean question, startup included.
"""

from __future__ import annotations

import argparse
import inspect
import statistics
import subprocess
import sys
import time
import tomllib
from pathlib import Path

from pipeline.crosslingual.glossary import DEFAULT_GLOSSARY_PATH, load_glossary
from pipeline.index.database import open_readonly
from pipeline.index.search import Unit
from pipeline.rules import DEFAULT_RULES_PATH, load_rules
from pipeline.index.search_request import SearchRequest, run_search

QUESTIONS = Path(__file__).resolve().parent / "korean_questions.toml"


def _analyser():
    """Kiwi where this checkout can use it (`run_search` takes an analyser) and it is installed."""
    if "analyser" not in inspect.signature(run_search).parameters:
        return None
    from pipeline.crosslingual.korean import load_korean_analyser

    return load_korean_analyser()


def _median_ms(connection, texts, spelling, glossary, analyser, repeat: int) -> float:
    times = []
    for text in texts:
        for _ in range(repeat):
            started = time.perf_counter()
            request = SearchRequest(text, Unit.chunk, limit=10)
            if analyser is not None:
                run_search(connection, request, spelling, glossary, analyser)
            else:
                run_search(connection, request, spelling, glossary)
            times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def _command_ms(db: Path, arguments: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pipeline", "search", *arguments, "--db", str(db)], check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=5)
    arguments = parser.parse_args()
    questions = tomllib.loads(QUESTIONS.read_text(encoding="utf-8"))["question"]
    connection = open_readonly(arguments.db)
    spelling = load_rules(DEFAULT_RULES_PATH).search
    glossary = load_glossary()
    analyser = _analyser()
    english = [question["english"] for question in questions]
    korean = [question["korean"] for question in questions]
    print(f"{'':<34}{'median ms':>10}")
    print(f"{'run_search, English':<34}{_median_ms(connection, english, spelling, None, None, arguments.repeat):>10.1f}")
    print(f"{'run_search, Korean, glossary':<34}{_median_ms(connection, korean, spelling, glossary, None, arguments.repeat):>10.1f}")
    if analyser is not None:
        print(f"{'run_search, Korean, glossary+Kiwi':<34}{_median_ms(connection, korean, spelling, glossary, analyser, arguments.repeat):>10.1f}")
    print(f"{'command, English':<34}{_command_ms(arguments.db, [english[0]], arguments.repeat):>10.1f}")
    glossary_option = ["--glossary", str(DEFAULT_GLOSSARY_PATH)]
    print(f"{'command, Korean, glossary':<34}{_command_ms(arguments.db, [korean[0], *glossary_option], arguments.repeat):>10.1f}")


if __name__ == "__main__":
    main()
