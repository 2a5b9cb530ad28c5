"""Load `rules/*.toml` into one validated, compiled `Rules` model.

Stages receive the loaded rules and never read files themselves. Every regex is compiled once,
here, and a bad one is reported with the file and the rule that holds it.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from pipeline.errors import RulesError
from pipeline.models import SectionType

DEFAULT_RULES_PATH = Path(__file__).resolve().parent.parent / "rules" / "default.toml"


def _compile(pattern: str, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    try:
        return re.compile(pattern, flags)
    except re.error as error:
        raise ValueError(f"invalid regular expression {pattern!r}: {error}") from None


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
    pattern: str

    @field_validator("pattern")
    @classmethod
    def _valid_regex(cls, pattern: str) -> str:
        _compile(pattern)
        return pattern

    _regex: re.Pattern[str] = PrivateAttr()

    def model_post_init(self, context: object) -> None:
        self._regex = _compile(self.pattern)

    @property
    def regex(self) -> re.Pattern[str]:
        return self._regex


class AnchorRule(PatternRule):
    """A strict anchor: the whole heading key must match (see `Rules.anchor_for`)."""


class PageMarkerRule(RulesModel):
    name: str
    pattern: str
    first_page: Annotated[int, Field(ge=0)] = 1
    _regex: re.Pattern[str] = PrivateAttr()

    @field_validator("pattern")
    @classmethod
    def _names_the_page(cls, pattern: str) -> str:
        if "page" not in _compile(pattern).groupindex:
            raise ValueError(f"pattern {pattern!r} must name the page number in a group `(?P<page>...)`")
        return pattern

    def model_post_init(self, context: object) -> None:
        self._regex = _compile(self.pattern)

    @property
    def regex(self) -> re.Pattern[str]:
        return self._regex


class NormalizeRules(RulesModel):
    heading_numbering: str
    caption_pattern: str
    running_line_max_words: Annotated[int, Field(ge=0)]
    running_line_min_repeats: Annotated[int, Field(ge=2)]
    running_line_page_number: str = ""
    """Off where empty: a rules file written before it existed keeps what it did."""
    page_number_pattern: str

    @field_validator("heading_numbering", "caption_pattern", "running_line_page_number", "page_number_pattern")
    @classmethod
    def _valid_regex(cls, pattern: str) -> str:
        _compile(pattern)
        return pattern

    _heading_numbering_regex: re.Pattern[str] = PrivateAttr()
    _caption_regex: re.Pattern[str] = PrivateAttr()
    _running_line_page_number_regex: re.Pattern[str] = PrivateAttr()
    _page_number_regex: re.Pattern[str] = PrivateAttr()

    def model_post_init(self, context: object) -> None:
        self._heading_numbering_regex = _compile(self.heading_numbering)
        self._caption_regex = _compile(self.caption_pattern)
        self._running_line_page_number_regex = _compile(self.running_line_page_number)
        self._page_number_regex = _compile(self.page_number_pattern)

    @property
    def heading_numbering_regex(self) -> re.Pattern[str]:
        return self._heading_numbering_regex

    @property
    def caption_regex(self) -> re.Pattern[str]:
        return self._caption_regex

    @property
    def running_line_page_number_regex(self) -> re.Pattern[str]:
        return self._running_line_page_number_regex

    @property
    def page_number_regex(self) -> re.Pattern[str]:
        return self._page_number_regex


class SentenceRules(RulesModel):
    abbreviations: list[str]

    @field_validator("abbreviations")
    @classmethod
    def _lowercase(cls, abbreviations: list[str]) -> list[str]:
        return [abbreviation.lower() for abbreviation in abbreviations]


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
    source: str = Field(default="", exclude=True)
    """The file the rules came from, for messages."""
    sha256: str = Field(default="", exclude=True)
    """Hash of the rules file's bytes, stored with every document it produced."""

    # Each rule beside its compiled pattern: reading `rule.regex` goes through pydantic's
    # private-attribute lookup (1.8 µs), and these two run for every heading of every paper.
    _anchor_patterns: tuple[tuple[AnchorRule, re.Pattern[str]], ...] = PrivateAttr()
    _classify_patterns: tuple[tuple[PatternRule, re.Pattern[str]], ...] = PrivateAttr()

    def model_post_init(self, context: object) -> None:
        self._anchor_patterns = tuple((rule, rule.regex) for rule in self.anchors)
        self._classify_patterns = tuple((rule, rule.regex) for rule in self.classify)

    def anchor_for(self, heading_key: str) -> AnchorRule | None:
        """The first strict anchor whose pattern matches the whole heading key."""
        return next((rule for rule, regex in self._anchor_patterns if regex.fullmatch(heading_key)), None)

    def classify_heading(self, heading_key: str) -> PatternRule | None:
        """The first broad pattern found anywhere in the heading key."""
        return next((rule for rule, regex in self._classify_patterns if regex.search(heading_key)), None)


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
    return rules.model_copy(update={"source": str(path), "sha256": hashlib.sha256(content).hexdigest()})
