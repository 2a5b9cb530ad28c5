"""The PDF table row model as the rules load it (`[pdf.tables] rows = "model"`): gradient-boosted
trees (LightGBM) trained by `scripts/train_table_row_model.py`, shipped in `models/` beside this
module and read once, with the rules, so that every pool worker that receives the rules has it.
What the model decides, and on which features, is `pipeline.extract.pdf.table_rows`'s.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.errors import RulesError
from pipeline.rules.heading_model import HeadingModel

MODEL_PATH = Path(__file__).resolve().parent / "models" / "table_rows.txt"
TRAINING_LIST = MODEL_PATH.with_name("table_rows_training_papers.txt")
"""The papers the shipped model was trained on, one name a line (the even half of pdf_jats)."""

TableRowModel = HeadingModel
"""The same record as the heading model's: the trees, their file's digest, their feature names."""


def load_table_row_model(path: Path = MODEL_PATH) -> TableRowModel:
    """The model in `path`, with the feature names it was trained on (`table_rows.join_lines`
    checks them against the ones it computes)."""
    try:
        import lightgbm  # only where the rules ask for the model
    except ImportError:
        raise RulesError(
            '[pdf.tables] rows = "model" needs LightGBM, which runs the table row model: '
            "pip install -e '.[headings-model]', or set rows = \"rules\""
        ) from None
    import hashlib

    text = path.read_text(encoding="utf-8")
    booster = lightgbm.Booster(model_str=text)
    return TableRowModel(booster, hashlib.sha256(text.encode()).hexdigest(), tuple(booster.feature_name()))
