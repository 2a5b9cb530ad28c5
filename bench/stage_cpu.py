"""CPU seconds of a worker's stages (extract, normalize, metadata, chunk, link, index terms, rows)
over the shared corpus, for one or more source trees side by side, in one run.

    .venv/bin/python bench/stage_cpu.py [--corpus ../shared/corpus] [--kind markdown pdf] [--repeat 3] [TREE ...]

With no TREE it times the `pipeline` this interpreter imports (the tree on PYTHONPATH, else the
installed one). Each TREE (a checkout, say a worktree at an older commit) is timed in processes of
its own, with the tree's `.venv/bin/python` where it has one and PYTHONPATH set to it; the trees
take turns, round by round, so that their ratios compare runs made seconds apart. Times are
`time.process_time`, summed over the files: what the stage costs, not what the machine gave it;
each process's garbage collector is set as a pool worker's (`prepare_worker`).
The first tree is the one the others are compared to. The stages are a pool worker's, as
`pipeline.ingest.task.run_task` runs them (`pipeline.ingest.process` the stages, then the terms and rows) and `bench/run.py`'s per-stage timing splits them:
`metadata` the paper metadata step, `terms` is counting the index terms, `rows` building the
paper's rows as JSON (the extraction's JSON included); loading them into DuckDB is the writer's,
not timed here.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from corpus import MARKDOWN_FOLDERS

PROJECT = Path(__file__).resolve().parent.parent
STAGES = ("extract", "normalize", "metadata", "chunk", "link", "terms", "rows")
KINDS = ("markdown", "pdf")


def corpus_files(root: Path, kind: str) -> list[Path]:
    """The corpus's files of one kind, as `bench/corpus.py` finds them."""
    if kind == "pdf":
        return sorted((root / "pdf").glob("*.pdf"))
    return sorted(path for folder in MARKDOWN_FOLDERS for path in (root / folder).glob("**/*.md"))


def _terms_counter(index_terms):
    """The tree's function that counts a paper's terms, given one term counter where it takes one."""
    count_terms = getattr(index_terms, "count_paper_terms", None) or index_terms.count_chunk_terms
    if "counter" in inspect.signature(count_terms).parameters:
        return functools.partial(count_terms, counter=index_terms.TermCounter())
    return count_terms


def _as_a_worker() -> None:
    """This process's garbage collector set as a pool worker sets its own, where the tree does
    (`prepare_worker`: the loaded modules frozen, the young objects collected less often), so
    that each stage is timed with the collections a worker makes; Python's defaults collect
    several times as often, and a stage that makes many objects pays for them."""
    try:
        from pipeline.ingest.workers import prepare_worker
    except ImportError:  # trees before the pool's worker preparation collect with Python's defaults
        return
    prepare_worker()


def stage_seconds(files: list[Path], root: Path) -> dict[str, float]:
    """Each stage's CPU seconds over `files`, in this process, with the default rules."""
    import pipeline
    from pipeline.chunk import chunk

    try:
        from pipeline.link import link
    except ImportError:  # trees before 0.6.0 ran the link passes inside `chunk`
        def link(chunked, rules):
            return chunked

    from pipeline.extract import extract, extraction_key
    from pipeline.index import terms as index_terms
    from pipeline.index.rows import paper_rows
    from pipeline.ingest.scan import doc_id_for
    from pipeline.ingest.task import document_row
    from pipeline.records.base import DocumentStatus
    from pipeline.normalize.stage import normalize
    from pipeline.rules import load_rules

    # Trees before paragraph postings (0.3.1 and older) count the chunks' terms alone.
    count_terms = _terms_counter(index_terms)
    # Trees before paper metadata (0.5.0 and older) have no metadata step: it costs them nothing.
    try:
        from pipeline.metadata import paper_metadata
    except ImportError:
        paper_metadata = None
    rules = load_rules()
    key = extraction_key(rules)
    _as_a_worker()
    seconds = dict.fromkeys(STAGES, 0.0)
    clock = time.process_time
    for file in files:
        path = file.relative_to(root).as_posix()
        doc_id = doc_id_for(path)
        row = document_row(path, doc_id, "0" * 64, file.stat().st_size, DocumentStatus.ingested, None, rules)
        at = clock()
        raw = extract(file, path, rules)
        extracted = clock()
        document = normalize(raw, doc_id, rules)
        normalized = clock()
        described = [paper_metadata(raw, document, rules.metadata)] if paper_metadata else []
        metadata_at = clock()
        chunked = chunk(document, rules)
        chunked_at = clock()
        chunked = link(chunked, rules)
        linked = clock()
        terms = count_terms(chunked)
        counted = clock()
        paper_rows(row, chunked, (key, raw.model_dump_json()), terms, *described)
        built = clock()
        seconds["extract"] += extracted - at
        seconds["normalize"] += normalized - extracted
        seconds["metadata"] += metadata_at - normalized
        seconds["chunk"] += chunked_at - metadata_at
        seconds["link"] += linked - chunked_at
        seconds["terms"] += counted - linked
        seconds["rows"] += built - counted
    return {**seconds, "files": len(files), "pipeline": str(Path(pipeline.__file__).parent.parent)}


def run_tree(tree: Path, kind: str, root: Path) -> dict:
    """`stage_seconds` in a fresh process that imports `pipeline` from `tree`."""
    own = tree / ".venv" / "bin" / "python"
    python = str(own) if own.exists() else sys.executable
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    command = [python, __file__, "--corpus", str(root), "--kind", kind, "--json"]
    done = subprocess.run(command, env=environment, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"timing {kind} with the tree {tree} failed:\n{done.stderr}")
    measured = json.loads(done.stdout)
    if Path(measured["pipeline"]).resolve() != tree.resolve():
        raise SystemExit(f"{python} imported pipeline from {measured['pipeline']}, not from {tree}: install the tree or give its own .venv")
    return measured


def print_table(kind: str, trees: list[Path], runs: dict[Path, list[dict]]) -> None:
    """Median CPU seconds per stage and tree, with the min–max, and each tree's ratio to the first."""
    first = trees[0]
    print(f"\n{kind} ({runs[first][0]['files']} files), CPU s, median of {len(runs[first])} (min–max)")
    columns = ["stage", *(tree.name for tree in trees), *(f"{tree.name} / {first.name}" for tree in trees[1:])]
    print("| " + " | ".join(columns) + " |")
    print("|---" * len(columns) + "|")
    for stage in (*STAGES, "total"):
        medians, cells = {}, [stage]
        for tree in trees:
            values = [sum(run[name] for name in STAGES) if stage == "total" else run[stage] for run in runs[tree]]
            medians[tree] = statistics.median(values)
            cells.append(f"{medians[tree]:.2f} ({min(values):.2f}–{max(values):.2f})")
        cells += [f"{medians[tree] / medians[first]:.2f}" if medians[first] else "—" for tree in trees[1:]]
        print("| " + " | ".join(cells) + " |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="*", type=Path, help="source trees to time side by side (default: the pipeline this interpreter imports)")
    parser.add_argument("--corpus", type=Path, default=PROJECT.parent / "shared" / "corpus", help="the shared corpus folder")
    parser.add_argument("--kind", nargs="+", choices=KINDS, default=list(KINDS), help="which of the corpus's files to time")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; each tree runs once a round, in its own process")
    parser.add_argument("--json", action="store_true", help="time one kind here and print the figures as JSON (what each tree's process runs)")
    args = parser.parse_args(argv)
    if args.json:
        print(json.dumps(stage_seconds(corpus_files(args.corpus, args.kind[0]), args.corpus)))
        return 0
    for kind in args.kind:
        if not args.trees:
            import pipeline

            here = Path(pipeline.__file__).parent.parent
            runs = {here: [stage_seconds(corpus_files(args.corpus, kind), args.corpus) for _ in range(args.repeat)]}
            print_table(kind, [here], runs)
            continue
        runs = {tree: [] for tree in args.trees}
        for _ in range(args.repeat):
            for tree in args.trees:
                runs[tree].append(run_tree(tree, kind, args.corpus))
        print_table(kind, args.trees, runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
