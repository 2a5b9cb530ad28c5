"""Digest every table of a database, so that a refactoring can show its output is unchanged.

    python scripts/table_digests.py out/shared.duckdb > before.txt

Each table's rows are read in a fixed order (all columns, sorted) and hashed; columns that record
when or how long a run took (timestamps, seconds, run ids' times) are left out, since two runs of
the same code differ there. Two databases built from the same papers by the same logic print the
same lines.
"""

from __future__ import annotations

import hashlib
import sys

from pathlib import Path

from pipeline.index.database import open_readonly

# Columns whose values change from run to run whatever the code does.
RUN_TIME_COLUMNS = {"started_at", "finished_at", "ingested_at", "seconds", "elapsed_seconds", "run_id",
                    "created_at", "duration_seconds", "extract_seconds", "wall_seconds"}


def table_digests(database: str) -> dict[str, str]:
    connection = open_readonly(Path(database))
    digests = {}
    # The tables as readers see them: `main` (each table of papers' rows a view over the library's
    # base and the catalog's own rows, pipeline.index.layout).
    for (table,) in connection.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_catalog = current_database() AND table_schema = 'main' ORDER BY 1"
    ).fetchall():
        columns = [
            name for (name, kind) in connection.execute(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_catalog = current_database() "
                "AND table_schema = 'main' AND table_name = ? ORDER BY ordinal_position",
                [table]).fetchall()
            if name not in RUN_TIME_COLUMNS and "TIMESTAMP" not in kind
        ]
        quoted = ", ".join(f'"{name}"' for name in columns)
        rows = connection.execute(f'SELECT {quoted} FROM "{table}" ORDER BY ALL').fetchall()
        digest = hashlib.sha256(repr(rows).encode()).hexdigest()[:16]
        digests[table] = f"{len(rows)} rows {digest} ({', '.join(columns)})"
    return digests


if __name__ == "__main__":
    for table, line in table_digests(sys.argv[1]).items():
        print(table, line)
