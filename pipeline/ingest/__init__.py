"""The run around the five stages: scan the folder (`scan`), plan what changed (`plan`), run
the stages on each changed file (`process`, the one function that chains them) in pool workers
(`workers`, `pool`, `task`) or Ray tasks (`cluster`), write the rows and publish the new database
atomically (`publish`, `run`), and record what the run changed (`changes`) and did (`summary`).

`ingest_folder`, `IngestOptions` and `RunSummary` are `pipeline.ingest.run`'s, loaded on first
use: a pool worker imports `pipeline.ingest.task`, and with it this package, and must not pay for
DuckDB, which only the run's writer uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pipeline.ingest.run import IngestOptions, RunSummary, ingest_folder

__all__ = ["IngestOptions", "RunSummary", "ingest_folder"]


def __getattr__(name: str):
    if name in __all__:
        from pipeline.ingest import run

        return getattr(run, name)
    raise AttributeError(f"module 'pipeline.ingest' has no attribute {name!r}")
