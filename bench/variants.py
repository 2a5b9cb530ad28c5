"""What the benchmark measures, one function per variant, each run in a fresh process.

Every variant takes its parameters as a dict (they travel as JSON from `run.py`) and returns a
dict with `seconds` (wall time, `time.perf_counter`) and what else it learned. Imports happen
before the clock starts; the floors and the recipe time in-memory work on texts read before
the clock, while the pipeline's rows include reading the files, as a real run does.
"""

from __future__ import annotations

import ctypes
import hashlib
import multiprocessing.forkserver
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36


def peak_rss() -> dict:
    """Peak resident memory of this process, and of the largest descendant waited for, in MiB."""
    return {
        "rss_self_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_children_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    }


def _stop_forkserver() -> None:
    """Stop and reap the fork server the pipeline's pool started its workers from.

    Its workers are its children, not ours: only once it has been waited for does
    RUSAGE_CHILDREN include their peak memory. `_stop` is private but is what the standard
    library's own tests use to do this.
    """
    multiprocessing.forkserver._forkserver._stop()


# ---------------------------------------------------------------- floors


def pdf_floor(params: dict) -> dict:
    """PyMuPDF's `get_text("dict")` over every page, images off, nothing else."""
    import pymupdf

    flags = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
    started = time.perf_counter()
    pages = 0
    for file in params["files"]:
        with pymupdf.open(file) as doc:
            for page in doc:
                page.get_text("dict", flags=flags)
                pages += 1
    return {"seconds": time.perf_counter() - started, "pages": pages}


def markdown_floor(params: dict) -> dict:
    """markdown-it-py's bare CommonMark `parse` of every file's text."""
    from markdown_it import MarkdownIt

    texts = [Path(file).read_text(encoding="utf-8", errors="replace") for file in params["files"]]
    started = time.perf_counter()
    parser = MarkdownIt("commonmark")
    tokens = sum(len(parser.parse(text)) for text in texts)
    return {"seconds": time.perf_counter() - started, "tokens": tokens}


def floor_at_once(params: dict) -> dict:
    """The floor run by `copies` processes at once, each over all the files: how much this
    machine really gives N processes over one, the ceiling for N workers. The clock starts once
    every process has imported its library and waits at the barrier."""
    import multiprocessing

    floor = VARIANTS[params["floor"]]
    context = multiprocessing.get_context("fork")  # this process runs no threads to fork with
    barrier = context.Barrier(params["copies"] + 1)
    processes = [context.Process(target=_floor_after, args=(floor, params, barrier)) for _ in range(params["copies"])]
    for process in processes:
        process.start()
    barrier.wait()
    started = time.perf_counter()
    for process in processes:
        process.join()
    seconds = time.perf_counter() - started
    failed = [process.exitcode for process in processes if process.exitcode]
    if failed:
        raise RuntimeError(f"{params['floor']} failed in {len(failed)} of {params['copies']} processes (exit codes {failed})")
    return {"seconds": seconds, "copies": params["copies"]}


def _floor_after(floor, params: dict, barrier) -> None:
    import markdown_it  # noqa: F401 - imported before the clock, as the floors' own imports are
    import pymupdf  # noqa: F401

    barrier.wait()
    floor(params)


# ---------------------------------------------------------------- the usual recipe


def _splitters():
    from langchain_text_splitters import MarkdownHeaderTextSplitter, RecursiveCharacterTextSplitter

    # LangChain's defaults for the character splitter: chunk_size 4000, chunk_overlap 200.
    headers = MarkdownHeaderTextSplitter([("#", "h1"), ("##", "h2"), ("###", "h3"), ("####", "h4")])
    return headers, RecursiveCharacterTextSplitter()


def recipe_pdf(params: dict) -> dict:
    """`pymupdf4llm.to_markdown`, then LangChain's header and recursive character splitters."""
    import pymupdf4llm

    per_file = {}
    chunks = 0
    started = time.perf_counter()
    headers, characters = _splitters()
    for file in params["files"]:
        file_started = time.perf_counter()
        markdown = pymupdf4llm.to_markdown(file, show_progress=False)
        chunks += len(characters.split_documents(headers.split_text(markdown)))
        per_file[Path(file).name] = time.perf_counter() - file_started
    return {"seconds": time.perf_counter() - started, "chunks": chunks, "per_file_seconds": per_file}


def recipe_markdown(params: dict) -> dict:
    """LangChain's header and recursive character splitters on every file's text."""
    texts = [Path(file).read_text(encoding="utf-8", errors="replace") for file in params["files"]]
    started = time.perf_counter()
    headers, characters = _splitters()
    chunks = sum(len(characters.split_documents(headers.split_text(text))) for text in texts)
    return {"seconds": time.perf_counter() - started, "chunks": chunks}


# ---------------------------------------------------------------- the pipeline


def _timed_stages(file: Path, path: str, doc_id: str, rules, counter, seconds: dict[str, float]) -> tuple:
    """extract → normalize → chunk → link → count terms on one file, each stage's time added to
    `seconds` once all have run (a file that fails adds none): the raw document, the chunked one
    and its terms."""
    from pipeline.chunk import chunk
    from pipeline.extract import extract
    from pipeline.index.terms import count_paper_terms
    from pipeline.link import link
    from pipeline.normalize.stage import normalize

    clock = time.perf_counter
    at = clock()
    raw = extract(file, path, rules)
    extracted = clock()
    document = normalize(raw, doc_id, rules)
    normalized = clock()
    chunked = chunk(document, rules)
    chunked_at = clock()
    chunked = link(chunked, rules)
    linked = clock()
    terms = count_paper_terms(chunked, counter)
    counted = clock()
    seconds["extract"] += extracted - at
    seconds["normalize"] += normalized - extracted
    seconds["chunk"] += chunked_at - normalized
    seconds["link"] += linked - chunked_at
    seconds["terms"] += counted - linked
    return raw, chunked, terms


def stages(params: dict) -> dict:
    """extract → normalize → chunk → link → count terms → build rows → write for each file in turn, in
    this process, then the postings put in term order where due; each stage's time summed over
    the files. Rows are written as `ingest_folder` writes them: a `DocumentWriter` (batched
    transactions) into a fresh database."""
    from pipeline.errors import PipelineError
    from pipeline.extract import extraction_key
    from pipeline.index.database import ensure_schema, open_for_writing
    from pipeline.index.rows import paper_rows
    from pipeline.index.terms import TermCounter
    from pipeline.index.writer import DocumentWriter, order_search_index
    from pipeline.ingest.scan import doc_id_for, find_papers
    from pipeline.ingest.task import document_row
    from pipeline.records.base import DocumentStatus
    from pipeline.rules import load_rules

    folder = Path(params["folder"])
    rules = load_rules()
    files = find_papers(folder)
    relative = [file.relative_to(folder).as_posix() for file in files]
    doc_ids = {path: doc_id_for(path) for path in relative}
    key = extraction_key(rules)
    counter = TermCounter()
    seconds = dict.fromkeys(("extract", "normalize", "chunk", "link", "terms", "rows", "write", "index_order"), 0.0)
    chunks = failed = 0
    clock = time.perf_counter
    started = clock()
    connection = open_for_writing(Path(params["db"]))
    ensure_schema(connection)
    writer = DocumentWriter(connection, in_background=False)  # each batch timed where it is written
    seconds["write"] += clock() - started
    for file, path in zip(files, relative):
        sha256 = hashlib.sha256(file.read_bytes()).hexdigest()
        try:
            raw, chunked, terms = _timed_stages(file, path, doc_ids[path], rules, counter, seconds)
        except PipelineError:
            failed += 1
            continue
        row = document_row(path, doc_ids[path], sha256, file.stat().st_size, DocumentStatus.ingested, None, rules)
        at = clock()
        rows = paper_rows(row, chunked, (key, raw.model_dump_json()), terms)
        built = clock()
        writer.add(rows)
        seconds["rows"] += built - at
        seconds["write"] += clock() - built
        chunks += len(chunked.chunks)
    at = clock()
    writer.flush()
    seconds["write"] += clock() - at
    at = clock()
    order_search_index(connection)
    connection.execute("CHECKPOINT")
    seconds["index_order"] += clock() - at
    connection.close()
    return {"seconds": sum(seconds.values()), "stages": seconds, "chunks": chunks, "failed": failed, "files": len(files)}


def _ingest(folder: Path, db: Path, rules, workers: int) -> dict:
    from pipeline.ingest import IngestOptions, ingest_folder

    started = time.perf_counter()
    summary = ingest_folder(folder, db, rules, IngestOptions(workers=workers))
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds, "files": summary.seen, "added": summary.added, "updated": summary.updated,
        "unchanged": summary.unchanged, "failed": len(summary.failed), "pages": summary.pages, "chunks": summary.chunks,
    }


def end_to_end(params: dict) -> dict:
    """`ingest_folder` into a fresh database with N workers (copy, publish and index ordering
    included), PDFs read in the rules' layout mode or the one `layout` names; with the papers and
    pages that PyMuPDF's layout model read."""
    import duckdb

    from pipeline.rules import layout_overrides, load_rules

    rules = load_rules(overrides=layout_overrides(params.get("layout")))
    result = _ingest(Path(params["folder"]), Path(params["db"]), rules, params["workers"])
    _stop_forkserver()
    with duckdb.connect(params["db"], read_only=True) as connection:
        papers, pages = connection.execute(
            "SELECT count(*), coalesce(sum(page_count), 0) FROM documents WHERE layout = 'model'"
        ).fetchone()
    return {**result, "model_papers": papers, "model_pages": int(pages)}


def incremental(params: dict) -> dict:
    """A first run into a fresh database, a no-change re-run, and a rules-only change, which
    re-chunks every paper from its stored extraction."""
    from pipeline.rules import load_rules

    folder, db, workers = Path(params["folder"]), Path(params["db"]), params["workers"]
    rules = load_rules()
    first = _ingest(folder, db, rules, workers)
    _stop_forkserver()
    first.update(peak_rss())
    no_change = _ingest(folder, db, rules, workers)
    rules_change = _ingest(folder, db, rules.model_copy(update={"sha256": "changed"}), workers)
    _stop_forkserver()
    return {"seconds": first["seconds"], "first": first, "no_change": no_change, "rules_change": rules_change}


def cli(params: dict) -> dict:
    """`python -m pipeline ingest FOLDER --db DB --workers N --quiet`: wall time from launch to
    exit, so interpreter start and imports count. This process becomes a subreaper, so the
    fork server the CLI leaves behind is reparented here and reaped, and RUSAGE_CHILDREN holds
    the largest of the CLI's processes."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    command = [
        sys.executable, "-m", "pipeline", "ingest", params["folder"], "--db", params["db"],
        "--workers", str(params["workers"]), "--quiet",
    ]
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    while True:
        try:
            os.wait()
        except ChildProcessError:
            break
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {completed.returncode}: {completed.stderr.strip()[-2000:]}")
    return {"seconds": seconds}


# ---------------------------------------------------------------- search


def search_latency(params: dict) -> dict:
    """Copy a database, grow its chunks to `target_chunks` (0: as it is), put the postings in term
    order where due (timed), then time `search` for every query, `passes` times, read-only."""
    from pipeline.index.database import open_for_writing, open_readonly
    from pipeline.index.search import search
    from pipeline.index.writer import order_search_index

    from corpus import grow_chunks

    work, source = Path(params["work_db"]), Path(params["db"])
    shutil.copyfile(source, work)
    # A library past MIN_BASE_CHUNKS is its catalog over an immutable base file beside it, found
    # by its name in the catalog's folder: the copy needs it too.
    for base in source.parent.glob(f"{source.name}.base-*"):
        shutil.copyfile(base, work.parent / base.name)
    connection = open_for_writing(work)
    chunks = grow_chunks(connection, params["target_chunks"]) if params["target_chunks"] else (
        connection.execute("SELECT count(*) FROM chunks").fetchone()[0]
    )
    started = time.perf_counter()
    ordered = order_search_index(connection)
    order_seconds = time.perf_counter() - started
    postings = connection.execute("SELECT count(*) FROM chunk_postings").fetchone()[0]
    connection.execute("CHECKPOINT")
    connection.close()

    connection = open_readonly(work)
    queries = params["queries"]
    started = time.perf_counter()
    search(connection, queries[0])
    first_ms = (time.perf_counter() - started) * 1000
    latencies, hits = [], {}
    by_query: dict[str, list[float]] = {query: [] for query in queries}
    for _ in range(params["passes"]):
        for query in queries:
            started = time.perf_counter()
            hits[query] = len(search(connection, query))
            latency = (time.perf_counter() - started) * 1000
            latencies.append(latency)
            by_query[query].append(latency)
    connection.close()
    return {
        "seconds": order_seconds, "ordered": ordered, "postings": postings, "chunks": chunks, "first_query_ms": first_ms, "latencies_ms": latencies, "hits": hits,
        "per_query_median_ms": {query: sorted(values)[len(values) // 2] for query, values in by_query.items()},
    }


VARIANTS = {
    function.__name__: function
    for function in (pdf_floor, markdown_floor, floor_at_once, recipe_pdf, recipe_markdown, stages, end_to_end, incremental, cli, search_latency)
}
