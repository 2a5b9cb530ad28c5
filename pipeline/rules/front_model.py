"""The page-1 line model as the rules load it (`[metadata] front_lines = "model"`), trained by
`scripts/train_front_model.py` (a `trained_model.TrainedModel`). What the model labels, and on
which features, is `pipeline.metadata.front_lines`'s; where its labels are used,
`pipeline.metadata.front_model`'s.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.rules.trained_model import MODELS_FOLDER, TrainedModel, load_trained_model

MODEL_PATH = MODELS_FOLDER / "front_lines.txt"
TRAINING_LIST = MODEL_PATH.with_name("front_lines_training_papers.txt")
"""The papers the shipped model was trained on, one name a line (the even half of pdf_jats)."""


def load_front_model(path: Path = MODEL_PATH) -> TrainedModel:
    """The model in `path` (the metadata step checks its feature names against the ones it computes)."""
    return load_trained_model(path, "metadata", "front_lines", "the page-1 line model")
