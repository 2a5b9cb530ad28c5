"""The built-in judge's rules, `rules/audit.toml`: negation cues, direction axes, number words,
units, key terms and thresholds, loaded into a frozen model with its patterns compiled once."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated

from pydantic import Field, ValidationError, field_validator

from pipeline.errors import RulesError
from pipeline.rules.base import Pattern, RulesModel

DEFAULT_AUDIT_RULES_PATH = Path(__file__).resolve().parents[2] / "rules" / "audit.toml"


class AuditThresholds(RulesModel):
    min_coverage: Annotated[float, Field(gt=0, le=1)]
    """Share of a sentence's content words the evidence sentences must hold for support."""
    min_alignment: Annotated[float, Field(gt=0, le=1)]
    """Share of a claim clause's content words a passage clause must hold to be about the same thing."""
    max_evidence_sentences: Annotated[int, Field(ge=1)]
    """Most passage sentences read together as one sentence's evidence."""
    min_clause_words: Annotated[int, Field(ge=1)]
    """Fewest content words a claim clause needs before its polarity or direction is compared."""


class NegationRules(RulesModel):
    cues: frozenset[str]
    suffix: str
    clause_breaks: list[Pattern]
    leading_subordinators: frozenset[str]
    """A sentence opening with one of these ends its first clause at its first comma."""
    scale_label: Pattern
    """What follows a cue that names a point on a scale (`never (0)`), which is no negation."""
    significance: frozenset[str]

    @field_validator("cues", "significance", "leading_subordinators", mode="before")
    @classmethod
    def _lowered(cls, words: list[str]) -> frozenset[str]:
        return frozenset(word.lower() for word in words)


class DirectionAxis(RulesModel):
    axis: str
    family: str | None = None
    """Axes of one family speak of one thing (`increased` and `larger`); None: the axis alone."""
    up: frozenset[str]
    down: frozenset[str]

    @field_validator("up", "down", mode="before")
    @classmethod
    def _lowered(cls, words: list[str]) -> frozenset[str]:
        return frozenset(word.lower() for word in words)


class IdiomRules(RulesModel):
    no_direction: list[str] = []
    """Phrases whose direction word says no direction (`above all`, `at least`)."""

    @property
    def no_direction_pattern(self) -> re.Pattern[str] | None:
        if not self.no_direction:
            return None
        return re.compile("|".join(rf"\b{re.escape(phrase)}\b" for phrase in self.no_direction), re.IGNORECASE)


class NumberRules(RulesModel):
    words: dict[str, float]
    multipliers: dict[str, float]


class KeyTermRules(RulesModel):
    generic: frozenset[str]


class MeaningRules(RulesModel):
    min_agreement: Annotated[float, Field(gt=0, le=1)]
    """Cosine between a claim and its best passage sentence (or two) from which the `meaning`
    judge counts support where the rules found not enough evidence."""


class AuditRules(RulesModel):
    thresholds: AuditThresholds
    negation: NegationRules
    direction: list[DirectionAxis]
    idioms: IdiomRules = IdiomRules()
    numbers: NumberRules
    units: dict[str, str]
    key_terms: KeyTermRules
    meaning: MeaningRules | None = None
    """For the `meaning` judge only, which says so where a copy of the rules lacks it."""

    @field_validator("units", mode="before")
    @classmethod
    def _units_lowered(cls, units: dict[str, str]) -> dict[str, str]:
        return {written.lower(): unit for written, unit in units.items()}

    @property
    def clause_break(self) -> re.Pattern[str]:
        return re.compile("|".join(f"(?:{pattern.pattern})" for pattern in self.negation.clause_breaks), re.IGNORECASE)


def load_audit_rules(path: Path | None = None) -> AuditRules:
    """`rules/audit.toml`, or the user's copy at `path`."""
    path = path or DEFAULT_AUDIT_RULES_PATH
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise RulesError(f"cannot read audit rules {path}: {error.strerror}; pass an existing file to --audit-rules") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise RulesError(f"audit rules {path} are not valid TOML ({error}); fix the file or copy rules/audit.toml again") from None
    try:
        return AuditRules.model_validate(data)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise RulesError(f"audit rules {path}: {where}: {problem['msg']}; compare with rules/audit.toml") from None
