"""Read a PDF page by OCR into the same printed lines its text layer would give.

rapidocr (the `[ocr]` extra, Apache-2.0) runs PaddleOCR's PP-OCRv6 detection and recognition
models (Apache-2.0), whose ONNX files ship inside its wheel, on onnxruntime on the CPU. The
models are named by their path in the package, so that rapidocr never looks for them online: a
missing file is an error that says to reinstall, never a download. The page is rendered grey at
`[pdf.ocr] dpi`; each recognized line, its known misreadings mended (`ocr_words`), becomes a
`PrintedLine` in page points (of the page as stored, as the text layer's are), its size read off
its box (OCR gives no font) and its weight off its ink; wordmarks are left out and lines set one
under the other in one column share a block, as PyMuPDF's blocks do (`ocr_blocks`). The passes
then read OCR'd pages as they read any other.
"""

from __future__ import annotations

import functools
import importlib.util
import statistics
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from pipeline.errors import ExtractError
from pipeline.extract.pdf.ocr_blocks import OCR_FONT, drop_wordmarks, even_out_sizes, in_blocks
from pipeline.extract.pdf.ocr_triage import ocr_reason
from pipeline.extract.pdf.ocr_words import mend_misreadings
from pipeline.extract.pdf.page_reading import from_frame, to_frame
from pipeline.extract.pdf.records import PageBox, PrintedLine
from pipeline.records.extract import OcrPage
from pipeline.rules.pdf import OcrMode, PdfOcrRules
from pipeline.wording import page_ranges

_DETECTION_SIDE = 1600
"""Longest side, in pixels, of the image lines are detected on."""
_DETECTION_MODEL = "PP-OCRv6_det_small.onnx"
_RECOGNITION_MODEL = "PP-OCRv6_rec_small.onnx"
_MEASURED_BY_WIDTH = 12
_ADVANCE_PER_SIZE = 0.42
"""A character of running text (spaces included) is on average this many font sizes wide: box
heights swing by a fifth with a line's letters, the mean advance over a dozen letters much less."""
_X_HEIGHT_BOX = 0.65
"""A detected line's box is about this many font sizes tall where its letters are all x-height
letters (`on a mean oversea`); an ascender or capital adds `_ASCENDER`, a descender `_DESCENDER`
(the detector's box holds what is inked, unlike a font's line box)."""
_ASCENDER = 0.25
_DESCENDER = 0.22
_RISES = frozenset("bdfhiklt0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ()[]{}|/!?'\"&%$#@")
_FALLS = frozenset("gjpqy()[]{}|/,;Q")
_DARK = 128
"""A grey level below which a pixel is ink."""
_BOLD_INK = 1.3
"""A line inking this many times the page's usual share of its box is set in bold: OCR reads no
font, and a heading in body size is told from its text by its weight alone."""
_IN_FIGURE = 0.5
"""A line with more than this share of its box inside a figure's image is the figure's text."""
_LAYOUT_FONT = "helv"
_LAYOUT_BOLD_FONT = "hebo"
"""PDF base fonts an OCR'd line is written in for the layout model (`page_for_layout_model`)."""
_DESCENT = 0.2
"""Font sizes from the foot of a line's box, as trimmed to one font size, up to its baseline."""


def ocr_installed() -> bool:
    """Whether rapidocr can be imported (the `[ocr]` extra)."""
    return importlib.util.find_spec("rapidocr") is not None


Recognized = tuple[list[tuple[int, int]], str, float]
"""One line as the recognizer gives it: its four corner points in pixels, its text, its score."""


@dataclass(frozen=True, slots=True)
class OcrLine:
    """One line the recognizer read: its box in pixels of the rendered page, text and confidence."""

    box: PageBox
    text: str
    confidence: float
    ink: float
    """Share of the box's pixels that are dark: bold type inks more of its box than roman."""


class OcrEngine:
    """rapidocr's detector and recognizer, loaded from the files inside its package."""

    def __init__(self, threads: int) -> None:
        import rapidocr  # here: only a page read by OCR needs it, and it is an extra

        models = Path(rapidocr.__file__).parent / "models"
        missing = [name for name in (_DETECTION_MODEL, _RECOGNITION_MODEL) if not (models / name).is_file()]
        if missing:
            raise ExtractError(
                f"rapidocr's packaged models are missing ({', '.join(missing)} in {models}); "
                "reinstall it with pip install --force-reinstall 'rapidocr==3.10.0'"
            )
        self._engine = rapidocr.RapidOCR(
            params={
                "Global.use_cls": False,  # a paper's lines are upright; the angle classifier costs a pass per line
                "Global.log_level": "error",
                "Global.max_side_len": 10_000,  # never shrink the page: the dpi is chosen by measurement
                # Lines are found on the page shrunk to 1600 pixels at most (about 145 dpi for A4),
                # then read at full resolution: a full-size detection held 0.9 GB at 200 dpi.
                "Det.limit_type": "max",
                "Det.limit_side_len": _DETECTION_SIDE,
                # One line at a time: a batch pads every line to its widest, which costs memory and time.
                "Rec.rec_batch_num": 1,
                "Det.model_path": str(models / _DETECTION_MODEL),
                "Rec.model_path": str(models / _RECOGNITION_MODEL),
                "EngineConfig.onnxruntime.intra_op_num_threads": threads,
                "EngineConfig.onnxruntime.inter_op_num_threads": 1,
            }
        )

    def read(self, pixmap: pymupdf.Pixmap) -> list[OcrLine]:
        """The lines of a grey pixmap, in the detector's order."""
        import numpy

        image = numpy.frombuffer(pixmap.samples, dtype=numpy.uint8).reshape(pixmap.h, pixmap.w)
        return lines_of(image, self.recognize(image))

    def recognize(self, image) -> list[Recognized]:
        """The recognizer's own output for a grey image (a 2-D uint8 array): each line's corner
        points in pixels, its text and its score, in the detector's order."""
        found = self._engine(image)
        if found.boxes is None or found.txts is None:
            return []
        return [
            ([(int(point[0]), int(point[1])) for point in quad], str(text), float(score))
            for quad, text, score in zip(found.boxes.tolist(), found.txts, found.scores)
        ]


def lines_of(image, recognized: list[Recognized]) -> list[OcrLine]:
    """The recognizer's lines of `image` as `OcrLine`s: each quad's upright box, and the share of
    the box that is ink."""
    lines = []
    for quad, text, score in recognized:
        xs, ys = [point[0] for point in quad], [point[1] for point in quad]
        box = (max(0, min(xs)), max(0, min(ys)), max(xs), max(ys))
        ink = float((image[box[1]:box[3], box[0]:box[2]] < _DARK).mean()) if box[2] > box[0] and box[3] > box[1] else 0.0
        lines.append(OcrLine(box, text, score, ink))
    return lines


@functools.cache
def shared_engine(threads: int) -> OcrEngine:
    """The process's one engine for `threads`. Kept for the life of the process, as the layout
    model is (`layout_model.shared_model`): loading the models costs more than a page."""
    return OcrEngine(threads)


def read_page_by_ocr(
    page: pymupdf.Page, number: int, reason: str, rules: PdfOcrRules
) -> tuple[list[PrintedLine], float, OcrPage]:
    """Printed lines of page `number` read by OCR, the page height in its frame, and the record
    of the reading (why, and each line's box and confidence)."""
    zoom = rules.dpi / 72
    pixmap = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csGRAY, alpha=False)
    found = shared_engine(rules.threads).read(pixmap)
    inked = [line.ink for line in found if len(line.text) >= _MEASURED_BY_WIDTH]
    usual_ink = statistics.median(inked) if inked else 0.0
    # The pixmap shows the page as displayed; lines are placed on the page as stored, before its
    # /Rotate, as the text layer's are.
    to_page = pymupdf.Matrix(1 / zoom, 1 / zoom) * page.derotation_matrix
    turn = page.derotation_matrix
    frame = (round(turn.a), round(turn.b))  # where the page's x axis, along its lines, points once turned back
    _, top, _, bottom = to_frame(tuple(page.rect), frame)
    lines = []
    kept = []
    figures = figure_boxes(page, rules.image_cover)
    for line in found:
        text = mend_misreadings(" ".join(line.text.split()))
        width, height = line.box[2] - line.box[0], line.box[3] - line.box[1]
        # A line set up the page (a margin stamp) is furniture; its letters are read on their side.
        if not text or line.confidence < rules.min_confidence or (height > width and len(text) > 2):
            continue
        on_page = pymupdf.Rect(line.box) * to_page
        if any((on_page & figure).get_area() > _IN_FIGURE * on_page.get_area() for figure in figures):
            continue
        x0, y0, x1, y1 = to_frame(tuple(on_page), frame)
        size = _size(text, x1 - x0, y1 - y0)
        # The detector pads its box, so that a line's box reaches into the next line's: the box is
        # made as tall as a text layer's (about one font size) about its middle, or the passes would
        # take two lines of a paragraph for one.
        middle = (y0 + y1) / 2
        y0, y1 = middle - size / 2, middle + size / 2
        box = from_frame((x0, y0, x1, y1), frame)
        bold = usual_ink > 0 and line.ink >= _BOLD_INK * usual_ink
        lines.append(PrintedLine(number, x0, y0 - top, x1, y1 - top, text, size, OCR_FONT, bold, False, len(text), box=box, frame=frame))
        kept.append((*(round(value, 1) for value in box), round(line.confidence, 3)))
    return in_blocks(drop_wordmarks(lines)), bottom - top, OcrPage(page=number, reason=reason, dpi=rules.dpi, lines=kept)


def figure_boxes(page: pymupdf.Page, scan_cover: float) -> list[pymupdf.Rect]:
    """The boxes of the page's images, a scan's own image aside (one that covers `scan_cover` of the
    page or more): figures, whose words a text layer never holds, so OCR leaves them out too. A
    scan shows its figures inside its one image, where no box tells them apart."""
    area = page.rect.get_area()
    boxes = [pymupdf.Rect(info["bbox"]) & page.rect for info in page.get_image_info()]
    return [box for box in boxes if not box.is_empty and box.get_area() < scan_cover * area]


def _size(text: str, width: float, height: float) -> float:
    """A line's font size in points, from its box: a line of `_MEASURED_BY_WIDTH` characters or
    more by its width (its letters' advances even out), a shorter one by its height."""
    if len(text) >= _MEASURED_BY_WIDTH:
        return width / len(text) / _ADVANCE_PER_SIZE
    return height / _box_per_size(text)


def _box_per_size(text: str) -> float:
    """How many font sizes tall a detected box of `text` is: taller where it rises above x-height
    or falls below the baseline (a heading of capitals without descenders reads small otherwise)."""
    letters = set(text)
    return _X_HEIGHT_BOX + _ASCENDER * bool(letters & _RISES) + _DESCENDER * bool(letters & _FALLS)


def read_where_needed(
    doc: pymupdf.Document, pages: list[list[PrintedLine]], heights: list[float], rules: PdfOcrRules, path: str
) -> tuple[list[list[PrintedLine]], list[float], list[OcrPage]]:
    """The pages' lines and heights, those of every page that needs OCR (`ocr_triage.ocr_reason`)
    read by it instead, and the record of each page so read. Without rapidocr, `auto` reads the
    text layers as they are (a file without any stays a `no_text` row) and `force` is an error."""
    if rules.mode is OcrMode.off:
        return pages, heights, []
    if not ocr_installed():
        if rules.mode is OcrMode.force:
            raise ExtractError(f"{path}: --ocr force needs rapidocr, which is not installed; pip install 'paper-pipeline[ocr]'")
        return pages, heights, []
    has_text = any(pages)
    reasons = {
        number: reason
        for number, (page, pieces) in enumerate(zip(doc, pages), start=1)
        if (reason := ocr_reason(page, pieces, rules, has_text)) is not None
    }
    if not reasons:
        return pages, heights, []
    pages, heights, read = list(pages), list(heights), []
    for number, reason in reasons.items():
        try:
            pages[number - 1], heights[number - 1], record = read_page_by_ocr(doc[number - 1], number, reason, rules)
        except RuntimeError as error:
            raise ExtractError(f"{path}: page {number} cannot be rendered for OCR ({error}); the PDF is damaged, re-export it") from None
        read.append(record)
    return even_out_sizes(pages), heights, read


def page_for_layout_model(page: pymupdf.Page, lines: list[PrintedLine]) -> pymupdf.Document:
    """A one-page PDF the size of `page` as stored whose text is its OCR'd lines, each set across its
    box at its size (in bold where it was read as bold), for the layout model to read.

    The model reads a page's text boxes (`layout_model`), which a scan has none of: PyMuPDF's
    layout docs have the caller OCR an image page and write the text into it before `predict`.
    Only lines along the page's x axis are written: the model reads no turned text."""
    stored = page.cropbox
    written = pymupdf.open()
    target = written.new_page(width=stored.width, height=stored.height)
    for line in lines:
        if line.box is None or line.frame != (1, 0):
            continue
        x0, _, x1, y1 = line.box
        font = _LAYOUT_BOLD_FONT if line.bold else _LAYOUT_FONT
        natural = pymupdf.get_text_length(line.text, fontname=font, fontsize=line.size)
        baseline = pymupdf.Point(x0, y1 - _DESCENT * line.size)
        stretch = pymupdf.Matrix((x1 - x0) / natural if natural > 0 else 1, 1)
        target.insert_text(baseline, line.text, fontsize=line.size, fontname=font, morph=(baseline, stretch))
    return written


def ocr_note(read: list[OcrPage]) -> str:
    """A reading note naming the pages read by OCR and why: `pages 1-3, 5 read by OCR (no text layer)`."""
    by_reason: dict[str, list[int]] = {}
    for record in read:
        by_reason.setdefault(record.reason, []).append(record.page)
    parts = [f"{'page' if len(numbers) == 1 else 'pages'} {page_ranges(numbers)} ({reason})" for reason, numbers in by_reason.items()]
    return f"read by OCR at {read[0].dpi} dpi: " + "; ".join(parts)

