"""What every rules model shares: frozen, no unknown keys, and patterns compiled once when the
rules are loaded, a bad one reported with the file and the rule that holds it."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict


def compile_pattern(pattern: str | re.Pattern[str]) -> re.Pattern[str]:
    """A rules file's pattern, compiled once here, matched case-insensitively."""
    if isinstance(pattern, re.Pattern):
        return pattern
    if not isinstance(pattern, str):
        raise ValueError(f"a pattern must be a string, not {pattern!r}")
    try:
        return re.compile(pattern, re.IGNORECASE)
    except re.error as error:
        raise ValueError(f"invalid regular expression {pattern!r}: {error}") from None


def naming_group(pattern: re.Pattern[str], group: str, what: str) -> re.Pattern[str]:
    """`pattern`, which a stage reads `what` from by the named group `group`; an error if it has none."""
    if group not in pattern.groupindex:
        raise ValueError(f"pattern {pattern.pattern!r} must name {what} in a group `(?P<{group}>...)`")
    return pattern


def _compile_unless_empty(pattern: str | re.Pattern[str] | None) -> re.Pattern[str] | None:
    return None if pattern in (None, "") else compile_pattern(pattern)


Pattern = Annotated[re.Pattern[str], BeforeValidator(compile_pattern)]
"""A regular expression from a rules file, compiled (case-insensitive) when the rules are loaded."""
OptionalPattern = Annotated[re.Pattern[str] | None, BeforeValidator(_compile_unless_empty)]
"""A pattern that is off where the rules file leaves it out or empty."""


def _compiles_alone(fragment: str) -> str:
    compile_pattern(fragment)
    return fragment


PatternFragment = Annotated[str, AfterValidator(_compiles_alone)]
"""A piece of pattern that other patterns of its table name (`{surname}`), kept as text, and
checked to compile alone so that a bad one is reported as itself, not inside every pattern."""


class RulesModel(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

