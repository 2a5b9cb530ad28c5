"""`[chunk]`: the sizes a chunk is cut to, and the light loader that validates that table
alone, for `report`, which counts the stored chunks against them and reads nothing else."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import ConfigDict, Field, model_validator

from pipeline import DEFAULT_RULES_PATH
from pipeline.rules.base import RulesModel
from pipeline.rules.files import load_tables


class ChunkRules(RulesModel):
    target_min_words: Annotated[int, Field(gt=0)]
    target_max_words: Annotated[int, Field(gt=0)]
    hard_max_words: Annotated[int, Field(gt=0)]
    unstructured_min_words: Annotated[int, Field(gt=0)] = 1500
    """A paper of more body words than this with no section heading, or with this many words
    before its first one, is reported as unstructured (`inspect`, `report`, the run summary)."""

    @model_validator(mode="after")
    def _sizes_are_ordered(self) -> ChunkRules:
        if not self.target_min_words <= self.target_max_words <= self.hard_max_words:
            raise ValueError("sizes must satisfy target_min_words <= target_max_words <= hard_max_words")
        return self


class _ChunkTable(RulesModel):
    """A rules file read for its `[chunk]` alone (see `search._SearchTable`)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    chunk: ChunkRules


def load_chunk_rules(path: Path | str = DEFAULT_RULES_PATH) -> ChunkRules:
    """The rules file's `[chunk]`, validated as `load_rules` validates it; a `RulesError` naming
    the file and key where it is wrong. Other tables are not read."""
    return load_tables(Path(path), _ChunkTable).chunk
