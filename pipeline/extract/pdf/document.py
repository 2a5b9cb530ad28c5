"""Extract a PDF paper into blocks in reading order, each block cut into per-page segments.

PyMuPDF reads every page once (`get_text("dict")`, images off); everything after that is
geometry and typography on its lines, in passes (the module that holds each in brackets):

1. `read_page` (`page_reading`): PyMuPDF lines → pieces with a box (in the page's writing
   direction), the size and font most of their characters have, bold and small caps.
2. `drop_running_lines` (`running_lines`): margin lines whose text (digits masked) recurs at the same
   height on other pages are journal heads, author lines and page numbers; they are dropped and counted,
   and so are later margin lines that spell page 1's title or byline (`drop_heads_naming_the_paper`,
   `pdf_margins`), and, in the layout model's reading, lines it reads as page heads or feet there.
3. `find_columns` (`pdf_columns`): a gutter is a strip that lines of column width leave empty; a
   gutter found on several pages is also sought where one page's own evidence is weak.
4. `order_page` (`pdf_columns`): a page is read column by column between full-width pieces (title,
   abstract, wide figures and tables), which keep their place; pieces on one baseline become a row.
5. `group_blocks` (`pdf_blocks`): rows → blocks, cut where the column changes, at a vertical gap,
   at a first-line indent after a finished line, at a change of size or weight, a bullet or a caption.
6. `mark_contents` (`pdf_contents`): runs of lines that end in rising page numbers after a dot leader
   or a gap, whose titles the body goes on to use, are a table of contents: a list, no headings.
7. `split_shared_lines` (`pdf_shared_lines`): a section's name in bold capitals that shares its line
   with what follows (`METHODS Search strategy We searched…`) is cut off as a top-level heading, a
   bold sub-heading after it as one a level below, each part of the line keeping its box.
8. `mark_headings` (`pdf_headings`): the title, then outline (`get_toc()`) titles found on their
   pages, then typography: larger than body, or bold or capitals at body size; numbering gives the
   depth and distinct styles map to levels by prominence. A back cover's short lines (`pdf_back_cover`) head
   no section.
9. `join_continuations` (`pdf_blocks`): a paragraph cut at the end of a column or page joins the
   one that carries on at the top of the next; captions, tables and footnotes between them move after it.
10. `split_run_in_headings` (`pdf_run_in`): a paragraph that opens with a numbered or recurring lead
   in bold or italic, closed by a full stop or colon (`Animal preparation. In total…`), is cut into
   that heading and its text, the first line split where the lead ends; whole paragraphs, joined
   across breaks, show whether a style heads sections of text or labels short entries.
11. `find_pdf_tables` (`pdf_tables`, `pdf_table_words`): beside every table caption, the table's
   grid as cells, from the words of the caption's pages (kept from the one text extraction); the
   blocks are left as they are, and the tables go beside them in `RawDocument.tables`.

The thresholds a user may tune for their PDFs come from the rules (`[pdf]`, the caption start
of `[captions]`, the anchors that open a paper's body), and each pass receives only its part;
the others are named constants beside the pass that applies them, each with its reason.

This module opens and checks the file, reads its pages, measures the body text (`Layout`) and
assembles the blocks into a `RawDocument`.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from pathlib import Path

import pymupdf

from pipeline.errors import ExtractError, NoTextLayerError
from pipeline.extract.pdf.back_cover import back_cover_heads_nothing
from pipeline.extract.pdf.blocks import BlockRules, group_blocks, join_continuations, merge_lists
from pipeline.extract.pdf.contents import mark_contents
from pipeline.extract.pdf.columns import find_columns, order_page
from pipeline.extract.pdf.headings import HeadingRules, mark_headings
from pipeline.extract.pdf.layout_choice import doubtful_reading
from pipeline.extract.pdf.layout_model import LayoutLabel, drop_model_furniture, label_pieces, layout_model_installed, shared_model
from pipeline.extract.pdf.metadata import embedded_metadata, first_page_lines
from pipeline.extract.pdf.margins import drop_heads_naming_the_paper, drop_line_numbers, mark_asides
from pipeline.extract.pdf.run_in import RunInRules, split_run_in_headings
from pipeline.extract.pdf.shared_lines import split_shared_lines
from pipeline.extract.pdf.table_words import Word, page_words
from pipeline.extract.pdf.tables import find_pdf_tables, has_table_caption
from pipeline.extract.pdf.page_reading import TEXT_FLAGS, read_page
from pipeline.extract.pdf.records import Layout, PageBox, PdfBlock, PrintedLine, Row, joined_superscripts
from pipeline.extract.pdf.running_lines import drop_running_lines
from pipeline.extract.pdf.typography import SAME_SIZE, font_face, half_point
from pipeline.records.base import LineBox, SourceFormat, TextSegment
from pipeline.records.extract import RawBlock, RawDocument
from pipeline.rules import Rules
from pipeline.rules.pdf import LayoutMode, PdfTableRules

_SNIFF_BYTES = 1024
"""Bytes read at each end of the file to find `%PDF-` and `%%EOF`: writers put a little junk
before the header or after the end marker, and the standard allows the header within 1024."""
_FALLBACK_BODY_SIZE = 10.0
"""Points of body text where no line can be measured (every line rotated): a common body size."""
_PITCH_MAX_STEP = 3.0
"""Body sizes from one body line to the next beyond which the step is a paragraph or figure gap."""
_PITCH_MIN_STEPS = 5
_FALLBACK_PITCH = 1.2
"""Fewer measured steps than this give no reliable median; the usual leading of 1.2 sizes is taken."""
_BOX_GRAIN = 10
"""Line boxes are kept to a tenth of a point (0.04 mm), rounded outwards so that they still hold
every glyph: finer shows nothing on a page, and every stored extraction carries them."""
_EDGE_IGNORES_ONE_LINE_IN = 10
"""A column's edges ignore its widest and narrowest tenth of lines: a byline, a formula or an
indented list sets an edge that is not the column's."""


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


def _utf8_name(file: Path) -> bool:
    try:
        str(file).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _open_bytes(file: Path, path: str) -> pymupdf.Document:
    """The PDF opened from its bytes: PyMuPDF takes a path only as UTF-8 text, and a file name
    with bytes that are not (a Latin-1 name from an old archive) is no such text."""
    try:
        return pymupdf.open(stream=file.read_bytes(), filetype="pdf")
    except OSError as error:
        raise ExtractError(f"{path}: cannot read the file: {error.strerror}; check that it exists and is readable") from None


def _open(file: Path, path: str) -> pymupdf.Document:
    try:
        with file.open("rb") as handle:
            head = handle.read(_SNIFF_BYTES)
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - _SNIFF_BYTES))
            tail = handle.read()
    except OSError as error:
        raise ExtractError(f"{path}: cannot read the file: {error.strerror}; check that it exists and is readable") from None
    if size == 0:
        raise ExtractError(f"{path}: the file is empty (0 bytes); re-download or re-export the PDF")
    if b"%PDF-" not in head:
        raise ExtractError(f"{path}: not a PDF (no %PDF- header) despite its name; check what the file really is")
    if b"%%EOF" not in tail:
        raise ExtractError(f"{path}: the PDF is truncated (no %%EOF at its end); re-download or re-export it")
    try:
        doc = pymupdf.open(file, filetype="pdf") if _utf8_name(file) else _open_bytes(file, path)
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


def _body_size(pages: list[list[PrintedLine]]) -> float:
    """The font size (to half a point) that carries the most characters."""
    sizes: dict[float, int] = {}
    for pieces in pages:
        for piece in pieces:
            if not piece.rotated:
                size = half_point(piece.size)
                sizes[size] = sizes.get(size, 0) + piece.chars
    return max(sizes, key=sizes.__getitem__) if sizes else _FALLBACK_BODY_SIZE


def _body_face(pages: list[list[PrintedLine]], body_size: float) -> str:
    """The font face that carries the most characters at body size."""
    faces: dict[str, int] = defaultdict(int)
    for pieces in pages:
        for piece in pieces:
            if half_point(piece.size) == body_size:
                faces[font_face(piece.font)] += piece.chars
    return max(faces, key=faces.__getitem__) if faces else ""


def _pitch(rows: list[Row], body_size: float) -> float:
    """The median step between consecutive body lines of one column, in body sizes."""
    steps = [
        (row.y1 - prev.y1) / body_size
        for prev, row in zip(rows, rows[1:])
        if row.group == prev.group and _is_body(row, body_size) and _is_body(prev, body_size)
        and 0 < row.y1 - prev.y1 < _PITCH_MAX_STEP * body_size
    ]
    return statistics.median(steps) if len(steps) >= _PITCH_MIN_STEPS else _FALLBACK_PITCH


def _is_body(row: Row, body_size: float) -> bool:
    return abs(row.size - body_size) < SAME_SIZE * body_size


def _edges(rows: list[Row]) -> dict[int, tuple[float, float]]:
    """Left and right edge of the text of every group, ignoring the odd wider line (a byline, a formula)."""
    by_group: dict[int, list[Row]] = defaultdict(list)
    for row in rows:
        by_group[row.group].append(row)
    edges = {}
    for group, members in by_group.items():
        lefts = sorted(row.x0 for row in members)
        rights = sorted(row.x1 for row in members)
        cut = len(members) // _EDGE_IGNORES_ONE_LINE_IN
        edges[group] = (lefts[cut], rights[-1 - cut])
    return edges


def _read(
    doc: pymupdf.Document, path: str, tables: PdfTableRules
) -> tuple[list[list[PrintedLine]], list[float], dict[int, str], dict[int, list[Word]]]:
    """Pieces and frame height of every page, the page labels the PDF defines, and the words of
    each page that prints a table caption (read from the page's one text extraction)."""
    pages: list[list[PrintedLine]] = []
    heights: list[float] = []
    labels: dict[int, str] = {}
    words: dict[int, list[Word]] = {}
    has_labels = bool(doc.get_page_labels())
    styles: dict[str, tuple[bool, bool, bool]] = {}
    for number, page in enumerate(doc, start=1):
        try:
            textpage = page.get_textpage(flags=TEXT_FLAGS)
            pieces, height = read_page(page, number, styles, textpage)
            if has_table_caption(pieces, tables):
                words[number] = page_words(textpage)
            label = page.get_label() if has_labels else ""
        except RuntimeError as error:
            raise ExtractError(f"{path}: page {number} cannot be read ({error}); the PDF is damaged, re-export it") from None
        pages.append(pieces)
        heights.append(height)
        if label:
            labels[number] = label
    return pages, heights, labels, words


def _blocks(
    pages: list[list[PrintedLine]], heights: list[float], toc: list[list], rules: Rules, labelled: bool
) -> tuple[list[PdfBlock], int]:
    """The passes from running lines to joined paragraphs: the blocks in reading order, and how
    many lines of page furniture were dropped; `labelled` where the layout model read the pages."""
    pages, removed = drop_running_lines(pages, heights, rules.pdf.running_lines)
    pages, naming = drop_heads_naming_the_paper(pages, heights, rules.pdf.running_lines)
    furniture: list[PrintedLine] = []
    if labelled:
        pages, furniture = drop_model_furniture(pages, heights, rules.pdf.running_lines.margin, _body_size(pages))
    pages, numbers = drop_line_numbers(pages)
    body_size = _body_size(pages)
    mark_asides(pages, body_size, rules.pdf.asides)
    rows: list[Row] = []
    for pieces, gutters in zip(pages, find_columns(pages, body_size, rules.pdf.columns)):
        band_gap = rules.pdf.columns.band_gap * body_size
        rows.extend(order_page(pieces, gutters, first_group=(rows[-1].group + 1) if rows else 0, band_gap=band_gap))
    layout = Layout(body_size=body_size, pitch=_pitch(rows, body_size), edges=_edges(rows), body_face=_body_face(pages, body_size))
    block_rules = BlockRules.from_rules(rules)
    run_in_rules = RunInRules.from_rules(rules)
    blocks = mark_contents(group_blocks(rows, layout, block_rules))
    blocks = split_shared_lines(blocks, layout, run_in_rules)
    blocks = back_cover_heads_nothing(mark_headings(blocks, layout, toc, heights[0], HeadingRules.from_rules(rules)))
    blocks = merge_lists(join_continuations(blocks, layout, block_rules))
    blocks = split_run_in_headings(blocks, layout, run_in_rules)
    return blocks, len(removed) + len(naming) + len(furniture) + len(numbers)


def _blocks_by_model(
    doc: pymupdf.Document, pages: list[list[PrintedLine]], heights: list[float], toc: list[list], rules: Rules, path: str
) -> tuple[list[PdfBlock], int, dict[int, list[PageBox]]]:
    """`_blocks` of every page's pieces labelled by the layout model, and the boxes of the
    regions it calls tables, by page."""
    try:
        model = shared_model()
    except ExtractError as error:
        raise ExtractError(f"{path}: {error}") from None
    regions = [model.regions(page) for page in doc]
    labelled = [label_pieces(pieces, page_regions) for pieces, page_regions in zip(pages, regions)]
    table_boxes = {
        number: boxes
        for number, page_regions in enumerate(regions, start=1)
        if (boxes := [region.box for region in page_regions if region.label is LayoutLabel.table])
    }
    return *_blocks(labelled, heights, toc, rules, labelled=True), table_boxes


def extract_pdf(file: Path, path: str, rules: Rules) -> RawDocument:
    """Read one PDF into blocks in reading order with 1-based physical pages; `path` names it in
    messages, and `rules.pdf`, the caption start and the anchors that open a paper's body tune it."""
    _mupdf_messages()  # what earlier files made it say is theirs
    with _open(file, path) as doc:
        pages, heights, labels, words = _read(doc, path, rules.pdf.tables)
        try:
            toc = doc.get_toc(simple=True)
        except RuntimeError:
            toc = []  # a broken outline only costs the outline: headings then come from typography
        page_count = doc.page_count
        repaired = doc.is_repaired
        embedded = embedded_metadata(doc)
        messages = _mupdf_messages()
        if not any(pages):
            if repaired:
                raise ExtractError(
                    f"{path}: the PDF is damaged (MuPDF had to repair it: {_said(messages)}) and no page has text; "
                    "re-download or re-export it"
                )
            raise NoTextLayerError(
                f"{path}: none of its {page_count} pages has a text layer (a scan?); OCR it first "
                "(e.g. `ocrmypdf in.pdf out.pdf`) and ingest the result"
            )
        notes = [f"MuPDF repaired the file: {_said(messages)}"] if repaired and messages else []
        mode = rules.pdf.layout.mode
        model_tables: dict[int, list[PageBox]] = {}
        reading, reason = LayoutMode.rules, "asked for (--layout rules)"
        if mode is LayoutMode.model:
            reading, reason = LayoutMode.model, "asked for (--layout model)"
            blocks, removed, model_tables = _blocks_by_model(doc, pages, heights, toc, rules, path)
        else:
            blocks, removed = _blocks(pages, heights, toc, rules, labelled=False)
            doubt = doubtful_reading(blocks, page_count, rules.pdf.layout) if mode is LayoutMode.auto else None
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
                blocks, removed, model_tables = _blocks_by_model(doc, pages, heights, toc, rules, path)
            elif mode is LayoutMode.auto:
                reason = "auto: the typographic reading shows no doubt"
        tables = find_pdf_tables(doc, pages, words, _body_size(pages), rules.pdf.tables, model_tables)
    return RawDocument(
        path=path,
        format=SourceFormat.pdf,
        blocks=[
            RawBlock(
                kind=block.kind, segments=_segments(block.rows), level=block.level, heading_evidence=list(block.evidence),
                line_boxes=_line_boxes(block.rows),
                superscripts=list(joined_superscripts([(row.text, row.superscripts) for row in block.rows], "\n")),
            )
            for block in blocks
        ],
        tables=tables,
        page_count=page_count,
        page_labels=labels,
        removed_running_lines=removed,
        reading_notes=notes,
        layout=reading.value,
        layout_reason=reason,
        embedded_metadata=embedded,
        first_page=first_page_lines(pages[0]),
    )
