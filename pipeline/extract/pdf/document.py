"""Extract a PDF paper into blocks in reading order, each block cut into per-page segments.

PyMuPDF reads every page once (`get_text("dict")`, images off: `page_reading.read_page`);
everything after that is geometry and typography on its lines, in the named, ordered passes of
`passes.PASSES` (running lines dropped, columns found and read in order, rows grouped into blocks,
headings marked, continuations joined; `pipeline inspect --passes` lists them). Beside every table
caption, `tables.find_pdf_tables` finds the table's grid from the words of the caption's page
(kept from the one text extraction); the blocks are left as they are, and the tables go beside
them in `RawDocument.tables`.

A page whose text layer is missing or is not text is read by OCR instead, where rapidocr is
installed (`ocr.read_where_needed`, `[pdf.ocr]`): its lines come in as the text layer's would, and
`RawDocument.ocr_pages` says which pages and why.

In `--layout model`, and in `auto` where the typographic reading is doubtful
(`layout_choice.doubtful_reading`), PyMuPDF's layout model labels the lines first
(`layout_model`) and the passes run on the labelled lines.

This module opens and checks the file, reads its pages, runs the passes and assembles the blocks
into a `RawDocument`.
"""

from __future__ import annotations

import math
from pathlib import Path

import pymupdf

from pipeline.errors import ExtractError, NoTextLayerError
from pipeline.extract.pdf.body_text import body_size
from pipeline.extract.pdf.layout_choice import doubtful_reading
from pipeline.extract.pdf.layout_model import LayoutLabel, label_pieces, layout_model_installed, shared_model
from pipeline.extract.pdf.heading_rule_lines import horizontal_rules
from pipeline.extract.pdf.metadata import embedded_metadata, first_page_lines, front_page, later_margin_rows
from pipeline.extract.pdf.ocr import ocr_installed, ocr_note, page_for_layout_model, read_where_needed
from pipeline.extract.pdf.page_reading import TEXT_FLAGS, read_page
from pipeline.extract.pdf.passes import Reading, run_passes
from pipeline.extract.pdf.records import PageBox, PdfBlock, PrintedLine, Row, joined_superscripts
from pipeline.extract.pdf.table_words import Word, page_words
from pipeline.extract.pdf.table_regions import has_table_caption
from pipeline.extract.pdf.tables import find_pdf_tables
from pipeline.extract.source import PDF_SNIFF_BYTES, read_source
from pipeline.records.base import LineBox, SourceFormat, TextSegment
from pipeline.records.extract import OcrPage, RawBlock, RawDocument
from pipeline.rules import Rules
from pipeline.rules.pdf import LayoutMode, OcrMode, PdfOcrRules, PdfTableRules

_BOX_GRAIN = 10
"""Line boxes are kept to a tenth of a point (0.04 mm), rounded outwards so that they still hold
every glyph: finer shows nothing on a page, and every stored extraction carries them."""


# MuPDF prints its errors and warnings on standard output, which is the run's own (`ingest --json`
# writes the summary there, and cron appends it to a log of JSON lines). Its messages are taken
# from its store instead, and kept as a file's reading note where they explain what was read.
pymupdf.TOOLS.mupdf_display_errors(False)
pymupdf.TOOLS.mupdf_display_warnings(False)
_MUPDF_MESSAGES_KEPT = 3
"""Distinct MuPDF messages a reading note or an error repeats; a damaged file can make hundreds."""


def _mupdf_messages() -> list[str]:
    """What MuPDF said since it was last asked, each message once, the store emptied."""
    return list(dict.fromkeys(line for line in pymupdf.TOOLS.mupdf_warnings(reset=True).splitlines() if line.strip()))


def _said(messages: list[str]) -> str:
    shown = "; ".join(messages[:_MUPDF_MESSAGES_KEPT])
    return shown + (f"; and {len(messages) - _MUPDF_MESSAGES_KEPT} more" if len(messages) > _MUPDF_MESSAGES_KEPT else "")


# ---------------------------------------------------------------- open and read


def _open(data: bytes, path: str) -> pymupdf.Document:
    """The PDF opened from the bytes read (not from its path, which may hold other bytes by now,
    and which PyMuPDF takes only as UTF-8 text), after checks that name what is wrong with it."""
    if not data:
        raise ExtractError(f"{path}: the file is empty (0 bytes); re-download or re-export the PDF")
    if b"%PDF-" not in data[:PDF_SNIFF_BYTES]:
        raise ExtractError(f"{path}: not a PDF (no %PDF- header) despite its name; check what the file really is")
    if b"%%EOF" not in data[-PDF_SNIFF_BYTES:]:
        raise ExtractError(f"{path}: the PDF is truncated (no %%EOF at its end); re-download or re-export it")
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except (pymupdf.FileDataError, RuntimeError, ValueError) as error:
        raise ExtractError(f"{path}: corrupt PDF that PyMuPDF cannot open ({error}); re-download or re-export it") from None
    if doc.needs_pass:
        doc.close()
        raise ExtractError(
            f"{path}: the PDF is encrypted and the empty password does not open it; "
            "decrypt it (e.g. `qpdf --decrypt --password=… in.pdf out.pdf`) and ingest the copy"
        )
    if doc.page_count == 0:
        doc.close()
        raise ExtractError(f"{path}: the PDF has no pages; re-export it")
    return doc


# ---------------------------------------------------------------- assembly


def _segments(rows: tuple[Row, ...]) -> list[TextSegment]:
    segments: list[TextSegment] = []
    texts: list[str] = []
    page = rows[0].page
    for index, row in enumerate(rows):
        if row.page != page:
            segments.append(TextSegment(text="".join(texts), page=page))
            texts, page = [], row.page
        texts.append(row.text + ("\n" if index < len(rows) - 1 else ""))
    segments.append(TextSegment(text="".join(texts), page=page))
    return segments


def _line_boxes(rows: tuple[Row, ...]) -> list[LineBox]:
    """Where each of a block's rows (a line of its text) is printed."""
    return [
        (
            row.page,
            math.floor(row.box[0] * _BOX_GRAIN) / _BOX_GRAIN, math.floor(row.box[1] * _BOX_GRAIN) / _BOX_GRAIN,
            math.ceil(row.box[2] * _BOX_GRAIN) / _BOX_GRAIN, math.ceil(row.box[3] * _BOX_GRAIN) / _BOX_GRAIN,
        )
        for row in rows
    ]



def _raw_block(block: PdfBlock) -> RawBlock:
    return RawBlock(
        kind=block.kind, segments=_segments(block.rows), level=block.level, heading_evidence=list(block.evidence),
        line_boxes=_line_boxes(block.rows),
        superscripts=list(joined_superscripts([(row.text, row.superscripts) for row in block.rows], "\n")),
    )


def _raise_without_text(
    path: str, page_count: int, repaired: bool, messages: list[str], ocr_read: list[OcrPage], ocr: PdfOcrRules
) -> None:
    """The error for a PDF none of whose pages has text: a damaged file, a scan OCR found no
    text on, blank pages, or a scan to OCR."""
    if repaired:
        raise ExtractError(
            f"{path}: the PDF is damaged (MuPDF had to repair it: {_said(messages)}) and no page has text; "
            "re-download or re-export it"
        )
    if ocr_read:
        raise NoTextLayerError(
            f"{path}: {_no_text_layer(page_count)}, and OCR read no text on {_its_pages(len(ocr_read))} either; "
            "check that the file shows text (a higher [pdf.ocr] dpi reads smaller print)"
        )
    if ocr.mode is OcrMode.auto and ocr_installed():
        raise NoTextLayerError(f"{path}: {_no_text_layer(page_count)}, and nothing is drawn on {_its_pages(page_count)} for OCR to read")
    raise NoTextLayerError(
        f"{path}: {_no_text_layer(page_count)} (a scan?); read it by OCR with the [ocr] extra "
        "(pip install 'paper-pipeline[ocr]', and --ocr auto or force), or OCR it first (e.g. `ocrmypdf in.pdf out.pdf`) "
        "and ingest the result"
    )


def read_pages(
    doc: pymupdf.Document, path: str, tables: PdfTableRules
) -> tuple[list[list[PrintedLine]], list[float], dict[int, str], dict[int, list[Word]]]:
    """Pieces and frame height of every page, the page labels the PDF defines, and the words of
    each page that prints a table caption (read from the page's one text extraction)."""
    pages: list[list[PrintedLine]] = []
    heights: list[float] = []
    labels: dict[int, str] = {}
    words: dict[int, list[Word]] = {}
    # The label rules read once: `Page.get_label` reads them again for every page. These are its
    # own two calls, one of them private to PyMuPDF: pyproject.toml pins PyMuPDF exactly, and
    # tests/extract/test_extract_pdf.py's page-label tests say if an upgrade moves them.
    label_rules = sorted(doc._get_page_labels())
    styles: dict[str, tuple[bool, bool, bool]] = {}
    for number, page in enumerate(doc, start=1):
        try:
            textpage = page.get_textpage(flags=TEXT_FLAGS)
            # One `dict` of the page for its lines and, on a table's page, its prime marks.
            text = page.get_text("dict", flags=TEXT_FLAGS, textpage=textpage)
            pieces, height = read_page(page, number, styles, textpage, text)
            if has_table_caption(pieces, tables):
                words[number] = page_words(textpage, text)
            label = pymupdf.utils.get_label_pno(number - 1, label_rules) if label_rules else ""
        except RuntimeError as error:
            raise ExtractError(f"{path}: page {number} cannot be read ({error}); the PDF is damaged, re-export it") from None
        pages.append(pieces)
        heights.append(height)
        if label:
            labels[number] = label
    return pages, heights, labels, words


def _blocks(
    doc: pymupdf.Document, pages: list[list[PrintedLine]], heights: list[float], toc: list[list], rules: Rules, labelled: bool
) -> tuple[list[PdfBlock], int]:
    """The pages' lines through every pass (`passes.PASSES`): the blocks in reading order, and how
    many lines of page furniture were dropped; `labelled` where the layout model read the pages."""
    reading = Reading(pages, heights, toc, rules, labelled, rules_on=lambda number: horizontal_rules(doc[number - 1]))
    done = run_passes(reading)
    return done.blocks, done.dropped


def _blocks_by_model(
    doc: pymupdf.Document, pages: list[list[PrintedLine]], heights: list[float], toc: list[list], rules: Rules, path: str,
    read_by_ocr: frozenset[int],
) -> tuple[list[PdfBlock], int, dict[int, list[PageBox]]]:
    """`_blocks` of every page's pieces labelled by the layout model, and the boxes of the
    regions it calls tables, by page; the pages `read_by_ocr` are read from their OCR'd lines."""
    try:
        model = shared_model()
    except ExtractError as error:
        raise ExtractError(f"{path}: {error}") from None
    regions = []
    for number, (page, pieces) in enumerate(zip(doc, pages), start=1):
        if number not in read_by_ocr:
            regions.append(model.regions(page))
            continue
        with page_for_layout_model(page, pieces) as written:
            regions.append(model.regions(written[0]))
    labelled = [label_pieces(pieces, page_regions) for pieces, page_regions in zip(pages, regions)]
    table_boxes = {
        number: boxes
        for number, page_regions in enumerate(regions, start=1)
        if (boxes := [region.box for region in page_regions if region.label is LayoutLabel.table])
    }
    return *_blocks(doc, labelled, heights, toc, rules, labelled=True), table_boxes


def extract_pdf(file: Path, path: str, rules: Rules) -> RawDocument:
    """Read one PDF into blocks in reading order with 1-based physical pages; `path` names it in
    messages, and `rules.pdf`, the caption start and the anchors that open a paper's body tune it."""
    return extract_pdf_bytes(read_source(file, path), path, rules)


def extract_pdf_bytes(data: bytes, path: str, rules: Rules) -> RawDocument:
    """`extract_pdf` of a PDF's bytes, read once by the caller."""
    _mupdf_messages()  # what earlier files made it say is theirs
    with _open(data, path) as doc:
        pages, heights, labels, words = read_pages(doc, path, rules.pdf.tables)
        try:
            toc = doc.get_toc(simple=True)
        except RuntimeError:
            toc = []  # a broken outline only costs the outline: headings then come from typography
        page_count = doc.page_count
        repaired = doc.is_repaired
        embedded = embedded_metadata(doc)
        messages = _mupdf_messages()
        pages, heights, ocr_read = read_where_needed(doc, pages, heights, rules.pdf.ocr, path)
        if not any(pages):
            _raise_without_text(path, page_count, repaired, messages, ocr_read, rules.pdf.ocr)
        notes = [f"MuPDF repaired the file: {_said(messages)}"] if repaired and messages else []
        notes += [ocr_note(ocr_read)] if ocr_read else []
        read_by_ocr = frozenset(read.page for read in ocr_read)
        # A table's words come from the text layer; an OCR'd page's layer is not its text.
        words = {number: found for number, found in words.items() if number not in read_by_ocr}
        mode = rules.pdf.layout.mode
        model_tables: dict[int, list[PageBox]] = {}
        reading, reason = LayoutMode.rules, "asked for (--layout rules)"
        if mode is LayoutMode.model:
            reading, reason = LayoutMode.model, "asked for (--layout model)"
            blocks, removed, model_tables = _blocks_by_model(doc, pages, heights, toc, rules, path, read_by_ocr)
        else:
            blocks, removed = _blocks(doc, pages, heights, toc, rules, labelled=False)
            doubt = _doubt(blocks, page_count, rules, read_by_ocr) if mode is LayoutMode.auto else None
            if doubt is not None and not layout_model_installed():
                notes.append(f"the typographic reading is doubtful ({doubt}), but PyMuPDF's layout model is not installed")
                reason = f"auto: {doubt}; the layout model is not installed"
            elif doubt is not None and page_count > rules.pdf.layout.max_pages:
                notes.append(
                    f"the typographic reading is doubtful ({doubt}), but {page_count} pages are more than auto sends to "
                    f"the layout model ([pdf.layout] max_pages = {rules.pdf.layout.max_pages}); use --layout model to read it so"
                )
                reason = f"auto: {doubt}; longer than max_pages"
            elif doubt is not None:
                reading, reason = LayoutMode.model, f"auto: {doubt}"
                blocks, removed, model_tables = _blocks_by_model(doc, pages, heights, toc, rules, path, read_by_ocr)
            elif mode is LayoutMode.auto:
                reason = "auto: the typographic reading shows no doubt"
        tables = find_pdf_tables(doc, pages, words, body_size(pages), rules.pdf.tables, model_tables)
    return RawDocument(
        path=path, format=SourceFormat.pdf,
        blocks=[_raw_block(block) for block in blocks],
        tables=tables,
        page_count=page_count,
        page_labels=labels,
        removed_running_lines=removed,
        reading_notes=notes,
        layout=reading.value,
        layout_reason=reason,
        embedded_metadata=embedded,
        first_page=first_page_lines(front_page(pages, rules.metadata.cover_sheet)),
        margin_rows=later_margin_rows(pages, heights, rules.pdf.running_lines.margin),
        ocr_pages=ocr_read,
    )


def _no_text_layer(page_count: int) -> str:
    """`none of its 3 pages has a text layer`, but `its one page has no text layer`."""
    return "its one page has no text layer" if page_count == 1 else f"none of its {page_count} pages has a text layer"


def _doubt(blocks: list[PdfBlock], page_count: int, rules: Rules, read_by_ocr: frozenset[int]) -> str | None:
    """What makes the typographic reading doubtful (`layout_choice.doubtful_reading`), or else its
    pages read by OCR, whose lines carry no font: a heading set in small bold over small print is
    known by the layout model's label there. None where nothing does."""
    doubt = doubtful_reading(blocks, page_count, rules.pdf.layout)
    if doubt is None and read_by_ocr:
        pages = "its one page" if len(read_by_ocr) == 1 else f"{len(read_by_ocr)} pages"
        return f"{pages} read by OCR, which reads no font or weight"
    return doubt


def _its_pages(count: int) -> str:
    return "it" if count == 1 else f"its {count} pages"
