"""Score OCR on scans made from real papers, against the same papers' text layers.

    .venv/bin/python scripts/score_ocr.py                       # 6 shortest check-half papers, 150 and 300 dpi
    .venv/bin/python scripts/score_ocr.py --papers 8 --dpi 300 --distort --workers 2

Each PDF's pages are rendered grey at each resolution (with `--distort`, also turned by half a
degree with a little noise, as a scanner does) and saved as an image-only PDF, so the truth is the
text layer removed. The scan is run through the stages (`--ocr auto` reads it by OCR) and compared
with the original run through them (its text layer):

- word error rate of the document's text: substitutions, deletions and insertions over the text
  layer's words (as `words_of` normalizes them), from a difflib alignment; and beside it the rate
  without insertions, words read that the text layer lacks (text the original prints as an
  image: a publisher's advert, a badge);
- the text layer's section headings found among the scan's (by `heading_key`);
- pages right: pages whose OCR'd words are nearly all among the words the text layer prints on
  that page (nothing invented, nothing moved to another page);
- seconds a worker takes per OCR'd page: the scan's whole stage run (rendering, OCR, the passes
  and the other stages) over its pages; `--workers` runs papers side by side.

The papers are the check half of ../shared/corpus/pdf_jats (names ending in an odd digit), the
shortest first: OCR costs seconds a page. docs/performance.md says which of them were looked at
while the OCR reading was tuned.
"""

from __future__ import annotations

import argparse
import difflib
import io
import re
import sys
import tempfile
import time
import unicodedata
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy
import pymupdf
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.ingest.process import process  # noqa: E402
from pipeline.records.document import Document  # noqa: E402
from pipeline.rules import DEFAULT_RULES_PATH, layout_overrides, load_rules  # noqa: E402
from pipeline.text.heading_key import heading_key  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "pdf_jats"
PAGE_WORDS_FOUND = 0.9
"""A page is right where at least this share of its OCR'd words are words the text layer prints on it."""
_TURN_DEGREES = 0.5
_NOISE = 12.0
"""Standard deviation of the grey noise `--distort` adds, in grey levels of 255."""


def check_half(folder: Path, papers: int) -> list[Path]:
    """The `papers` shortest PDFs of the check half (names ending in an odd digit)."""
    found = [pdf for pdf in sorted(folder.glob("*.pdf")) if pdf.stem[-1] in "13579"]
    counts = {pdf: pymupdf.open(pdf).page_count for pdf in found}
    return sorted(found, key=lambda pdf: (counts[pdf], pdf.name))[:papers]


def scan(pdf: Path, target: Path, dpi: int, distort: bool) -> None:
    """An image-only copy of `pdf`: each page rendered grey at `dpi` (turned and noised where
    `distort`), the image filling a page of the original's size."""
    generator = numpy.random.default_rng(0)
    with pymupdf.open(pdf) as source, pymupdf.open() as scanned:
        for page in source:
            pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
            new = scanned.new_page(width=page.rect.width, height=page.rect.height)
            if distort:
                image = numpy.frombuffer(pixmap.samples, dtype=numpy.uint8).reshape(pixmap.h, pixmap.w).astype(float)
                image = numpy.clip(image + generator.normal(0, _NOISE, image.shape), 0, 255).astype(numpy.uint8)
                turned = Image.fromarray(image).rotate(_TURN_DEGREES, resample=Image.BICUBIC, fillcolor=255)
                png = io.BytesIO()
                turned.save(png, format="PNG")
                new.insert_image(new.rect, stream=png.getvalue())
            else:
                new.insert_image(new.rect, pixmap=pixmap)
        scanned.save(target, deflate=True)


_TYPOGRAPHY = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "–": "-", "—": "-", "−": "-"})


def words_of(text: str) -> list[str]:
    """The text's words as compared: NFKC (ligatures apart), case folded (a text layer's small
    capitals are capitals on the page), curly quotes and dashes as their ASCII kin (the recognizer
    reads them so)."""
    return unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHY).casefold().split()


def word_errors(truth: list[str], read: list[str]) -> tuple[int, int]:
    """Substitutions, deletions and insertions that turn `truth` into `read`, from difflib's
    alignment; and of them the insertions alone (words read that the text layer does not have,
    such as text the original prints as an image)."""
    errors = inserted = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, truth, read, autojunk=False).get_opcodes():
        if tag != "equal":
            errors += max(i2 - i1, j2 - j1)
            inserted += max(0, (j2 - j1) - (i2 - i1))
    return errors, inserted


def page_words(document: Document) -> dict[int, list[str]]:
    """The words of the document's text on each page, by its blocks' page spans."""
    found: dict[int, list[str]] = {}
    for block in document.blocks:
        for span in block.page_spans:
            found.setdefault(span.page, []).extend(words_of(document.text[span.char_start:span.char_end]))
    return found


def _bare(word: str) -> str:
    return re.sub(r"^\W+|\W+$", "", word).casefold()


def pages_right(truth: Path, read: Document) -> tuple[int, int]:
    """Pages whose OCR'd words are nearly all printed on that page of the original, and pages."""
    with pymupdf.open(truth) as original:
        printed = [{_bare(word) for word in words_of(page.get_text())} for page in original]
    right = 0
    for number, words in page_words(read).items():
        bare = [_bare(word) for word in words if _bare(word)]
        right += not bare or sum(word in printed[number - 1] for word in bare) >= PAGE_WORDS_FOUND * len(bare)
    return right, len(printed)


def headings(document_sections: list) -> set[str]:
    return {heading_key(section.heading) for section in document_sections if section.heading and section.level > 1}


def score_paper(pdf: Path, dpi: int, distort: bool) -> dict:
    """One paper's figures at one resolution."""
    rules_text = load_rules(DEFAULT_RULES_PATH, {"pdf": {"ocr": {"mode": "off"}}})
    rules_ocr = load_rules(DEFAULT_RULES_PATH, layout_overrides(None))
    truth = process(pdf, pdf.name, pdf.stem, rules_text)
    with tempfile.TemporaryDirectory() as folder:
        scanned = Path(folder) / pdf.name
        scan(pdf, scanned, dpi, distort)
        started = time.perf_counter()
        read = process(scanned, pdf.name, pdf.stem, rules_ocr)
        seconds = time.perf_counter() - started
    truth_words, read_words = words_of(truth.chunked.document.text), words_of(read.chunked.document.text)
    errors, inserted = word_errors(truth_words, read_words)
    wanted, found = headings(truth.chunked.sections), headings(read.chunked.sections)
    right, pages = pages_right(pdf, read.chunked.document)
    return {
        "paper": pdf.name, "pages": pages, "ocr_pages": len(read.chunked.document.ocr_pages), "seconds": seconds,
        "words": len(truth_words), "errors": errors, "inserted": inserted,
        "headings": len(wanted), "headings_found": len(wanted & found), "pages_right": right,
    }


def _score(arguments: tuple[Path, int, bool]) -> dict:
    return score_paper(*arguments)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pdfs", nargs="*", type=Path, help="PDFs to scan and score; default: the check half of pdf_jats")
    parser.add_argument("--papers", type=int, default=6, help="How many check-half papers, the shortest first.")
    parser.add_argument("--dpi", type=int, nargs="+", default=[150, 300], help="Resolutions to scan at.")
    parser.add_argument("--distort", action="store_true", help="Also score scans turned by half a degree, with noise.")
    parser.add_argument("--workers", type=int, default=1, help="Papers scored at once.")
    arguments = parser.parse_args()
    pdfs = arguments.pdfs or check_half(CORPUS, arguments.papers)
    variants = [(dpi, False) for dpi in arguments.dpi] + ([(dpi, True) for dpi in arguments.dpi] if arguments.distort else [])
    print("scan                 papers  pages   WER  (no ins.)  headings found  pages right  s/OCR page")
    with ProcessPoolExecutor(arguments.workers) as pool:
        for dpi, distort in variants:
            rows = list(pool.map(_score, [(pdf, dpi, distort) for pdf in pdfs]))
            for row in rows:
                print(f"  {row['paper']}: {row}", file=sys.stderr)
            words, errors, inserted = sum(r["words"] for r in rows), sum(r["errors"] for r in rows), sum(r["inserted"] for r in rows)
            wanted, found = sum(r["headings"] for r in rows), sum(r["headings_found"] for r in rows)
            pages, right, ocr_pages = sum(r["pages"] for r in rows), sum(r["pages_right"] for r in rows), sum(r["ocr_pages"] for r in rows)
            name = f"{dpi} dpi" + (", turned+noise" if distort else "")
            print(
                f"{name:<24}{len(rows):>3}{pages:>7}  {errors / words:6.1%}  {(errors - inserted) / words:6.1%}   "
                f"{found:>3}/{wanted:<3} {found / max(wanted, 1):5.2f}"
                f"   {right / pages:6.2f}      {sum(r['seconds'] for r in rows) / max(ocr_pages, 1):5.1f}"
            )


if __name__ == "__main__":
    main()
