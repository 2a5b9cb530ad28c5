"""Load `rules/*.toml` into validated, compiled models.

`load_rules` reads every table into one `Rules` model (`pipeline/rules/tables.py`): the stages
receive it and never read files themselves. `load_search_rules` reads `[search]` alone
(`pipeline/rules/search.py`), for `search`, and `load_chunk_rules` `[chunk]` alone
(`pipeline/rules/chunk_sizes.py`), for `report`: each reads nothing else. Every table's models, and
the PDF, metadata and bibliography rules they hold, are built when a name of `tables.py` is first
asked of this package, not on import: a command that reads one table pays for that one.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from pipeline import DEFAULT_RULES_PATH
from pipeline.rules.chunk_sizes import ChunkRules, load_chunk_rules
from pipeline.rules.search import SearchRules, SpellingPair, load_search_rules

if TYPE_CHECKING:
    from pipeline.rules.tables import (
        AbsorbRules,
        AnchorRule,
        CaptionRules,
        InheritRules,
        NormalizeRules,
        PageMarkerRule,
        PatternRule,
        Rules,
        layout_overrides,
        load_rules,
    )
    from pipeline.rules.metadata import MetadataRules
    from pipeline.rules.pdf import PdfRules
    from pipeline.rules.sources import CitationRules, LinkRules, ReferenceRules, SentenceRules

__all__ = [
    "DEFAULT_RULES_PATH", "ChunkRules", "SearchRules", "SpellingPair", "load_chunk_rules", "load_search_rules",
    # From tables.py (which imports the last six), on first use:
    "AbsorbRules", "AnchorRule", "CaptionRules", "InheritRules", "NormalizeRules", "PageMarkerRule",
    "PatternRule", "Rules", "layout_overrides", "load_rules",
    "MetadataRules", "PdfRules", "CitationRules", "LinkRules", "ReferenceRules", "SentenceRules",
]


def __getattr__(name: str) -> object:
    # PEP 562: called only for a name the package does not hold yet, so a name of __all__
    # here is one of tables.py's. importlib, not `from pipeline.rules import tables`, which
    # would ask this function for `tables` again.
    if name in __all__:
        return getattr(importlib.import_module("pipeline.rules.tables"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
