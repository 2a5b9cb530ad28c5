"""Every table of `rules/*.toml` as one validated, compiled `Rules` model, and `load_rules`.

Stages receive the loaded rules and never read files themselves. Every regex is compiled once,
here, and a bad one is reported with the file and the rule that holds it. `pipeline.rules` loads
this module on first use: `search` reads `[search]` alone (`pipeline/rules/search.py`).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Annotated

from pydantic import Field, ValidationInfo, field_validator, model_validator

from pipeline import DEFAULT_RULES_PATH
from pipeline.records.kinds import SectionType
from pipeline.rules.base import OptionalPattern, Pattern, RulesModel, compile_pattern, naming_group
from pipeline.rules.chunk_sizes import ChunkRules
from pipeline.rules.files import read_toml, validated
from pipeline.rules.metadata import MetadataRules
from pipeline.rules.pdf import PdfRules
from pipeline.rules.search import SearchRules
from pipeline.rules.sources import CitationRules, LinkRules, ReferenceRules, SentenceRules


class AbsorbRules(RulesModel):
    absorbing_types: list[SectionType]
    stop_at_types: list[SectionType]
    max_siblings: Annotated[int, Field(ge=0)]
    max_words: Annotated[int, Field(ge=0)]
    only_childless_anchor: bool = True
    stop_at_numbered_sibling: bool = True
    """An anchor numbered as a section of its own (`3 Results`) stops at a sibling with another
    such number (`5 Related Work`): the author made it a section beside the anchor, not one of
    its parts, which a converter that flattened the nesting numbers `3.1`."""


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
        return naming_group(pattern, "page", "the page number")


class CaptionRules(RulesModel):
    """Figure and table captions: one vocabulary of labels, and the two tests written around it."""

    labels: str = r"fig(?:ure|ura|ur)?s?\.?|tab(?:le(?:au)?|ell[ae]|ela|el|la)?\.?|abb(?:ildung)?\.?|gr[aá]fico|quadro|cuadro|scheme|esquema|plate|chart|box"
    """The words a caption opens with, as alternatives of one regular expression."""
    paragraph: Pattern = Field(
        default=r"^[*_]*(?:(?:supplement(?:al|ary)|suppl\.|supporting)\s+)?(?:{labels})\s*-?\s*(?:(?-i:[A-Z])?\d+[a-z]?|s\d+[a-z]?|(?-i:[IVXL]{1,6})\b)(?:[*_]*\s*(?:[.:|]|[—–-](?!\s*\d))|[*_]+\s|\s+(?-i:[A-Z(]))",
        validate_default=True,
    )
    """Normalize's test that a paragraph is a caption, by how it starts; `{labels}` stands for `labels`."""
    pdf_start: Pattern = Field(
        default=r"^(?:(?:supplement(?:al|ary)|suppl\.|supporting)\s+)?(?:{labels})\.?\s*-?\s*(?:[A-Z]?\d|(?-i:[IVXL]{1,6})\b)",
        validate_default=True,
    )
    """PDF extraction's test that a line or block starts like a caption, whatever follows its number."""

    @field_validator("labels")
    @classmethod
    def _labelscompile_pattern(cls, labels: str) -> str:
        compile_pattern(labels)
        return labels

    @field_validator("paragraph", "pdf_start", mode="before")
    @classmethod
    def _fill_in_labels(cls, template: object, info: ValidationInfo) -> object:
        if isinstance(template, str) and "labels" in info.data:
            return template.replace("{labels}", info.data["labels"])
        return template


# What `[normalize] heading_numbering` held before a heading's numbering became one grammar in
# code (pipeline/text/numbering.py): a rules file that still holds it, unchanged, reads as
# it did; one that changed it is told that the key is no longer read.
_FORMER_HEADING_NUMBERING = r"^(?:\d+(?:\.\d+)*\.?|[ivxlc]+\.|[a-z]\.|[a-z]\))\s+"


class NormalizeRules(RulesModel):
    caption_pattern: OptionalPattern = None
    """`[captions] paragraph`, filled in when the rules are loaded; a rules file written before
    [captions] existed sets its own here."""
    running_line_max_words: Annotated[int, Field(ge=0)]
    running_line_min_repeats: Annotated[int, Field(ge=2)]
    running_line_page_number: OptionalPattern = None
    """Off where absent: a rules file written before it existed keeps what it did."""
    page_number_pattern: Pattern

    @model_validator(mode="before")
    @classmethod
    def _without_former_heading_numbering(cls, data: object) -> object:
        if not isinstance(data, dict) or "heading_numbering" not in data:
            return data
        if data["heading_numbering"] != _FORMER_HEADING_NUMBERING:
            raise ValueError(
                "heading_numbering is no longer read: a heading's numbering is the grammar of "
                "pipeline/text/numbering.py; delete the key"
            )
        return {key: value for key, value in data.items() if key != "heading_numbering"}


class Rules(RulesModel):
    """Everything the stages may be tuned by; one file, loaded once."""

    chunk: ChunkRules
    absorb: AbsorbRules
    inherit: InheritRules = Field(default_factory=InheritRules)
    anchors: list[AnchorRule]
    classify: list[PatternRule]
    captions: CaptionRules = Field(default_factory=CaptionRules)
    normalize: NormalizeRules
    page_markers: list[PageMarkerRule] = Field(default_factory=list)
    sentences: SentenceRules
    pdf: PdfRules = Field(default_factory=PdfRules)
    references: ReferenceRules
    citations: CitationRules
    links: LinkRules
    metadata: MetadataRules = Field(default_factory=MetadataRules)
    search: SearchRules = Field(default_factory=SearchRules)
    source: str = Field(default="", exclude=True)
    """The file the rules came from, for messages."""
    sha256: str = Field(default="", exclude=True)
    """Hash of the rules an ingest applies (all but `[search]`), stored with every document it
    produced: a paper is processed again when it changes."""

    @field_validator("normalize")
    @classmethod
    def _captions_come_from_the_caption_rules(cls, normalize: NormalizeRules, info: ValidationInfo) -> NormalizeRules:
        captions = info.data.get("captions")
        if captions is None:
            return normalize  # [captions] is invalid and reported on its own
        if normalize.caption_pattern is None:
            return normalize.model_copy(update={"caption_pattern": captions.paragraph})
        if captions.model_fields_set:
            raise ValueError("caption_pattern: captions are described in [captions]; remove caption_pattern from [normalize]")
        return normalize

    @field_validator("pdf")
    @classmethod
    def _opening_anchors_exist(cls, pdf: PdfRules, info: ValidationInfo) -> PdfRules:
        names = [rule.name for rule in info.data.get("anchors", ())]
        unknown = [name for name in pdf.front_matter.opening_anchors if name not in names]
        if "anchors" in info.data and unknown:
            raise ValueError(
                f"front_matter.opening_anchors: no anchor rule is named {', '.join(map(repr, unknown))}; "
                f"the anchors are {', '.join(names)}"
            )
        return pdf

    def anchors_named(self, names: list[str]) -> list[AnchorRule]:
        """The anchor rules of these names, in the rules' order."""
        return [rule for rule in self.anchors if rule.name in names]

    def anchor_for(self, heading_key: str) -> AnchorRule | None:
        """The first strict anchor whose pattern matches the whole heading key (a
        `HeadingMatcher` remembers the answer for a run)."""
        return next((rule for rule in self.anchors if rule.pattern.fullmatch(heading_key)), None)

    def classify_heading(self, heading_key: str) -> PatternRule | None:
        """The first broad pattern found anywhere in the heading key."""
        return next((rule for rule in self.classify if rule.pattern.search(heading_key)), None)


# Tables a rules file written before they existed may lack: it reads them from the default rules,
# so that it goes on working as it did, with what the pipeline has learnt since.
_TABLES_FROM_THE_DEFAULT = ("references", "citations", "links")


def load_rules(path: Path | str = DEFAULT_RULES_PATH, overrides: dict | None = None) -> Rules:
    """Read, validate and compile a rules file; raise `RulesError` naming the file and key.

    `overrides` are keys a command-line option sets over the file's (`--layout model` is
    `{"pdf": {"layout": {"mode": "model"}}}`): applied before validation and hashing, so that the
    rules' hash, and with it what a run re-reads, says what was applied."""
    path = Path(path)
    data = _merged(read_toml(path), overrides or {})
    missing = [table for table in _TABLES_FROM_THE_DEFAULT if table not in data]
    if missing and path.resolve() != DEFAULT_RULES_PATH.resolve():
        defaults = read_toml(DEFAULT_RULES_PATH)
        data = {**data, **{table: defaults[table] for table in missing if table in defaults}}
    rules = validated(Rules, data, path)
    return rules.model_copy(update={"source": str(path), "sha256": _ingest_rules_sha256(data)})


def layout_overrides(mode: str | None, ocr: str | None = None) -> dict | None:
    """The rules keys that choose how PDF layout is read (`--layout`) and which pages OCR reads
    (`--ocr`), for `load_rules`; None where neither is given and the rules file's own hold."""
    pdf = {"layout": {"mode": str(mode)}} if mode is not None else {}
    if ocr is not None:
        pdf["ocr"] = {"mode": str(ocr)}
    return {"pdf": pdf} if pdf else None


def _merged(data: dict, overrides: dict) -> dict:
    merged = dict(data)
    for key, value in overrides.items():
        merged[key] = _merged(merged.get(key, {}), value) if isinstance(value, dict) else value
    return merged


def _ingest_rules_sha256(data: dict) -> str:
    """The hash of what the rules file says to ingests: its values, not its comments or layout,
    and not `[search]`, which no stored row depends on."""
    applied = {key: value for key, value in data.items() if key != "search"}
    return hashlib.sha256(json.dumps(applied, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
