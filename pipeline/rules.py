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

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

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
    unstructured_min_words: Annotated[int, Field(gt=0)] = 1500
    """A paper of more body words than this with no section heading, or with this many words
    before its first one, is reported as unstructured (`inspect`, `report`, the run summary)."""

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


class CaptionRules(RulesModel):
    """Figure and table captions: one vocabulary of labels, and the two tests written around it."""

    labels: str = r"fig(?:ure)?s?\.?|tab(?:le)?\.?|scheme|plate|chart|box|supplementary (?:fig(?:ure)?\.?|table)"
    """The words a caption opens with, as alternatives of one regular expression."""
    paragraph: Pattern = Field(
        default=r"^[*_]*(?:{labels})\s*s?\d+[a-z]?(?:[*_]*\s*[.:|—–]|[*_]+\s|\s+(?-i:[A-Z(]))", validate_default=True
    )
    """Normalize's test that a paragraph is a caption, by how it starts; `{labels}` stands for `labels`."""
    pdf_start: Pattern = Field(default=r"^(?:{labels})\.?\s*[A-Z]?\d", validate_default=True)
    """PDF extraction's test that a line or block starts like a caption, whatever follows its number."""

    @field_validator("labels")
    @classmethod
    def _labels_compile(cls, labels: str) -> str:
        _compile(labels)
        return labels

    @field_validator("paragraph", "pdf_start", mode="before")
    @classmethod
    def _fill_in_labels(cls, template: object, info: ValidationInfo) -> object:
        if isinstance(template, str) and "labels" in info.data:
            return template.replace("{labels}", info.data["labels"])
        return template


class NormalizeRules(RulesModel):
    heading_numbering: Pattern
    caption_pattern: OptionalPattern = None
    """`[captions] paragraph`, filled in when the rules are loaded; a rules file written before
    [captions] existed sets its own here."""
    running_line_max_words: Annotated[int, Field(ge=0)]
    running_line_min_repeats: Annotated[int, Field(ge=2)]
    running_line_page_number: OptionalPattern = None
    """Off where absent: a rules file written before it existed keeps what it did."""
    page_number_pattern: Pattern


class PdfRunningLineRules(RulesModel):
    """Running heads and feet: margin lines that recur at the same height on other pages."""

    margin: Annotated[float, Field(gt=0, lt=0.5)] = 0.15
    """Height of the band at the top and at the bottom of a page where running lines are sought,
    as a share of the page height."""
    min_pages: Annotated[int, Field(ge=2)] = 3
    """Pages a margin line must be found on (the same text, digits aside, at the same height)."""
    short_document_min_pages: Annotated[int, Field(ge=2)] = 2
    """Pages it must be found on in a document of at most `min_pages` pages."""
    height_tolerance: Annotated[float, Field(ge=0, le=0.1)] = 0.015
    """How far two pages may set the same line apart and it still counts as the same height, as
    a share of the page height."""
    min_height_tolerance: Annotated[float, Field(ge=0, le=50)] = 4.0
    """The least that tolerance is, in points."""

    @model_validator(mode="after")
    def _short_documents_ask_no_more(self) -> PdfRunningLineRules:
        if self.short_document_min_pages > self.min_pages:
            raise ValueError("short_document_min_pages must not exceed min_pages")
        return self


class PdfColumnRules(RulesModel):
    """Column gutters: vertical strips that the lines of a column leave empty."""

    min_text_width: Annotated[float, Field(gt=0, le=200)] = 20.0
    """A page whose text is narrower than this shows no gutter of its own, in body font sizes."""
    gutter_min_width: Annotated[float, Field(gt=0, le=20)] = 0.5
    """Narrowest gutter, in body font sizes."""
    gutter_crossing_share: Annotated[float, Field(ge=0, lt=1)] = 0.12
    """Characters of narrow lines that may cross a gutter (centred captions, figure text), as a
    share of the characters of all narrow lines."""
    narrow_line_max_width: Annotated[float, Field(gt=0, le=1)] = 0.55
    """A line narrower than this share of the text width may be a line of a column; wider ones
    (the title, a full-width abstract, wide figures) may cross a gutter."""
    narrow_line_min_chars: Annotated[int, Field(ge=1)] = 10
    """Fewest characters of a line that must keep out of a gutter, in characters: shorter ones
    (table cells, figure labels, superscripts) may sit anywhere."""
    weak_page_narrow_share: Annotated[float, Field(ge=0, le=1)] = 0.3
    """On a page without gutters of its own, a gutter seen on other pages is sought among its
    narrow lines where they hold at least this share of its characters; otherwise only a strip
    that nothing crosses (a margin column) counts."""


class PdfParagraphRules(RulesModel):
    """Where the rows of one column are cut into blocks."""

    line_gap: Annotated[float, Field(ge=1, le=5)] = 1.3
    """A step from one baseline to the next of more than this many line pitches (the body's
    line spacing at the line's size) starts a block."""
    indent: Annotated[float, Field(gt=0, le=10)] = 0.7
    """A first line indented by more than this, after a finished or short line, starts a
    paragraph, in font sizes."""
    size_change: Annotated[float, Field(gt=0, lt=1)] = 0.06
    """Rows whose font sizes differ by more than this share of the larger are different blocks."""
    short_line: Annotated[float, Field(ge=0, lt=1)] = 0.15
    """A line that stops more than this share of its column's width (and three font sizes) short
    of the column's right edge ends a paragraph."""


class PdfContinuationRules(RulesModel):
    """Paragraphs cut by the end of a column or page, joined to the part that carries on."""

    max_floats_between: Annotated[int, Field(ge=0, le=50)] = 6
    """Most blocks (captions, tables, footnotes, labels) that may stand between the two parts."""
    max_size_difference: Annotated[float, Field(ge=0, le=1)] = 0.1
    """Most the parts' font sizes may differ by, in body font sizes."""
    small_print: Annotated[float, Field(gt=0, le=1)] = 0.9
    """Text under this share of the body size is small print (footnotes, figure text): it may
    stand between the parts, and small print only continues in small print."""


class PdfAsideRules(RulesModel):
    """Asides: small print set beside the body text (margin notes, side boxes), kept apart from it."""

    max_size: Annotated[float, Field(gt=0, le=1)] = 0.9
    """An aside is set smaller than this share of the body size; lines this large are body lines."""
    min_chars: Annotated[int, Field(ge=1)] = 10
    """Fewest characters of an aside's line, and of a body line it is measured against: shorter
    pieces (table cells, figure labels) are left where they are."""
    max_width: Annotated[float, Field(gt=0, le=1)] = 0.6
    """An aside's line is at most this share of the width of the body lines beside it: small print
    as wide as the body is a column of its own (the references)."""


class PdfHeadingRules(RulesModel):
    """What a heading looks like, beside the outline: larger than body, or bold or capitals."""

    min_size: Annotated[float, Field(gt=0, le=5)] = 0.95
    """Smallest heading, as a share of the body size."""
    larger_size: Annotated[float, Field(gt=0, le=5)] = 1.07
    """From this share of the body size up, size alone makes a heading; below it, bold or capitals must."""
    max_words: Annotated[int, Field(ge=1)] = 16
    """Most words in a heading."""
    max_chars: Annotated[int, Field(ge=1)] = 160
    """Most characters in a heading."""
    max_rows: Annotated[int, Field(ge=1)] = 3
    """Most lines a heading wraps onto."""

    @model_validator(mode="after")
    def _sizes_are_ordered(self) -> PdfHeadingRules:
        if self.min_size > self.larger_size:
            raise ValueError("min_size must not exceed larger_size")
        return self


class PdfTitleRules(RulesModel):
    """The paper title: the largest text in the upper part of page 1, above the abstract."""

    min_size: Annotated[float, Field(gt=0, le=10)] = 1.15
    """Smallest title, as a share of the body size: page 1 has no title without text this large."""
    max_top: Annotated[float, Field(gt=0, le=1)] = 0.6
    """Lowest a title may start, as a share of the page height from its top."""
    min_words: Annotated[int, Field(ge=1)] = 3
    """Fewest words in a title."""
    max_rows: Annotated[int, Field(ge=1)] = 6
    """Most lines a title wraps onto."""


class PdfFrontMatterRules(RulesModel):
    """Page 1's front matter (title, authors, affiliations) ends where the paper's body opens."""

    opening_anchors: list[str] = Field(default_factory=lambda: ["abstract", "introduction"])
    """Names of the anchor rules ([[anchors]]) whose headings open the body."""
    opening_words: list[str] = Field(default_factory=lambda: ["summary", "motivation", "overview"])
    """Headings that open the body though no anchor holds them."""

    @field_validator("opening_words")
    @classmethod
    def _lowercase(cls, words: list[str]) -> list[str]:
        return [word.casefold() for word in words]


class PdfRules(RulesModel):
    """How PDF extraction reads layout and typography. Everything has a default, so a rules file
    without [pdf] reads PDFs as the default rules do."""

    running_lines: PdfRunningLineRules = Field(default_factory=PdfRunningLineRules)
    columns: PdfColumnRules = Field(default_factory=PdfColumnRules)
    paragraphs: PdfParagraphRules = Field(default_factory=PdfParagraphRules)
    continuations: PdfContinuationRules = Field(default_factory=PdfContinuationRules)
    asides: PdfAsideRules = Field(default_factory=PdfAsideRules)
    headings: PdfHeadingRules = Field(default_factory=PdfHeadingRules)
    title: PdfTitleRules = Field(default_factory=PdfTitleRules)
    front_matter: PdfFrontMatterRules = Field(default_factory=PdfFrontMatterRules)


class SentenceRules(RulesModel):
    abbreviations: list[str]

    @field_validator("abbreviations")
    @classmethod
    def _lowercase(cls, abbreviations: list[str]) -> list[str]:
        return [abbreviation.lower() for abbreviation in abbreviations]


class ReferenceRules(RulesModel):
    """How the bibliography is found and its entries read."""

    anchors: list[str] = Field(default_factory=lambda: ["references"])
    """Anchor rules (by name) whose sections hold the bibliography."""
    label: Pattern = Field(default=r"^\[(?P<label>[^\]\s]{1,12})\]\s*")
    """The label an entry prints before its text, in a group `label` (`[12]`); a numbered list's
    numbers are labels too."""
    first_author: Pattern
    """The first author's name as the entry writes it, in a group `author`."""
    trailing_min_entries: int = Field(default=5, ge=2)
    """A paper with no bibliography heading whose last blocks are this many entries or more
    (each with a label or an author, and a year) has them as its bibliography."""
    year_within: int = Field(default=300, ge=20)
    """How far into such an entry (in characters) its year must show."""

    @field_validator("label")
    @classmethod
    def _names_the_label(cls, pattern: re.Pattern[str]) -> re.Pattern[str]:
        if "label" not in pattern.groupindex:
            raise ValueError(f"pattern {pattern.pattern!r} must name the label in a group `(?P<label>...)`")
        return pattern

    @field_validator("first_author")
    @classmethod
    def _names_the_author(cls, pattern: re.Pattern[str]) -> re.Pattern[str]:
        if "author" not in pattern.groupindex:
            raise ValueError(f"pattern {pattern.pattern!r} must name the author in a group `(?P<author>...)`")
        return pattern


class CitationRules(RulesModel):
    """In-text citation markers. The patterns are written around three fragments, `{numbers}`,
    `{surname}` and `{year}`, filled in when the rules are loaded."""

    numbers: str
    """A numeric marker's members: numbers and ranges with `,` or `;` between them."""
    surname: str
    """A surname as a citation writes it."""
    year: str
    """A year as a citation writes it, with its letter (`2020a`)."""
    brackets: Pattern
    """A numeric marker in brackets (`[3-5, 9]`), its members in a group `members`."""
    parentheses: Pattern
    """A numeric marker in parentheses (`(3)`): a citation only in a paper that cites with no
    brackets and numbers no equations."""
    ref_ids: Pattern
    """A marker that names entries by id (`[R1]`, `[R1, R3]`), in a group `ids`."""
    author_year: Pattern
    """One citation of a parenthesis's `;`-separated list: groups `first`, `second`, `years`."""
    narrative: Pattern
    """`Smith et al. (2020)` in the running text: groups `first`, `second`, `years`. Counted only
    where the surname is a first author of the bibliography, since a capitalised word before a
    year is often none."""
    equations: Pattern
    """A mention of a numbered equation (`Eq. (3)`): where the paper has one, numbers in
    parentheses are equations, not citations."""
    max_range: Annotated[int, Field(ge=1)] = 50
    """The most members a range (`[3-7]`) expands to; a longer one is no citation."""

    @field_validator("numbers", "surname", "year")
    @classmethod
    def _fragment_compiles(cls, fragment: str) -> str:
        _compile(fragment)
        return fragment

    @field_validator("brackets", "parentheses", "ref_ids", "author_year", "narrative", mode="before")
    @classmethod
    def _fill_in_fragments(cls, template: object, info: ValidationInfo) -> object:
        if isinstance(template, str):
            for name in ("numbers", "surname", "year"):
                if name in info.data:
                    template = template.replace("{" + name + "}", info.data[name])
        return template


class LinkRules(RulesModel):
    """Cross-references in the text. Each pattern names what it points to in a group `numbers`
    (several where the text lists them: `Figures 1 and 2`) or `id`."""

    table: Pattern
    figure: Pattern
    supplementary: Pattern
    """Material published beside the paper (`Supplementary Table S1`, `S2 Fig`)."""
    section: Pattern
    appendix: Pattern
    equation: Pattern
    anchor: Pattern
    """An explicit id: a section or paragraph id (`[see S2-P1]`) or a label a heading or
    paragraph starts with (`@C03`), in a group `id`."""
    caption_label: Pattern
    """What a caption chunk is the caption of, by how it starts: groups `word` and `number`."""
    max_range: Annotated[int, Field(ge=1)] = 20
    """The most members a range (`Figs. 1-3`) expands to."""


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
    captions: CaptionRules = Field(default_factory=CaptionRules)
    normalize: NormalizeRules
    page_markers: list[PageMarkerRule] = Field(default_factory=list)
    sentences: SentenceRules
    pdf: PdfRules = Field(default_factory=PdfRules)
    references: ReferenceRules
    citations: CitationRules
    links: LinkRules
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


# Tables a rules file written before they existed may lack: it reads them from the default rules,
# so that it goes on working as it did, with what the pipeline has learnt since.
_TABLES_FROM_THE_DEFAULT = ("references", "citations", "links")


def load_rules(path: Path | str = DEFAULT_RULES_PATH) -> Rules:
    """Read, validate and compile a rules file; raise `RulesError` naming the file and key."""
    path = Path(path)
    data = _read_toml(path)
    missing = [table for table in _TABLES_FROM_THE_DEFAULT if table not in data]
    if missing and path.resolve() != DEFAULT_RULES_PATH.resolve():
        defaults = _read_toml(DEFAULT_RULES_PATH)
        data = {**data, **{table: defaults[table] for table in missing if table in defaults}}
    try:
        rules = Rules.model_validate(data)
    except ValidationError as error:
        raise RulesError(f"rules file {path}: {_describe(error, data)}") from None
    return rules.model_copy(update={"source": str(path), "sha256": _ingest_rules_sha256(data)})


def _read_toml(path: Path) -> dict:
    try:
        content = path.read_bytes()
    except OSError as error:
        raise RulesError(f"cannot read rules file {path}: {error.strerror}; pass --rules with an existing file") from None
    try:
        return tomllib.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise RulesError(f"rules file {path} is not valid TOML: {error}") from None


def _ingest_rules_sha256(data: dict) -> str:
    """The hash of what the rules file says to ingests: its values, not its comments or layout,
    and not `[search]`, which no stored row depends on."""
    applied = {key: value for key, value in data.items() if key != "search"}
    return hashlib.sha256(json.dumps(applied, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
