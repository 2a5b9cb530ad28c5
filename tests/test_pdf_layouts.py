"""PDF layouts that break naive reading order, rendered with their truth by
`corpus/make_layout_pdfs.py`: every body paragraph comes out whole, every aside is a block of its
own, and every heading is found at its level, with nothing else taken for one."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from conftest import PROJECT
from pdf_helpers import heading_key, is_contiguous, label_free_check, text_in_order, word_stream
from pipeline.extract.pdf import extract_pdf
from pipeline.models import BlockKind
from pipeline.rules import load_rules


def _fixtures_module():
    spec = importlib.util.spec_from_file_location("make_layout_pdfs", PROJECT / "corpus" / "make_layout_pdfs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_layout_pdfs"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def layouts(tmp_path_factory):
    rules = load_rules()
    made = _fixtures_module().make_layout_pdfs(tmp_path_factory.mktemp("layouts"))
    return {name: (path, truth, extract_pdf(path, name, rules)) for name, (path, truth) in made.items()}


NAMES = ["margin_notes", "side_box", "font_face_headings", "larger_abstract", "column_line_heights",
         "line_numbers", "ocr_layer", "pull_quote_and_figure"]


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
def test_every_heading_is_found_at_its_level_and_nothing_else_is_one(layouts, name):
    _, truth, document = layouts[name]
    found = [(block.level, heading_key(block.text)) for block in document.blocks
             if block.kind is BlockKind.heading and block.level and block.level > 1]
    assert found == [(level, heading_key(text)) for level, text in truth.headings]


@pytest.mark.parametrize("name", NAMES)
def test_the_label_free_check_finds_every_sentence_whole(layouts, name):
    path, _, document = layouts[name]
    assert label_free_check(path, document).sentence_share == 1.0
