"""Where an ingest's pool workers come from: a fork server that has imported the stages.

Workers are forked from that server, not from the ingest's own process: the writer holds an open
DuckDB connection (and its threads) while the pool replaces a worker stopped for its time limit.

Each worker dies with the ingest that asked for it, killed with SIGKILL or not
(`die_with_the_ingest`), and so the server does too.

This module imports nothing of the pipeline, so that the command line can start the server
before it imports anything itself: the server's import of the stages then runs beside the
command line's own instead of after it.
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import multiprocessing
import multiprocessing.context
import multiprocessing.forkserver
import multiprocessing.process
import os
import signal
import sys
from collections.abc import Collection
from types import ModuleType

# Imported once by the server, so each worker starts with the stages and the pool's worker loop
# loaded. Not `pipeline.ingest.run`, which imports DuckDB that no worker uses.
_STAGES = "pipeline.ingest.task"
_PRELOADED_MODULES = [_STAGES, "pebble"]


# A worker makes hundreds of thousands of small objects a paper (records, matches, tuples) that
# reference counting frees as it goes. Collected every 700 new objects (Python's default), the
# young generation turned up almost nothing, thousands of times a run, and each full collection
# also walked every object of the modules the worker was forked with.
_NEW_OBJECTS_PER_COLLECTION = 10_000


_PR_SET_PDEATHSIG = 1
"""prctl(2)'s option that names the signal a process gets when its parent exits (linux/prctl.h)."""


def prepare_worker(rules: object = None) -> None:
    """Run by each worker before its first file: a pool worker is made to die with its ingest
    (`die_with_the_ingest`); the run's `rules` (a `Rules`), sent once a worker, make the worker's
    context for every file it runs (`task.start_worker`); the objects it was forked with (the
    modules of the stages and the pool) and the rules are left out of the cyclic garbage
    collector's walks for good (`gc.freeze`), and its young objects are collected every
    `_NEW_OBJECTS_PER_COLLECTION`."""
    die_with_the_ingest()
    if rules is not None:
        importlib.import_module(_STAGES).start_worker(rules)
    gc.freeze()
    gc.set_threshold(_NEW_OBJECTS_PER_COLLECTION, *gc.get_threshold()[1:])


def die_with_the_ingest() -> None:
    """Have this pool worker die as soon as the ingest that asked for it does, however it died.

    A worker's parent is the fork server, not the ingest, and the server runs until every
    holder of its "alive" pipe's write end is gone: the ingest, and each worker, which is handed
    a copy. Killed with SIGKILL, the ingest left a worker busy on a long paper running to the
    paper's end, and the server and multiprocessing's resource tracker with it; the tracker then
    wrote its leaked-semaphore warning wherever the killed run's errors went, by then another
    run's. So the worker closes its copy (it starts no process of its own): the server exits
    with the ingest, and Linux then kills the worker, whatever it is running
    (`PR_SET_PDEATHSIG`); the tracker, left without writers, exits too. An ingest gone before
    the signal was asked for is found here. A process multiprocessing did not start (a Ray
    worker, a test) is left as it is; elsewhere than Linux, a worker still runs on to the end
    of its paper.
    """
    ingest = multiprocessing.parent_process()
    if ingest is None:
        return
    if sys.platform.startswith("linux"):
        # A refusal (a sandbox's seccomp) leaves the worker as it was, without the guarantee.
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    server = multiprocessing.forkserver._forkserver
    if server._forkserver_alive_fd is not None:
        os.close(server._forkserver_alive_fd)
        server._forkserver_alive_fd = None
    if not ingest.is_alive():
        os._exit(1)


def prepare_ray_worker() -> None:
    """A Ray worker's `worker_process_setup_hook` (run once, as the worker process starts): the
    stages imported, so that they are among the objects frozen, then `prepare_worker`."""
    importlib.import_module(_STAGES)
    prepare_worker()


def preloaded_modules(loaded: Collection[str]) -> list[str]:
    """What the server imports for a caller that has `loaded` these modules."""
    if "duckdb" in loaded:
        # A caller that has DuckDB loaded is a script that imported the pipeline at its top, and
        # multiprocessing runs a script's main module again in every worker before its first
        # task: loaded by the server once, DuckDB is not imported by each worker on its own
        # (0.1 s and 26 MiB a worker). The command line starts the server before it imports any.
        return [*_PRELOADED_MODULES, "duckdb"]
    return list(_PRELOADED_MODULES)


def unrunnable_main_script(main_module: ModuleType) -> str | None:
    """The script a worker would fail to run again before its first task, if the caller's main
    module is one: multiprocessing runs the file its `__file__` names, and a script read from
    standard input (`python - <<EOF`) names `<stdin>`, which is no file. None for a script file,
    `python -m`, `python -c` and the command line."""
    if getattr(main_module.__spec__, "name", None) is not None:
        return None  # run by module name
    path = getattr(main_module, "__file__", None)
    if path is None:
        return None
    # Where multiprocessing looks for it: a relative path from the folder the caller started in.
    started_in = multiprocessing.process.ORIGINAL_DIR
    resolved = os.path.join(started_in, path) if started_in is not None and not os.path.isabs(path) else path
    return None if os.path.exists(resolved) else path


def start_fork_server() -> multiprocessing.context.ForkServerContext:
    """Start the server now (if it is not running), so it is importing while the caller works on."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(preloaded_modules(sys.modules))
    multiprocessing.forkserver.ensure_running()
    return context
