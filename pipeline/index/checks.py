"""The ingests that found nothing to change, logged beside the database.

Such a run publishes nothing: the database stays byte for byte as it was, so its `runs` table
cannot say the run happened. Each one appends a JSON line to `papers.duckdb.checks.jsonl`
(`checks_file`): when it ran, over which folder, what it saw, and the last run of the database,
whose state it found current. `pipeline report` shows the last one; `pipeline export --since`
is unaffected, as nothing changed after that run.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from pipeline.index.database import checks_file


@dataclass(frozen=True)
class Check:
    """One ingest that found every paper as stored."""

    checked_at: datetime
    """When it started, UTC, as `runs.started_at`."""
    folder: str
    """Absolute, as `runs.folder`."""
    seen: int
    """Files found in the folder."""
    hashed: int
    """Of those, files whose bytes were read to compare them: new stats, or `--rehash`."""
    still_failing: int
    """Unchanged files whose stored status is a failure."""
    duration_seconds: float
    run_id: int
    """The last run recorded in the database: the state found current."""
    pipeline_version: str
    rules_sha256: str


def log_check(db: Path, check: Check) -> None:
    """Append `check` to the log beside `db`, a line in one write."""
    line = json.dumps({**asdict(check), "checked_at": check.checked_at.isoformat()}, ensure_ascii=False) + "\n"
    with open(checks_file(db), "a", encoding="utf-8") as log:
        log.write(line)


def last_check(db: Path) -> Check | None:
    """The last check logged beside `db`; None where none is (a line cut short by a crash is skipped)."""
    try:
        lines = checks_file(db).read_text(encoding="utf-8").splitlines()
    except (FileNotFoundError, NotADirectoryError):
        return None
    for line in reversed(lines):
        try:
            fields = json.loads(line)
            return Check(**{**fields, "checked_at": datetime.fromisoformat(fields["checked_at"])})
        except (ValueError, TypeError, KeyError):
            continue
    return None
