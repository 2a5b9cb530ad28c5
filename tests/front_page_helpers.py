"""Page 1s written with PyMuPDF for the metadata tests (tests/metadata/): the body and title they
share, a row printer that sets `^{…}` as a superscript mark, and the paper's metadata as an ingest
reads it."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf

from pipeline.extract import extract
from pipeline.metadata import paper_metadata
from pipeline.normalize.stage import normalize

BODY = " ".join(["Serum interleukin-6 rose in the treated cohort over twelve weeks of follow-up."] * 30)
TITLE = ("Interleukin-6 after sleep loss", "in a randomised crossover trial")
AFFILIATION = "1 Department of Medicine, University of Testing, Lisbon, Portugal"


def print_marked(page: pymupdf.Page, x: float, y: float, text: str, size: float, font: str = "helv", wide_font: str | None = None) -> None:
    """`text` at (x, y) with each `^{…}` in it raised and smaller, as a superscript mark. The
    standard fonts encode Latin-1 alone: where `wide_font` is given (a CJK font carries `’`, `‐`,
    `–` and Chinese), a piece holding a character beyond it is set in that font."""
    for piece in re.split(r"(\^\{[^}]*\})", text):
        if not piece:
            continue
        raised = piece.startswith("^{")
        piece = piece[2:-1] if raised else piece
        piece_size = size * 0.6 if raised else size
        fontname = wide_font if wide_font and any(ord(ch) > 0xFF for ch in piece) else font
        page.insert_text((x, y - (size * 0.35 if raised else 0)), piece, fontsize=piece_size, fontname=fontname)
        x += pymupdf.get_text_length(piece, fontname=fontname, fontsize=piece_size)


def describe(file: Path, rules):
    """The paper's metadata, as an ingest reads it from the file."""
    raw = extract(file, file.name, rules)
    return paper_metadata(raw, normalize(raw, file.name, rules), rules.metadata)
