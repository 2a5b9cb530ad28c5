"""A bibliography's heading set in the back matter's small print, in the body's face and weight:
no typographic test tells it from text, its words and the entries under it do. The fixtures are
written here with PyMuPDF, a one-column paper with bold headings at 10 pt and its back matter at
8 pt, so their truth is known."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from pipeline.extract.pdf.bibliography_heading import EVIDENCE
from pipeline.extract.pdf.document import extract_pdf
from pipeline.extract.pdf.layout_choice import doubtful_reading
from pipeline.extract.pdf.records import PdfBlock, Row
from pipeline.records.base import BlockKind
from pipeline.records.extract import RawDocument
from pipeline.rules import load_rules
from pipeline.rules.pdf import PdfLayoutRules

_BODY = (
    "Soil samples were taken from ten plots at a depth of twenty centimetres and kept at four",
    "degrees until they were read, within two days of their collection in the field, as before.",
)
_ENTRIES = (
    "1. Silva A, Chen B. Tillage and the soil microbiome. Soil Biol Biochem. 2019;12:1-9.",
    "2. Costa R, Silva A. Microbial carbon under four tillage regimes. Geoderma. 2020;4:22-31.",
    "3. Chen B, Costa R. Nitrogen cycling in tilled plots. Appl Soil Ecol. 2018;7:40-47.",
    "4. Okafor N, Chen B. Fungal networks after ploughing. ISME J. 2021;15:201-12.",
    "5. Lind M. Sampling depth and microbial counts. Eur J Soil Sci. 2017;68:5-14.",
)
_NOT_ENTRIES = (
    "The samples of this study are kept at the university and can be asked for from the",
    "first author; the sequences are deposited in a public archive under one accession.",
)


def _paper(path: Path, under_the_heading: tuple[str, ...], heading: str = "References", space_below: float = 11) -> RawDocument:
    """A paper of four bold sections, then `heading` at 8 pt in the body's face over
    `under_the_heading`, `space_below` points from its baseline to the next line's (11: tight, as
    the lines under it are set)."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Soil microbes under four tillage regimes", fontsize=18, fontname="hebo")
    page.insert_text((72, 105), "Ana Silva, Bo Chen and Rui Costa", fontsize=11)
    y = 150.0
    for section in ("Introduction", "Methods", "Results", "Discussion"):
        page.insert_text((72, y), section, fontsize=10, fontname="hebo")
        y += 18
        for _ in range(2):
            for line in _BODY:
                page.insert_text((72, y), line, fontsize=10, fontname="helv")
                y += 12
            y += 6
        y += 10
    page = doc.new_page()
    y = 80.0
    page.insert_text((72, y), "Competing interests", fontsize=10, fontname="hebo")
    page.insert_text((72, y + 14), "The authors declare that they have no competing interests.", fontsize=10, fontname="helv")
    y += 40
    page.insert_text((72, y), heading, fontsize=8, fontname="helv")
    y += space_below
    for line in under_the_heading:
        page.insert_text((72, y), line, fontsize=8, fontname="helv")
        y += 11
    doc.save(path)
    return extract_pdf(path, path.name, load_rules(overrides={"pdf": {"layout": {"mode": "rules"}}}))


def _headings(raw: RawDocument) -> list[str]:
    return [block.segments[0].text.strip() for block in raw.blocks if block.kind is BlockKind.heading]


def test_references_in_small_body_print_standing_alone_over_numbered_entries_is_a_heading(tmp_path):
    raw = _paper(tmp_path / "paper.pdf", _ENTRIES, space_below=20)

    assert _headings(raw)[-2:] == ["Competing interests", "References"]


def test_references_in_small_body_print_set_tight_over_numbered_entries_is_a_heading(tmp_path):
    raw = _paper(tmp_path / "paper.pdf", _ENTRIES)

    assert _headings(raw)[-2:] == ["Competing interests", "References"]
    assert raw.blocks[-1].segments[0].text.startswith("1. Silva A, Chen B.")


def test_literature_cited_in_small_body_print_over_entries_by_author_is_a_heading(tmp_path):
    raw = _paper(tmp_path / "paper.pdf", tuple(entry.split(" ", 1)[1] for entry in _ENTRIES), heading="Literature cited", space_below=20)

    assert _headings(raw)[-2:] == ["Competing interests", "Literature cited"]


def test_references_over_dash_bulleted_entries_is_a_heading_as_the_bibliography_stage_reads_them(tmp_path):
    """The pass asks the bibliography stage's own question (`pipeline.text.entry_text`), so a
    list the stage reads as entries, a dash before each author's name, heads the bibliography too."""
    raw = _paper(tmp_path / "paper.pdf", tuple("- " + entry.split(" ", 1)[1] for entry in _ENTRIES), space_below=20)

    assert _headings(raw)[-2:] == ["Competing interests", "References"]


def test_references_in_small_body_print_over_text_that_reads_as_no_entry_stays_text(tmp_path):
    raw = _paper(tmp_path / "paper.pdf", _NOT_ENTRIES, space_below=20)

    assert _headings(raw)[-1] == "Competing interests"


def _block(kind: BlockKind, text: str, level: int | None = None, evidence: tuple[str, ...] = ()) -> PdfBlock:
    row = Row(page=1, group=0, x0=72, y0=0, x1=520, y1=10, text=text, size=10, font="Helvetica", bold=False,
              small_caps=False, chars=len(text), cells=0, rotated=False)
    return PdfBlock(kind=kind, rows=(row,), level=level, evidence=evidence)


def test_a_bibliography_heading_found_by_its_words_does_not_make_a_collapsed_reading_sound():
    """Typography read one heading below the title in twelve pages: the reading is doubtful
    (`--layout auto` reads it again with the layout model), and the `References` that the
    bibliography pass found by its words says nothing against that."""
    body = " ".join(["word"] * 100)
    blocks = [
        _block(BlockKind.heading, "Soil microbes under four tillage regimes", level=1),
        _block(BlockKind.heading, "Introduction", level=2),
        _block(BlockKind.paragraph, body),
        _block(BlockKind.heading, "Acknowledgements", level=2),
        _block(BlockKind.paragraph, body),
        _block(BlockKind.heading, "References", level=2, evidence=(EVIDENCE,)),
        _block(BlockKind.paragraph, _ENTRIES[0]),
    ]

    assert doubtful_reading(blocks, 12, PdfLayoutRules()) == "2 heading(s) below the title in 12 pages"
