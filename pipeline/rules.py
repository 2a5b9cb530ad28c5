"""Load `rules/*.toml` into one validated, compiled `Rules` model.

Stages receive the loaded rules and never read files themselves. Every regex is compiled once,
here, and a bad one is reported with the file and the rule that holds it.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator, model_validator

from pipeline.errors import RulesError
from pipeline.models import SectionType

DEFAULT_RULES_PATH = Path(__file__).resolve().parent.parent / "rules" / "default.toml"


def _compile(pattern: str | re.Pattern[str]) -> re.Pattern[str]:
    """A rules file's pattern, compiled once here, matched case-insensitively."""
    if isinstance(pattern, re.Pattern):
        return pattern
    if not isinstance(pattern, str):
        raise ValueError(f"a pattern must be a string, not {pattern!r}")
    try:
        return re.compile(pattern, re.IGNORECASE)
    except re.error as error:
        raise ValueError(f"invalid regular expression {pattern!r}: {error}") from None


def _compile_unless_empty(pattern: str | re.Pattern[str] | None) -> re.Pattern[str] | None:
    return None if pattern in (None, "") else _compile(pattern)


Pattern = Annotated[re.Pattern[str], BeforeValidator(_compile)]
"""A regular expression from a rules file, compiled (case-insensitive) when the rules are loaded."""
OptionalPattern = Annotated[re.Pattern[str] | None, BeforeValidator(_compile_unless_empty)]
"""A pattern that is off where the rules file leaves it out or empty."""


class RulesModel(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ChunkRules(RulesModel):
    target_min_words: Annotated[int, Field(gt=0)]
    target_max_words: Annotated[int, Field(gt=0)]
    hard_max_words: Annotated[int, Field(gt=0)]

    @model_validator(mode="after")
    def _sizes_are_ordered(self) -> ChunkRules:
        if not self.target_min_words <= self.target_max_words <= self.hard_max_words:
            raise ValueError("sizes must satisfy target_min_words <= target_max_words <= hard_max_words")
        return self


class AbsorbRules(RulesModel):
    absorbing_types: list[SectionType]
    stop_at_types: list[SectionType]
    max_siblings: Annotated[int, Field(ge=0)]
    max_words: Annotated[int, Field(ge=0)]
    only_childless_anchor: bool = True


class InheritRules(RulesModel):
    meta_max_words: Annotated[int, Field(gt=0)] = 3000


class PatternRule(RulesModel):
    """A named regex that gives a heading a section type."""

    name: str
    type: SectionType
    pattern: Pattern


class AnchorRule(PatternRule):
    """A strict anchor: the whole heading key must match (see `Rules.anchor_for`)."""


class PageMarkerRule(RulesModel):
    name: str
    pattern: Pattern
    first_page: Annotated[int, Field(ge=0)] = 1

    @field_validator("pattern")
    @classmethod
    def _names_the_page(cls, pattern: re.Pattern[str]) -> re.Pattern[str]:
        if "page" not in pattern.groupindex:
            raise ValueError(f"pattern {pattern.pattern!r} must name the page number in a group `(?P<page>...)`")
        return pattern


class NormalizeRules(RulesModel):
    heading_numbering: Pattern
    caption_pattern: Pattern
    running_line_max_words: Annotated[int, Field(ge=0)]
    running_line_min_repeats: Annotated[int, Field(ge=2)]
    running_line_page_number: OptionalPattern = None
    """Off where absent: a rules file written before it existed keeps what it did."""
    page_number_pattern: Pattern


class SentenceRules(RulesModel):
    abbreviations: list[str]

    @field_validator("abbreviations")
    @classmethod
    def _lowercase(cls, abbreviations: list[str]) -> list[str]:
        return [abbreviation.lower() for abbreviation in abbreviations]


class SpellingPair(RulesModel):
    """A British and an American way of writing the same start or end of a word (`tumour`,
    `tumor`), so that a search for one finds the other."""

    british: Annotated[str, Field(min_length=1, pattern=r"^[a-z]+$")]
    american: Annotated[str, Field(min_length=1, pattern=r"^[a-z]+$")]
    at: Literal["start", "end"]
    """Where in a word the two forms sit."""


class SearchRules(RulesModel):
    """What `search` reads; none of it changes what an ingest stores."""

    spelling: list[SpellingPair] = Field(default_factory=list)
    spelling_min_stem: Annotated[int, Field(ge=1)] = 3
    """Letters a word must keep beside the changed part, so `size` is not taken for `sise`."""


class Rules(RulesModel):
    """Everything the stages may be tuned by; one file, loaded once."""

    chunk: ChunkRules
    absorb: AbsorbRules
    inherit: InheritRules = Field(default_factory=InheritRules)
    anchors: list[AnchorRule]
    classify: list[PatternRule]
    normalize: NormalizeRules
    page_markers: list[PageMarkerRule] = Field(default_factory=list)
    sentences: SentenceRules
    search: SearchRules = Field(default_factory=SearchRules)
    source: str = Field(default="", exclude=True)
    """The file the rules came from, for messages."""
    sha256: str = Field(default="", exclude=True)
    """Hash of the rules an ingest applies (all but `[search]`), stored with every document it
    produced: a paper is processed again when it changes."""

    def anchor_for(self, heading_key: str) -> AnchorRule | None:
        """The first strict anchor whose pattern matches the whole heading key."""
        return next((rule for rule in self.anchors if rule.pattern.fullmatch(heading_key)), None)

    def classify_heading(self, heading_key: str) -> PatternRule | None:
        """The first broad pattern found anywhere in the heading key."""
        return next((rule for rule in self.classify if rule.pattern.search(heading_key)), None)


def _describe(error: ValidationError, data: dict) -> str:
    problems = []
    for item in error.errors():
        location = list(item["loc"])
        key = ".".join(str(part) for part in location)
        # Name an entry of an array of tables by its `name`, which is what a user searches for.
        if len(location) >= 2 and isinstance(location[1], int) and location[0] in data:
            entries = data[location[0]]
            if location[1] < len(entries) and isinstance(entries[location[1]], dict):
                name = entries[location[1]].get("name")
                if name:
                    key = f"{location[0]}[{name!r}]" + "".join(f".{part}" for part in location[2:])
        message = item["msg"].removeprefix("Value error, ")
        if item["type"] == "extra_forbidden":
            message = "unknown key (check its spelling against rules/default.toml)"
        problems.append(f"{key}: {message}")
    return "; ".join(problems)


def load_rules(path: Path | str = DEFAULT_RULES_PATH) -> Rules:
    """Read, validate and compile a rules file; raise `RulesError` naming the file and key."""
    path = Path(path)
    try:
        content = path.read_bytes()
    except OSError as error:
        raise RulesError(f"cannot read rules file {path}: {error.strerror}; pass --rules with an existing file") from None
    try:
        data = tomllib.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise RulesError(f"rules file {path} is not valid TOML: {error}") from None
    try:
        rules = Rules.model_validate(data)
    except ValidationError as error:
        raise RulesError(f"rules file {path}: {_describe(error, data)}") from None
    return rules.model_copy(update={"source": str(path), "sha256": _ingest_rules_sha256(data)})


def _ingest_rules_sha256(data: dict) -> str:
    """The hash of what the rules file says to ingests: its values, not its comments or layout,
    and not `[search]`, which no stored row depends on."""
    applied = {key: value for key, value in data.items() if key != "search"}
    return hashlib.sha256(json.dumps(applied, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
