"""`[sentences]`, `[references]`, `[citations]` and `[links]`: how the bibliography, in-text
citations and cross-references are found."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import Field, ValidationInfo, field_validator

from pipeline.rules.base import Pattern, PatternFragment, RulesModel, naming_group


class SentenceRules(RulesModel):
    abbreviations: list[str]

    @field_validator("abbreviations")
    @classmethod
    def _lowercase(cls, abbreviations: list[str]) -> list[str]:
        return [abbreviation.lower() for abbreviation in abbreviations]


class HangingIndentRules(RulesModel):
    """How a PDF bibliography set with a hanging indent is read: an entry starts at a line at its
    column's margin. Lengths are in the bibliography's line heights (the median of its lines')."""

    min_step: float = Field(default=0.4, gt=0)
    """Least step between the lines at the margin and the indented ones."""
    max_indent: float = Field(default=4.0, gt=0)
    """Widest hanging indent; a line that starts further in is no carried-on line of an entry."""
    column_gap: float = Field(default=4.0, gt=0)
    """Lines of a page that start further apart than this are in different columns."""
    min_lines: int = Field(default=6, ge=2)
    """Fewer lines than this show no layout to read."""
    short_end: float = Field(default=1.0, gt=0)
    """A line that ends further than this short of its column's right edge is an entry's last,
    where the bibliography is set flush: justified lines that carry an entry on end at the edge."""


_CAPITAL = "(?-i:[A-ZÀ-ÖØ-ÞĆČĐŁŃŘŚŠŞŢŽŹŻ])"
_NAME_LETTERS = "[\\w'’´¨˘ˆ˜ˇ˚`-]"
_PARTICLE = "(?:de|van|von|der|den|du|da|di|le|la|del|dos|ten|ter)"


class ReferenceRules(RulesModel):
    """How the bibliography is found and its entries read. `first_author` is written around three
    fragments, `{capital}`, `{letters}` and `{particle}`, filled in when the rules are loaded."""

    capital: PatternFragment = _CAPITAL
    """A capital that starts a name: one of Latin's, accented ones included (`Östlund`, `Šimić`)."""
    letters: PatternFragment = _NAME_LETTERS
    """A character of a name after its capital, a PDF's loose accents included (`J¨org`)."""
    particle: PatternFragment = _PARTICLE
    """A word that belongs to the surname after it (`de Waal`, `van Schaik`)."""
    anchors: list[str] = Field(default_factory=lambda: ["references"])
    """Anchor rules (by name) whose sections hold the bibliography."""
    label: Pattern = Field(default=r"^\[(?P<label>[^\]\s]{1,12})\]\s*")
    """The label an entry prints before its text, in a group `label` (`[12]`); a numbered list's
    numbers are labels too."""
    first_author: Pattern
    """The first author's name as the entry writes it, in a group `author`."""
    numbered: Pattern = Field(default=r"^\(?(?P<label>\d{1,6})[.)]?\s+(?=\S)")
    """An entry's number printed without brackets (`(12)`, `12.`, `12 `), in a group `label`: a
    label only where the entries' numbers run 1, 2, 3, …, so that an entry that starts with a
    volume or a count is not taken for one."""
    trailing_min_entries: int = Field(default=5, ge=2)
    """A paper with no bibliography heading whose last blocks are this many entries or more
    (each with a label or an author, and a year) has them as its bibliography."""
    year_within: int = Field(default=300, ge=20)
    """How far into such an entry (in characters) its year must show."""
    hanging_indent: HangingIndentRules = Field(default_factory=HangingIndentRules)

    @field_validator("first_author", mode="before")
    @classmethod
    def _fill_in_fragments(cls, template: object, info: ValidationInfo) -> object:
        return _filled_in(template, info, ("capital", "letters", "particle"))

    @field_validator("label", "numbered")
    @classmethod
    def _names_the_label(cls, pattern: re.Pattern[str]) -> re.Pattern[str]:
        return naming_group(pattern, "label", "the label")

    @field_validator("first_author")
    @classmethod
    def _names_the_author(cls, pattern: re.Pattern[str]) -> re.Pattern[str]:
        return naming_group(pattern, "author", "the author")


class CitationRules(RulesModel):
    """In-text citation markers. The patterns are written around five fragments, `{dash}`,
    `{link_mark}`, `{numbers}`, `{surname}` and `{year}`, filled in when the rules are loaded
    (`{dash}` in `numbers` too, `{link_mark}` in `year`)."""

    dash: PatternFragment = "[-‐‑‒–—―−]"
    """A character that joins a range's bounds (`3-7`, `3–7`): any dash a typesetter prints there,
    the non-breaking hyphen (`3‑7`) and the minus sign (`3−7`) among them."""
    numbers: PatternFragment
    """A numeric marker's members: numbers and ranges with `,` or `;` between them."""
    surname: PatternFragment
    """A surname as a citation writes it."""
    link_mark: PatternFragment = "[\u2190-\u21ff\u25a0-\u25ff\u2794-\u27bf\u27f0-\u27ff\u2900-\u297f\u2b00-\u2bff]"
    """A mark a converter leaves where a link stood after a citation's year (`(McPherson, 1990 ▶)`):
    an arrow or a geometric shape."""
    year: PatternFragment
    """A year as a citation writes it, with its letter (`2020a`) and any link mark after it
    (`1990 ▶`): the code reads the year's digits and letter alone."""
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
    organisation: Pattern = Field(
        default=(
            r"^(?P<first>(?-i:[A-Z])[\w.&'’-]*(?:\s+(?:(?-i:[A-Z])[\w.&'’-]*|of|for|and|on|the|in|&)){1,9}),?\s+"
            r"(?P<years>{year}(?:\s*,\s*{year})*)$"
        ),
        validate_default=True,
    )
    """A citation of a parenthesis's list by an author of several words, an organisation
    (`World Health Organization, 2010`): groups `first`, `years`. Counted only where `first`,
    whole, is the first author of an entry of that year."""
    superscript: Pattern = Field(default=r"(?P<members>\d{1,6}(?:\s*(?:{dash}|,)\s*\d{1,6})*)", validate_default=True)
    """A PDF's superscript that can be a citation, whole (`3`, `3,5`, `3–7`), its members in a
    group `members`; what else it may be is told by `superscript_not_after` and the bibliography."""
    superscript_not_after: Pattern = Field(default=r"(?:\d|(?<![^\W\d_])[^\W\d_])$")
    """What ends the text right before a superscript that is an exponent, not a citation: a
    digit (`10⁵`), a one-letter symbol (`R²`, `2s²`), a unit (`cm²`), a function (`cos²`) or a
    sign of the formula it raises (`|y|²`, `1/⁴`)."""
    superscript_not_before: Pattern = Field(default=r"(?!)")
    """What starts the text right after a superscript that is an exponent, not a citation: an
    operator or relation (`(a + b)² − c`); by default nothing."""
    superscript_maths_sign: Pattern = Field(default=r"(?!)")
    """A sign of a formula (an operator, a bar, a Greek symbol): a superscript with one on
    either side of it is inside a formula, an exponent; by default nothing is."""
    values_after: Pattern = Field(default=r"(?:[=∈≤≥≈←]|\\in)\s*$")
    """What ends the text before a list of numbers in brackets that is values, not a marker: a
    relation sign (`k ∈ [5, 10, 15]`). A list most of whose numbers are past the numbering of a
    numbered bibliography, its largest past `values_beyond` times that numbering, is values too."""
    values_beyond: Annotated[float, Field(ge=1)] = 2.0
    """How many times the bibliography's numbering the largest number of a list most of whose
    numbers are past it must pass for the list to be values (`[50, 100, 200]` of 30 entries);
    nearer, it cites entries a bibliography cut short has lost (`[39, 40]` of 36)."""
    max_range: Annotated[int, Field(ge=1)] = 50
    """The most members a range (`[3-7]`) expands to; a longer one is no citation."""
    superscript_markup: Pattern = Field(
        default=r"<sup>\s*(?P<html>{numbers})\s*</sup>|\^(?P<caret>{numbers})\^|\[\^(?P<reference>{numbers})\]", validate_default=True
    )
    """A superscript a Markdown text writes out (`<sup>12</sup>`, `^12^`, `[^12]`), its numbers
    in a group named for its form (the only group that takes part in a match): read as a PDF's
    superscript is, the markup whole the marker."""
    footnote_definition: Pattern = Field(
        default=r"(?m)^[ \t>]*(?:\[\^(?P<reference>\d{1,6})\]:|<sup>\s*(?P<html>\d{1,6})\.?\s*</sup>|\^(?P<caret>\d{1,6})\.?\^)"
    )
    """The start of a footnote the paper defines (`[^3]: …`, a line that starts `<sup>3</sup>`),
    its number in a group named for its form: a superscript of that number is the footnote's mark."""
    flattened: Pattern = Field(default=r"(?!)")
    """Superscript numbers a conversion flattened into the text (`previously3,5–7`,
    `administration.24–31`), in a group `members`; by default none is read."""
    flattened_not_after: Pattern = Field(default=r"(?<![^\W\d_])[^\W\d_]$")
    """What ends the text before flattened digits that are no citation: an abbreviation they
    number (`Fig.2`), a symbol, unit, function, residue or formula they are glued to (`m2`,
    `log2`, `Ser15`, `CO2`)."""
    flattened_name_repeats: Annotated[int, Field(ge=2)] = 2
    """How often a word written with the same number (`Cft1`, `Skp2`) makes it a name: a paper
    cites an entry after a different word each time."""
    flattened_min_markers: Annotated[int, Field(ge=1)] = 3
    """The fewest flattened superscripts a paper must have for any to be read: a stray one or
    two show no way of citing."""
    flattened_in_order_share: Annotated[float, Field(gt=0, le=1)] = 0.8
    """The least share of a paper's flattened superscripts that must fit its order of first
    citation (their numbers first written in rising order) for those that fit to be read: where
    fewer do, the digits are something else."""
    flattened_min_coverage: Annotated[float, Field(ge=0, le=1)] = 0.5
    """The least share of the bibliography's numbers that the flattened superscripts read must
    name between them: a paper cites most of its entries, and a few numbers named over and over
    are names with a number (`Skp2`, `Jag1`)."""
    max_unlisted_number: Annotated[int, Field(ge=1)] = 999
    """The highest number a marker names whatever the bibliography numbers (`[9]` in a paper of
    six entries: kept, unresolved); a higher one is a marker only where the bibliography numbers
    that far, as it is elsewhere a year or a count (`[2019]`)."""

    range_dash: Pattern = Field(default=r"\s*{dash}\s*", validate_default=True)
    """A range's dash with the spaces about it (`3 – 7`): where a marker's members are parted
    into a range's bounds, and what joins two markers into a range (`[11]–[13]`)."""

    @field_validator("numbers", "year", mode="before")
    @classmethod
    def _fill_in_the_marks(cls, template: object, info: ValidationInfo) -> object:
        return _filled_in(template, info, ("dash", "link_mark"))

    @field_validator(
        "brackets", "parentheses", "ref_ids", "author_year", "narrative", "organisation", "superscript", "superscript_markup",
        "flattened", "range_dash", mode="before",
    )
    @classmethod
    def _fill_in_fragments(cls, template: object, info: ValidationInfo) -> object:
        return _filled_in(template, info, ("dash", "numbers", "surname", "year"))


def _filled_in(template: object, info: ValidationInfo, fragments: tuple[str, ...]) -> object:
    """A pattern as written, each `{fragment}` in it replaced by that field's value (declared, and
    so validated, before it)."""
    if isinstance(template, str):
        for name in fragments:
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


