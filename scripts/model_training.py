"""What the scripts that train the learned models share (train_heading_model.py,
train_front_model.py, train_table_row_model.py): LightGBM's settings that make a second run write
the same model, byte for byte, and writing a model beside the list of the papers it learnt from."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

SEED = 50
_SAMPLED = {"feature_fraction": 0.8, "bagging_fraction": 0.8, "bagging_freq": 1, "lambda_l2": 1.0}
"""Each tree sees four fifths of the features and of the lines, and leaves are kept small: a few
hundred papers' lines would otherwise be learnt by heart."""
_REPRODUCIBLE = {"seed": SEED, "num_threads": 1, "deterministic": True, "force_col_wise": True, "verbosity": -1}
"""One thread, a fixed seed and LightGBM's deterministic mode: the same data gives the same file."""


def parameters(**chosen: Any) -> dict[str, Any]:
    """LightGBM's parameters: what a model chooses (objective, leaves, …), then the shared ones."""
    return {**chosen, **_SAMPLED, **_REPRODUCIBLE}


def write_model(booster: Any, model_path: Path, training_list: Path, papers: Iterable[str]) -> None:
    """The model to `model_path`, and the names of the papers it learnt from, one a line, sorted, to
    `training_list` beside it."""
    model_path.parent.mkdir(exist_ok=True)
    booster.save_model(str(model_path))
    training_list.write_text("".join(f"{name}\n" for name in sorted(set(papers))), encoding="utf-8")
    print(f"wrote {model_path} ({model_path.stat().st_size // 1024} KB) and {training_list.name}")
