"""The PDF heading model as the rules load it (`[pdf.headings] classifier = "model"`), trained by
`scripts/train_heading_model.py` (a `trained_model.TrainedModel`). What the model decides, and on
which features, is `pipeline.extract.pdf.heading_model`'s.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.rules.trained_model import MODELS_FOLDER, TrainedModel, load_trained_model

MODEL_PATH = MODELS_FOLDER / "headings.txt"
TRAINING_LIST = MODEL_PATH.with_name("headings_training_papers.txt")
"""The papers the shipped model was trained on, one name a line (the even half of pdf_jats)."""


def load_heading_model(path: Path = MODEL_PATH) -> TrainedModel:
    """The model in `path` (the PDF pass checks its feature names against the ones it computes)."""
    return load_trained_model(path, "pdf.headings", "classifier", "the heading model")
