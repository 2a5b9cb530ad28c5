"""The page-1 line model as the rules load it (`[metadata] front_lines = "model"`): gradient-boosted
trees (LightGBM) trained by `scripts/train_front_model.py`, shipped in `models/` beside this module
and read once, with the rules, so that every pool worker that receives the rules has it. What the
model labels, and on which features, is `pipeline.metadata.front_lines`'s; where its labels are
used, `pipeline.metadata.front_model`'s.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.errors import RulesError

MODEL_PATH = Path(__file__).resolve().parent / "models" / "front_lines.txt"
TRAINING_LIST = MODEL_PATH.with_name("front_lines_training_papers.txt")
"""The papers the shipped model was trained on, one name a line (the even half of pdf_jats)."""


@dataclass(frozen=True, slots=True)
class FrontModel:
    """The trained trees and the feature names they were trained on."""

    booster: Any = field(compare=False)
    """A `lightgbm.Booster`; two models are equal where their files are."""
    sha256: str
    features: tuple[str, ...] = ()

    def probabilities(self, rows: list[list[float]]) -> list[list[float]]:
        """Each row's probability of each label (`front_lines.LABELS`, in order)."""
        import numpy

        if not rows:
            return []
        return [[float(p) for p in found] for found in self.booster.predict(numpy.asarray(rows, dtype=numpy.float64), num_threads=1)]


def load_front_model(path: Path = MODEL_PATH) -> FrontModel:
    """The model in `path`, with the feature names it was trained on (the metadata step checks
    them against the ones it computes)."""
    try:
        import lightgbm  # only where the rules ask for the model
    except ImportError:
        raise RulesError(
            '[metadata] front_lines = "model" needs LightGBM, which runs the page-1 line model: '
            "pip install -e '.[headings-model]', or set front_lines = \"rules\""
        ) from None
    text = path.read_text(encoding="utf-8")
    booster = lightgbm.Booster(model_str=text)
    return FrontModel(booster, hashlib.sha256(text.encode()).hexdigest(), tuple(booster.feature_name()))
