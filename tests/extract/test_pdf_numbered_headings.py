"""Numbered headings in a PDF: every level of a `1.` / `2.3.` / `3.5.1.` layout found at the
level its numbering gives, including run-in sub-sub-headings (`2.2.1. Muscle strength. We…`)."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from pdf_helpers import heading_key
from pipeline.extract.pdf.document import extract_pdf
from pipeline.extract.pdf.spans import font_style
from pipeline.records.base import BlockKind
from pipeline.rules import load_rules

_SENTENCE = "The cohort was followed for twelve weeks and its serum sodium was measured twice in each ward. "
_LEFT, _WIDTH = 72.0, 451.0


def _body_lines(count: int) -> list[str]:
    """`count` lines of body text, the last closing its sentence."""
    lines = [(_SENTENCE * 6)[index * 80 : index * 80 + 80].strip() for index in range(count)]
    return lines[:-1] + [lines[-1].rstrip(".") + "."]


def _renamed_fonts(doc: pymupdf.Document, names: dict[str, str]) -> None:
    """Give base-14 fonts the names a publisher's typesetting embeds (`AdvOT01861455.I`): the
    name is all that says a face is italic or bold, as PyMuPDF flags neither."""
    for page in doc:
        for xref, _, _, base, _, _ in page.get_fonts():
            if base in names:
                doc.xref_set_key(xref, "BaseFont", f"/{names[base]}")


def _numbered_paper(path: Path) -> list[tuple[int, str]]:
    """A paper whose sections are numbered to three depths: bold `1.`, italic `2.1.` alone on its
    line, and italic run-in `2.2.1. Title.` leads set right under their parent heading; the faces
    are named as Advent's typesetting names them (`.B`, `.I`). Returns the headings' truth."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((_LEFT, 70), "Resistance training during chemotherapy in women with breast cancer", fontname="hebo", fontsize=16)
    page.insert_text((_LEFT, 92), "Ada Example, Bob Sample", fontname="tiro", fontsize=10)
    y = 110.0
    truth: list[tuple[int, str]] = []

    def line(text: str, font: str, gap: float = 0.0) -> None:
        nonlocal y
        y += 11.0 + gap
        page.insert_text((_LEFT, y), text, fontname=font, fontsize=9)

    def run_in(number: str, title: str) -> None:
        nonlocal y
        y += 11.0 + 6.0
        lead = f"{number} {title}. "
        page.insert_text((_LEFT, y), lead, fontname="tiit", fontsize=9)
        rest = _SENTENCE[: 80 - len(lead)].strip()
        page.insert_text((_LEFT + pymupdf.get_text_length(lead, "tiit", 9), y), rest, fontname="tiro", fontsize=9)
        for text in _body_lines(3):
            line(text, "tiro")
        truth.append((number.count(".") + 1, f"{number} {title}"))

    for number, title, font, subsections in [
        ("1.", "Introduction", "tibo", []),
        ("2.", "Methods", "tibo", []),
        ("2.1.", "Study design", "tiit", []),
        ("2.2.", "Primary outcome", "tiit", [("2.2.1.", "Muscle fiber size"), ("2.2.2.", "Muscle strength")]),
        ("2.3.", "Secondary outcomes", "tiit", [("2.3.1.", "Cardiorespiratory fitness")]),
        ("3.", "Discussion", "tibo", []),
    ]:
        line(f"{number} {title}", font, gap=8.0)
        truth.append((number.count(".") + 1, f"{number} {title}"))
        if subsections:
            for sub_number, sub_title in subsections:
                run_in(sub_number, sub_title)
        else:
            for text in _body_lines(4):
                line(text, "tiro")
    _renamed_fonts(doc, {"Times-Italic": "AdvOT01861455.I", "Times-Bold": "AdvOTfbba3ace.B", "Times-Roman": "AdvOTbc475f09"})
    doc.save(path)
    return truth


@pytest.mark.parametrize(
    ("font", "bold", "italic"),
    [
        ("AdvOT01861455.I", False, True),
        ("AdvOT01861455.I+fb", False, True),  # its ligatures' subset
        ("AdvOTfbba3ace.B", True, False),
        ("AdvOTfbba3ace.B+fb", True, False),
        ("AdvTT3f84ef53.BI", False, True),  # its slant; a bold italic's weight is left unread
        ("AdvOTbc475f09", False, False),
        ("Times-Italic", False, True),
    ],
)
def test_a_face_named_with_a_weight_or_slant_suffix_is_read_so(font, bold, italic):
    found_bold, _, found_italic = font_style(font, {})

    assert (found_bold, found_italic) == (bold, italic)


def test_numbered_sub_sub_headings_run_in_under_their_parent_are_found_at_their_depth(tmp_path):
    truth = _numbered_paper(tmp_path / "numbered.pdf")

    raw = extract_pdf(tmp_path / "numbered.pdf", "numbered.pdf", load_rules(overrides={"pdf": {"layout": {"mode": "rules"}}}))

    found = [(block.level, heading_key(" ".join(s.text for s in block.segments)))
             for block in raw.blocks if block.kind is BlockKind.heading and (block.level or 0) >= 2]
    assert found == [(level, heading_key(text)) for level, text in truth]
