"""A learned model as the rules load it: gradient-boosted trees (LightGBM) trained by a script in
scripts/ on the even half of pdf_jats, shipped in `models/` beside this module, and read once, with
the rules, so that every pool worker that receives the rules has it. The heading, page-1 line and
table row models are each one of these (`heading_model`, `front_model`, `table_row_model` name
their files and the setting that asks for them)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.errors import RulesError

MODELS_FOLDER = Path(__file__).resolve().parent / "models"


@dataclass(frozen=True, slots=True)
class TrainedModel:
    """The trained trees and the feature names they were trained on."""

    booster: Any = field(compare=False)
    """A `lightgbm.Booster`; two models are equal where their files are."""
    sha256: str
    features: tuple[str, ...] = ()

    def probabilities(self, rows: list[list[float]]) -> list[float]:
        """Each row's probability of the one label a two-way model learnt."""
        return [float(p) for p in self._predicted(rows)]

    def label_probabilities(self, rows: list[list[float]]) -> list[list[float]]:
        """Each row's probability of each label a model of several labels learnt, in its order."""
        if not rows:
            return []
        return [[float(p) for p in found] for found in self._predicted(rows)]

    def _predicted(self, rows: list[list[float]]) -> Any:
        import numpy

        return self.booster.predict(numpy.asarray(rows, dtype=numpy.float64), num_threads=1)


def load_trained_model(path: Path, section: str, key: str, runs: str) -> TrainedModel:
    """The model in `path`, with the feature names it was trained on (the step that uses it checks
    them against the ones it computes); `[section] key = "model"` is the setting that asked for it,
    and `runs` names the model in the error that says LightGBM is missing."""
    try:
        import lightgbm  # only where the rules ask for a model: importing it costs a few tenths of a second
    except ImportError:
        raise RulesError(
            f'[{section}] {key} = "model" needs LightGBM, which runs {runs}: '
            f"pip install -e '.[headings-model]', or set {key} = \"rules\""
        ) from None
    text = path.read_text(encoding="utf-8")
    booster = lightgbm.Booster(model_str=text)
    return TrainedModel(booster, hashlib.sha256(text.encode()).hexdigest(), tuple(booster.feature_name()))
