"""The kinds the command line offers as choices (`--section-type`, `--layout`): plain enums, apart
from the pydantic records, so that a command's options and `--help` need not load pydantic.
`pipeline.records.base` and `pipeline.rules.pdf` use them from here."""

from __future__ import annotations

from enum import StrEnum


class SectionType(StrEnum):
    intro = "intro"
    methods = "methods"
    results = "results"
    discussion = "discussion"
    conclusion = "conclusion"
    meta = "meta"
    figure_caption = "figure_caption"
    table = "table"
    """A table's caption chunk: the paper's `tables` row of the same chunk holds its cells."""
    other = "other"


class LayoutMode(StrEnum):
    """Which evidence reads a PDF's layout (the rules' `[pdf.layout] mode`, `--layout`)."""

    rules = "rules"
    """Typography and geometry alone."""
    model = "model"
    """PyMuPDF's layout model on every page, its labels beside typography."""
    auto = "auto"
    """Typography first; the model where the result is doubtful (`PdfLayoutRules`)."""


class OcrMode(StrEnum):
    """When a PDF page is read by OCR instead of its text layer."""

    auto = "auto"
    """A page whose text layer is missing or not text (`PdfOcrRules`), where rapidocr is installed."""
    off = "off"
    """Never: a PDF without a text layer stays a `no_text` row."""
    force = "force"
    """Every page, whatever its text layer holds."""
