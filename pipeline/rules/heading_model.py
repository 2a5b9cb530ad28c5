"""The PDF heading model as the rules load it (`[pdf.headings] classifier = "model"`): gradient-
boosted trees (LightGBM) trained by `scripts/train_heading_model.py`, shipped in `models/` beside
this module and read once, with the rules, so that every pool worker that receives the rules has
it. What the model decides, and on which features, is `pipeline.extract.pdf.heading_model`'s.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.errors import RulesError

MODEL_PATH = Path(__file__).resolve().parent / "models" / "headings.txt"
TRAINING_LIST = MODEL_PATH.with_name("headings_training_papers.txt")
"""The papers the shipped model was trained on, one name a line (the even half of pdf_jats)."""


@dataclass(frozen=True, slots=True)
class HeadingModel:
    """The trained trees and the feature names they were trained on."""

    booster: Any = field(compare=False)
    """A `lightgbm.Booster`; two models are equal where their files are."""
    sha256: str
    features: tuple[str, ...] = ()

    def probabilities(self, rows: list[list[float]]) -> list[float]:
        import numpy

        return [float(p) for p in self.booster.predict(numpy.asarray(rows, dtype=numpy.float64), num_threads=1)]


def load_heading_model(path: Path = MODEL_PATH) -> HeadingModel:
    """The model in `path`, with the feature names it was trained on (the PDF pass checks them
    against the ones it computes)."""
    try:
        import lightgbm  # only where the rules ask for the model: importing it costs a few tenths of a second
    except ImportError:
        raise RulesError(
            '[pdf.headings] classifier = "model" needs LightGBM, which runs the heading model: '
            "pip install -e '.[headings-model]', or set classifier = \"rules\""
        ) from None
    text = path.read_text(encoding="utf-8")
    booster = lightgbm.Booster(model_str=text)
    return HeadingModel(booster, hashlib.sha256(text.encode()).hexdigest(), tuple(booster.feature_name()))


