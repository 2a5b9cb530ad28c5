"""A nightly run over a library of a million chunks: its wall time and the peak memory of the
writer's process and of the workers, with the writer's `--memory-limit`.

    .venv/bin/python bench/million.py [--corpus ../shared/corpus] [--chunks 1000000] [--work /tmp]
                                      [--memory-limit 4GB] [--keep] [--library KEPT]

Ingesting a million chunks takes hours here, so the library is built from copies:

1. **the folder**: the corpus's paper files at the top (copy 0) and under `copy-001/` … as hard
   links (the same bytes: a run keys a paper by its path, so each copy is a paper of its own);
2. **the database**: copy 0 ingested for real, then every table's rows written again for each
   copy in SQL, under the doc_id (and chunk and paragraph keys) the copy's path gives, the
   postings put in term order and the file checkpointed, as a published database is. A copy's
   `papers.doi` and title get the copy's number, so `paper_links` (recomputed by every run) links
   each copy's bibliography to the real papers only, as a library of distinct papers would;
3. **the nightly run**: `pipeline ingest` (the command line, launch to exit) after `--add` new
   papers, `--edit` changed ones and `--remove` deleted ones, then a no-change re-run, which reads
   no paper (each file's stat is the one stored, `file_stats`) and publishes nothing: the table
   says how many files each run hashed and whether the database file was left as it was. Each
   process's peak RSS is its `VmHWM`, read from /proc every 0.1 s: the main process (the writer)
   and the largest other process below it (the fork server or a worker).

It prints a table and writes `out/million.json`. The database and the folder are deleted at the
end unless `--keep`; `--library` runs the nightly changes again on a kept one (other papers each
time). The database takes about 16 KB a chunk (16 GB at a million, most of it the postings); its
first nightly run makes it the base of a small catalog (pipeline/index/layout.py) without copying
it, and a run that makes a new base writes it once more, so mind the disk. Building it takes about
15 minutes here. The table gives each run's bytes written (the file system's count, every process
of the run), which says whether it rewrote the library.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
# Columns that hold a doc_id or start with one (`{doc_id}:{suffix}`): a copy's path prefix goes in
# front of them, which is what `doc_id_for` makes of the copy's path (`/`, `-` and digits stay).
_PREFIXED = {"doc_id", "path", "chunk_id", "target_chunk_id", "paragraph_key", "cited_doc_id"}
# The stats stored of copy 0's files hold for every copy: a copy is hard links to the same files.
_COPIED_TABLES = ("paper_links", "file_stats")
_ROWS_PER_SORT = 10_000_000


def _progress(message: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {message}", file=sys.stderr, flush=True)


def copy_name(copy: int) -> str:
    return f"copy-{copy:03d}/"


def lay_out(corpus: Path, folder: Path, copies: range) -> list[str]:
    """Hard-link the corpus's paper files into `folder` once per copy; return their paths."""
    from pipeline.ingest.scan import scan_folder

    paths = [item.path for item in scan_folder(corpus).files if item.read_error is None]
    for copy in copies:
        for path in paths:
            target = folder / (copy_name(copy) if copy else "") / path
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(corpus / path, target)
            except OSError:  # another file system
                shutil.copyfile(corpus / path, target)
    return paths


def replicate(connection, copies: int) -> None:
    """Write every paper's rows again for copies 1 … copies-1. The postings are written in term
    order straight away, into tables that replace the real ones, as `order_search_index` leaves
    them: ordering them after the copies were inserted would leave the file holding both."""
    from pipeline.index.layout import ROWS_SCHEMA
    from pipeline.index.schema import COLUMNS, POSTINGS_TABLES, TABLES_BY_DOCUMENT

    prefix = "'copy-' || lpad(n::VARCHAR, 3, '0') || '/' || "
    for table in (*TABLES_BY_DOCUMENT, *_COPIED_TABLES):
        selected = []
        for column in COLUMNS[table]:
            if column in _PREFIXED:
                selected.append(f"{prefix}{column}")
            elif table == "papers" and column == "doi":
                selected.append("doi || '/copy-' || n")
            elif table == "papers" and column == "title":
                selected.append("title || ' (copy ' || n || ')'")
            else:
                selected.append(column)
        # Papers' rows are in the catalog's `rows` schema (pipeline.index.layout), the rest in `main`.
        stored = f"{ROWS_SCHEMA}.{table}" if table in TABLES_BY_DOCUMENT else table
        copied = f"SELECT {', '.join(selected)} FROM {stored}, range(1, {int(copies)}) copies(n)"
        started = time.perf_counter()
        connection.execute("BEGIN TRANSACTION")
        if table in POSTINGS_TABLES:
            columns, key, _ = POSTINGS_TABLES[table]
            connection.execute(f"CREATE TABLE {stored}_in_order ({columns})")
            for low, high in _term_ranges(connection, table, copies):
                within = f"term >= '{low}'" + (f" AND term < '{high}'" if high is not None else "")
                connection.execute(
                    f"INSERT INTO {stored}_in_order SELECT * FROM (SELECT * FROM {stored} WHERE {within} "
                    f"UNION ALL {copied} WHERE {within}) ORDER BY term, {key}"
                )
            connection.execute(f"DROP TABLE {stored}")
            connection.execute(f"ALTER TABLE {stored}_in_order RENAME TO {table}")
        else:
            connection.execute(f"INSERT INTO {stored} {copied}")
        connection.execute("COMMIT")
        _progress(f"  {table}: {time.perf_counter() - started:.1f} s")
    connection.execute("UPDATE search_index_state SET unsorted_rows = 0")


def _term_ranges(connection, table: str, copies: int) -> list[tuple[str, str | None]]:
    """Ranges of terms of about `_ROWS_PER_SORT` postings each once copied, in order: one sort of
    every copy's postings runs out of the writer's memory limit, these do not."""
    counts = connection.execute(f"SELECT term, count(*) * {int(copies)} FROM {table} GROUP BY term ORDER BY term").fetchall()
    starts, rows = [counts[0][0]], 0
    for term, count in counts:
        if rows >= _ROWS_PER_SORT:
            starts.append(term)
            rows = 0
        rows += count
    return [(low.replace("'", "''"), high.replace("'", "''") if high else None) for low, high in zip(starts, [*starts[1:], None])]


def build(args: argparse.Namespace, work: Path) -> dict:
    """The folder and the published database of `--chunks` chunks or more."""
    from pipeline.index.database import open_for_writing
    from pipeline.ingest import IngestOptions, ingest_folder
    from pipeline.rules import load_rules

    folder, db = work / "library", work / "library.duckdb"
    paths = lay_out(args.corpus, folder, range(1))
    started = time.perf_counter()
    summary = ingest_folder(folder, db, load_rules(), IngestOptions(workers=2))
    result: dict = {"one_copy_seconds": time.perf_counter() - started, "one_copy_chunks": summary.chunks, "files_per_copy": len(paths)}
    copies = -(-args.chunks // summary.chunks)
    _progress(f"copy 0: {summary.chunks:,} chunks; {copies} copies")
    lay_out(args.corpus, folder, range(1, copies))
    connection = open_for_writing(db, memory_limit=args.memory_limit)
    started = time.perf_counter()
    replicate(connection, copies)
    result["replicate_seconds"] = time.perf_counter() - started
    started = time.perf_counter()
    connection.execute("CHECKPOINT")
    result["checkpoint_seconds"] = time.perf_counter() - started
    result["copies"] = copies
    for table in ("documents", "chunks", "paragraphs", "chunk_postings", "paragraph_postings", "paper_links"):
        result[table] = connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    connection.close()
    result["db_bytes"] = _library_bytes(db)
    return result


def nightly_changes(args: argparse.Namespace, folder: Path) -> dict:
    """Add, edit and remove a few papers of the library, never touching the corpus's own files.
    The `k`th nightly run on a library edits copy 3k+1, removes from copy 3k+2 and adds from copy
    3k+3, under `added-k/`, so that each run changes papers no earlier run changed."""
    night = sum(1 for _ in folder.glob("added-*"))
    markdown = sorted((folder / copy_name(3 * night + 1)).rglob("*.md"))
    for index, path in enumerate(markdown[: args.edit]):
        data = path.read_bytes()
        path.unlink()  # a hard link to the corpus: write a file of its own
        path.write_bytes(data + f"\n\n<!-- nightly edit {index} -->\n".encode())
    removed = sorted((folder / copy_name(3 * night + 2)).rglob("*.*"))[: args.remove]
    for path in removed:
        path.unlink()
    source, added = folder / copy_name(3 * night + 3), folder / f"added-{night}"
    pdfs = sorted(source.rglob("*.pdf"))[: args.add // 4]
    for path in pdfs + sorted(source.rglob("*.md"))[: args.add - len(pdfs)]:
        target = added / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.link(path, target)
    return {"added": args.add, "edited": min(args.edit, len(markdown)), "removed": len(removed)}


def _library(work: Path) -> dict:
    """What a kept library holds."""
    from pipeline.index.database import open_readonly

    result: dict = {"db_bytes": _library_bytes(work / "library.duckdb")}
    with open_readonly(work / "library.duckdb") as connection:
        for table in ("documents", "chunks", "paragraphs", "chunk_postings", "paragraph_postings", "paper_links"):
            result[table] = connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    return result


def _tree(root: int) -> list[int]:
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError):
                continue
    below, frontier = [], [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        below.extend(children)
        frontier.extend(children)
    return below


def _library_bytes(db: Path) -> int:
    """The published file and its base (pipeline.index.layout), if it has one."""
    return sum(path.stat().st_size for path in [db, *db.parent.glob(f"{db.name}.base-*")])


def _file_state(path: Path) -> tuple[int, int, int]:
    """What `os.replace` or a write would change of a file: its inode, size and mtime."""
    stat = path.stat()
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


def _hwm_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def timed_cli(folder: Path, db: Path, memory_limit: str) -> dict:
    """`pipeline ingest` launch to exit, with the peak RSS of its main process and of the largest
    process below it."""
    command = [sys.executable, "-m", "pipeline", "ingest", str(folder), "--db", str(db), "--memory-limit", memory_limit, "--json"]
    written_before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_oublock
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=PROJECT)
    peaks = {"main": 0.0, "largest_other": 0.0}
    seen: set[int] = set()
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peaks["main"] = max(peaks["main"], _hwm_mib(process.pid))
            for pid in _tree(process.pid):
                seen.add(pid)
                peaks["largest_other"] = max(peaks["largest_other"], _hwm_mib(pid))
            done.wait(0.1)

    sampler = threading.Thread(target=sample)
    sampler.start()
    stdout, stderr = process.communicate()
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    if process.returncode != 0:
        raise SystemExit(f"pipeline ingest failed ({process.returncode}):\n{stderr[-3000:]}")
    summary = json.loads(stdout)
    # Blocks of 512 bytes the run and every process below it wrote (the file system's count).
    written = (resource.getrusage(resource.RUSAGE_CHILDREN).ru_oublock - written_before) * 512
    return {"seconds": seconds, "written_bytes": written, "rss_main_mib": peaks["main"], "rss_other_mib": peaks["largest_other"], "processes_below": len(seen), "summary": summary}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=PROJECT.parent / "shared" / "corpus")
    parser.add_argument("--chunks", type=int, default=1_000_000, help="build a library of at least this many chunks")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()), help="where the folder and the database go")
    parser.add_argument("--memory-limit", default="4GB", help="the writer's --memory-limit, for the build and the runs")
    parser.add_argument("--add", type=int, default=20, help="new papers in the nightly run")
    parser.add_argument("--edit", type=int, default=10, help="changed Markdown papers in the nightly run")
    parser.add_argument("--remove", type=int, default=5, help="deleted papers in the nightly run")
    parser.add_argument("--keep", action="store_true", help="keep the folder and the database")
    parser.add_argument("--library", type=Path, help="a work folder an earlier run kept (--keep): its nightly runs again, nothing built")
    parser.add_argument("--out", type=Path, default=PROJECT / "out" / "million.json")
    args = parser.parse_args()
    args.corpus = args.corpus.resolve()
    work = args.library or Path(tempfile.mkdtemp(prefix="paper-million-", dir=args.work))
    report: dict = {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "memory_limit": args.memory_limit, "load_average_at_start": os.getloadavg()}
    try:
        if args.library:
            report["build"] = _library(work)
        else:
            _progress(f"building the library in {work}")
            report["build"] = build(args, work)
        _progress(f"the library: {report['build']['chunks']:,} chunks, {report['build']['db_bytes'] / 1e9:.1f} GB")
        report["changes"] = nightly_changes(args, work / "library")
        for run in ("nightly", "no_change"):
            before = _file_state(work / "library.duckdb")
            report[run] = timed_cli(work / "library", work / "library.duckdb", args.memory_limit)
            report[run]["database_untouched"] = _file_state(work / "library.duckdb") == before
            _progress(f"{run}: {report[run]['seconds']:.1f} s, main {report[run]['rss_main_mib']:,.0f} MiB, other {report[run]['rss_other_mib']:,.0f} MiB")
        report["db_bytes_after"] = _library_bytes(work / "library.duckdb")
        report["catalog_bytes_after"] = (work / "library.duckdb").stat().st_size
    finally:
        if not args.keep and not args.library:
            shutil.rmtree(work, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    build_ = report["build"]
    print(
        f"| run over {build_['chunks']:,} chunks ({build_['documents']:,} papers, {build_['db_bytes'] / 1e9:.1f} GB), "
        f"--memory-limit {args.memory_limit} | s | MB written | writer peak RSS MiB | largest worker MiB | files hashed | database file |"
    )
    print("|---|---|---|---|---|---|---|")
    for run in ("nightly", "no_change"):
        row = report[run]
        untouched = "left as it was" if row["database_untouched"] else "published anew"
        print(
            f"| {run} | {row['seconds']:.1f} | {row.get('written_bytes', 0) / 1e6:,.0f} | {row['rss_main_mib']:,.0f} | {row['rss_other_mib']:,.0f} | "
            f"{row['summary'].get('hashed', row['summary']['seen']):,} | {untouched} |"
        )
    _progress(f"wrote {args.out}")


if __name__ == "__main__":
    main()
