"""The PDF table row model as the rules load it (`[pdf.tables] rows = "model"`), trained by
`scripts/train_table_row_model.py` (a `trained_model.TrainedModel`). What the model decides, and
on which features, is `pipeline.extract.pdf.table_rows`'s.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.rules.trained_model import MODELS_FOLDER, TrainedModel, load_trained_model

MODEL_PATH = MODELS_FOLDER / "table_rows.txt"
TRAINING_LIST = MODEL_PATH.with_name("table_rows_training_papers.txt")
"""The papers the shipped model was trained on, one name a line (the even half of pdf_jats)."""


def load_table_row_model(path: Path = MODEL_PATH) -> TrainedModel:
    """The model in `path` (`table_rows.join_lines` checks its feature names against the ones it computes)."""
    return load_trained_model(path, "pdf.tables", "rows", "the table row model")
