"""Where a PDF's text came from, as `inspect`, `show` and `report` say it: each page's source (its
text layer, or OCR and why) and each OCR'd chunk's least line confidence. The paper is two pages
made in the test: page 1 a text page, page 2 the same kind of page scanned (an image alone)."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import numpy
import pymupdf
import pytest
from typer.testing import CliRunner

from ocr_helpers import PAGES, RAPIDOCR_MISSING, image_only, rapidocr_missing, text_pdf
from pipeline.cli import app
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.ingest.process import process
from pipeline.records.chunks import Chunk
from pipeline.report.inspection import chunk_note, render_tree
from pipeline.report.provenance import PageSource, text_sources

runner = CliRunner()
needs_rapidocr = pytest.mark.skipif(rapidocr_missing(), reason=RAPIDOCR_MISSING)
SCANNED = "page 2 OCR (a scan without a text layer)"
INK_COVERED = 0.97
"""Share of a scanned page's ink the boxes of its chunks must cover: the words, not the space
between the lines (the heading's rule and stray pixels of antialiasing are the rest)."""


@pytest.fixture(scope="module")
def ingested(tmp_path_factory, rules) -> tuple[Path, Path]:
    """(database, the half-scanned PDF)."""
    root = tmp_path_factory.mktemp("provenance")
    (root / "papers").mkdir()
    paper = image_only(text_pdf(root / "text.pdf", PAGES), root / "papers" / "half.pdf", scanned={2})
    if not rapidocr_missing():
        ingest_folder(root / "papers", root / "papers.duckdb", rules, IngestOptions(workers=1))
    return root / "papers.duckdb", paper


def _query(db: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as connection:
        return connection.execute(sql).fetchall()


def _caption(page: Path) -> str:
    """The caption of a page `show` wrote (the rest is the pictures' data)."""
    return re.search(r"<figcaption>(.*)</figcaption>", page.read_text()).group(1)


def _chunk_on_page(db: Path, page: int) -> str:
    return _query(db, f"SELECT chunk_id FROM chunks WHERE page_start = {page} AND page_end = {page} ORDER BY ordinal")[0][0]


def test_each_run_of_pages_of_one_source_is_named_in_page_order():
    read = [PageSource(2, "no text layer"), PageSource(3, "no text layer"), PageSource(5, "forced (--ocr force)")]
    assert text_sources(read, range(1, 7)) == (
        "page 1 text layer; pages 2-3 OCR (no text layer); page 4 text layer; page 5 OCR (forced (--ocr force)); page 6 text layer"
    )


def test_a_chunk_ocr_read_is_noted_with_its_least_line_confidence():
    chunk = Chunk.model_construct(ordinal=3, split="h2", word_count=41)
    assert chunk_note(chunk, 0.8745) == "chunk 3 (h2, 41 words; least OCR line confidence 0.87)"
    assert chunk_note(chunk) == "chunk 3 (h2, 41 words)"


@needs_rapidocr
@pytest.mark.slow
def test_inspect_names_each_pages_text_source_and_the_ocr_chunks_confidence(ingested, rules):
    _, paper = ingested
    tree = render_tree(process(paper, paper.name, paper.name, rules).chunked)
    assert f"text source: page 1 text layer; {SCANNED}" in tree.splitlines()
    introduction, methods = (line for line in tree.splitlines() if "→ chunk" in line)
    assert "OCR" not in introduction and re.search(r"least OCR line confidence (0\.[5-9]\d|1\.00)\)$", methods)


@needs_rapidocr
@pytest.mark.slow
def test_show_captions_a_scanned_chunk_with_its_source_and_confidence(ingested, tmp_path):
    db, _ = ingested
    shown = runner.invoke(app, ["show", _chunk_on_page(db, 2), "--db", str(db), "--out", str(tmp_path / "chunk.html")])
    assert shown.exit_code == 0 and re.search(rf"<br>text: {re.escape(SCANNED)}   least OCR line confidence \d\.\d\d</strong>", _caption(tmp_path / "chunk.html"))


@needs_rapidocr
@pytest.mark.slow
def test_show_says_nothing_of_ocr_for_a_chunk_read_from_the_text_layer(ingested, tmp_path):
    db, _ = ingested
    runner.invoke(app, ["show", _chunk_on_page(db, 1), "--db", str(db), "--out", str(tmp_path / "chunk.html")])
    assert "OCR" not in _caption(tmp_path / "chunk.html")


@needs_rapidocr
@pytest.mark.slow
def test_the_boxes_show_fills_on_a_scan_cover_its_words(ingested):
    db, paper = ingested
    boxes = _query(db, "SELECT x0, y0, x1, y1 FROM chunk_boxes WHERE page = 2")
    zoom = 2
    with pymupdf.open(paper) as doc:
        pixmap = doc[1].get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csGRAY)
    image = numpy.frombuffer(pixmap.samples, dtype=numpy.uint8).reshape(pixmap.h, pixmap.w)
    ys, xs = numpy.nonzero(image < 128)
    covered = numpy.zeros(len(xs), dtype=bool)
    for x0, y0, x1, y1 in boxes:
        covered |= (xs / zoom >= x0) & (xs / zoom <= x1) & (ys / zoom >= y0) & (ys / zoom <= y1)
    assert covered.mean() >= INK_COVERED


@needs_rapidocr
@pytest.mark.slow
def test_report_lists_the_paper_with_each_pages_source(ingested):
    db, _ = ingested
    report = runner.invoke(app, ["report", "--db", str(db)]).output
    assert f"  half.pdf: page 1 text layer; {SCANNED}; 1 of 2 chunks read by OCR, least OCR line confidence " in report


@needs_rapidocr
@pytest.mark.slow
def test_the_html_reports_paper_page_names_each_pages_source(ingested, tmp_path):
    db, _ = ingested
    runner.invoke(app, ["report", "--db", str(db), "--html", str(tmp_path / "report.html")])
    assert f"<p>Text source: page 1 text layer; {SCANNED}</p>" in (tmp_path / "report_files" / "half.pdf.html").read_text()
