"""Measure what running past one machine costs and gives: the local process pool against
`--engine ray` on a local Ray, with 1 and 2 workers, side by side in one run, and the run's single
writer merging Parquet shards as the chunk count grows.

    .venv/bin/python bench/scaling.py [--corpus ../shared/corpus] [--repeat 2] [--copies 1 8 32]

prints the tables and writes out/scaling.json. It measures, on the shared corpus's PDFs
(pdf/*.pdf) and Markdown (markdown/**/*.md, jats_md/**/*.md), laid out as bench/run.py lays them:

- **throughput**: `ingest_folder` into a fresh database, local pool and Ray, 1 and 2 workers, in
  rounds (one run of each, then the next round), each variant in its own process. Each process
  ingests twice into fresh databases: the first run pays for starting the workers (the fork server,
  Ray's worker processes and their imports), the second is the steady state a long run sees. Ray is
  started in the process before the clock (`ray.init(num_cpus=N)`), and its start is reported apart.
- **dispatch**: the time per task of no-op tasks, Ray's remote tasks against the pebble pool the
  local engine uses, in one process; and Ray's extra wall time over the local pool per Ray task.
- **merge**: the whole corpus exported once as shards (`export_shards`), then replicated under new
  ids to `--copies` times its size (synthetic: the same text again, every id suffixed), and each
  size merged as an ingest does: shards loaded into a fresh DuckDB file, postings put in term order,
  checkpoint, atomic publish. Per size: seconds of each step, the file's bytes per chunk and per
  paper, the time to copy the file (which every incremental ingest pays first), and search latency.
  Seconds per million chunks are the least-squares slope over the sizes.

Every ingest is timed in wall seconds and in CPU seconds of the whole process tree (`tree_cpu_seconds`:
driver, workers, Ray's daemons). The machine has 2 cores shared with other jobs: read the ratios
measured in the same run, not the seconds, and the CPU seconds, which the load hardly moves, for
sizing. Imports of the pipeline happen in the child processes, before their clocks start.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpus import QUERIES, find_corpus, lay_out

PROJECT = Path(__file__).resolve().parent.parent
VARIANTS = [("local", 1), ("local", 2), ("ray", 1), ("ray", 2)]
NO_OP_TASKS = 400
# How a copy's ids differ from the real shards' (`n` is the copy's number): a doc_id gets `~n`, and
# so does the doc_id inside every `{doc_id}:{suffix}` key, so joins between tables still hold.
_KEYED_COLUMNS = {"chunk_id", "target_chunk_id", "paragraph_key"}


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _ray_init(cpus: int) -> float:
    import ray

    started = time.perf_counter()
    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False, logging_level="WARNING")
    return time.perf_counter() - started


def tree_cpu_seconds() -> float:
    """CPU seconds (user and system) this process and every process below it have used so far,
    those they have waited for included. A shared machine's load stretches wall seconds, hardly
    CPU seconds: a worker's CPU per page is what sizes a cluster. Read from /proc: each live
    process's own time plus that of its children it has reaped, so a worker that exits between
    two readings is counted once, in its parent."""
    ticks = os.sysconf("SC_CLK_TCK")
    parents, times = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # it exited meanwhile
            continue
        # After the command's closing parenthesis: state, ppid, …, utime (14th field of stat), stime, cutime, cstime.
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = sum(int(value) for value in fields[11:15])
    below, frontier = {os.getpid()}, [os.getpid()]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in below]
        below.update(children)
        frontier.extend(children)
    return sum(times.get(pid, 0) for pid in below) / ticks


# ---------------------------------------------------------------- the child processes


def measure_ingest(params: dict) -> dict:
    """Two ingests of `folder` into fresh databases, with one engine and worker count."""
    from pipeline.ingest.run import Engine, IngestOptions, ingest_folder
    from pipeline.rules import load_rules

    rules = load_rules()
    engine = Engine(params["engine"])
    options = IngestOptions(workers=params["workers"], engine=engine, files_per_task=params["files_per_task"])
    result: dict = {"ray_start_seconds": _ray_init(params["workers"]) if engine is Engine.ray else None}
    for run in ("first", "again"):
        db = Path(params["work"]) / f"{run}.duckdb"
        cpu, started = tree_cpu_seconds(), time.perf_counter()
        summary = ingest_folder(Path(params["folder"]), db, rules, options)
        seconds = time.perf_counter() - started
        result[run] = {
            "seconds": seconds, "cpu_seconds": tree_cpu_seconds() - cpu, "files": summary.seen, "pages": summary.pages,
            "chunks": summary.chunks, "failed": len(summary.failed),
        }
    if engine is Engine.ray:
        import ray

        ray.shutdown()
    return result


def _no_op() -> None:
    return None


def measure_dispatch(params: dict) -> dict:
    """Seconds per no-op task: pebble's pool (as the local engine runs it) and Ray's remote tasks,
    `workers` of each, warmed first; all handed on at once, then one at a time (a round trip)."""
    import pebble
    import ray

    from pipeline.ingest.workers import start_fork_server

    tasks, workers = params["tasks"], params["workers"]
    result = {}
    with pebble.ProcessPool(max_workers=workers, context=start_fork_server()) as pool:
        for future in [pool.schedule(_no_op) for _ in range(4 * workers)]:
            future.result()
        started = time.perf_counter()
        for future in [pool.schedule(_no_op) for _ in range(tasks)]:
            future.result()
        result["local_batch_ms"] = (time.perf_counter() - started) * 1000 / tasks
        started = time.perf_counter()
        for _ in range(tasks // 4):
            pool.schedule(_no_op).result()
        result["local_round_trip_ms"] = (time.perf_counter() - started) * 1000 / (tasks // 4)
    _ray_init(workers)
    remote = ray.remote(num_cpus=1)(_no_op)
    ray.get([remote.remote() for _ in range(4 * workers)])
    started = time.perf_counter()
    ray.get([remote.remote() for _ in range(tasks)])
    result["ray_batch_ms"] = (time.perf_counter() - started) * 1000 / tasks
    started = time.perf_counter()
    for _ in range(tasks // 4):
        ray.get(remote.remote())
    result["ray_round_trip_ms"] = (time.perf_counter() - started) * 1000 / (tasks // 4)
    ray.shutdown()
    return result


def _replicate(real: Path, synthetic: Path, copies: int) -> list[str]:
    """Write copies 1 … copies-1 of every real shard, under new ids, as one shard a table in
    `synthetic`; return the shard keys to load from `synthetic` (the real ones are linked in)."""
    import duckdb

    from pipeline.index.schema import TABLES_BY_DOCUMENT
    from pipeline.ingest.shards import SHARD_SUFFIX, shard_columns

    keys = sorted(path.name.removesuffix(SHARD_SUFFIX) for path in (real / "documents").glob(f"*{SHARD_SUFFIX}"))
    for table in TABLES_BY_DOCUMENT:
        (synthetic / table).mkdir(parents=True, exist_ok=True)
        for path in (real / table).glob(f"*{SHARD_SUFFIX}"):
            os.link(path, synthetic / table / path.name)
    if copies == 1:
        return keys
    with duckdb.connect() as connection:
        for table in TABLES_BY_DOCUMENT:
            files = sorted(str(path) for path in (real / table).glob(f"*{SHARD_SUFFIX}"))
            if not files:
                continue
            selected = []
            for column in shard_columns(table):
                if column == "doc_id":
                    selected.append("doc_id || '~' || n AS doc_id")
                elif column == "path":
                    selected.append("'copy-' || n || '/' || path AS path")
                elif column in _KEYED_COLUMNS:
                    selected.append(f"regexp_replace({column}, ':([^:]*)$', '~' || n || ':\\1') AS {column}")
                else:
                    selected.append(column)
            target = str(synthetic / table / f"synthetic{SHARD_SUFFIX}").replace("'", "''")
            connection.execute(
                f"COPY (SELECT {', '.join(selected)} FROM read_parquet(?), range(1, {int(copies)}) copies(n)) "
                f"TO '{target}' (FORMAT parquet, COMPRESSION zstd)",
                [files],
            )
    return [*keys, "synthetic"]


def _search_latency(db: Path, passes: int) -> dict:
    from pipeline.index.database import open_readonly
    from pipeline.index.search import search

    connection = open_readonly(db)
    try:
        started = time.perf_counter()
        search(connection, QUERIES[0])
        first_ms = (time.perf_counter() - started) * 1000
        latencies = []
        for _ in range(passes):
            for query in QUERIES:
                started = time.perf_counter()
                search(connection, query)
                latencies.append((time.perf_counter() - started) * 1000)
    finally:
        connection.close()
    return {
        "first_query_ms": first_ms, "p50_ms": statistics.median(latencies),
        "p95_ms": statistics.quantiles(latencies, n=100, method="inclusive")[94], "max_ms": max(latencies),
    }


def _table_megabytes(connection) -> dict[str, float]:
    """Each table's share of the file: the distinct blocks its columns sit in, times the block size.
    A lower bound: DuckDB keeps a string longer than a block's inline limit in overflow blocks that
    `pragma_storage_info` does not list."""
    from pipeline.index.layout import ROWS_SCHEMA  # papers' rows, before any base is made of them
    from pipeline.index.schema import TABLES_BY_DOCUMENT

    block_size = connection.execute("SELECT block_size FROM pragma_database_size()").fetchone()[0]
    shares = {}
    for table in TABLES_BY_DOCUMENT:
        blocks = connection.execute(
            f"SELECT count(DISTINCT block_id) FROM pragma_storage_info('{ROWS_SCHEMA}.{table}') WHERE persistent AND block_id >= 0"
        ).fetchone()[0]
        shares[table] = blocks * block_size / 1e6
    return shares


def measure_merge(params: dict) -> dict:
    """Export the corpus as shards on a local Ray, then merge each synthetic size as an ingest does."""
    from pipeline.index.database import ensure_schema, open_for_writing
    from pipeline.index.writer import order_search_index
    from pipeline.ingest.export import export_shards
    from pipeline.ingest.publish import Publication
    from pipeline.ingest.run import Engine, IngestOptions
    from pipeline.ingest.shards import load_shards
    from pipeline.rules import load_rules

    work = Path(params["work"])
    real = work / "shards"
    _ray_init(params["workers"])
    started = time.perf_counter()
    exported = export_shards(Path(params["folder"]), real, load_rules(), IngestOptions(workers=params["workers"], engine=Engine.ray))
    result: dict = {"export_seconds": time.perf_counter() - started, "export_files": exported.seen, "sizes": []}
    import ray

    ray.shutdown()
    result["shard_files"] = sum(1 for _ in real.glob("*/*.parquet"))
    result["shard_tables"] = sum(1 for folder in real.iterdir() if any(folder.glob("*.parquet")))
    result["shard_bytes"] = sum(path.stat().st_size for path in real.glob("*/*.parquet"))
    for copies in params["copies"]:
        synthetic = work / f"synthetic-{copies}"
        keys = _replicate(real, synthetic, copies)
        db = work / f"merged-{copies}.duckdb"
        _progress(f"  merging {copies}× the corpus's shards")
        size: dict = {"copies": copies}
        cpu, clock = tree_cpu_seconds(), time.perf_counter()
        with Publication(db) as publication:
            connection = open_for_writing(publication.building, db)
            ensure_schema(connection)
            started = time.perf_counter()
            size["postings"] = load_shards(connection, synthetic, keys)
            size["load_seconds"] = time.perf_counter() - started
            started = time.perf_counter()
            order_search_index(connection, unsorted_limit=0)
            size["order_seconds"] = time.perf_counter() - started
            started = time.perf_counter()
            connection.execute("CHECKPOINT")
            size["checkpoint_seconds"] = time.perf_counter() - started
            size["papers"], size["ingested"], size["pages"] = connection.execute(
                "SELECT count(*), count(*) FILTER (status = 'ingested'), coalesce(sum(page_count), 0) FROM documents"
            ).fetchone()
            size["chunks"] = connection.execute("SELECT count(*) FROM chunks").fetchone()[0]
            size["chunk_postings"] = connection.execute("SELECT count(*) FROM chunk_postings").fetchone()[0]
            size["table_mb"] = _table_megabytes(connection)
            connection.close()
            started = time.perf_counter()
            publication.publish()
            size["publish_seconds"] = time.perf_counter() - started
        size["merge_seconds"] = time.perf_counter() - clock
        size["merge_cpu_seconds"] = tree_cpu_seconds() - cpu
        # The catalog and its base (pipeline.index.layout), which publishing made of a large merge.
        size["db_bytes"] = sum(path.stat().st_size for path in [db, *db.parent.glob(f"{db.name}.base-*")])
        size["bytes_per_chunk"] = size["db_bytes"] / size["chunks"]
        size["bytes_per_paper"] = size["db_bytes"] / size["papers"]
        started = time.perf_counter()
        shutil.copyfile(db, work / "copied.duckdb")
        size["copy_seconds"] = time.perf_counter() - started
        (work / "copied.duckdb").unlink()
        size["search"] = _search_latency(db, params["passes"])
        result["sizes"].append(size)
        _progress(
            f"  {size['chunks']:,} chunks: merge {size['merge_seconds']:.1f} s, {size['db_bytes'] / 1e6:,.0f} MB, "
            f"search p95 {size['search']['p95_ms']:.0f} ms"
        )
        db.unlink()
        shutil.rmtree(synthetic)
    return result


MEASURES = {function.__name__: function for function in (measure_ingest, measure_dispatch, measure_merge)}


def run_child(measure: str, params: dict, workdir: Path) -> dict:
    """Run one measurement in a fresh process and return what it found."""
    folder = Path(tempfile.mkdtemp(prefix=f"{measure}-", dir=workdir))
    (folder / "params.json").write_text(json.dumps({**params, "work": str(folder)}))
    completed = subprocess.run(
        [sys.executable, __file__, "--_measure", measure, "--_params", str(folder / "params.json")],
        capture_output=True, text=True, cwd=PROJECT,
    )
    if completed.returncode != 0:
        raise SystemExit(f"{measure} {params.get('engine', '')} failed with exit code {completed.returncode}:\n{completed.stderr.strip()[-3000:]}")
    result = json.loads((folder / "result.json").read_text())
    shutil.rmtree(folder, ignore_errors=True)
    return result


# ---------------------------------------------------------------- the run and its figures


def _tasks(folder: Path, files_per_task: int) -> int:
    """How many Ray tasks a fresh ingest of `folder` hands on (`cluster.group_files`)."""
    from pipeline.ingest.cluster import group_files
    from pipeline.ingest.plan import Change, PlannedFile
    from pipeline.ingest.scan import scan_folder

    files = [PlannedFile(item, Change.added, False) for item in scan_folder(folder).files if item.read_error is None]
    return len(group_files(files, files_per_task))


def measure_throughput(folders: dict[str, Path], args: argparse.Namespace, workdir: Path) -> dict:
    runs: dict[str, dict[str, list[dict]]] = {kind: {f"{engine} {workers}": [] for engine, workers in VARIANTS} for kind in folders}
    for round_number in range(args.repeat):
        for kind, folder in folders.items():
            for engine, workers in VARIANTS:
                params = {"folder": str(folder), "engine": engine, "workers": workers, "files_per_task": args.files_per_task}
                result = run_child("measure_ingest", params, workdir)
                runs[kind][f"{engine} {workers}"].append(result)
                _progress(
                    f"  {kind}, {engine}, {workers} worker(s), round {round_number + 1}/{args.repeat}: "
                    f"{result['first']['seconds']:.2f} s first, {result['again']['seconds']:.2f} s again"
                )
    report = {}
    for kind, by_variant in runs.items():
        tasks = _tasks(folders[kind], args.files_per_task)
        rows = {}
        for label, results in by_variant.items():
            again = statistics.median(result["again"]["seconds"] for result in results)
            cpu = statistics.median(result["again"]["cpu_seconds"] for result in results)
            first = statistics.median(result["first"]["seconds"] for result in results)
            counted = results[0]["again"]
            starts = [result["ray_start_seconds"] for result in results if result["ray_start_seconds"] is not None]
            rows[label] = {
                "seconds": again, "seconds_min": min(r["again"]["seconds"] for r in results),
                "seconds_max": max(r["again"]["seconds"] for r in results), "first_seconds": first,
                "files": counted["files"], "pages": counted["pages"], "chunks": counted["chunks"], "failed": counted["failed"],
                "files_per_s": counted["files"] / again, "pages_per_s": counted["pages"] / again,
                "cpu_seconds": cpu, "cpu_seconds_min": min(r["again"]["cpu_seconds"] for r in results),
                "cpu_seconds_max": max(r["again"]["cpu_seconds"] for r in results),
                "pages_per_cpu_second": counted["pages"] / cpu, "files_per_cpu_second": counted["files"] / cpu,
                "ray_start_seconds": statistics.median(starts) if starts else None,
            }
        for workers in (1, 2):
            local, ray = rows[f"local {workers}"], rows[f"ray {workers}"]
            ray["vs_local"] = local["seconds"] / ray["seconds"]
            ray["extra_ms_per_task"] = (ray["seconds"] - local["seconds"]) * 1000 / tasks
            ray["extra_first_ms_per_task"] = (ray["first_seconds"] - local["first_seconds"]) * 1000 / tasks
            ray["cpu_vs_local"] = ray["cpu_seconds"] / local["cpu_seconds"]
            ray["extra_cpu_ms_per_task"] = (ray["cpu_seconds"] - local["cpu_seconds"]) * 1000 / tasks
        for engine in ("local", "ray"):
            rows[f"{engine} 2"]["speedup"] = rows[f"{engine} 1"]["seconds"] / rows[f"{engine} 2"]["seconds"]
        report[kind] = {"tasks": tasks, "rows": rows}
    return report


def sizing(report: dict, args: argparse.Namespace) -> list[dict]:
    """Cores for a full pass over 1M and 10M papers in the window, from the measured Ray PDF rate
    per core, the assumed pages per paper, and the merge's seconds per million chunks."""
    pdf = report["throughput"]["pdf"]["rows"]["ray 2"]
    # All the CPU the run took (workers, Ray's daemons, the driver's merge) per page: a core
    # busy all the window gives this many pages a second.
    pages_per_core = pdf["pages_per_cpu_second"]
    chunks_per_page = pdf["chunks"] / pdf["pages"]
    sizes = report["merge"]["sizes"]
    bytes_per_chunk = sizes[-1]["bytes_per_chunk"]
    merge_per_million = report["merge"]["merge_seconds_per_million_chunks"]
    rows = []
    window = args.window_hours * 3600
    for papers in (1_000_000, 10_000_000):
        pages = papers * args.pages_per_paper
        chunks = pages * chunks_per_page
        tasks = papers / args.cluster_files_per_task
        merge_hours = merge_per_million * chunks / 1e6 / 3600
        rows.append({
            "papers": papers, "pages": pages, "chunks": chunks,
            "core_hours": pages / pages_per_core / 3600,
            "cores_for_window": pages / pages_per_core / window,
            "cores_for_window_after_merge": pages / pages_per_core / max(window - merge_hours * 3600, 1),
            "merge_hours": merge_hours, "tasks": tasks, "shard_files": tasks * report["merge"]["shard_tables"],
            "db_gb": chunks * bytes_per_chunk / 1e9,
            "copy_minutes": chunks * bytes_per_chunk / (args.copy_mb_per_s * 1e6) / 60,
        })
    return rows


def _slope(sizes: list[dict], key: str) -> float:
    """`key` per million chunks: the least-squares slope over every size measured."""
    xs, ys = [size["chunks"] for size in sizes], [size[key] for size in sizes]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sum((x - mean_x) ** 2 for x in xs) * 1e6


def run(args: argparse.Namespace) -> dict:
    corpus = find_corpus(args.corpus.resolve())
    report: dict = {
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "load_average_at_start": [round(value, 2) for value in os.getloadavg()],
        "settings": {key: value for key, value in vars(args).items() if not key.startswith("_") and key != "out"} | {"corpus": str(args.corpus)},
        "corpus": {"pdfs": len(corpus.pdfs), "pages": corpus.pages, "markdown_files": len(corpus.markdown)},
    }
    with tempfile.TemporaryDirectory(prefix="paper-scaling-") as temporary:
        workdir = Path(temporary)
        one = lay_out(corpus, workdir / "corpus", 1) / "copy-00"
        folders = {"pdf": one / "pdf", "markdown": one / "md"}
        _progress("throughput: local pool and Ray, 1 and 2 workers, in rounds")
        report["throughput"] = measure_throughput(folders, args, workdir)
        _progress("dispatch: no-op tasks")
        report["dispatch"] = run_child("measure_dispatch", {"tasks": NO_OP_TASKS, "workers": 2}, workdir) | {"tasks": NO_OP_TASKS, "workers": 2}
        _progress("merge: the corpus's shards, and synthetic copies of them")
        merge = run_child("measure_merge", {"folder": str(one), "workers": 2, "copies": args.copies, "passes": args.repeat}, workdir)
    for size in merge["sizes"]:
        size["copy_bytes_per_s"] = size["db_bytes"] / size["copy_seconds"]
        size["p95_ms"] = size["search"]["p95_ms"]
    if len(merge["sizes"]) >= 2:
        merge["merge_seconds_per_million_chunks"] = _slope(merge["sizes"], "merge_seconds")
        merge["load_seconds_per_million_chunks"] = _slope(merge["sizes"], "load_seconds")
        merge["order_seconds_per_million_chunks"] = _slope(merge["sizes"], "order_seconds")
        merge["merge_cpu_seconds_per_million_chunks"] = _slope(merge["sizes"], "merge_cpu_seconds")
        merge["p95_ms_per_million_chunks"] = _slope(merge["sizes"], "p95_ms")
    else:  # one size: proportional
        only = merge["sizes"][0]
        merge["merge_seconds_per_million_chunks"] = only["merge_seconds"] / only["chunks"] * 1e6
    report["merge"] = merge
    report["sizing"] = sizing(report, args)
    return report


def print_tables(report: dict) -> None:
    print(f"\nRun of {report['date']}, load average at start {report['load_average_at_start']}; "
          f"files per Ray task {report['settings']['files_per_task']}; medians of {report['settings']['repeat']} rounds (second ingest of each process)\n")
    print("| kind | engine, workers | wall s (min–max) | first run s | pages/s | files/s | wall × local | 2 vs 1 | CPU s (min–max) | pages/CPU-s | files/CPU-s | CPU × local | Ray extra CPU ms/task |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for kind, measured in report["throughput"].items():
        for label, row in measured["rows"].items():
            pages = f"{row['pages_per_s']:.1f}" if row["pages"] else "—"
            pages_cpu = f"{row['pages_per_cpu_second']:.1f}" if row["pages"] else "—"
            speedup = f"{row['speedup']:.2f}×" if "speedup" in row else "—"
            extra = f"{row['extra_cpu_ms_per_task']:.0f}" if "extra_cpu_ms_per_task" in row else "—"
            print(
                f"| {kind} ({measured['tasks']} tasks) | {label} | {row['seconds']:.2f} ({row['seconds_min']:.2f}–{row['seconds_max']:.2f}) | "
                f"{row['first_seconds']:.2f} | {pages} | {row['files_per_s']:.1f} | {row.get('vs_local', 1):.2f} | {speedup} | "
                f"{row['cpu_seconds']:.2f} ({row['cpu_seconds_min']:.2f}–{row['cpu_seconds_max']:.2f}) | {pages_cpu} | "
                f"{row['files_per_cpu_second']:.1f} | {row.get('cpu_vs_local', 1):.2f} | {extra} |"
            )
    dispatch = report["dispatch"]
    print(f"\nNo-op task, {dispatch['workers']} workers, {dispatch['tasks']} at once / one at a time: "
          f"local pool {dispatch['local_batch_ms']:.2f} / {dispatch['local_round_trip_ms']:.2f} ms, "
          f"Ray {dispatch['ray_batch_ms']:.2f} / {dispatch['ray_round_trip_ms']:.2f} ms")
    merge = report["merge"]
    print(f"\nShards of the corpus: {merge['shard_files']} files in {merge['shard_tables']} tables, {merge['shard_bytes'] / 1e6:.1f} MB "
          f"(export on Ray, 2 CPUs: {merge['export_seconds']:.1f} s)\n")
    print("| copies | papers | chunks | postings | load s | term order s | checkpoint s | publish s | merge s (CPU s) | MB | bytes/chunk | bytes/paper | copy s | search p50 / p95 ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for size in merge["sizes"]:
        print(
            f"| {size['copies']} | {size['papers']:,} | {size['chunks']:,} | {size['postings']:,} | {size['load_seconds']:.2f} | "
            f"{size['order_seconds']:.2f} | {size['checkpoint_seconds']:.2f} | {size['publish_seconds']:.2f} | {size['merge_seconds']:.2f} ({size['merge_cpu_seconds']:.1f}) | "
            f"{size['db_bytes'] / 1e6:,.0f} | {size['bytes_per_chunk']:,.0f} | {size['bytes_per_paper']:,.0f} | {size['copy_seconds']:.2f} | "
            f"{size['search']['p50_ms']:.0f} / {size['search']['p95_ms']:.0f} |"
        )
    largest = merge["sizes"][-1]
    shares = ", ".join(f"{table} {megabytes / largest['db_bytes'] * 1e6:.0%}" for table, megabytes in
                       sorted(largest["table_mb"].items(), key=lambda item: -item[1]) if megabytes)
    print(f"\nWhere the {largest['db_bytes'] / 1e6:,.0f} MB of the largest file go: {shares} (blocks pragma_storage_info lists; the rest, mostly the overflow blocks of long strings (documents.text, extractions, chunks.text) and the chunk id index, it does not list)")
    print(f"\nMerge: {merge['merge_seconds_per_million_chunks']:.0f} wall s ({merge.get('merge_cpu_seconds_per_million_chunks', 0):.0f} CPU s) per million chunks, "
          f"of which loading {merge.get('load_seconds_per_million_chunks', 0):.0f} s and term order {merge.get('order_seconds_per_million_chunks', 0):.0f} s (least-squares slopes over the sizes)"
          + (f"; search p95 +{merge['p95_ms_per_million_chunks']:.0f} ms per million chunks" if "p95_ms_per_million_chunks" in merge else ""))
    print(f"\nSizing: {report['settings']['pages_per_paper']:g} pages a paper (assumed), a {report['settings']['window_hours']:g} h window, "
          f"{report['settings']['cluster_files_per_task']} files a task, the copy at {report['settings']['copy_mb_per_s']:g} MB/s (assumed)")
    print("| papers | pages | chunks | core-hours | cores for the window | merge h (one writer) | Ray tasks | shard files | DuckDB GB | copy min |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in report["sizing"]:
        print(
            f"| {row['papers']:,} | {row['pages']:,.0f} | {row['chunks']:,.0f} | {row['core_hours']:,.0f} | {row['cores_for_window']:,.0f} | "
            f"{row['merge_hours']:.1f} | {row['tasks']:,.0f} | {row['shard_files']:,.0f} | {row['db_gb']:,.0f} | {row['copy_minutes']:.0f} |"
        )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=PROJECT.parent / "shared" / "corpus", help="the shared corpus folder")
    parser.add_argument("--repeat", type=int, default=2, help="rounds of the throughput runs (medians reported), and search passes")
    parser.add_argument(
        "--files-per-task", type=int, default=4,
        help="files a Ray task gets in the throughput runs: small, so a corpus of 22 PDFs still makes several tasks a worker",
    )
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 8, 32], help="sizes to merge, in copies of the corpus's shards")
    parser.add_argument("--pages-per-paper", type=float, default=12.0, help="assumed PDF pages per paper for the sizing table")
    parser.add_argument("--window-hours", type=float, default=8.0, help="the nightly window the sizing table fills")
    parser.add_argument("--cluster-files-per-task", type=int, default=16, help="files per Ray task assumed for the sizing table's shard count")
    parser.add_argument(
        "--copy-mb-per-s", type=float, default=500.0,
        help="assumed disk rate for the sizing table's copy of the database (the measured copy reads from the page cache)",
    )
    parser.add_argument("--out", type=Path, default=PROJECT / "out" / "scaling.json", help="where to write the JSON report")
    parser.add_argument("--_measure", help=argparse.SUPPRESS)
    parser.add_argument("--_params", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.copies = sorted(set(args.copies))
    if args.repeat < 1 or args.files_per_task < 1 or min(args.copies) < 1:
        parser.error("--repeat, --files-per-task and --copies must be at least 1")
    return args


def main() -> None:
    args = parse_args()
    if args._measure:
        params = json.loads(args._params.read_text())
        result = MEASURES[args._measure](params)
        (Path(params["work"]) / "result.json").write_text(json.dumps(result))
        return
    report = run(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print_tables(report)
    _progress(f"wrote {args.out}")


if __name__ == "__main__":
    main()
