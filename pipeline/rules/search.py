"""`[search]`: what `search` reads, and the light loader that validates that table alone, so that
a search builds no other table's models and compiles none of their patterns."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from pipeline import DEFAULT_RULES_PATH
from pipeline.rules.base import RulesModel
from pipeline.rules.files import load_tables


class SpellingPair(RulesModel):
    """A British and an American way of writing the same start or end of a word (`tumour`,
    `tumor`), so that a search for one finds the other."""

    british: Annotated[str, Field(min_length=1, pattern=r"^[a-z]+$")]
    american: Annotated[str, Field(min_length=1, pattern=r"^[a-z]+$")]
    at: Literal["start", "end"]
    """Where in a word the two forms sit."""


class SearchRules(RulesModel):
    """What `search` reads; none of it changes what an ingest stores."""

    spelling: list[SpellingPair] = Field(default_factory=list)
    spelling_min_stem: Annotated[int, Field(ge=1)] = 3
    """Letters a word must keep beside the changed part, so `size` is not taken for `sise`."""
    user_glossary: str | None = None
    """A glossary file of the user's, layered over the one `--glossary` names (or ours): its
    entries win. A relative path is read from the rules file's folder."""


class _SearchTable(RulesModel):
    """A rules file read for its `[search]` alone: the other tables are left to the commands
    that read them. The table sits under its name, as in `Rules`, so that an error names the
    same key (`search.spelling.0.at`) as a full load does."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    search: SearchRules = Field(default_factory=SearchRules)


def load_search_rules(path: Path | str = DEFAULT_RULES_PATH) -> SearchRules:
    """The rules file's `[search]`, validated as `load_rules` validates it; a `RulesError` naming
    the file and key where it is wrong. Other tables are not read, so an error in one of them
    does not stop a search."""
    return load_tables(Path(path), _SearchTable).search
