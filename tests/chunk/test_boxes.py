"""Where a PDF chunk is printed (`chunk_boxes`): every box lies on its page, and the words PyMuPDF
finds inside a chunk's boxes are the chunk's words, in order, for body text, captions, asides and
headings, on the sample PDFs, the layout fixtures and the shared PDFs; a two-column chunk has boxes
in both columns, a paragraph continued over a page break on both pages; touching lines of one
column become one box; Markdown chunks have none; the database holds them all.

A box's words are PyMuPDF's `page.get_text("words", clip=box)`, less the words whose middle lies
outside the box: a clip keeps every glyph it touches, and the descender of the line above reaches
into a line's box. PyMuPDF splits words where the paper hyphenates them at a line end and keeps
some that normalize joins, so words are compared with their hyphens and spaces between them
dropped where that makes two runs equal.

Also a script that prints the figures per PDF (lines, boxes, and the in-order shares by kind):

    .venv/bin/python tests/chunk/test_boxes.py [PDF ...]      (default: the shared PDFs)
"""

from __future__ import annotations

import difflib
import re
import sys
import unicodedata
from pathlib import Path

import duckdb
import pymupdf
import pytest

from conftest import PROJECT, SHARED_CORPUS, project_script
from pipeline.chunk.boxes import merge_runs
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.ingest.process import process
from pipeline.records.base import Box, BlockKind, ChunkSplit
from pipeline.records.chunked import ChunkedDocument

IN_ORDER_SHARE = 0.98
"""Of a paper's chunk words of one kind, the share that must be found in order inside their
chunks' boxes; and of the words found there, the share that must be the chunks' own."""
_HYPHENS = re.compile(r"[-\u00ad\u2010\u2011]\s*")
_TINY_TYPE3_SIZE = 3.0


make_pdfs = project_script("corpus/make_pdfs.py")
SHARED_PDFS = sorted((SHARED_CORPUS / "pdf").glob("*.pdf")) if (SHARED_CORPUS / "pdf").is_dir() else []
LAYOUTS = ["margin_notes", "side_box", "font_face_headings", "larger_abstract", "column_line_heights",
           "line_numbers", "ocr_layer", "pull_quote_and_figure"]
SAMPLES = ["single_column", "two_column", "running_heads", "bold_headings"]
KINDS = {
    "body": {ChunkSplit.front, ChunkSplit.h2, ChunkSplit.h3_soft, ChunkSplit.size},
    "caption": {ChunkSplit.caption},
    "aside": {ChunkSplit.aside},
}


@pytest.fixture(scope="module")
def papers(tmp_path_factory, layout_pdfs, rules) -> dict[str, tuple[Path, ChunkedDocument]]:
    """Every test PDF by name, chunked: the samples, the layout fixtures, the shared PDFs (lazily)."""
    made = dict(make_pdfs.make_pdfs(tmp_path_factory.mktemp("samples")))
    made.update({name: path for name, (path, _) in layout_pdfs.items()})
    return _Chunked(made, rules)


class _Chunked(dict):
    """Papers chunked on first use: a test run on one shared PDF reads that PDF alone."""

    def __init__(self, files: dict[str, Path], rules) -> None:
        super().__init__()
        self.files = files
        self.rules = rules

    def __missing__(self, name: str) -> tuple[Path, ChunkedDocument]:
        file = self.files.get(name) or SHARED_CORPUS / "pdf" / name
        if not file.exists():
            pytest.skip(f"the shared corpus is absent: {file} does not exist (it sits beside the project as ../shared)")
        self[name] = (file, process(file, file.name, file.stem, self.rules).chunked)
        return self[name]


# The shared PDFs, read one by one on first use, add up to minutes: slow, where the samples and
# layouts are not.
ALL = SAMPLES + LAYOUTS + [pytest.param(file.name, marks=pytest.mark.slow) for file in SHARED_PDFS]


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", unicodedata.normalize("NFKC", _HYPHENS.sub("", text)).casefold())


def _words_in(page: pymupdf.Page, box: Box, sort: bool) -> list[str]:
    rect = pymupdf.Rect(box.x0, box.y0, box.x1, box.y1)
    found = page.get_text("words", clip=rect, sort=sort)
    return [word[4] for word in found if rect.contains(pymupdf.Point((word[0] + word[2]) / 2, (word[1] + word[3]) / 2))]


def _matched(expected: list[str], found: list[str]) -> tuple[int, int]:
    """Words of `expected` found in order in `found`, and words of `found` that are those."""
    matcher = difflib.SequenceMatcher(None, expected, found, autojunk=False)
    ours = theirs = 0
    for operation, a0, a1, b0, b1 in matcher.get_opcodes():
        if operation == "equal" or (operation == "replace" and "".join(expected[a0:a1]) == "".join(found[b0:b1])):
            ours += a1 - a0
            theirs += b1 - b0
    return ours, theirs


def _match_in_boxes(doc: pymupdf.Document, text: str, boxes: list[Box]) -> tuple[int, int, int, int]:
    """(words of `text` found in order in the boxes, its words, found words that are its, words
    found): in PyMuPDF's reading of the boxes (content order, or sorted top to bottom, which
    tables read in rows need), whichever agrees better."""
    expected = _words(text)
    best = (0, len(expected), 0, 0)
    for sort in (False, True):
        found = _words(" ".join(word for box in boxes for word in _words_in(doc[box.page - 1], box, sort)))
        ours, theirs = _matched(expected, found)
        if ours > best[0] or sort is False:
            best = (ours, len(expected), theirs, len(found))
    return best


def _skip_tiny_type3(file: Path) -> None:
    with pymupdf.open(file) as doc:
        sizes = [span["size"] for page in doc for block in page.get_text("dict")["blocks"] for line in block.get("lines", ()) for span in line["spans"]]
    if sizes and sum(size < _TINY_TYPE3_SIZE for size in sizes) > len(sizes) / 2:
        pytest.skip(f"{file.name}: set in Type3 bitmap fonts, whose glyph boxes PyMuPDF reports far from the glyphs, so its words cannot be found by box")


def _boxes_by_chunk(chunked: ChunkedDocument) -> dict[str, list[Box]]:
    boxes: dict[str, list[Box]] = {}
    for box in chunked.chunk_boxes:
        boxes.setdefault(box.chunk_id, []).append(box)
    return boxes


def _assert_words_found(name: str, papers, kind: str) -> None:
    file, chunked = papers[name]
    _skip_tiny_type3(file)
    chunks = [chunk for chunk in chunked.chunks if chunk.split in KINDS[kind]]
    if not chunks:
        pytest.skip(f"{name} has no {kind} chunk")
    boxes = _boxes_by_chunk(chunked)
    totals = [0, 0, 0, 0]
    with pymupdf.open(file) as doc:
        for chunk in chunks:
            for index, count in enumerate(_match_in_boxes(doc, chunk.text, boxes.get(chunk.chunk_id, []))):
                totals[index] += count
    ours, expected, theirs, found = totals
    assert ours >= IN_ORDER_SHARE * expected, f"only {ours} of the {expected} words of its {kind} chunks are in their boxes, in order"
    assert theirs >= IN_ORDER_SHARE * found, f"only {theirs} of the {found} words in its {kind} chunks' boxes are theirs"


@pytest.mark.parametrize("name", ALL)
def test_every_box_lies_inside_its_page(papers, name):
    file, chunked = papers[name]
    with pymupdf.open(file) as doc:
        # Boxes are in the page's coordinates as stored; `page.rect` is the page as shown.
        pages = {number: doc[number - 1].rect * doc[number - 1].derotation_matrix for number in range(1, doc.page_count + 1)}
    assert chunked.chunk_boxes
    outside = [box for box in chunked.chunk_boxes + chunked.section_boxes if not pages[box.page].contains(pymupdf.Rect(box.x0, box.y0, box.x1, box.y1))]
    assert outside == []


@pytest.mark.parametrize("name", ALL)
def test_every_pdf_chunk_has_boxes(papers, name):
    _, chunked = papers[name]
    assert [chunk.chunk_id for chunk in chunked.chunks if chunk.chunk_id not in _boxes_by_chunk(chunked)] == []


@pytest.mark.parametrize("name", ALL)
def test_the_words_in_body_chunks_boxes_are_the_chunks_words_in_order(papers, name):
    _assert_words_found(name, papers, "body")


@pytest.mark.parametrize("name", ALL)
def test_the_words_in_caption_chunks_boxes_are_the_captions_words(papers, name):
    _assert_words_found(name, papers, "caption")


@pytest.mark.parametrize("name", ALL)
def test_the_words_in_aside_chunks_boxes_are_the_asides_words(papers, name):
    _assert_words_found(name, papers, "aside")


@pytest.mark.parametrize("name", ALL)
def test_every_heading_is_inside_its_chunks_boxes_and_its_lines_hold_its_words(papers, name):
    file, chunked = papers[name]
    _skip_tiny_type3(file)
    document = chunked.document
    boxes = _boxes_by_chunk(chunked)
    # A heading no chunk holds (a bare one the chunker drops, its children chunked apart) has no box.
    held = [
        (block, holder)
        for block in document.blocks
        if block.kind is BlockKind.heading
        and (holder := next((c for c in chunked.chunks if c.char_start <= block.char_start < c.char_end), None))
    ]
    assert held
    totals = [0, 0, 0, 0]
    with pymupdf.open(file) as doc:
        for heading, holder in held:
            for line in heading.line_boxes:
                assert any(
                    box.page == line.page and box.x0 <= line.x0 and box.y0 <= line.y0 and line.x1 <= box.x1 and line.y1 <= box.y1
                    for box in boxes[holder.chunk_id]
                ), f"{document.text[line.char_start:line.char_end]!r} is in no box of {holder.chunk_id}"
            text = document.text[heading.char_start : heading.char_end]
            for index, count in enumerate(_match_in_boxes(doc, text, heading.line_boxes)):
                totals[index] += count
    ours, expected, theirs, found = totals
    assert ours >= IN_ORDER_SHARE * expected and theirs >= IN_ORDER_SHARE * found, totals


def _column_sides(boxes: list[Box], page: int, middle: float) -> set[str]:
    return {"left" if box.x1 <= middle else "right" if box.x0 >= middle else "across" for box in boxes if box.page == page}


def test_a_chunk_that_runs_from_one_column_into_the_next_has_boxes_in_both(papers):
    file, chunked = papers["two_column"]
    with pymupdf.open(file) as doc:
        middle = doc[0].rect.width / 2
    boxes = _boxes_by_chunk(chunked)
    spanning = [
        chunk.chunk_id for chunk in chunked.chunks
        if any({"left", "right"} <= _column_sides(boxes[chunk.chunk_id], page, middle) for page in chunk.pages)
    ]
    assert spanning


@pytest.mark.parametrize("variant", SAMPLES)
def test_the_paragraph_continued_over_a_page_break_has_boxes_on_both_pages(papers, variant):
    _, chunked = papers[variant]
    start = chunked.document.text.index(make_pdfs.CROSSING[:60])
    end = chunked.document.text.index(make_pdfs.CROSSING[-40:]) + 40
    holder = next(chunk for chunk in chunked.chunks if chunk.char_start <= start < chunk.char_end)
    boxes = _boxes_by_chunk(chunked)[holder.chunk_id]
    lines = [line for block in chunked.document.blocks for line in block.line_boxes if start <= line.char_start < end]
    pages = sorted({line.page for line in lines})
    assert len(pages) == 2
    assert {box.page for box in boxes} >= set(pages)


def _box(page: int, x0: float, y0: float, x1: float, y1: float) -> Box:
    return Box(page=page, x0=x0, y0=y0, x1=x1, y1=y1)


def test_touching_lines_of_one_column_merge_into_one_box():
    lines = [_box(1, 72, 100, 290, 112), _box(1, 72, 112, 291, 124), _box(1, 72, 124, 200, 136)]
    assert merge_runs(lines) == [_box(1, 72, 100, 291, 136)]


def test_the_lines_of_a_double_spaced_paper_merge_at_its_usual_gap():
    lines = [_box(1, 72, 100, 540, 112), _box(1, 72, 124, 540, 136), _box(1, 72, 148, 540, 160)]
    assert merge_runs(lines) == lines
    assert merge_runs(lines, usual_gap=12) == [_box(1, 72, 100, 540, 160)]


def test_lines_in_the_next_column_or_on_the_next_page_start_a_box_of_their_own():
    lines = [_box(1, 72, 700, 290, 712), _box(1, 310, 80, 530, 92), _box(2, 310, 80, 530, 92)]
    assert merge_runs(lines) == lines


def test_a_line_a_gap_below_the_last_starts_a_box_of_its_own():
    # A caption or another chunk's lines stood between them.
    lines = [_box(1, 72, 100, 290, 112), _box(1, 72, 140, 290, 152)]
    assert merge_runs(lines) == lines


def test_a_line_far_wider_than_the_run_starts_a_box_of_its_own():
    # A short author line, then a wide one: merged, the box would cover what is printed beside the first.
    lines = [_box(1, 200, 100, 300, 112), _box(1, 72, 112, 520, 124)]
    assert merge_runs(lines) == lines


def test_markdown_chunks_have_no_boxes(rules):
    chunked = process(PROJECT / "corpus" / "flat" / "lee-2022.md", "flat/lee-2022.md", "flat/lee-2022", rules).chunked
    assert chunked.chunks and chunked.chunk_boxes == [] and chunked.section_boxes == []


def test_the_database_holds_every_box_of_the_pdf_chunks_and_none_for_markdown(papers, tmp_path, rules):
    folder = tmp_path / "papers"
    folder.mkdir()
    file, chunked = papers["two_column"]
    (folder / "two_column.pdf").write_bytes(file.read_bytes())
    (folder / "lee-2022.md").write_bytes((PROJECT / "corpus" / "flat" / "lee-2022.md").read_bytes())
    ingest_folder(folder, tmp_path / "papers.duckdb", rules, IngestOptions(workers=1))
    connection = duckdb.connect(str(tmp_path / "papers.duckdb"), read_only=True)
    stored = connection.execute("SELECT chunk_id, page, x0, y0, x1, y1 FROM chunk_boxes ORDER BY ALL").fetchall()
    assert stored == sorted((f"two_column.pdf:{b.chunk_id.split(':')[1]}", b.page, b.x0, b.y0, b.x1, b.y1) for b in chunked.chunk_boxes)
    sections = connection.execute("SELECT count(*) FROM section_boxes WHERE doc_id = 'two_column.pdf'").fetchone()[0]
    assert sections == len(chunked.section_boxes) > 0
    markdown = connection.execute("SELECT count(*) FROM chunk_boxes JOIN chunks USING (chunk_id) WHERE doc_id = 'lee-2022.md'").fetchone()[0]
    assert markdown == 0


def _figures(file: Path, rules) -> str:
    chunked = process(file, file.name, file.stem, rules).chunked
    lines = sum(len(block.line_boxes) for block in chunked.document.blocks)
    boxes = _boxes_by_chunk(chunked)
    shares = []
    with pymupdf.open(file) as doc:
        for kind, splits in KINDS.items():
            totals = [0, 0, 0, 0]
            for chunk in (c for c in chunked.chunks if c.split in splits):
                for index, count in enumerate(_match_in_boxes(doc, chunk.text, boxes.get(chunk.chunk_id, []))):
                    totals[index] += count
            if totals[1]:
                shares.append(f"{kind} {totals[0] / totals[1]:.3f}/{totals[2] / max(1, totals[3]):.3f}")
    return f"{file.name}: {lines} lines, {len(chunked.chunk_boxes)} chunk boxes; words in order (chunk's found / found chunk's): {', '.join(shares)}"


if __name__ == "__main__":
    from pipeline.rules import load_rules

    loaded = load_rules()
    for pdf in [Path(argument) for argument in sys.argv[1:]] or SHARED_PDFS:
        print(_figures(pdf, loaded))
