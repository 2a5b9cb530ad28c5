"""Where an ingest's pool workers come from: a fork server that has imported the stages.

Workers are forked from that server, not from the ingest's own process: the writer holds an open
DuckDB connection (and its threads) while the pool replaces a worker stopped for its time limit.

This module imports nothing of the pipeline, so that the command line can start the server
before it imports anything itself: the server's import of the stages (about 0.45 s) then runs
beside the command line's own instead of after it.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import multiprocessing.forkserver
import sys
from collections.abc import Collection

# Imported once by the server, so each worker starts with the stages and the pool's worker loop
# loaded. Not `pipeline.ingest`, which imports DuckDB (about 0.1 s) that no worker uses.
_PRELOADED_MODULES = ["pipeline.stages", "pebble"]


def preloaded_modules(loaded: Collection[str]) -> list[str]:
    """What the server imports for a caller that has `loaded` these modules."""
    if "duckdb" in loaded:
        # A caller that has DuckDB loaded is a script that imported the pipeline at its top, and
        # multiprocessing runs a script's main module again in every worker before its first
        # task: loaded by the server once, DuckDB is not imported by each worker on its own
        # (0.1 s and 26 MiB a worker). The command line starts the server before it imports any.
        return [*_PRELOADED_MODULES, "duckdb"]
    return list(_PRELOADED_MODULES)


def start_fork_server() -> multiprocessing.context.ForkServerContext:
    """Start the server now (if it is not running), so it is importing while the caller works on."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(preloaded_modules(sys.modules))
    multiprocessing.forkserver.ensure_running()
    return context
