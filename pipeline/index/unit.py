"""The unit a search ranks and an export writes, apart from the search itself: the command line
offers it as `--unit` without loading DuckDB or the index."""

from __future__ import annotations

from enum import Enum


class Unit(str, Enum):
    """What a search ranks and an export holds: chunks (which a citation points to) or paragraphs
    (small units that find, each carrying its parent chunk)."""

    chunk = "chunk"
    """A chunk: the unit the paper is cited by."""
    paragraph = "paragraph"
    """A paragraph (`S2-P1`), with its parent chunk: the unit that is found best."""


class SearchMode(str, Enum):
    """How a search ranks: by words (BM25), by meaning (the sentence vectors `ingest --vectors`
    keeps), or by both fused (`pipeline.index.vector_search`)."""

    bm25 = "bm25"
    vector = "vector"
    hybrid = "hybrid"
