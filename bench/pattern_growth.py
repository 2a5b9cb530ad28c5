"""How every regular expression of the pipeline grows on long adversarial runs: each compiled
pattern of the rules and each pattern a module of `pipeline` holds, searched through runs of
dots, spaces, digits, letters, brackets and their mixtures at two lengths, n and 2n.

    .venv/bin/python bench/pattern_growth.py [--rules rules/default.toml] [--length 2000] [--all]

A pattern that is linear takes about twice as long at 2n as at n; one that is quadratic, about
four times. Every pattern is searched as `finditer` (every start tried, as `search`, `sub` and
`findall` do) and as `fullmatch`. It prints the patterns whose time grows faster than linear
(and, with --all, every pattern), the worst run first: the ratio of the two times, the time at
2n, the run and where the pattern comes from. Figures below a millisecond are noise.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import time
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel

import pipeline
from pipeline.rules import DEFAULT_RULES_PATH, load_rules

RUNS = (".", " ", ". ", " .", "0", "0.", "0 ", "a", "A", "a ", "a.", "aA", "a-", "-", "- ", "[", "(", "[1", "(1",
        "a,", ", ", "*", "_", "<", "/", "\n", "a\n", " \n", "Smith ", "A. ", "1-", "1,", "e.g. ", "Fig ", "a1,", "^1")
"""What the adversarial texts are runs of: each, and each pair, of the characters that the
patterns' quantifiers take (`[\\s.]`, `\\d`, `\\w`, brackets, list markers)."""
ENDINGS = ("", "!", "x", "\n")
"""What follows the run: nothing, a character no pattern wants, a letter, a line end."""
SUPER_LINEAR = 3.0
"""A ratio of the two times above this (linear is 2, quadratic 4) is reported."""
NOISE = 0.001
"""Seconds at 2n below which a ratio is not reported: too short to measure."""
REPEATS = 3
"""Each time is the least of this many: a pause of the machine makes one run slow, not three."""


def rules_patterns(model: BaseModel, where: str) -> Iterator[tuple[str, re.Pattern[str]]]:
    """Every compiled pattern of a rules model, named by its path in the model."""
    for name in type(model).model_fields:
        yield from _patterns_in(getattr(model, name), f"{where}.{name}")


def _patterns_in(value: object, where: str) -> Iterator[tuple[str, re.Pattern[str]]]:
    if isinstance(value, re.Pattern):
        yield where, value
    elif isinstance(value, BaseModel):
        yield from rules_patterns(value, where)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _patterns_in(item, f"{where}[{index}]")


def module_patterns() -> Iterator[tuple[str, re.Pattern[str]]]:
    """Every pattern a module of `pipeline` holds at its top level, or in a tuple there."""
    for module_info in pkgutil.walk_packages(pipeline.__path__, "pipeline."):
        try:
            module = importlib.import_module(module_info.name)
        except ImportError:  # an optional dependency (ray, a model) that is not installed
            continue
        for name, value in vars(module).items():
            values = value if isinstance(value, tuple) else (value,)
            for index, item in enumerate(values):
                if isinstance(item, re.Pattern) and isinstance(item.pattern, str):
                    yield f"{module_info.name}.{name}" + (f"[{index}]" if len(values) > 1 else ""), item


def seconds(pattern: re.Pattern[str], text: str) -> float:
    """The least time of `REPEATS` searches of `text` for every match, and a `fullmatch`."""
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in pattern.finditer(text):
            pass
        pattern.fullmatch(text)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES_PATH)
    parser.add_argument("--length", type=int, default=2000, help="n, the shorter run's length in characters")
    parser.add_argument("--all", action="store_true", help="print every pattern, not only the super-linear ones")
    arguments = parser.parse_args()
    patterns = dict(rules_patterns(load_rules(arguments.rules), "rules"))
    patterns.update(module_patterns())
    rows = []
    for where, pattern in patterns.items():
        worst = (0.0, 0.0, "")
        for run in RUNS:
            for ending in ENDINGS:
                short, long = ((run * length)[:length] + ending for length in (arguments.length, 2 * arguments.length))
                first, second = seconds(pattern, short), seconds(pattern, long)
                ratio = second / max(first, 1e-9)
                if second >= NOISE and (ratio, second) > worst[:2]:
                    worst = (ratio, second, repr(run) + (f" + {ending!r}" if ending else ""))
        if arguments.all or (worst[0] > SUPER_LINEAR and worst[1] >= NOISE):
            rows.append((*worst, where))
    print(f"{len(patterns)} patterns, n = {arguments.length}; ratio of the times at 2n and n (linear 2, quadratic 4)")
    for ratio, second, run, where in sorted(rows, reverse=True):
        print(f"{ratio:6.1f}  {second * 1000:9.1f} ms  {run:<18} {where}")


if __name__ == "__main__":
    main()
