"""The PDF extractor on papers rendered from a known source, on broken files, and on real papers.

The generated papers come from `corpus/make_pdfs.py`; their source text is the truth. The real
papers live in `../shared/corpus/pdf` and are skipped where that folder is absent.
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

import pymupdf
import pytest

from conftest import edited_rules_file, project_script
from pdf_helpers import (
    CORPUS_PDF,
    ground_truth_headings,
    ground_truth_paragraphs,
    heading_key,
    heading_recall,
    misplaced_words,
    page_words,
    plausible_heading,
    reading_order,
    running_words,
    word_share_in_blocks,
)
from pipeline.errors import ExtractError, NoTextLayerError
from pipeline.extract.pdf.document import extract_pdf
from pipeline.extract.pdf.heading_styles import HeadingRules, heading_style
from pipeline.extract.pdf.records import Layout, PdfBlock, Row
from pipeline.records.base import BlockKind
from pipeline.records.extract import RawDocument
from pipeline.rules import Rules, load_rules

make_pdfs = project_script("corpus/make_pdfs.py")

VARIANTS = ["single_column", "two_column", "running_heads", "bold_headings"]
REAL_PDFS = sorted(CORPUS_PDF.glob("*.pdf")) if CORPUS_PDF.is_dir() else []
needs_corpus = pytest.mark.skipif(not REAL_PDFS, reason=f"shared corpus not found at {CORPUS_PDF}")
# Floors measured on the ground-truth files (both at 100% when set), with room for tool noise.
HEADING_RECALL_FLOOR = 0.9


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_pdfs.make_pdfs(tmp_path_factory.mktemp("generated"))


@pytest.fixture(scope="session")
def extracted(generated: dict[str, Path], rules: Rules) -> dict[str, RawDocument]:
    return {name: extract_pdf(path, f"generated/{name}.pdf", rules) for name, path in generated.items()}


def flat(text: str) -> str:
    """Text with ligatures expanded and all spacing reduced to single spaces, for comparisons."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def headings(doc: RawDocument) -> list[tuple[int, str]]:
    return [(block.level, flat(block.text)) for block in doc.blocks if block.kind is BlockKind.heading]


def source_headings(numbered: bool) -> list[tuple[int, str]]:
    paper = make_pdfs._numbered(make_pdfs.PAPER) if numbered else make_pdfs.PAPER
    levels = {"h2": 2, "h3": 3}
    return [(1, make_pdfs.TITLE)] + [(levels[kind], text) for kind, text in paper if kind in levels]


def block_with(doc: RawDocument, sentence: str):
    return next(block for block in doc.blocks if sentence in flat(block.text))


# ---------------------------------------------------------------- generated papers


@pytest.mark.parametrize("variant", VARIANTS)
def test_headings_are_recovered_with_their_levels(extracted, variant):
    expected = source_headings(numbered=variant != "single_column")
    assert [(level, heading_key(text)) for level, text in headings(extracted[variant])] == [
        (level, heading_key(text)) for level, text in expected
    ]


def test_headings_at_body_size_are_found_by_weight_and_numbering(extracted):
    found = dict((text, level) for level, text in headings(extracted["bold_headings"]))
    assert found["1 Introduction"] == 2
    assert found["2.1 Cohort and setting"] == 3


def test_two_columns_are_read_column_by_column(extracted):
    text = flat(" ".join(block.text for block in extracted["two_column"].blocks))
    sentences = [
        sentence
        for kind, paragraph in make_pdfs.PAPER
        if kind == "p"
        for sentence in re.split(r"(?<=\.) ", paragraph)
    ]
    positions = [text.find(sentence) for sentence in sentences]
    assert -1 not in positions, [s for s, at in zip(sentences, positions) if at < 0]
    assert positions == sorted(positions)


def test_running_heads_and_page_numbers_are_dropped_and_counted(extracted):
    doc = extracted["running_heads"]
    text = " ".join(block.text for block in doc.blocks)
    assert make_pdfs.RUNNING_HEAD not in text and make_pdfs.RUNNING_AUTHORS not in text
    # Three stamps per page: the journal head, the author line and the page number.
    assert doc.removed_running_lines == 3 * doc.page_count


def test_a_running_head_on_fewer_pages_than_the_rules_ask_is_kept(generated, tmp_path):
    strict = load_rules(edited_rules_file(tmp_path, "short_document_min_pages = 2", "short_document_min_pages = 3"))
    doc = extract_pdf(generated["running_heads"], "generated/running_heads.pdf", strict)
    assert doc.removed_running_lines == 0
    assert make_pdfs.RUNNING_HEAD in flat(" ".join(block.text for block in doc.blocks))


def test_a_title_must_be_as_large_as_the_rules_ask(generated, tmp_path):
    strict = load_rules(edited_rules_file(tmp_path, "min_size = 1.15", "min_size = 3.0"), {"pdf": {"title": {"bylined_min_size": 3.0}}})
    doc = extract_pdf(generated["single_column"], "generated/single_column.pdf", strict)
    assert [text for level, text in headings(doc) if level == 1] == []


def _masthead_page(path: Path, title: str, byline: str) -> Path:
    """Page 1 under a journal's name set larger than the title, its address and DOI in small print."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((200, 80), "The Open Test Journal", fontsize=18, fontname="hebo")
    page.insert_text((200, 125), "Content list available at: www.example.org/test-journal/", fontsize=8)
    page.insert_text((200, 145), "DOI: 10.1234/otj.2021.0042", fontsize=8)
    page.insert_text((72, 178), title, fontsize=16, fontname="hebo")
    page.insert_text((72, 206), byline, fontsize=12)
    page.insert_text((72, 250), "Introduction", fontsize=13, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 260, 523, 800), "Sleep loss raises interleukin-6 in the blood. " * 40, fontsize=10)
    doc.save(path)
    return path


def test_a_journals_name_set_larger_than_the_title_gives_way_to_the_title_over_the_byline(tmp_path, rules):
    path = _masthead_page(tmp_path / "masthead.pdf", "Interleukin-6 after sleep loss in a crossover trial", "Ana Silva, Bo Chen and Rui Costa")
    doc = extract_pdf(path, path.name, rules)
    assert [text for level, text in headings(doc) if level == 1] == ["Interleukin-6 after sleep loss in a crossover trial"]


def test_a_long_title_in_the_largest_print_stays_the_title_though_no_byline_is_seen_under_it(tmp_path, rules):
    """Only a short line (a journal's name) gives way: a long title whose byline the extractor
    cannot tell (no commas, no marks) is not passed over for smaller print."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 80), "Interleukin-6 after sleep loss in forty adults", fontsize=18, fontname="hebo")
    page.insert_text((72, 110), "Julien Lesgourgues and Sergio Pastor", fontsize=12)
    page.insert_text((72, 150), "Sleep and memory: a reply", fontsize=14, fontname="hebo")
    page.insert_text((72, 175), "Ana Silva, Bo Chen and Rui Costa", fontsize=12)
    page.insert_textbox(pymupdf.Rect(72, 200, 523, 800), "Sleep loss raises interleukin-6 in the blood. " * 40, fontsize=10)
    doc.save(tmp_path / "long.pdf")
    extracted = extract_pdf(tmp_path / "long.pdf", "long.pdf", rules)
    assert [text for level, text in headings(extracted) if level == 1] == ["Interleukin-6 after sleep loss in forty adults"]


def _title_a_point_over_the_body(path: Path, byline: str) -> Path:
    """Page 1 whose title is set in bold at 12 points over a body of 11, `byline` under it."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 80), "Basil extract raises choline acetyltransferase", fontsize=12, fontname="hebo")
    page.insert_text((72, 96), "in endothelial cells of the brain", fontsize=12, fontname="hebo")
    page.insert_text((72, 118), byline, fontsize=8)
    page.insert_text((72, 160), "Introduction", fontsize=11, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 170, 523, 800), "Basil raises the enzyme in the cells we grew. " * 60, fontsize=11)
    doc.save(path)
    return path


def test_a_bold_title_a_point_over_the_body_is_the_title_where_a_byline_is_under_it(tmp_path, rules):
    path = _title_a_point_over_the_body(tmp_path / "small_title.pdf", "Dwi Kusindarta1, Hevi Wihadmadyatami1 and Aris Haryanto2")
    doc = extract_pdf(path, path.name, rules)
    assert [" ".join(text.split()) for level, text in headings(doc) if level == 1] == [
        "Basil extract raises choline acetyltransferase in endothelial cells of the brain"
    ]


def test_a_bold_line_a_point_over_the_body_with_no_byline_under_it_is_no_title(tmp_path, rules):
    path = _title_a_point_over_the_body(tmp_path / "no_byline.pdf", "Received 12 June 2016; accepted 13 October 2016")
    doc = extract_pdf(path, path.name, rules)
    assert [text for level, text in headings(doc) if level == 1] == []


def test_a_cover_whose_picture_fills_the_top_has_its_title_low_on_the_page(tmp_path, rules):
    """Page 1 of some journals is a picture with the title under it, near the foot: as the page's
    first text, it is the title though it starts below `max_top`."""
    doc = pymupdf.open()
    cover = doc.new_page(width=595, height=794)
    cover.draw_rect(pymupdf.Rect(40, 100, 555, 560), color=(0, 0.3, 0.5), fill=(0, 0.3, 0.5))
    cover.insert_text((57, 615), "Unravelling the genome of holy basil", fontsize=23, fontname="hebo")
    cover.insert_text((57, 695), "Rastogi et al.", fontsize=14)
    page = doc.new_page(width=595, height=794)
    page.insert_text((57, 80), "Background", fontsize=12, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(57, 90, 540, 760), "Holy basil is a herb of traditional medicine. " * 60, fontsize=10)
    doc.save(tmp_path / "cover.pdf")
    extracted = extract_pdf(tmp_path / "cover.pdf", "cover.pdf", rules)
    assert [text for level, text in headings(extracted) if level == 1] == ["Unravelling the genome of holy basil"]


def test_large_text_low_on_page_one_under_other_text_is_no_title(tmp_path, rules):
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=794)
    page.insert_text((57, 60), "A note on basil", fontsize=11, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(57, 70, 540, 560), "Holy basil is a herb of traditional medicine. " * 40, fontsize=10)
    page.insert_text((57, 615), "Basil in the kitchen and the clinic", fontsize=23, fontname="hebo")
    doc.save(tmp_path / "low.pdf")
    extracted = extract_pdf(tmp_path / "low.pdf", "low.pdf", rules)
    assert [text for level, text in headings(extracted) if level == 1] == []


def test_papers_without_running_lines_lose_nothing(extracted):
    assert extracted["single_column"].removed_running_lines == 0


@pytest.mark.parametrize("numeral", ["iii", "XII"])
def test_a_lone_roman_numeral_in_bold_is_no_heading_but_a_page_number(numeral, rules):
    """Bold, at body size, alone on its line: a heading's type, but front matter's page number."""
    row = Row(page=3, group=0, x0=290, y0=800, x1=305, y1=812, text=numeral, size=10, font="Helvetica-Bold", bold=True,
              small_caps=False, chars=len(numeral), cells=0, rotated=False)
    layout = Layout(body_size=10, pitch=1.2, body_face="times-roman")
    assert heading_style(PdfBlock(kind=BlockKind.paragraph, rows=(row,)), layout, HeadingRules.from_rules(rules)) is None


def test_page_labels_come_from_the_pdf(extracted):
    assert extracted["running_heads"].page_labels == {1: "101", 2: "102"}


def test_page_labels_are_never_invented(extracted):
    assert extracted["single_column"].page_labels == {}


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_segment_is_on_the_page_it_claims(generated, extracted, variant):
    assert misplaced_words(extracted[variant], page_words(generated[variant])) == []


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_paragraph_across_a_page_break_is_one_block_on_two_pages(extracted, variant):
    block = block_with(extracted[variant], "The crossing paragraph begins")
    assert "The crossing paragraph ends here" in flat(block.text)
    first, second = (segment.page for segment in block.segments)
    assert second == first + 1
    assert block.segments[0].text.endswith("\n")


def test_a_paragraph_across_a_column_break_is_one_block(extracted):
    block = block_with(extracted["two_column"], "The crossing paragraph begins")
    assert "Its clause number 4 records" in flat(block.text)


def test_line_breaks_are_kept_inside_segments(extracted):
    block = block_with(extracted["two_column"], "The cohort sentence says")
    assert "\n" in block.segments[0].text


def test_a_caption_is_a_paragraph_of_its_own(extracted):
    block = block_with(extracted["two_column"], "Figure 1.")
    assert block.kind is BlockKind.paragraph
    assert flat(block.text) == "Figure 1. Mean systolic pressure by visit for the synthetic cohort."


def test_a_bulleted_list_is_one_list_block(extracted):
    block = block_with(extracted["two_column"], "the first listed outcome")
    assert block.kind is BlockKind.list
    assert "the second listed outcome was heart rate" in flat(block.text)


@pytest.mark.parametrize("variant", VARIANTS)
def test_page_count_is_the_real_page_count(generated, extracted, variant):
    with pymupdf.open(generated[variant]) as doc:
        assert extracted[variant].page_count == doc.page_count


def test_pdf_blocks_have_no_line_numbers(extracted):
    assert all(block.line_start is None and block.line_end is None for block in extracted["single_column"].blocks)


# ---------------------------------------------------------------- files that cannot be read


def zero_bytes(folder: Path, generated: dict[str, Path]) -> Path:
    path = folder / "empty.pdf"
    path.write_bytes(b"")
    return path


def truncated(folder: Path, generated: dict[str, Path]) -> Path:
    data = generated["single_column"].read_bytes()
    path = folder / "truncated.pdf"
    path.write_bytes(data[: len(data) // 2])
    return path


def not_a_pdf(folder: Path, generated: dict[str, Path]) -> Path:
    path = folder / "notes.pdf"
    path.write_text("# Notes\n\nThis is Markdown that someone saved with a .pdf name.\n", encoding="utf-8")
    return path


def encrypted(folder: Path, generated: dict[str, Path]) -> Path:
    path = folder / "locked.pdf"
    with pymupdf.open(generated["single_column"]) as doc:
        doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="x", owner_pw="y")
    return path


def scanned(folder: Path, generated: dict[str, Path]) -> Path:
    path = folder / "scan.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.draw_rect(pymupdf.Rect(72, 72, 400, 300), color=(0, 0, 0), fill=(0.8, 0.8, 0.8))
        pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
        pixmap.clear_with(200)
        page.insert_image(pymupdf.Rect(100, 400, 300, 600), pixmap=pixmap)
        doc.save(path)
    return path


BROKEN = {
    "zero_bytes": (zero_bytes, ExtractError, "empty"),
    "truncated": (truncated, ExtractError, "truncated"),
    "not_a_pdf": (not_a_pdf, ExtractError, "not a PDF"),
    "encrypted": (encrypted, ExtractError, "encrypted"),
    "scanned": (scanned, NoTextLayerError, "OCR"),
}


@pytest.mark.parametrize("case", BROKEN)
def test_unreadable_files_raise_with_the_cause(tmp_path, generated, rules, case):
    make, error, cause = BROKEN[case]
    with pytest.raises(error, match=cause):
        extract_pdf(make(tmp_path, generated), f"inbox/{case}.pdf", rules)


@pytest.mark.parametrize("case", BROKEN)
def test_error_messages_name_the_file(tmp_path, generated, rules, case):
    make, error, _ = BROKEN[case]
    with pytest.raises(error) as raised:
        extract_pdf(make(tmp_path, generated), f"inbox/{case}.pdf", rules)
    assert str(raised.value).startswith(f"inbox/{case}.pdf: ")


def test_a_damaged_pdf_is_not_taken_for_a_scan(tmp_path, generated, rules):
    path = tmp_path / "cut.pdf"
    data = generated["single_column"].read_bytes()
    path.write_bytes(data[: len(data) // 2] + b"\n%%EOF\n")
    with pytest.raises(ExtractError, match="damaged") as raised:
        extract_pdf(path, "inbox/cut.pdf", rules)
    assert not isinstance(raised.value, NoTextLayerError)


def test_a_scan_without_text_is_not_a_generic_failure(tmp_path, generated, rules):
    with pytest.raises(NoTextLayerError):
        extract_pdf(scanned(tmp_path, generated), "inbox/scan.pdf", rules)


def test_a_one_page_scan_is_said_in_the_singular(tmp_path, generated, rules):
    with pytest.raises(NoTextLayerError) as raised:
        extract_pdf(scanned(tmp_path, generated), "inbox/scan.pdf", rules)
    assert "its one page has no text layer" in str(raised.value)


def test_a_pdf_that_opens_with_the_empty_password_is_read(tmp_path, generated, rules):
    path = tmp_path / "owner_only.pdf"
    with pymupdf.open(generated["single_column"]) as doc:
        doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="y")
    assert extract_pdf(path, "inbox/owner_only.pdf", rules).page_count == 2


# ---------------------------------------------------------------- real papers


@pytest.fixture(scope="module")
def real() -> dict[str, RawDocument]:
    return {}


def real_doc(real: dict[str, RawDocument], pdf: Path, rules: Rules) -> RawDocument:
    if pdf.name not in real:
        real[pdf.name] = extract_pdf(pdf, f"pdf/{pdf.name}", rules)
    return real[pdf.name]


@needs_corpus
@pytest.mark.parametrize("pdf", REAL_PDFS, ids=lambda p: p.stem)
def test_real_paper_extracts(real, rules, pdf):
    try:
        doc = real_doc(real, pdf, rules)
    except NoTextLayerError:
        assert not any(words.values() for words in page_words(pdf).values())
        return
    assert doc.page_count > 0 and doc.blocks


@needs_corpus
@pytest.mark.parametrize("pdf", REAL_PDFS, ids=lambda p: p.stem)
def test_real_paper_segments_are_on_their_pages(real, rules, pdf):
    assert misplaced_words(real_doc(real, pdf, rules), page_words(pdf)) == []


@needs_corpus
@pytest.mark.parametrize("pdf", REAL_PDFS, ids=lambda p: p.stem)
def test_real_paper_text_reaches_blocks(real, rules, pdf):
    share = word_share_in_blocks(real_doc(real, pdf, rules), page_words(pdf), running_words(pdf))
    print(f"{pdf.name}: {share:.1%} of page words in blocks")
    assert share >= 0.95


@needs_corpus
@pytest.mark.parametrize(
    "pdf", [p for p in REAL_PDFS if ground_truth_headings(p) is not None], ids=lambda p: p.stem
)
def test_real_paper_heading_recall(real, rules, pdf):
    truth = [heading for heading in ground_truth_headings(pdf) if plausible_heading(heading)]
    recall = heading_recall(real_doc(real, pdf, rules), truth)
    print(f"{pdf.name}: heading recall {recall.found}/{recall.total}; missing {recall.missing}")
    assert recall.share >= HEADING_RECALL_FLOOR


@needs_corpus
@pytest.mark.parametrize(
    "pdf", [p for p in REAL_PDFS if ground_truth_paragraphs(p)], ids=lambda p: p.stem
)
def test_real_two_column_paper_reads_in_order(real, rules, pdf):
    usable, found, in_order = reading_order(real_doc(real, pdf, rules), ground_truth_paragraphs(pdf))
    print(f"{pdf.name}: {found}/{usable} ground-truth paragraphs found, {in_order} in sequence")
    assert found >= 0.8 * usable
    assert in_order >= 0.95 * found


def test_a_pdf_whose_file_name_is_not_utf8_is_read(tmp_path, rules):
    """PyMuPDF opens a path only as UTF-8 text; a name with the byte 0xff is read from its bytes."""
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Serum IL-6 rose in the treated cohort.", fontsize=11)
    doc.save(tmp_path / "cafe.pdf")
    file = (tmp_path / "cafe.pdf").rename(tmp_path / os.fsdecode(b"caf\xff.pdf"))

    raw = extract_pdf(file, "caf%FF.pdf", rules)

    assert "Serum IL-6 rose" in raw.blocks[0].segments[0].text


def test_sub_headings_numbered_in_parentheses_are_headings_below_their_section(tmp_path, rules):
    """`(1) Study population` in bold on a line of its own, under `2 Methods`: its number in
    parentheses says no depth, so its level is its style's, below the numbered section."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 70), "A Study of Examples", fontsize=16, fontname="hebo")
    page.insert_text((72, 110), "2 Methods", fontsize=12, fontname="hebo")
    y = 130.0
    for number, heading in enumerate(["Study population", "Outcome measures", "Statistical analysis"], start=1):
        page.insert_text((72, y), f"({number}) {heading}", fontsize=10, fontname="hebo")
        page.insert_textbox(pymupdf.Rect(72, y + 6, 523, y + 66), "The trial enrolled adults from three clinics. " * 6, fontsize=10)
        y += 86
    doc.save(tmp_path / "paper.pdf")

    raw = extract_pdf(tmp_path / "paper.pdf", "paper.pdf", rules)

    headings = [(block.level, block.segments[0].text) for block in raw.blocks if block.kind is BlockKind.heading]
    assert headings == [(1, "A Study of Examples"), (2, "2 Methods"), (3, "(1) Study population"),
                        (3, "(2) Outcome measures"), (3, "(3) Statistical analysis")]


def test_running_heads_that_alternate_the_byline_and_the_title_are_dropped(tmp_path, rules):
    """A four-page paper heads its even pages with its authors and its odd pages with its title:
    each recurs on fewer pages than running lines must, but each spells a line of page 1's top."""
    doc = pymupdf.open()
    for number in range(1, 5):
        page = doc.new_page(width=595, height=842)
        if number == 1:
            page.insert_text((72, 80), "Grassmannian models on a finite interval", fontsize=16, fontname="hebo")
            page.insert_text((72, 104), "D. Writer and A. Reader", fontsize=11)
        else:
            head = "D. WRITER AND A. READER" if number % 2 == 0 else "GRASSMANNIAN MODELS ON A FINITE INTERVAL"
            page.insert_text((72, 40), head, fontsize=9)
        page.insert_text((72, 160), f"{number} Section {number}", fontsize=12, fontname="hebo")
        page.insert_textbox(pymupdf.Rect(72, 170, 523, 700), "The models were solved on an interval of finite length. " * 20, fontsize=10)
    doc.save(tmp_path / "paper.pdf")

    raw = extract_pdf(tmp_path / "paper.pdf", "paper.pdf", rules)

    text = " ".join(segment.text for block in raw.blocks for segment in block.segments)
    assert "WRITER" not in text and "GRASSMANNIAN" not in text
    assert "Grassmannian models on a finite interval" in text and "D. Writer and A. Reader" in text
