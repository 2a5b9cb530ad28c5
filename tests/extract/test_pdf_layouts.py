"""PDF layouts that break naive reading order, rendered with their truth by
`corpus/make_layout_pdfs.py`: every body paragraph comes out whole, every aside is a block of its
own, and every heading is found at its level, with nothing else taken for one."""

from __future__ import annotations

import json
import re
import shutil

import pymupdf
import pytest

from pdf_helpers import CORPUS_PDF, LABEL_FREE_FLOOR, heading_key, is_contiguous, label_free_check, text_in_order, word_stream
from pipeline.extract.pdf.document import extract_pdf
from pipeline.index.database import open_readonly
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.ingest.scan import doc_id_for
from pipeline.ingest.process import process
from pipeline.report.inspection import render_tree
from pipeline.records.base import BlockKind
from pipeline.report import render_report
from pipeline.rules import load_rules


@pytest.fixture(scope="module")
def layouts(layout_pdfs):
    rules = load_rules()
    return {name: (path, truth, extract_pdf(path, name, rules)) for name, (path, truth) in layout_pdfs.items()}


NAMES = ["margin_notes", "side_box", "font_face_headings", "larger_abstract", "column_line_heights",
         "line_numbers", "ocr_layer", "pull_quote_and_figure", "scanned_two_column", "headings_like_body",
         "headings_in_bold", "table_beside_text", "type3_word_by_word", "headings_after_lead_ins",
         "numbering_with_separators", "run_in_headings_numbered_in_italic", "run_in_headings_unnumbered_in_bold",
         "leads_that_head_no_section", "top_headings_sharing_a_line", "contents_with_leaders", "contents_without_leaders",
         "report_code_and_folios", "side_panel_in_a_sentence", "table_across_the_gutter",
         "italic_headings_below_bold"]
HEADINGS_AT_THEIR_LEVEL = [name for name in NAMES if name != "scanned_two_column"]
"""An OCR layer stretches every word to its width on the scan, and PyMuPDF's size of a word grows
with the square root of the stretch: the sizes of its headings no longer tell their levels apart,
and a heading set a little larger than the body can pass for body text. (Sizing such words by
their boxes' heights instead found them all here, but cut the real OCR layer of
grobid_ZFN-A-054-0304-0272 into pieces and took a line of it for the title.)"""


@pytest.mark.parametrize("name", NAMES)
def test_every_body_paragraph_comes_out_whole(layouts, name):
    _, truth, document = layouts[name]
    stream = word_stream(text_in_order(document))
    assert [paragraph[:60] for paragraph in truth.paragraphs if not is_contiguous(paragraph, stream)] == []


@pytest.mark.parametrize("name", NAMES)
def test_every_aside_is_a_block_of_its_own(layouts, name):
    _, truth, document = layouts[name]
    blocks = [word_stream(block.text) for block in document.blocks]
    assert [aside[:50] for aside in truth.asides if word_stream(aside) not in blocks] == []


@pytest.mark.parametrize("name", NAMES)
def test_nothing_but_an_aside_is_an_aside(layouts, name):
    _, truth, document = layouts[name]
    asides = [word_stream(aside) for aside in truth.asides]
    assert [block.text[:50] for block in document.blocks
            if block.kind is BlockKind.aside and not any(word_stream(block.text) in aside for aside in asides)] == []


@pytest.mark.parametrize("name", HEADINGS_AT_THEIR_LEVEL)
def test_every_heading_is_found_at_its_level_and_nothing_else_is_one(layouts, name):
    _, truth, document = layouts[name]
    found = [(block.level, heading_key(block.text)) for block in document.blocks
             if block.kind is BlockKind.heading and block.level and block.level > 1]
    assert found == [(level, heading_key(text)) for level, text in truth.headings]


@pytest.mark.parametrize("name", NAMES)
def test_the_label_free_check_finds_every_sentence_whole(layouts, name):
    path, _, document = layouts[name]
    assert label_free_check(path, document).sentence_share == 1.0


def test_a_scans_other_column_never_lands_inside_a_sentence(layouts):
    _, truth, document = layouts["scanned_two_column"]
    stream = word_stream(text_in_order(document))
    sentences = [sentence for paragraph in truth.paragraphs for sentence in re.split(r"(?<=\.) (?=Item)", paragraph)]
    assert len(sentences) > 100
    assert [sentence[:60] for sentence in sentences if not is_contiguous(sentence, stream)] == []


@pytest.mark.parametrize("name", ["run_in_headings_numbered_in_italic", "run_in_headings_unnumbered_in_bold"])
def test_a_run_in_heading_and_its_text_split_the_line_they_share(layouts, name):
    """The heading ends its last line, the paragraph opens on that line, left to right on one
    baseline, and the two together are the line as printed."""
    path, _, document = layouts[name]
    with pymupdf.open(path) as pdf:
        printed = {" ".join("".join(span["text"] for span in line["spans"]).split())
                   for page in pdf for block in page.get_text("dict")["blocks"] for line in block.get("lines", ())}
    pairs = [(block, after) for block, after in zip(document.blocks, document.blocks[1:])
             if block.kind is BlockKind.heading and block.level == 3]
    assert len(pairs) >= 3
    for heading, paragraph in pairs:
        lead, rest = heading.segments[-1].text.split("\n")[-1], paragraph.segments[0].text.split("\n")[0]
        (_, _, top, lead_x1, _), (_, rest_x0, rest_top, _, _) = heading.line_boxes[-1], paragraph.line_boxes[0]
        assert (top, lead_x1 < rest_x0) == (rest_top, True)
        assert f"{lead} {rest}" in printed


def test_a_top_heading_and_what_follows_it_split_the_line_they_share(layouts):
    """`METHODS`, `Search strategy` and the text after them come out left to right on one
    baseline, each with its own box, and together they are the line as printed."""
    _, _, document = layouts["top_headings_sharing_a_line"]
    blocks = document.blocks
    start = next(index for index, block in enumerate(blocks) if block.text == "METHODS")
    name, sub, text = blocks[start : start + 3]
    boxes = [name.line_boxes[0], sub.line_boxes[0], text.line_boxes[0]]
    assert len({box[2] for box in boxes}) == 1
    assert boxes[0][3] < boxes[1][1] and boxes[1][3] < boxes[2][1]
    assert f"{name.text} {sub.text} {text.text.splitlines()[0]}".startswith("METHODS Search strategy Item ")


@pytest.mark.parametrize("name", ["contents_with_leaders", "contents_without_leaders"])
def test_a_table_of_contents_is_one_list_of_its_entries(layouts, name):
    _, truth, document = layouts[name]
    holding = [block for block in document.blocks if word_stream(truth.contents[0]) in word_stream(block.text)]
    assert [block.kind for block in holding] == [BlockKind.list]
    assert word_stream(" ".join(truth.contents)) == word_stream(holding[0].text)


def test_a_line_of_code_in_a_monospaced_face_is_a_paragraph(layouts):
    _, truth, document = layouts["report_code_and_folios"]
    kinds = {block.text: block.kind for block in document.blocks}
    assert [kinds.get(line) for line in truth.code] == [BlockKind.paragraph] * len(truth.code)


def test_page_numbers_in_roman_are_dropped_with_those_in_arabic(layouts):
    _, _, document = layouts["report_code_and_folios"]
    assert [block.text for block in document.blocks if block.text in ("i", "ii", "iii", "1", "2", "3", "4")] == []


def test_a_tables_rows_beside_the_text_stay_in_the_table(layouts):
    _, truth, document = layouts["table_beside_text"]
    stream = word_stream("\n".join(block.text for block in document.blocks if block.kind is not BlockKind.aside))
    assert [row for row in truth.table_rows if not is_contiguous(row, stream)] == []
    assert [block.text for block in document.blocks if block.kind is BlockKind.aside] == []


def test_type3_words_get_their_fonts_size_not_their_own_estimate(layouts):
    _, _, document = layouts["type3_word_by_word"]
    assert [block.text[:40] for block in document.blocks if block.kind is BlockKind.aside] == []
    assert len([block for block in document.blocks if block.kind is BlockKind.heading and block.level == 2]) == 5


# ---------------------------------------------------------------- the collapse guard


def _chunked(layouts, name, rules):
    path, _, _ = layouts[name]
    return process(path, path.name, doc_id_for(path.name), rules).chunked


def test_a_long_paper_whose_headings_look_like_its_text_is_reported_unstructured(layouts, rules):
    chunked = _chunked(layouts, "headings_like_body", rules)
    assert sum(section.word_count for section in chunked.sections) > rules.chunk.unstructured_min_words
    assert chunked.structure_warning.startswith("unstructured: no section heading found in its ")
    assert f"warning: {chunked.structure_warning}" in render_tree(chunked).splitlines()


def test_the_same_paper_with_its_headings_in_bold_is_not_reported(layouts, rules):
    chunked = _chunked(layouts, "headings_in_bold", rules)
    assert chunked.structure_warning is None
    assert "warning: unstructured" not in render_tree(chunked)


@pytest.fixture(scope="module")
def guarded_run(layouts, tmp_path_factory, rules):
    """Both papers ingested with one worker: the run's summary and the database."""
    folder = tmp_path_factory.mktemp("guard") / "papers"
    folder.mkdir()
    for name in ("headings_like_body", "headings_in_bold"):
        shutil.copy(layouts[name][0], folder / f"{name}.pdf")
    db = folder.parent / "papers.duckdb"
    return ingest_folder(folder, db, rules, IngestOptions(workers=1)), db


def test_the_run_summary_warns_of_the_unstructured_paper_alone(guarded_run):
    summary, _ = guarded_run
    assert list(summary.unstructured) == ["headings_like_body.pdf"]
    assert "; warning: 1 paper(s) without section headings, stored unstructured" in summary.line()


def test_the_report_lists_the_unstructured_paper_alone(guarded_run, rules):
    _, db = guarded_run
    report = render_report(open_readonly(db), rules.chunk).splitlines()
    listed = report[report.index("Unstructured papers (no section heading found; pipeline inspect FILE shows what was read):") + 1 :]
    assert [line.split(":")[0].strip() for line in listed if line.startswith("  ") and "body words" in line] == ["headings_like_body.pdf"]


# ---------------------------------------------------------------- the shared corpus keeps its figures

FLOOR = json.loads(LABEL_FREE_FLOOR.read_text(encoding="utf-8"))["files"]
FLOOR_TOLERANCE = 0.002
"""A label-free share may dip this much below its floor (a sentence in five hundred): a change
that loses more has lost ground on that paper."""


@pytest.mark.parametrize("name", sorted(FLOOR))
def test_a_shared_pdf_keeps_its_label_free_figures(name, rules):
    file = CORPUS_PDF / name
    if not file.exists():
        pytest.skip(f"the shared corpus is absent: {file} does not exist (it sits beside the project as ../shared)")
    check = label_free_check(file, extract_pdf(file, name, rules))
    assert check.sentence_share >= FLOOR[name]["sentences"] - FLOOR_TOLERANCE
    assert check.block_share >= FLOOR[name]["blocks"] - FLOOR_TOLERANCE


def _aside_chunks(layouts, name):
    path, _, _ = layouts[name]
    rules = load_rules()
    chunked = process(path, path.name, doc_id_for(path.name), rules).chunked
    return [chunk for chunk in chunked.chunks if chunk.split == "aside"]


def test_a_pages_box_of_short_notes_is_one_chunk_holding_every_note_in_order(layouts):
    _, truth, _ = layouts["side_box"]
    [chunk] = _aside_chunks(layouts, "side_box")
    assert word_stream(chunk.text) == word_stream(" ".join(truth.asides))
    assert chunk.section_type.value == "meta"


def test_margin_notes_are_one_chunk_a_page(layouts):
    chunks = _aside_chunks(layouts, "margin_notes")
    pages = [chunk.page_start for chunk in chunks]
    assert len(pages) > 1
    assert sorted(pages) == sorted(set(pages))
