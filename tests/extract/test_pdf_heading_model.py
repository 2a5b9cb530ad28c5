"""The learned heading decision: its model file, the data it was trained on, and what it decides on a small page."""

from __future__ import annotations

import pickle
from pathlib import Path

import pymupdf
import pytest

from conftest import project_script
from pipeline.extract.pdf.document import extract_pdf
from pipeline.extract.pdf.heading_features import FEATURES
from pipeline.rules.heading_model import TRAINING_LIST, load_heading_model
from pipeline.records.base import BlockKind
from pipeline.rules import load_rules

_BODY = (
    "Soil samples were taken from ten plots at a depth of twenty centimetres and kept at four",
    "degrees until they were read, within two days of their collection in the field, as before.",
)


def test_the_model_file_loads_with_the_features_the_code_computes_in_their_order():
    model = load_heading_model()

    assert model.features == FEATURES
    assert len(set(FEATURES)) == len(FEATURES)


def test_the_rules_load_the_model_only_where_they_ask_for_it():
    assert load_rules(overrides={"pdf": {"headings": {"classifier": "rules"}}}).pdf.headings.model is None
    assert load_rules(overrides={"pdf": {"headings": {"classifier": "model"}}}).pdf.headings.model.features == FEATURES


def test_the_rules_carry_the_model_to_a_pool_worker():
    rules = load_rules(overrides={"pdf": {"headings": {"classifier": "model"}}})

    copied = pickle.loads(pickle.dumps(rules)).pdf.headings.model

    assert copied == rules.pdf.headings.model
    assert copied.probabilities([[0.0] * len(FEATURES)]) == rules.pdf.headings.model.probabilities([[0.0] * len(FEATURES)])


def test_the_model_was_trained_on_no_paper_of_the_check_half():
    names = TRAINING_LIST.read_text().split()
    is_check_half = project_script("scripts/score_pdf_jats_halves.py").is_check_half

    assert names
    assert [name for name in names if is_check_half(name)] == []


def _paper(path: Path) -> Path:
    """Two pages of one column at 10 pt: a title, numbered bold headings at body size, and in a
    paragraph of the results a line set in bold for emphasis."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Soil microbes under four tillage regimes", fontsize=18, fontname="hebo")
    page.insert_text((72, 105), "Ana Silva, Bo Chen and Rui Costa", fontsize=11)
    y = 150.0

    def line(text: str, bold: bool = False, before: float = 0.0) -> None:
        nonlocal y
        y += before
        page.insert_text((72, y), text, fontsize=10, fontname="hebo" if bold else "helv")
        y += 12

    for number, heading in (("1.", "Introduction"), ("2.", "Methods")):
        line(f"{number} {heading}", bold=True, before=10)
        for _ in range(4):
            line(_BODY[0])
            line(_BODY[1])
    line("3.5.1. Microorganisms", bold=True, before=10)
    for _ in range(3):
        line(_BODY[0])
        line(_BODY[1])
    line("4. Results", bold=True, before=10)
    line(_BODY[0])
    line("Nitrogen doubled in every plot that was not tilled", bold=True)
    line(_BODY[1])
    for _ in range(6):
        line(_BODY[0])
        line(_BODY[1])
    doc.save(path)
    return path


@pytest.fixture(scope="module")
def by_the_model(tmp_path_factory) -> dict[str, BlockKind]:
    rules = load_rules(overrides={"pdf": {"layout": {"mode": "rules"}, "headings": {"classifier": "model"}}})
    raw = extract_pdf(_paper(tmp_path_factory.mktemp("heading_model") / "paper.pdf"), "paper.pdf", rules)
    return {" ".join(block.text.split()): block.kind for block in raw.blocks}


def test_a_numbered_sub_sub_heading_in_bold_at_body_size_is_a_heading(by_the_model):
    assert by_the_model["3.5.1. Microorganisms"] is BlockKind.heading


def test_a_bold_line_inside_a_paragraph_is_no_heading(by_the_model):
    assert not any(kind is BlockKind.heading and "Nitrogen doubled" in text for text, kind in by_the_model.items())
