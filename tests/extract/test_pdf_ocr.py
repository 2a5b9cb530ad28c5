"""Scanned pages read by OCR: which pages go to it, what it reads into the same records, what is
stored of it, and what happens without rapidocr (the `[ocr]` extra)."""

from __future__ import annotations

import sys
from pathlib import Path

import pymupdf
import pytest

from conftest import project_script, shared_corpus
from ocr_helpers import PAGES, RAPIDOCR_MISSING, image_only, rapidocr_missing, text_pdf
from pipeline.errors import ExtractError, NoTextLayerError
from pipeline.extract.pdf.document import extract_pdf
from pipeline.extract.pdf.ocr import ocr_note
from pipeline.extract.pdf.ocr_triage import looks_like_word, ocr_reason, text_layer_problem
from pipeline.extract.pdf.page_reading import read_page
from pipeline.index.database import open_readonly
from pipeline.ingest.run import IngestOptions, ingest_folder
from pipeline.records.extract import OcrPage
from pipeline.rules import layout_overrides, load_rules, DEFAULT_RULES_PATH
from pipeline.rules.pdf import OcrMode, PdfOcrRules

needs_rapidocr = pytest.mark.skipif(rapidocr_missing(), reason=RAPIDOCR_MISSING)


@pytest.fixture(scope="module")
def scan(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("scan")
    (folder / "papers").mkdir()
    return image_only(text_pdf(folder / "text.pdf", PAGES), folder / "papers" / "scan.pdf")


@pytest.fixture(scope="module")
def scan_read(scan, rules):
    return extract_pdf(scan, "scan.pdf", rules)


@needs_rapidocr
@pytest.mark.slow
def test_an_image_only_pdf_is_read_by_ocr_into_its_words(scan_read):
    text = " ".join(block.text for block in scan_read.blocks)
    assert "Lanterns glow above the harbour" in text and "Gardeners measured seventeen tomato plants" in text


@needs_rapidocr
@pytest.mark.slow
def test_ocr_puts_each_word_on_its_own_page(scan_read):
    pages = {segment.page for block in scan_read.blocks for segment in block.segments if "Gardeners" in segment.text}
    assert pages == {2}


@needs_rapidocr
@pytest.mark.slow
def test_ocr_keeps_a_heading_in_larger_type_a_heading(scan_read):
    headings = [block.text for block in scan_read.blocks if block.kind == "heading"]
    assert headings[:2] == ["Introduction", "Methods"]


@needs_rapidocr
@pytest.mark.slow
def test_each_ocr_page_records_its_reason_and_its_lines_confidence(scan_read):
    assert [(page.page, page.reason) for page in scan_read.ocr_pages] == [(1, "no text layer"), (2, "no text layer")]
    assert all(0.5 <= line[4] <= 1 for page in scan_read.ocr_pages for line in page.lines)
    assert scan_read.reading_notes == ["read by OCR at 200 dpi: pages 1-2 (no text layer)"]


@needs_rapidocr
@pytest.mark.slow
def test_ocr_pages_and_chunk_confidences_are_stored(scan, rules):
    db = scan.parent.parent / "papers.duckdb"
    ingest_folder(scan.parent, db, rules, IngestOptions(workers=1))
    connection = open_readonly(db)
    pages = connection.execute("SELECT page, reason, dpi FROM ocr_pages ORDER BY page").fetchall()
    least = connection.execute("SELECT min(min_confidence), count(*) FROM chunk_ocr").fetchone()
    assert pages == [(1, "no text layer", 200), (2, "no text layer", 200)]
    assert 0.5 <= least[0] <= 1 and least[1] >= 1


@needs_rapidocr
@pytest.mark.slow
def test_a_page_whose_invisible_layer_is_garbage_is_read_by_ocr_from_what_it_shows(tmp_path, rules):
    scan = image_only(text_pdf(tmp_path / "text.pdf", PAGES[:1]), tmp_path / "scan.pdf")
    with pymupdf.open(scan) as doc:
        doc[0].insert_text((72, 700), "Tbgz qwrt xkcd pzzl mnbv Qrxt wvtz hjkl bcdf " * 4, fontsize=4, render_mode=3)
        doc.save(tmp_path / "garbled.pdf")
    raw = extract_pdf(tmp_path / "garbled.pdf", "garbled.pdf", rules)
    assert raw.ocr_pages[0].reason.startswith("its text layer is not text")
    assert "Lanterns glow above the harbour" in " ".join(block.text for block in raw.blocks)


@needs_rapidocr
@pytest.mark.slow
def test_a_scan_with_a_stamp_beside_it_is_read_by_ocr(tmp_path, rules):
    scan = image_only(text_pdf(tmp_path / "text.pdf", PAGES[:1]), tmp_path / "scan.pdf")
    with pymupdf.open(scan) as doc:
        doc[0].insert_text((72, 780), "Downloaded from the archive", fontsize=6)
        doc.save(tmp_path / "stamped.pdf")
    raw = extract_pdf(tmp_path / "stamped.pdf", "stamped.pdf", rules)
    assert raw.ocr_pages[0].reason == "a scan with a thin text layer (24 characters)"


@needs_rapidocr
@pytest.mark.slow
def test_ocr_leaves_out_the_words_inside_a_figure_image_as_a_text_layer_does(tmp_path, rules):
    scan = image_only(text_pdf(tmp_path / "text.pdf", PAGES[:1]), tmp_path / "scan.pdf")
    with pymupdf.open() as drawing:
        figure = drawing.new_page(width=300, height=60)
        figure.insert_text((10, 38), "Quarterly harvest chart", fontsize=22)
        pixmap = figure.get_pixmap(dpi=200)
    with pymupdf.open(scan) as doc:
        doc[0].insert_image(pymupdf.Rect(72, 500, 372, 560), pixmap=pixmap)
        doc.save(tmp_path / "figure.pdf")
    text = " ".join(block.text for block in extract_pdf(tmp_path / "figure.pdf", "figure.pdf", rules).blocks)
    assert "Lanterns glow above the harbour" in text and "harvest" not in text.casefold()


def test_a_good_text_pdf_sends_no_page_to_ocr(tmp_path, rules):
    raw = extract_pdf(text_pdf(tmp_path / "text.pdf", PAGES), "text.pdf", rules)
    assert raw.ocr_pages == [] and "ocr_pages" not in raw.model_dump_json()


def test_a_layer_of_words_that_are_not_words_is_not_text(tmp_path):
    path = text_pdf(tmp_path / "garbled.pdf", [("Jouspevdujpo", "Tbgz qwrt xkcd pzzl mnbv Qrxt wvtz hjkl bcdf gh " * 2)])
    with pymupdf.open(path) as doc:
        pieces, _ = read_page(doc[0], 1, {})
        reason = ocr_reason(doc[0], pieces, PdfOcrRules(), file_has_text=True)
    assert reason is not None and reason.startswith("its text layer is not text (only ")


def test_a_layer_of_unmapped_glyphs_is_not_text():
    assert text_layer_problem("\ufffd\ufffd\ufffd \ufffd\ue001\ufffd of", PdfOcrRules()) == (
        "its text layer is not text (75% of the characters unmapped)"
    )


@pytest.mark.parametrize("word", ["Methods", "β-cells", "2.5%", "(Figure", "연구", "a", "don't", "—", "..."])
def test_a_word_of_letters_with_a_vowel_or_a_number_looks_like_a_word(word):
    assert looks_like_word(word)


@pytest.mark.parametrize("word", ["Tbgz", "$&'()*", "qz#x"])
def test_letters_without_a_vowel_or_with_symbols_inside_do_not(word):
    assert not looks_like_word(word)


def test_off_sends_no_page_to_ocr_even_one_without_a_text_layer(tmp_path, rules):
    scan = image_only(text_pdf(tmp_path / "text.pdf", PAGES[:1]), tmp_path / "scan.pdf")
    off = load_rules(DEFAULT_RULES_PATH, layout_overrides(None, OcrMode.off))
    with pytest.raises(NoTextLayerError, match="its one page has no text layer"):
        extract_pdf(scan, "scan.pdf", off)


def test_without_rapidocr_a_scan_stays_a_no_text_failure_whose_hint_names_the_extra(tmp_path, rules, monkeypatch):
    monkeypatch.setitem(sys.modules, "rapidocr", None)  # `import rapidocr` fails, find_spec finds nothing
    scan = image_only(text_pdf(tmp_path / "text.pdf", PAGES[:1]), tmp_path / "scan.pdf")
    with pytest.raises(NoTextLayerError) as raised:
        extract_pdf(scan, "inbox/scan.pdf", rules)
    assert str(raised.value) == (
        "inbox/scan.pdf: its one page has no text layer (a scan?); read it by OCR with the [ocr] extra "
        "(pip install 'paper-pipeline[ocr]', and --ocr auto or force), or OCR it first (e.g. `ocrmypdf in.pdf out.pdf`) "
        "and ingest the result"
    )


def test_without_rapidocr_force_is_an_error_that_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "rapidocr", None)
    forced = load_rules(DEFAULT_RULES_PATH, layout_overrides(None, OcrMode.force))
    with pytest.raises(ExtractError, match=r"--ocr force needs rapidocr, which is not installed; pip install 'paper-pipeline\[ocr\]'"):
        extract_pdf(text_pdf(tmp_path / "text.pdf", PAGES[:1]), "text.pdf", forced)


@needs_rapidocr
def test_blank_pages_are_no_text_with_nothing_for_ocr_to_read(tmp_path, rules):
    with pymupdf.open() as doc:
        doc.new_page()
        doc.new_page()
        doc.save(tmp_path / "blank.pdf")
    with pytest.raises(NoTextLayerError) as raised:
        extract_pdf(tmp_path / "blank.pdf", "blank.pdf", rules)
    assert str(raised.value) == "blank.pdf: none of its 2 pages has a text layer, and nothing is drawn on its 2 pages for OCR to read"


def test_the_note_names_the_pages_read_by_ocr_and_why():
    read = [OcrPage(page=page, reason="no text layer", dpi=200) for page in (1, 2, 3, 5)]
    assert ocr_note(read) == "read by OCR at 200 dpi: pages 1-3, 5 (no text layer)"


@pytest.mark.slow
def test_no_page_of_the_shared_pdfs_is_sent_to_ocr_in_auto():
    rules = PdfOcrRules()
    sent = []
    for path in sorted(shared_corpus().rglob("*.pdf")):
        with pymupdf.open(path) as doc:
            pages = [read_page(page, number, {})[0] for number, page in enumerate(doc, start=1)]
            has_text = any(pages)
            sent += [(path.name, number) for number, (page, pieces) in enumerate(zip(doc, pages), start=1)
                     if ocr_reason(page, pieces, rules, has_text) is not None]
    assert sent == []


def test_score_ocr_counts_the_text_layers_chunk_starts_the_ocr_reading_starts_a_chunk_at_too():
    score = project_script("scripts/score_ocr.py")
    truth = "methods we grew plants results they grew tall discussion".split()
    read = "methods we grevv plants results they grew tall discussion".split()
    assert score.boundaries_agreeing(truth, read, [0, 4, 8], [0, 4]) == 2


def test_score_ocr_aligns_chunk_starts_past_words_the_ocr_reading_adds():
    score = project_script("scripts/score_ocr.py")
    truth = "methods we grew plants results they grew tall".split()
    read = "check for updates methods we grew plants results they grew tall".split()
    assert score.boundaries_agreeing(truth, read, [0, 4], [3, 7]) == 2


def test_score_ocr_cache_reads_a_page_image_once_and_gives_its_lines_again(tmp_path, monkeypatch):
    import numpy

    from pipeline.extract.pdf import ocr

    score = project_script("scripts/score_ocr.py")
    calls = []

    def recognize(engine, image):
        calls.append(image.shape)
        return [([(1, 2), (30, 2), (30, 12), (1, 12)], "Methods", 0.98)]

    monkeypatch.setattr(ocr.OcrEngine, "recognize", recognize)
    score.cache_recognition(tmp_path)
    image = numpy.full((20, 40), 255, dtype=numpy.uint8)
    engine = object.__new__(ocr.OcrEngine)
    first, again = ocr.OcrEngine.recognize(engine, image), ocr.OcrEngine.recognize(engine, image.copy())
    assert calls == [(20, 40)] and first == again == [([(1, 2), (30, 2), (30, 12), (1, 12)], "Methods", 0.98)]
