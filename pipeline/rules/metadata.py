"""`[metadata]`: how a paper's own metadata (title, authors, year, DOI, …) is read off its
first page or front matter (`pipeline.metadata`)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import Field, PrivateAttr, field_validator, model_validator

from pipeline.rules.base import Pattern, RulesModel, naming_group
from pipeline.rules.front_model import load_front_model


class YearCue(RulesModel):
    """A named pattern that finds the year of publication on a line, in the group `year`."""

    name: str
    pattern: Pattern

    @field_validator("pattern")
    @classmethod
    def _names_the_year(cls, pattern):
        return naming_group(pattern, "year", "the year")


class JournalLineForm(RulesModel):
    """A named pattern for the line where page 1 cites its own paper's journal, year and volume
    (`BMC Genomics (2015) 16:413`): groups `journal`, `year` and `volume`, read from a row's start."""

    name: str
    pattern: Pattern

    @field_validator("pattern")
    @classmethod
    def _names_its_fields(cls, pattern):
        for group in ("journal", "year", "volume"):
            naming_group(pattern, group, f"the {group}")
        return pattern


class FrontLines(StrEnum):
    """What reads page 1's lines for the byline and the DOI (`[metadata] front_lines`)."""

    rules = "rules"
    model = "model"


class MetadataRules(RulesModel):
    doi: Pattern = Field(
        default=r"(?:\bdoi(?:\s*(?:number|no\.?))?\s*:?\s*|doi\.\s?org/\s*|\bdigital object identifier\s*:?\s*|/doi/(?:(?:abs|full|pdf|epdf)/)?)(?P<doi>10\.\s?\d{4,9}/(?: (?=[^\s\"<>]*\d))?[^\s\"<>]+)",
        validate_default=True,
    )
    """A DOI the paper prints as its own: labelled (`doi:`, `DOI`, `https://doi.org/`)."""
    year_cues: list[YearCue] = Field(default_factory=list)
    """Tried in order on page 1 (a Markdown paper: its front matter); the first that matches wins."""
    journal_lines: list[JournalLineForm] = Field(default_factory=list)
    """Tried in order on each row of page 1, a running head's `Name et al.` and page number left out."""
    keywords_label: Pattern = Field(
        default=r"^\W*(?:key\s*-?\s*words?|index terms|palavras[- ]chave|palabras[- ]clave|mots[- ]cl[ée]s)\W*", validate_default=True
    )
    """What opens a paragraph or line of keywords; the rest of it is the keywords."""
    cite_as_label: Pattern = Field(
        default=r"\b(?:to cite this article|cite this article(?=\s*:)|to cite(?=\s*:)|citation(?=\s*:)|cite (?:this article )?as|how to cite(?: this article)?|como citar(?: este artigo)?|c[óo]mo citar)\b(?:[^:\n]{0,40}:)?\s*",
        validate_default=True,
    )
    """What opens the paper's citation of itself on page 1; the surname after it is the first author's as cited."""
    abstract_heading: Pattern = Field(default=r"abstract|summary|resumo|resumen|r[ée]sum[ée]", validate_default=True)
    """A heading (its key: lower case, no numbering) that heads the abstract; or a label that opens its paragraph."""
    name_joiners: list[str] = Field(default_factory=lambda: ["and", "&", "e", "y", "und"])
    """Words that join the last two names of a byline (`Smith and Lee`)."""
    name_particles: list[str] = Field(
        default_factory=lambda: ["de", "da", "do", "dos", "das", "del", "della", "di", "du", "van", "von", "der", "den", "la", "le", "ten", "ter", "bin", "al", "el"]
    )
    """Lower-case words that belong to a surname (`de Iaco`, `van der Berg`)."""
    degrees: list[str] = Field(
        default_factory=lambda: ["MD", "PhD", "Ph.D.", "MSc", "M.Sc.", "BSc", "B.Sc.", "MPH", "MBBS", "DPhil", "RN", "DVM", "DDS", "MA", "BA", "MS", "FRCP", "FRCS", "Jr", "Jr.", "Sr.", "II", "III", "ID", "iD"]
    )
    """Degrees, titles and suffixes printed after a name: left out of it."""
    cover_sheet: Pattern = Field(
        default=r"\b(?:this is an? (?:author|accepted)(?:'s)? manuscript|author manuscript|accepted manuscript|downloaded from|"
        r"citation for published version|take down policy|general rights|link to publication|this version is available at|"
        r"repository|brought to you (?:for free )?by|please contact)\b",
        validate_default=True,
    )
    """What a cover sheet set before a paper prints (a repository's, an author manuscript's): a
    page 1 with two different such cues that page 2 does not repeat is one, and page 2 is the
    paper's first page."""
    surname_suffixes: list[str] = Field(default_factory=lambda: ["Filho", "Neto", "Sobrinho", "Júnior", "Junior"])
    """Words printed after a surname that are part of it (`Silva Filho`, cited as such), unlike a
    `Jr.` among the degrees."""
    group_words: list[str] = Field(
        default_factory=lambda: ["group", "collaboration", "collaborative", "consortium", "investigators", "committee", "team", "network", "society", "association", "alliance", "initiative", "taskforce"]
    )
    """Words (in lower case) that make an author in a byline a group (`The ATLAS Collaboration`),
    whose key is its whole name."""
    affiliation_words: Pattern = Field(
        default=r"\b(?:univ\w*|department|dept|institut\w*|school|faculty|facultad|faculdade|hospital|college|laborator\w*|centre|center|centro|academy|corresponding|e-?mail|received)\b|@",
        validate_default=True,
    )
    """A line with any of these is an affiliation or a note, not a byline."""
    byline_max_lines: Annotated[int, Field(gt=0)] = 6
    """Lines a byline may take."""
    byline_search_rows: Annotated[int, Field(gt=0)] = 4
    """Rows under the title in which the byline is sought."""
    byline_min_size: Annotated[float, Field(gt=0)] = 0.85
    """A byline is printed at least this share of the size most of page 1 is printed in."""
    title_min_size: Annotated[float, Field(gt=0)] = 1.15
    """A title that a byline is printed under is set at least this many times page 1's usual size."""
    title_unfinished_words: list[str] = Field(
        default_factory=lambda: ["a", "an", "the", "of", "in", "on", "at", "to", "for", "from", "with", "by", "and", "or", "via", "versus", "vs", "de", "da", "do", "dos", "das", "em", "e", "y", "la", "el", "del", "en"]
    )
    """Words no title ends on (in lower case): a title row that ends on one is carried on by the row under it."""
    title_min_words: Annotated[int, Field(gt=0)] = 3
    """A title in the PDF's own metadata is trusted only if it has this many words and page 1 prints it."""
    front_lines: FrontLines = FrontLines.rules
    """Who reads page 1's byline and DOI: the rules alone, or with the learned page-1 line model
    (`rules/front_model.py`, used in `metadata/front_model.py`) where the rules find none."""
    _model: Any = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _load_the_model(self) -> MetadataRules:
        # Loaded here, once with the rules, so that every pool worker that receives them has it.
        if self.front_lines is FrontLines.model:
            self._model = load_front_model()
        return self

    @property
    def front_model(self) -> Any:
        """The page-1 line model (`trained_model.TrainedModel`) where `front_lines` is "model", else None."""
        return self._model
