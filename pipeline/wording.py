"""How the pipeline's messages say a count (`1 chunk`, `2 chunks`) and a list of pages (`1-3, 5`).
Every stage may use it, so that no message says `1 chunks`."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`1 chunk`, `2 chunks`: a count with its noun in the number it takes (`plural` where it is
    not the noun and an `s`: `1 entry`, `2 entries`)."""
    return f"{count} {noun}" if count == 1 else f"{count} {plural or noun + 's'}"


def page_ranges(numbers: list[int]) -> str:
    """`1-3, 5` for pages 1, 2, 3 and 5 (in the order given: runs of consecutive numbers joined)."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]) for run in runs)
