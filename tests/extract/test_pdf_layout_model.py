"""PyMuPDF's layout model beside typography (`--layout rules|model|auto`).

The rules are pinned on a paper whose headings are set in body type, so that typography alone
cannot see them, with a stand-in model that labels the lines we say (the real model's labels are
its own); the real model is checked on a real paper where typography loses the headings.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from pipeline.errors import ExtractError
from pipeline.extract.pdf import document as pdf_extract
from pipeline.extract.pdf.document import extract_pdf
from pipeline.extract.pdf.layout_choice import doubtful_reading
from pipeline.extract.pdf.layout_model import LayoutLabel, Region, shared_model
from pipeline.extract.pdf.records import PdfBlock, Row
from pipeline.records.base import BlockKind
from pipeline.rules import layout_overrides, load_rules
from pipeline.rules.pdf import PdfLayoutRules

SHARED_PDF_JATS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "pdf_jats"
HEADINGS = ["Background of the study", "Patients and procedures", "What the trial found", "What it means"]
TITLE = "A study of examples"
RUNNING_HEADS = ["spring issue", "trial reports", "clinic notes", "late results"]
SENTENCE = "The trial enrolled adults from three clinics and followed them for two years after treatment. "


def rules_with(mode: str):
    return load_rules(overrides=layout_overrides(mode))


@pytest.fixture
def body_type_headings(tmp_path) -> Path:
    """Four pages, a heading on each set in body type on a line of its own, with a running head
    that changes from page to page (so that recurrence cannot find it)."""
    doc = pymupdf.open()
    for number, heading in enumerate(HEADINGS, start=1):
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 40), f"Journal of Examples: {RUNNING_HEADS[number - 1]}", fontsize=8)
        page.insert_text((72, 100), TITLE if number == 1 else heading, fontsize=16 if number == 1 else 10)
        y = 130.0
        if number == 1:
            page.insert_text((72, y), HEADINGS[0], fontsize=10)
            y += 24
        for _ in range(6):
            box = pymupdf.Rect(72, y, 523, y + 60)
            page.insert_textbox(box, SENTENCE * 4, fontsize=10)
            y += 72
    path = tmp_path / "body_type_headings.pdf"
    doc.save(path)
    return path


class StandInModel:
    """Labels as section headers the lines that read as one of `HEADINGS`, as page heads the
    lines naming the journal and the title (as the real model may, set large in the top band),
    and everything else as text."""

    def __init__(self) -> None:
        self.pages_read = 0

    def regions(self, page: pymupdf.Page) -> list[Region]:
        self.pages_read += 1
        regions = []
        for x0, y0, x1, y1, text, *_ in page.get_text("blocks"):
            text = " ".join(text.split())
            label = (
                LayoutLabel.section_header if text in HEADINGS
                else LayoutLabel.page_header if text.startswith("Journal of Examples") or text == TITLE
                else LayoutLabel.text
            )
            regions.append(Region(box=(x0, y0, x1, y1), label=label))
        return regions


@pytest.fixture
def stand_in(monkeypatch) -> StandInModel:
    model = StandInModel()
    monkeypatch.setattr(pdf_extract, "shared_model", lambda: model)
    return model


def headings(raw) -> list[str]:
    return [" ".join(block.segments[0].text.split()) for block in raw.blocks if block.kind is BlockKind.heading and (block.level or 0) >= 2]


def test_typography_alone_does_not_take_lines_in_body_type_for_headings(body_type_headings, stand_in):
    raw = extract_pdf(body_type_headings, "paper.pdf", rules_with("rules"))

    assert headings(raw) == []
    assert (raw.layout, raw.layout_reason) == ("rules", "asked for (--layout rules)")
    assert stand_in.pages_read == 0


def test_a_line_the_model_reads_as_a_section_header_is_a_heading_though_set_in_body_type(body_type_headings, stand_in):
    raw = extract_pdf(body_type_headings, "paper.pdf", rules_with("model"))

    assert headings(raw) == HEADINGS
    heading = next(block for block in raw.blocks if block.kind is BlockKind.heading and block.level == 2)
    assert "the layout model reads a section header" in heading.heading_evidence
    assert stand_in.pages_read == 4


def test_auto_reads_a_long_paper_without_headings_again_with_the_model(body_type_headings, stand_in):
    raw = extract_pdf(body_type_headings, "paper.pdf", rules_with("auto"))

    assert headings(raw) == HEADINGS
    assert raw.layout == "model"
    assert raw.layout_reason == "auto: 0 heading(s) below the title in 4 pages"


def test_a_page_head_the_model_finds_in_the_margin_leaves_the_text(body_type_headings, stand_in):
    by_rules = extract_pdf(body_type_headings, "paper.pdf", rules_with("rules"))
    by_model = extract_pdf(body_type_headings, "paper.pdf", rules_with("model"))

    def text(raw):
        return " ".join(segment.text for block in raw.blocks for segment in block.segments)

    assert "Journal of Examples" in text(by_rules)
    assert "Journal of Examples" not in text(by_model)
    assert by_model.removed_running_lines == 4


def test_a_title_the_model_reads_as_a_page_head_stays_the_title(body_type_headings, stand_in):
    raw = extract_pdf(body_type_headings, "paper.pdf", rules_with("model"))

    title = next(block for block in raw.blocks if block.kind is BlockKind.heading and block.level == 1)
    assert title.segments[0].text == TITLE


def test_auto_without_the_model_installed_keeps_the_typographic_reading_and_says_so(body_type_headings, monkeypatch):
    monkeypatch.setattr(pdf_extract, "layout_model_installed", lambda: False)

    raw = extract_pdf(body_type_headings, "paper.pdf", rules_with("auto"))

    assert raw.layout == "rules"
    assert raw.reading_notes == [
        "the typographic reading is doubtful (0 heading(s) below the title in 4 pages), but PyMuPDF's layout model is not installed"
    ]


def test_auto_keeps_the_typographic_reading_of_a_document_longer_than_it_sends_to_the_model(body_type_headings, stand_in):
    rules = load_rules(overrides={"pdf": {"layout": {"mode": "auto", "max_pages": 3}}})

    raw = extract_pdf(body_type_headings, "paper.pdf", rules)

    assert (raw.layout, stand_in.pages_read) == ("rules", 0)
    assert raw.reading_notes == [
        "the typographic reading is doubtful (0 heading(s) below the title in 4 pages), but 4 pages are more than auto "
        "sends to the layout model ([pdf.layout] max_pages = 3); use --layout model to read it so"
    ]


def test_model_mode_without_the_model_installed_names_the_file_and_the_fix(body_type_headings, monkeypatch):
    def missing():
        raise ExtractError("PyMuPDF's layout model (pymupdf-layout) is not installed; reinstall the pipeline")

    monkeypatch.setattr(pdf_extract, "shared_model", missing)

    with pytest.raises(ExtractError, match=r"^paper\.pdf: PyMuPDF's layout model \(pymupdf-layout\) is not installed"):
        extract_pdf(body_type_headings, "paper.pdf", rules_with("model"))


def test_the_layout_option_changes_the_rules_hash_so_that_a_run_reads_papers_again():
    assert rules_with("model").sha256 != rules_with("rules").sha256
    assert rules_with("auto").sha256 != rules_with("rules").sha256


@pytest.fixture
def bold_lines(tmp_path) -> Path:
    """Bold lines at body size on lines of their own: one numbered, one not (a table's header
    row, say), each followed by text."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 100.0
    for line in ("2 Patients and procedures", "Dose and schedule"):
        page.insert_text((72, y), line, fontsize=10, fontname="hebo")
        page.insert_textbox(pymupdf.Rect(72, y + 8, 523, y + 68), SENTENCE * 4, fontsize=10)
        y += 100
    path = tmp_path / "bold_lines.pdf"
    doc.save(path)
    return path


class TextOnlyModel:
    """Reads every line as text: no section headers at all."""

    def regions(self, page: pymupdf.Page) -> list[Region]:
        return [Region(box=tuple(block[:4]), label=LayoutLabel.text) for block in page.get_text("blocks")]


def test_a_weak_heading_the_model_reads_as_text_is_not_one_but_a_numbered_one_stays(bold_lines, monkeypatch):
    by_rules = headings(extract_pdf(bold_lines, "paper.pdf", rules_with("rules")))
    monkeypatch.setattr(pdf_extract, "shared_model", TextOnlyModel)
    by_model = headings(extract_pdf(bold_lines, "paper.pdf", rules_with("model")))

    assert by_rules == ["2 Patients and procedures", "Dose and schedule"]
    assert by_model == ["2 Patients and procedures"]


def test_each_heading_shows_what_the_model_reads_it_as_beside_its_typography(bold_lines, monkeypatch):
    monkeypatch.setattr(pdf_extract, "shared_model", TextOnlyModel)
    raw = extract_pdf(bold_lines, "paper.pdf", rules_with("model"))

    heading = next(block for block in raw.blocks if block.kind is BlockKind.heading)
    assert heading.heading_evidence[-2:] == ["numbered", "the layout model reads text"]


# ---------------------------------------------------------------- what makes a reading doubtful


def block(kind: BlockKind, words: int, level: int | None = None) -> PdfBlock:
    row = Row(page=1, group=0, x0=0, y0=0, x1=100, y1=10, text=" ".join(["word"] * words), size=10, font="Body",
              bold=False, small_caps=False, chars=5 * words, cells=0, rotated=False)
    return PdfBlock(kind=kind, rows=(row,), level=level)


def heading(level: int = 2) -> PdfBlock:
    return block(BlockKind.heading, 2, level)


def text(words: int = 100) -> PdfBlock:
    return block(BlockKind.paragraph, words)


RULES = PdfLayoutRules()


def test_a_long_paper_with_hardly_a_heading_is_doubtful():
    assert doubtful_reading([heading(1), heading(), text(), text()], 12, RULES) == "1 heading(s) below the title in 12 pages"


def test_a_short_paper_is_never_doubtful():
    assert doubtful_reading([text()], 2, RULES) is None


def test_a_paper_whose_sections_share_its_words_is_not_doubtful():
    assert doubtful_reading([heading(), text(), heading(), text(), heading(3), text()], 8, RULES) is None


def test_one_heading_over_most_of_the_paper_is_doubtful():
    blocks = [heading(), text(20), heading(), text(20), heading(), text(400)]

    assert doubtful_reading(blocks, 8, RULES) == "one heading's section holds 91% of the words"


def test_headings_in_a_row_with_no_text_between_them_are_doubtful():
    blocks = [heading(), heading(), heading(), text(), heading(), text(), heading(), text()]

    assert doubtful_reading(blocks, 8, RULES) == "3 headings in a row with no text between them"


# ---------------------------------------------------------------- the real model


def test_the_model_is_loaded_once_and_serves_every_page():
    assert shared_model() is shared_model()


@pytest.mark.skipif(not SHARED_PDF_JATS.is_dir(), reason="needs ../shared/corpus/pdf_jats (the shared corpus is absent)")
def test_the_real_model_finds_small_bold_headings_that_typography_rejects():
    """Its sub-headings are bold but a point under body size, which typography reads as a label:
    the paper collapsed under the rules (its `References` found by its words alone), and the model
    reads them as section headers."""
    paper = SHARED_PDF_JATS / "epmc_PMC5234046.pdf"

    by_rules = headings(extract_pdf(paper, paper.name, rules_with("rules")))
    by_model = headings(extract_pdf(paper, paper.name, rules_with("model")))

    assert by_rules == ["Abstract", "Introduction", "References"]
    assert {"Materials and Methods", "Ethical approval", "Flow cytometry analysis", "Statistical analysis"} <= set(by_model)
