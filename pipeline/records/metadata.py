"""A paper's metadata as an ingest stores it in `papers`.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from pipeline.records.base import Record


class MetadataSource(StrEnum):
    """Where a field of a paper's metadata was read."""

    pdf_metadata = "pdf_metadata"
    """The PDF's document information dictionary (`/Title`, `/Author`, `/Subject`, `/Keywords`)."""
    xmp = "xmp"
    """The PDF's XMP metadata stream (Dublin Core, PRISM)."""
    first_page = "first_page"
    """Printed on the PDF's first page: its title block, the byline under it, a line of its own."""
    last_page = "last_page"
    """Printed on the PDF's last page in a paragraph of its own (a DOI some journals print there)."""
    running_line = "running_line"
    """Printed in a running head or foot of page 2 or of the last page (a DOI page 1 does not print)."""
    yaml_front_matter = "yaml_front_matter"
    """A Markdown file's YAML front matter (`---` … `---`)."""
    front_matter = "front_matter"
    """Written in a Markdown paper before its first section: the title, the line under it."""
    heading = "heading"
    """A heading of the paper's own (`Abstract`) or a label opening a paragraph (`Keywords:`)."""


class PaperMetadata(Record):
    """Who wrote a paper, when and where, as the paper itself says it: every field is read from
    the file, each with where it was read (`*_source`), and None where the file does not say it."""

    title: str | None = None
    title_source: MetadataSource | None = None
    authors: list[str] = Field(default_factory=list)
    """Authors in the order printed, each name as printed less affiliation marks and degrees."""
    author_keys: list[str] = Field(default_factory=list)
    """Each author's surname in lower case, accents and everything but letters dropped: the key
    `bibliography.first_author` is compared by."""
    authors_source: MetadataSource | None = None
    year: int | None = None
    """The year of publication the paper prints (published, copyright, its citation line)."""
    year_source: MetadataSource | None = None
    journal: str | None = None
    """The journal or venue's name."""
    journal_source: MetadataSource | None = None
    volume: str | None = None
    volume_source: MetadataSource | None = None
    doi: str | None = None
    """Lower case, without `https://doi.org/` or `doi:`."""
    doi_source: MetadataSource | None = None
    keywords: list[str] = Field(default_factory=list)
    keywords_source: MetadataSource | None = None
    abstract_start: int | None = None
    """Offsets of the abstract's text in `Document.text` (its heading left out), half-open."""
    abstract_end: int | None = None
    abstract_source: MetadataSource | None = None
