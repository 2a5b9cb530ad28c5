"""Lines that look like headings by their print but are not (code, a table's column header, a bold
phrase inside a paragraph), and headings that open with a quotation mark: each on a tiny PDF whose
truth is written in the test."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from pipeline.extract.pdf.document import extract_pdf
from pipeline.extract.pdf.heading_styles import HeadingRules, heading_style
from pipeline.extract.pdf.records import Layout, PdfBlock, Row
from pipeline.records.base import BlockKind
from pipeline.records.extract import RawDocument

_TEXT = "A permission is created for one table and names the users it admits. "


def headings(raw: RawDocument) -> list[tuple[int, str]]:
    return [(block.level, " ".join(segment.text for segment in block.segments)) for block in raw.blocks if block.kind is BlockKind.heading]


def _declare_fixed_pitch(doc: pymupdf.Document, page: pymupdf.Page, name: str) -> None:
    """Rename the page's Courier to `name` and give it a font descriptor that declares it fixed-pitch,
    as a report's embedded code face does whose name says nothing of it (`GulimChe`, a Korean one)."""
    for xref, _, _, base, *_ in page.get_fonts():
        if base == "Courier":
            descriptor = doc.get_new_xref()
            doc.update_object(
                descriptor,
                f"<< /Type /FontDescriptor /FontName /{name} /Flags 33 /FontBBox [-23 -250 715 805] /ItalicAngle 0 "
                "/Ascent 629 /Descent -157 /CapHeight 562 /StemV 51 >>",
            )
            doc.xref_set_key(xref, "BaseFont", f"/{name}")
            doc.xref_set_key(xref, "FontDescriptor", f"{descriptor} 0 R")
            doc.xref_set_key(xref, "FirstChar", "32")
            doc.xref_set_key(xref, "LastChar", "126")
            doc.xref_set_key(xref, "Widths", "[" + " ".join(["600"] * 95) + "]")


def test_code_in_a_fixed_pitch_face_whose_name_says_nothing_is_no_heading(tmp_path: Path, rules) -> None:
    """`CREATE PERMISSION <permission name>` / `ON <table name>` on lines of their own, set apart by
    space in a face other than the body's: the font declares a fixed pitch, so they are code."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 70), "Database Permissions Guide", fontsize=16, fontname="hebo")
    page.insert_text((72, 110), "1 Granting permissions", fontsize=12, fontname="hebo")
    y = 130.0
    for verb in ("CREATE", "DROP"):
        page.insert_textbox(pymupdf.Rect(72, y, 523, y + 50), _TEXT * 2, fontsize=10)
        y += 50
        for line in (f"{verb} PERMISSION <permission name>", "ON <table name>"):
            page.insert_text((90, y), line, fontsize=10, fontname="cour")
            y += 14
        y += 12
    page.insert_text((72, y + 10), "2 Revoking permissions", fontsize=12, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, y + 20, 523, y + 90), "A permission is dropped by its name. " * 6, fontsize=10)
    _declare_fixed_pitch(doc, page, "GulimChe")
    doc.save(tmp_path / "report.pdf")

    raw = extract_pdf(tmp_path / "report.pdf", "report.pdf", rules)

    assert headings(raw) == [(1, "Database Permissions Guide"), (2, "1 Granting permissions"), (2, "2 Revoking permissions")]


def test_numbered_headings_whose_title_opens_with_a_corner_bracket_are_headings(tmp_path: Path, rules) -> None:
    """`(1) 「개인정보 보호법」 개정` (an act's name in corner brackets, then `amended`) is set like
    `(3) Statistical analysis`: a quotation mark before the title's first letter hides no heading."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 70), "A Study of Examples", fontsize=16, fontname="hebo")
    page.insert_text((72, 110), "1 Background", fontsize=12, fontname="hebo")
    y = 130.0
    for number, title in enumerate(["「개인정보 보호법」 개정", "「정보통신망법」 개정", "Statistical analysis"], start=1):
        page.insert_text((72, y), f"({number}) {title}", fontsize=12, fontname="korea")
        page.insert_textbox(pymupdf.Rect(72, y + 6, 523, y + 66), "The trial enrolled adults from three clinics. " * 6, fontsize=10)
        y += 86
    doc.save(tmp_path / "paper.pdf")

    raw = extract_pdf(tmp_path / "paper.pdf", "paper.pdf", rules)

    assert headings(raw) == [(1, "A Study of Examples"), (2, "1 Background"), (3, "(1) 「개인정보 보호법」 개정"),
                             (3, "(2) 「정보통신망법」 개정"), (3, "(3) Statistical analysis")]


def test_a_phrase_in_bold_on_a_line_of_its_own_inside_a_sentence_is_no_heading(tmp_path: Path, rules) -> None:
    """A results paragraph whose sentence runs through a line set in bold (`…of every marker measured
    the` / **Hypoxia-Inducible Factor Response Score** / `rose most in the first week…`): the line
    above runs on unclosed and the line below goes on in lowercase, so the bold line is emphasis."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 70), "Serum Markers After Surgery", fontsize=16, fontname="hebo")
    page.insert_text((72, 110), "Results", fontsize=12, fontname="hebo")
    y = 130.0
    for text, font in [("The cohort was followed for a year after surgery, and of every marker measured the", "helv"),
                       ("Hypoxia-Inducible Factor Response Score", "hebo"),
                       ("rose most in the first week and fell back to its baseline by the third month.", "helv"),
                       ("The other markers stayed within their reference ranges throughout the year.", "helv")]:
        page.insert_text((72, y), text, fontsize=10, fontname=font)
        y += 12
    page.insert_text((72, y + 20), "Discussion", fontsize=12, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, y + 30, 523, y + 90), "The score rose as expected after surgery. " * 5, fontsize=10)
    doc.save(tmp_path / "paper.pdf")

    raw = extract_pdf(tmp_path / "paper.pdf", "paper.pdf", rules)

    assert headings(raw) == [(1, "Serum Markers After Surgery"), (2, "Results"), (2, "Discussion")]


def test_a_line_that_holds_the_end_of_one_sentence_and_the_start_of_the_next_is_no_heading(rules) -> None:
    """The first line of a paragraph left alone at a page's foot, in print larger than the body the
    page reads (`…antiplatelet activity [44]. Eswar et al`): a sentence ends inside it, after a citation."""
    row = Row(page=2, group=0, x0=72, y0=749, x1=539, y1=760, text="Garlic has antimicrobial [42], anticancer [43] and antiplatelet "
              "activity [44]. Eswar et al", size=10, font="TimesNewRomanPSMT", bold=False, small_caps=False, chars=90, cells=0, rotated=False)
    layout = Layout(body_size=8, pitch=1.2, body_face="timesnewromanpsmt")

    assert heading_style(PdfBlock(kind=BlockKind.paragraph, rows=(row,)), layout, HeadingRules.from_rules(rules)) is None



def test_a_bold_label_over_a_column_in_its_own_print_is_no_heading(tmp_path: Path, rules) -> None:
    """A table of two columns without rules: `File Name` in bold heads the files' names, in bold too,
    and `Description` the regular text beside them, which wraps (so the table reads as two columns).
    A section's heading is followed by text in another print than its own; the label by more of its own."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 70), "Teaching Dark Matter With Notebooks", fontsize=16, fontname="hebo")
    page.insert_text((72, 110), "Materials", fontsize=12, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 120, 523, 190), "The lessons come as notebooks that students run in order. " * 4, fontsize=10, fontname="tiro")
    y = 210.0
    page.insert_text((100, y), "File Name", fontsize=10, fontname="tibo")
    page.insert_text((360, y), "Description", fontsize=10, fontname="tiro")
    for name, description in [("05_Widget_Components.ipynb", ["Interactive widget to", "show the components."]),
                              ("06_Plotting_Data.ipynb", ["Plotting the components of", "rotation curves."]),
                              ("08_Interactive_Fitting.ipynb", ["Interactive curve fitting."]),
                              ("09_Widget_Galaxies.ipynb", ["Interactive widget for", "multiple galaxies."])]:
        y += 18
        page.insert_text((100, y), name, fontsize=10, fontname="tibo")
        for line, text in enumerate(description):
            page.insert_text((360, y + 12 * line), text, fontsize=10, fontname="tiro")
        y += 12 * (len(description) - 1)
    page.insert_text((72, y + 40), "Statement of Need", fontsize=12, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, y + 50, 523, y + 150), "Students learn best from models they can change. " * 5, fontsize=10, fontname="tiro")
    doc.save(tmp_path / "paper.pdf")

    raw = extract_pdf(tmp_path / "paper.pdf", "paper.pdf", rules)

    assert headings(raw) == [(1, "Teaching Dark Matter With Notebooks"), (2, "Materials"), (2, "Statement of Need")]
