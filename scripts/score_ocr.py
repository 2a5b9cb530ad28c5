"""Score OCR on scans made from real papers, against the same papers' text layers.

    .venv/bin/python scripts/score_ocr.py                       # 6 shortest check-half papers, 150 and 300 dpi
    .venv/bin/python scripts/score_ocr.py --papers 8 --dpi 300 --distort --workers 2
    .venv/bin/python scripts/score_ocr.py --half even --papers 4 --dpi 300 --errors /tmp/ocr_errors.txt
    .venv/bin/python scripts/score_ocr.py --half even --papers 10 --dpi 300 --cache /tmp/ocr_cache

Each PDF's pages are rendered grey at each resolution (with `--distort`, also turned by half a
degree with a little noise, as a scanner does) and saved as an image-only PDF, so the truth is the
text layer removed. The scan is run through the stages (`--ocr auto` reads it by OCR) and compared
with the original run through them (its text layer):

- word error rate of the document's text: substitutions, deletions and insertions over the text
  layer's words (as `words_of` normalizes them), from a difflib alignment; and beside it the rate
  without insertions, words read that the text layer lacks (text the original prints as an
  image: a publisher's advert, a badge);
- the text layer's section headings found among the scan's (by `heading_key`), and the scan's
  headings that are not the text layer's (a heading misread counts once missed and once added);
- pages right: pages whose OCR'd words are nearly all among the words the text layer prints on
  that page (nothing invented, nothing moved to another page);
- chunk starts: the text layer's chunk starts at which the OCR reading starts a chunk too (within
  `BOUNDARY_WORDS` words, once the two word sequences are aligned);
- seconds a worker takes per OCR'd page: the scan's whole stage run (rendering, OCR, the passes
  and the other stages) over its pages; and pages/s, OCR'd pages over the wall time of the
  variant's run, where `--workers` runs papers side by side (the text-layer run of each paper is
  inside that wall time too, a small share of it).

The papers are a half of ../shared/corpus/pdf_jats, the shortest first (OCR costs seconds a page):
by default the check half (names ending in an odd digit), whose papers are scored together and
never one by one; `--half even` scores the even half, prints each paper's figures and, with
`--errors FILE`, writes where each reading differs from the text layer, the only errors to read
while tuning. docs/performance.md says which papers were looked at while the OCR reading was tuned.

With `--cache DIR` the recognizer's output for each page image is kept in DIR, keyed by the hash
of the image's bytes, and read from there when the same image comes again: a change to what is
built from the recognized lines (sizes, weights, blocks, order, fix-ups) re-scores in seconds, and
before and after read the same lines. A change to the rendering, the models or their settings
makes new images or new readings: empty DIR then.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import io
import json
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
BOUNDARY_WORDS = 2
"""A chunk start of the OCR reading agrees with one of the text layer's this many words apart at
most: a heading misread by a word moves its chunk's start by as much."""
_TURN_DEGREES = 0.5
_NOISE = 12.0
"""Standard deviation of the grey noise `--distort` adds, in grey levels of 255."""


HALVES = {"check": "13579", "even": "02468"}
"""Names ending in an odd digit are the check half, never read while tuning; the even half is the
one whose errors may be read (`--errors`)."""


def half_papers(folder: Path, half: str, papers: int) -> list[Path]:
    """The `papers` shortest PDFs of a half of pdf_jats (`HALVES`)."""
    found = [pdf for pdf in sorted(folder.glob("*.pdf")) if pdf.stem[-1] in HALVES[half]]
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


_TYPOGRAPHY = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "–": "-", "—": "-", "−": "-", "\u2010": "-", "\u2011": "-"})


def words_of(text: str) -> list[str]:
    """The text's words as compared: NFKC (ligatures apart), case folded (a text layer's small
    capitals are capitals on the page), curly quotes and dashes as their ASCII kin (the recognizer
    reads them so, a hyphen that does not break a line too)."""
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


def chunk_starts(chunked) -> list[int]:
    """Where each chunk starts, as the count of the document's words (`words_of`) before it."""
    text = chunked.document.text
    return sorted({len(words_of(text[: chunk.char_start])) for chunk in chunked.chunks})


def boundaries_agreeing(truth: list[str], read: list[str], truth_starts: list[int], read_starts: list[int]) -> int:
    """The text layer's chunk starts that the OCR reading starts a chunk at too, within
    `BOUNDARY_WORDS` words once the two word sequences are aligned (difflib, as `word_errors`); a
    start at or inside words the two readings differ on may be anywhere among the read words there."""
    reach: dict[int, tuple[int, int]] = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, truth, read, autojunk=False).get_opcodes():
        for i in range(i1, i2 + 1):
            low, high = (j1 + i - i1, j1 + i - i1) if tag == "equal" else (j1, j2)
            known = reach.get(i, (low, high))
            reach[i] = (min(known[0], low), max(known[1], high))
    return sum(
        any(reach.get(start, (start, start))[0] - BOUNDARY_WORDS <= other <= reach.get(start, (start, start))[1] + BOUNDARY_WORDS for other in read_starts)
        for start in truth_starts
    )


def headings(document_sections: list) -> set[str]:
    """The keys of the sections' headings below the title, their quotes and dashes as `words_of` reads them."""
    return {heading_key(section.heading.translate(_TYPOGRAPHY)) for section in document_sections if section.heading and section.level > 1}


def cache_recognition(folder: Path) -> None:
    """Keep the recognizer's output per page image in `folder` (`--cache`), keyed by the hash of
    the image's shape and bytes, and read it from there when the image comes again. Patches
    `OcrEngine.recognize` in this process: a scoring run's cache, never the pipeline's."""
    from pipeline.extract.pdf import ocr

    recognize = ocr.OcrEngine.recognize
    if getattr(recognize, "cache_folder", None) == folder:  # a worker scores several papers
        return
    folder.mkdir(parents=True, exist_ok=True)

    def cached(engine: ocr.OcrEngine, image) -> list[ocr.Recognized]:
        key = hashlib.sha1(image.tobytes() + f"{image.shape[1]}x{image.shape[0]}".encode()).hexdigest()
        kept = folder / f"{key}.json"
        if kept.is_file():
            return [([tuple(point) for point in quad], text, score) for quad, text, score in json.loads(kept.read_text(encoding="utf-8"))]
        found = recognize(engine, image)
        written = kept.with_suffix(f".{time.time_ns()}.part")  # written whole, then renamed: workers may race
        written.write_text(json.dumps(found), encoding="utf-8")
        written.replace(kept)
        return found

    cached.cache_folder = folder
    ocr.OcrEngine.recognize = cached


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
    truth_starts, read_starts = chunk_starts(truth.chunked), chunk_starts(read.chunked)
    return {
        "paper": pdf.name, "pages": pages, "ocr_pages": len(read.chunked.document.ocr_pages), "seconds": seconds,
        "words": len(truth_words), "errors": errors, "inserted": inserted,
        "headings": len(wanted), "headings_found": len(wanted & found), "headings_added": len(found - wanted), "pages_right": right,
        "chunk_starts": len(truth_starts), "read_starts": len(read_starts),
        "starts_agreeing": boundaries_agreeing(truth_words, read_words, truth_starts, read_starts),
        "missed_headings": sorted(wanted - found), "added_headings": sorted(found - wanted), "differences": differences(truth_words, read_words),
    }


def differences(truth: list[str], read: list[str]) -> list[str]:
    """Each stretch where the reading differs from the text layer, `truth words → read words`."""
    return [
        f"{' '.join(truth[i1:i2])} → {' '.join(read[j1:j2])}"
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, truth, read, autojunk=False).get_opcodes()
        if tag != "equal"
    ]


def _score(arguments: tuple[Path, int, bool, Path | None]) -> dict:
    pdf, dpi, distort, cache = arguments
    if cache is not None:
        cache_recognition(cache)
    return score_paper(pdf, dpi, distort)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pdfs", nargs="*", type=Path, help="PDFs to scan and score; default: the check half of pdf_jats")
    parser.add_argument("--papers", type=int, default=6, help="How many papers of the half, the shortest first.")
    parser.add_argument("--half", choices=sorted(HALVES), default="check", help="Which half of pdf_jats to scan: check (odd digits, held out) or even.")
    parser.add_argument("--errors", type=Path, help="Even half only: write each paper's differences and missed headings to this file.")
    parser.add_argument("--dpi", type=int, nargs="+", default=[150, 300], help="Resolutions to scan at.")
    parser.add_argument("--distort", action="store_true", help="Also score scans turned by half a degree, with noise.")
    parser.add_argument("--workers", type=int, default=1, help="Papers scored at once.")
    parser.add_argument("--cache", type=Path, help="Keep the recognizer's output per page image in this folder and reuse it (re-scoring after a change past recognition).")
    arguments = parser.parse_args()
    pdfs = arguments.pdfs or half_papers(CORPUS, arguments.half, arguments.papers)
    one_by_one = all(pdf.stem[-1] in HALVES["even"] for pdf in pdfs) if arguments.pdfs else arguments.half == "even"
    if arguments.errors and not one_by_one:
        parser.error("--errors reads the even half's errors only: pass --half even, or PDFs whose names end in an even digit")
    variants = [(dpi, False) for dpi in arguments.dpi] + ([(dpi, True) for dpi in arguments.dpi] if arguments.distort else [])
    print("scan                 papers  pages   WER  (no ins.)  headings found (added)  chunk starts  pages right  s/OCR page  pages/s")
    with ProcessPoolExecutor(arguments.workers) as pool:
        for dpi, distort in variants:
            started = time.perf_counter()
            rows = list(pool.map(_score, [(pdf, dpi, distort, arguments.cache) for pdf in pdfs]))
            wall = time.perf_counter() - started
            name = f"{dpi} dpi" + (", turned+noise" if distort else "")
            print(summary_line(name, rows, wall))
            if one_by_one:  # the check half's papers are never read one by one
                for row in rows:
                    print(f"  {row['paper']}: {row['errors']}/{row['words']} errors, headings {row['headings_found']}/{row['headings']}, "
                          f"({row['headings_added']} not the text layer's), chunk starts {row['starts_agreeing']}/{row['chunk_starts']}", file=sys.stderr)
            if arguments.errors:
                with arguments.errors.open("a", encoding="utf-8") as out:
                    for row in rows:
                        out.write(f"## {row['paper']} at {name}\nmissed headings: {row['missed_headings']}\nadded headings: {row['added_headings']}\n")
                        out.writelines(f"  {difference}\n" for difference in row["differences"])


def summary_line(name: str, rows: list[dict], wall: float) -> str:
    """One scan variant's figures over its papers."""
    total = {key: sum(row[key] for row in rows) for key in rows[0] if isinstance(rows[0][key], (int, float))}
    return (
        f"{name:<24}{len(rows):>3}{total['pages']:>7}  {total['errors'] / total['words']:6.1%}  "
        f"{(total['errors'] - total['inserted']) / total['words']:6.1%}   "
        f"{total['headings_found']:>3}/{total['headings']:<3} {total['headings_found'] / max(total['headings'], 1):5.2f} ({total['headings_added']:>3})"
        f"   {total['starts_agreeing']:>3}/{total['chunk_starts']:<3} {total['starts_agreeing'] / max(total['chunk_starts'], 1):4.2f}"
        f"   {total['pages_right'] / total['pages']:6.2f}      {total['seconds'] / max(total['ocr_pages'], 1):5.1f}"
        f"     {total['ocr_pages'] / wall:5.3f}"
    )

if __name__ == "__main__":
    main()
