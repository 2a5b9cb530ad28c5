"""Measures of PDF extraction against PyMuPDF's own page text and the ground-truth headings.

Importable by the tests, and a script that prints the figures for the shared corpus:

    .venv/bin/python tests/pdf_helpers.py [PDF ...]
    .venv/bin/python tests/pdf_helpers.py --write-floor   # rewrite tests/pdf_label_free_floor.json

The floor file holds every shared PDF's label-free figures as this script measures them, which
`tests/extract/test_pdf_layouts.py` keeps each file at; rewrite it after a change that raises them.
"""

from __future__ import annotations

import bisect
import json
import re
import sys
import unicodedata
import time
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from pipeline.records.base import BlockKind
from pipeline.records.extract import RawDocument

SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS_PDF = SHARED / "corpus" / "pdf"
GROUND_TRUTH = CORPUS_PDF / "groundtruth"
_TEI = "{http://www.tei-c.org/ns/1.0}"
_NUMBERING = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,5}\.|[A-Z](?:\.\d{1,2})*[.)])\s+")


def words(text: str) -> list[str]:
    """Case-folded word tokens; punctuation and spacing never count."""
    return re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold())


def heading_key(text: str) -> str:
    """A heading reduced for matching: numbering, case, spacing, hyphenation and punctuation removed."""
    text = " ".join(text.split())
    return re.sub(r"\W+", "", _NUMBERING.sub("", text).casefold())


def page_words(file: Path) -> dict[int, Counter[str]]:
    """Word counts of every page's text as PyMuPDF's plain `get_text()` gives it."""
    with pymupdf.open(file) as doc:
        return {number: Counter(words(page.get_text())) for number, page in enumerate(doc, start=1)}


def words_by_page(doc: RawDocument) -> dict[int, Counter[str]]:
    counts: dict[int, Counter[str]] = {}
    for block in doc.blocks:
        for segment in block.segments:
            counts.setdefault(segment.page, Counter()).update(words(segment.text))
    return counts


def running_words(file: Path) -> dict[int, Counter[str]]:
    """Words of the running heads and feet and the line numbers the extractor drops, by page
    (its own passes, rerun)."""
    from pipeline.extract.pdf.line_numbers import drop_line_numbers
    from pipeline.extract.pdf.page_reading import read_page
    from pipeline.extract.pdf.running_lines import drop_running_lines
    from pipeline.rules import load_rules

    styles: dict[str, tuple[bool, bool, bool]] = {}
    with pymupdf.open(file) as doc:
        read = [read_page(page, number, styles) for number, page in enumerate(doc, start=1)]
    pages, heights = [pieces for pieces, _ in read], [height for _, height in read]
    pages, removed = drop_running_lines(pages, heights, load_rules().pdf.running_lines)
    removed += drop_line_numbers(pages)[1]
    counts: dict[int, Counter[str]] = {}
    for piece in removed:
        counts.setdefault(piece.page, Counter()).update(words(piece.text))
    return counts


def misplaced_words(doc: RawDocument, pages: dict[int, Counter[str]]) -> list[tuple[int, str]]:
    """Segment words that do not occur on the page the segment claims: (page, word).

    PyMuPDF's plain text sometimes runs two words together where a ligature ends one
    (`staﬀwere`); a word found inside the page's text with spaces removed counts as there.
    """
    missing = []
    compact = {page: "".join(counts.elements()) for page, counts in pages.items()}
    for block in doc.blocks:
        for segment in block.segments:
            page = pages.get(segment.page, Counter())
            missing.extend(
                (segment.page, word)
                for word in words(segment.text)
                if word not in page and word not in compact.get(segment.page, "")
            )
    return missing


def word_share_in_blocks(
    doc: RawDocument, pages: dict[int, Counter[str]], excluded: dict[int, Counter[str]] | None = None
) -> float:
    """Share of page words (as a multiset, per page) that reached some block on that page,
    not counting the `excluded` words (the running lines the extractor is meant to drop)."""
    placed = words_by_page(doc)
    excluded = excluded or {}
    total = found = 0
    for page, counts in pages.items():
        counts = counts - excluded.get(page, Counter())
        total += sum(counts.values())
        found += sum((counts & placed.get(page, Counter())).values())
    return found / total if total else 1.0


MINERU_MARKDOWN = {"mineru_demo1_hydrology": SHARED / "corpus" / "markdown" / "mineru" / "demo1.mineru.md"}
"""MinerU's Markdown of a corpus PDF (the same file, per MANIFEST.tsv)."""


def ground_truth_headings(pdf: Path) -> list[str] | None:
    """Section headings another tool found in the PDF: GROBID TEI, CERMINE NLM, or the `#` lines
    of docling's or MinerU's Markdown; None where there is none."""
    tei = GROUND_TRUTH / f"{pdf.stem}.grobid.tei.xml"
    nlm = GROUND_TRUTH / f"{pdf.stem}.cermine-nlm.xml"
    markdown = MINERU_MARKDOWN.get(pdf.stem, GROUND_TRUTH / f"{pdf.stem}.docling.md")
    if markdown.exists():
        lines = markdown.read_text(encoding="utf-8").splitlines()
        return [line.lstrip("#").strip() for line in lines if re.match(r"#{1,6} ", line)]
    if tei.exists():
        body = ET.parse(tei).getroot().find(f"{_TEI}text/{_TEI}body")
        return [
            "".join(head.itertext())
            for div in body.iter(f"{_TEI}div")
            if (head := div.find(f"{_TEI}head")) is not None
        ]
    if nlm.exists():
        body = ET.parse(nlm).getroot().find("body")
        return ["".join(title.itertext()) for title in body.iter("title")]
    return None


def plausible_heading(text: str) -> bool:
    """Drops the tool errors the corpus README warns of (quotations taken for headings)."""
    text = " ".join(text.split())
    return len(text.split()) <= 8 and text[-1:] not in ".,;)"


@dataclass
class Recall:
    found: int
    total: int
    missing: list[str]

    @property
    def share(self) -> float:
        return self.found / self.total if self.total else 1.0


def heading_recall(doc: RawDocument, truth: list[str]) -> Recall:
    """How many ground-truth headings the extractor marked as headings (normalized text match)."""
    extracted = Counter(heading_key(block.text) for block in doc.blocks if block.kind is BlockKind.heading)
    missing = []
    for heading in truth:
        key = heading_key(heading)
        if extracted[key] > 0:
            extracted[key] -= 1
        else:
            missing.append(heading)
    return Recall(found=len(truth) - len(missing), total=len(truth), missing=missing)


def heading_precision(doc: RawDocument, truth: list[str]) -> Recall:
    """How many of the headings the extractor marked below the title are ground-truth headings;
    `missing` lists the others (headings the ground truth does not have)."""
    expected = Counter(heading_key(heading) for heading in truth)
    extra = []
    marked = [block.text for block in doc.blocks if block.kind is BlockKind.heading and block.level and block.level > 1]
    for text in marked:
        key = heading_key(text)
        if expected[key] > 0:
            expected[key] -= 1
        else:
            extra.append(" ".join(text.split()))
    return Recall(found=len(marked) - len(extra), total=len(marked), missing=extra)


def ground_truth_paragraphs(pdf: Path) -> list[str] | None:
    """Body paragraphs in reading order from GROBID TEI or the MinerU Markdown of the same PDF."""
    tei = GROUND_TRUTH / f"{pdf.stem}.grobid.tei.xml"
    if tei.exists():
        body = ET.parse(tei).getroot().find(f"{_TEI}text/{_TEI}body")
        return ["".join(p.itertext()) for p in body.iter(f"{_TEI}p")]
    if pdf.stem in MINERU_MARKDOWN:
        markdown = MINERU_MARKDOWN[pdf.stem]
        chunks = markdown.read_text(encoding="utf-8").split("\n\n")
        return [c for c in chunks if c.strip() and not c.lstrip().startswith(("#", "|", "!", "<", "$"))]
    return None


def reading_order(doc: RawDocument, paragraphs: list[str], span: int = 8) -> tuple[int, int, int]:
    """Locate a run of `span` words from the middle of every ground-truth paragraph in the
    extracted text; returns (paragraphs, found, found in the right order: longest increasing run)."""
    joined = re.sub(r"(\w)-\n(\w)", r"\1\2", "\n".join(block.text for block in doc.blocks))
    stream = " " + " ".join(words(joined)) + " "
    positions = []
    usable = 0
    for paragraph in paragraphs:
        tokens = words(paragraph)
        if len(tokens) < span + 4:
            continue
        usable += 1
        middle = len(tokens) // 2
        probe = " " + " ".join(tokens[middle : middle + span]) + " "
        at = stream.find(probe)
        if at >= 0:
            positions.append(at)
    increasing: list[int] = []
    for position in positions:
        slot = bisect.bisect_left(increasing, position)
        increasing[slot : slot + 1] = [position]
    return usable, len(positions), len(increasing)


_HYPHEN_BREAK = re.compile(r"(\w)-\n(\w)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
LABEL_FREE_MIN_WORDS = 8
"""Sentences shorter than this are too likely to recur (`Data not shown.`) to prove an order."""


def word_stream(text: str) -> str:
    """The text's words, a space before and after each, so that a run of them is found by `in`."""
    return " " + " ".join(words(_HYPHEN_BREAK.sub(r"\1\2", text))) + " "


def is_contiguous(passage: str, stream: str) -> bool:
    """Whether `passage`'s words occur as one unbroken run in `stream` (a `word_stream`)."""
    return word_stream(passage) in stream


def text_in_order(doc: RawDocument) -> str:
    """The extracted text in the order normalize lays it out: body, then captions and asides."""
    return "\n".join(block.text for block in sorted(doc.blocks, key=lambda block: block.kind is BlockKind.aside))


@dataclass
class LabelFree:
    """What any PDF says about its own reading order, with no annotation: how much of PyMuPDF's
    own text comes out unbroken."""

    sentences: int
    whole_sentences: int
    blocks: int
    whole_blocks: int

    @property
    def sentence_share(self) -> float:
        return self.whole_sentences / self.sentences if self.sentences else 1.0

    @property
    def block_share(self) -> float:
        return self.whole_blocks / self.blocks if self.blocks else 1.0


def label_free_check(file: Path, doc: RawDocument) -> LabelFree:
    """Body sentences of PyMuPDF's text blocks (between sentence ends, of `LABEL_FREE_MIN_WORDS`
    words or more) that come out contiguous, and PyMuPDF text blocks no other text interrupts.

    A sentence is taken from within one PyMuPDF block, so that a column or page break (where the
    order is the extractor's to find) never makes one; a block counts where it has words and is
    not running furniture the extractor drops.
    """
    stream = word_stream(text_in_order(doc))
    dropped = running_words(file)
    sentences = whole_sentences = blocks = whole_blocks = 0
    with pymupdf.open(file) as pdf:
        for number, page in enumerate(pdf, start=1):
            furniture = dropped.get(number, Counter())
            for *_, text, _, kind in page.get_text("blocks"):
                tokens = words(text)
                if kind != 0 or not tokens or all(furniture[token] for token in tokens):
                    continue
                blocks += 1
                whole_blocks += is_contiguous(text, stream)
                for sentence in _SENTENCE_END.split(" ".join(_HYPHEN_BREAK.sub(r"\1\2", text).split())):
                    if len(words(sentence)) >= LABEL_FREE_MIN_WORDS:
                        sentences += 1
                        whole_sentences += is_contiguous(sentence, stream)
    return LabelFree(sentences, whole_sentences, blocks, whole_blocks)


LABEL_FREE_FLOOR = Path(__file__).with_name("pdf_label_free_floor.json")
_FLOOR_DIGITS = 4


def write_label_free_floor(files: list[Path], target: Path = LABEL_FREE_FLOOR) -> None:
    """Measure the label-free figures of `files` with the default rules and write them as the floor."""
    from pipeline.extract.pdf.document import extract_pdf
    from pipeline.rules import load_rules

    rules = load_rules()
    figures = {}
    for file in files:
        check = label_free_check(file, extract_pdf(file, file.name, rules))
        figures[file.name] = {
            "sentences": round(check.sentence_share, _FLOOR_DIGITS), "blocks": round(check.block_share, _FLOOR_DIGITS),
            "sentence_count": check.sentences, "block_count": check.blocks,
        }
    floor = {
        "method": (
            "tests/pdf_helpers.py label_free_check over extract_pdf with rules/default.toml: 'sentences' is the share "
            "of sentences of 8+ words inside PyMuPDF's text blocks (get_text('blocks'), running lines the extractor "
            "drops left out) whose words come out contiguous in the extracted text (body, then captions and asides); "
            "'blocks' the share of those PyMuPDF text blocks whose words come out contiguous. Rewritten by "
            "`python tests/pdf_helpers.py --write-floor`."
        ),
        "files": figures,
    }
    target.write_text(json.dumps(floor, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main(files: list[Path]) -> None:
    from pipeline.errors import NoTextLayerError
    from pipeline.extract.pdf.document import extract_pdf
    from pipeline.rules import load_rules

    rules = load_rules()
    total_pages = 0
    total_seconds = 0.0
    print(f"{'file':42} {'pages':>5} {'blocks':>6} {'heads':>5} {'in blocks*':>10} {'misplaced':>9} {'sentences†':>10} {'pm blocks†':>10}  heading recall")
    for file in files:
        start = time.perf_counter()
        try:
            doc = extract_pdf(file, file.name, rules)
        except NoTextLayerError as error:
            print(f"{file.name:42} no text layer: {error}")
            continue
        seconds = time.perf_counter() - start
        total_pages += doc.page_count
        total_seconds += seconds
        pages = page_words(file)
        share = word_share_in_blocks(doc, pages, running_words(file))
        placed = sum(len(words(block.text)) for block in doc.blocks)
        misplaced = len(misplaced_words(doc, pages)) / placed if placed else 0.0
        headings = sum(1 for block in doc.blocks if block.kind is BlockKind.heading)
        truth = ground_truth_headings(file)
        recall = ""
        if truth is not None:
            every = heading_recall(doc, truth)
            clean = heading_recall(doc, [t for t in truth if plausible_heading(t)])
            precision = heading_precision(doc, truth)
            recall = (
                f"{every.found}/{every.total} all, {clean.found}/{clean.total} plausible; missing {clean.missing}; "
                f"precision {precision.found}/{precision.total}, not in the truth {precision.missing}"
            )
        order = ""
        paragraphs = ground_truth_paragraphs(file)
        if paragraphs:
            usable, found, ordered = reading_order(doc, paragraphs)
            order = f"; order: {found}/{usable} paragraphs found, {ordered} in sequence"
        check = label_free_check(file, doc)
        print(
            f"{file.name:42} {doc.page_count:5} {len(doc.blocks):6} {headings:5} {share:10.1%} {misplaced:9.2%} "
            f"{check.sentence_share:10.1%} {check.block_share:10.1%}  {recall}{order}"
        )
    print("* share of page words (PyMuPDF get_text) found in blocks on that page, running heads/feet excluded")
    print("† label-free: sentences of 8+ words, and PyMuPDF text blocks, that come out contiguous")
    if total_seconds:
        print(f"extract_pdf: {total_pages} pages in {total_seconds:.2f} s = {total_pages / total_seconds:.0f} pages/s (one process)")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write-floor"]:
        write_label_free_floor(sorted(CORPUS_PDF.glob("*.pdf")))
    else:
        arguments = [Path(argument) for argument in sys.argv[1:]]
        main(arguments or sorted(CORPUS_PDF.glob("*.pdf")))
