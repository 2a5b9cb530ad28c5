"""How the pipeline's messages say a count: `1 chunk`, `2 chunks`. Every stage may use it, so
that no message says `1 chunks`."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`1 chunk`, `2 chunks`: a count with its noun in the number it takes (`plural` where it is
    not the noun and an `s`: `1 entry`, `2 entries`)."""
    return f"{count} {noun}" if count == 1 else f"{count} {plural or noun + 's'}"
