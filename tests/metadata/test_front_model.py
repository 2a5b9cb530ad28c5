"""The page-1 line model: its features, the byline and DOI it reads from labelled lines, and its
place beside the rules (`[metadata] front_lines = "model"`) where they read no byline."""

from __future__ import annotations

import pytest

from pipeline.metadata.front_lines import FEATURES, line_features
from pipeline.metadata.front_model import model_byline, model_doi
from pipeline.records.extract import FrontLine
from pipeline.rules.metadata import MetadataRules


def _line(text: str, y0: float, x0: float = 50.0, size: float = 10.0) -> FrontLine:
    return FrontLine(text=text, size=size, bold=False, x0=x0, y0=y0)


def test_every_line_gets_every_feature_in_reading_order(rules):
    lines = [_line("Ana Silva1, Bo Chen2", 80), _line("A trial of sleep loss in adults", 40, size=18)]
    found = line_features(lines, rules.metadata)
    assert [len(row) for row in found] == [len(FEATURES)] * 2
    assert found[0][FEATURES.index("largest")] == 1.0  # the title, printed first, is read first


def test_the_models_byline_runs_across_rows_and_their_pieces(rules):
    labelled = [
        (_line("A trial of sleep loss", 40, size=18), "title"),
        (_line("Ana Silva1, Bo", 70), "author"),
        (_line("Chen2 and Rui Costa1", 82), "author"),
        (_line("Eva Lima3", 82, x0=300), "author"),
        (_line("1 Department of Medicine", 100), "affiliation"),
    ]
    assert model_byline(labelled, rules.metadata) == ["Ana Silva", "Bo Chen", "Rui Costa", "Eva Lima"]


def test_the_models_doi_line_is_read_on_into_the_row_under_where_cut():
    labelled = [(_line("https://doi.org/10.1371/journal.", 40), "doi"), (_line("pone.0229314", 52), "other")]
    assert model_doi(labelled) == "10.1371/journal.pone.0229314"


def test_the_base_rules_need_no_model(rules):
    assert rules.metadata.front_model is None


def test_the_shipped_model_loads_with_the_rules_and_labels_every_line(rules):
    pytest.importorskip("lightgbm")
    from pipeline.metadata.front_lines import LABELS
    from pipeline.metadata.front_model import line_labels

    with_model = MetadataRules.model_validate({**rules.metadata.model_dump(), "front_lines": "model"})
    lines = [_line("A trial of sleep loss in adults", 40, size=18), _line("Ana Silva1, Bo Chen2", 80)]
    labelled = line_labels(lines, with_model)
    assert with_model.front_model.features == FEATURES
    assert [label in LABELS for _, label in labelled] == [True, True]
