"""What each of the chunk and link stages' later features costs a worker, in CPU seconds over the shared
corpus, against everything a worker does to a file.

    .venv/bin/python bench/feature_cpu.py [--corpus ../shared/corpus] [--kind markdown pdf] [--repeat 3]

A feature is the passes `pipeline.chunk.chunk` and `pipeline.link.link` run for it (each timed
where the stage calls it, so a pass is counted whole, helpers included) and the rows it adds to a paper's rows (timed as
the difference between building the rows with the feature's records and without them). The
rest of a worker's stages are timed as `bench/stage_cpu.py` times them, so the share printed is
of the same total. Times are `time.process_time`, the median of the rounds; the feature's cost
to the writer (loading its rows into DuckDB) is not counted here: `bench/run.py` times the
writer as a whole.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from pathlib import Path

from stage_cpu import corpus_files, stage_seconds

import pipeline.chunk as chunk_module
import pipeline.link as link_module
from pipeline.index.rows import paper_rows
from pipeline.index.terms import TermCounter, count_paper_terms
from pipeline.ingest.process import process
from pipeline.ingest.scan import doc_id_for
from pipeline.ingest.task import document_row
from pipeline.records.base import DocumentStatus
from pipeline.rules import load_rules

PROJECT = Path(__file__).resolve().parent.parent

# Each feature: the passes the stages call for it (stage module, pass name), and the
# `ChunkedDocument` fields that hold its records.
FEATURES = {
    "bibliography, citations, cross-references (issue 18)": (
        (
            (chunk_module, "entry_spans"), (chunk_module, "beyond_sections"), (chunk_module, "mark_unheaded_bibliography"),
            (link_module, "references"), (link_module, "superscript_citations"), (link_module, "flattened_citations"),
            (link_module, "cite"), (link_module, "merged"), (link_module, "outside_entries"), (link_module, "link_labels"),
        ),
        {"references": [], "citations": [], "links": []},
    ),
    "chunk and section boxes (issue 23)": (
        ((chunk_module, "usual_line_gap"), (chunk_module, "chunk_boxes"), (chunk_module, "section_boxes")),
        {"chunk_boxes": [], "section_boxes": []},
    ),
}


def _timed(name: str, function, seconds: dict[str, float]):
    def timed(*args, **kwargs):
        at = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            seconds[name] += time.process_time() - at

    return timed


def feature_seconds(files: list[Path], root: Path) -> tuple[dict[str, float], dict[str, float]]:
    """Each feature's CPU seconds over `files` (its passes inside `chunk`, and its rows), and
    each pass's and each feature's rows' own seconds, the parts of those sums."""
    rules = load_rules()
    passes: dict[str, float] = defaultdict(float)
    places = {place for pass_places, _ in FEATURES.values() for place in pass_places}
    names = {name for _, name in places}
    originals = {(module, name): getattr(module, name) for module, name in places}
    rows_seconds: dict[str, float] = defaultdict(float)
    counter = TermCounter()
    try:
        for (module, name), function in originals.items():
            setattr(module, name, _timed(name, function, passes))
        for file in files:
            path = file.relative_to(root).as_posix()
            doc_id = doc_id_for(path)
            row = document_row(path, doc_id, "0" * 64, file.stat().st_size, DocumentStatus.ingested, None, rules)
            chunked = process(file, path, doc_id, rules).chunked
            terms = count_paper_terms(chunked, counter)
            at = time.process_time()
            paper_rows(row, chunked, None, terms)
            whole = time.process_time() - at
            for feature, (_, emptied) in FEATURES.items():
                without = chunked.model_copy(update=emptied)
                at = time.process_time()
                paper_rows(row, without, None, terms)
                rows_seconds[feature] += whole - (time.process_time() - at)
    finally:
        for (module, name), function in originals.items():
            setattr(module, name, function)
    features = {
        feature: sum(passes[name] for _, name in pass_places) + rows_seconds[feature]
        for feature, (pass_places, _) in FEATURES.items()
    }
    parts = {**{name: passes[name] for name in sorted(names)}, **{f"rows of {feature}": seconds for feature, seconds in rows_seconds.items()}}
    return features, parts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=PROJECT.parent / "shared" / "corpus", help="the shared corpus folder")
    parser.add_argument("--kind", nargs="+", choices=("markdown", "pdf"), default=["markdown", "pdf"])
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the median is printed")
    args = parser.parse_args(argv)
    totals: dict[str, list[float]] = defaultdict(list)
    features: dict[str, list[float]] = defaultdict(list)
    parts: dict[str, list[float]] = defaultdict(list)
    for _ in range(args.repeat):
        total, found, found_parts = 0.0, defaultdict(float), defaultdict(float)
        for kind in args.kind:
            files = corpus_files(args.corpus, kind)
            stages = stage_seconds(files, args.corpus)
            total += sum(stages[name] for name in ("extract", "normalize", "chunk", "link", "terms", "rows"))
            by_feature, by_part = feature_seconds(files, args.corpus)
            for feature, seconds in by_feature.items():
                found[feature] += seconds
            for part, seconds in by_part.items():
                found_parts[part] += seconds
        totals["all"].append(total)
        for feature, seconds in found.items():
            features[feature].append(seconds)
        for part, seconds in found_parts.items():
            parts[part].append(seconds)
    whole = statistics.median(totals["all"])
    print(f"A worker's stages over {', '.join(args.kind)}: {whole:.2f} s CPU (median of {args.repeat})")
    print("| feature | CPU s (min–max) | share of the worker's stages |")
    print("|---|---|---|")
    for feature, values in features.items():
        median = statistics.median(values)
        print(f"| {feature} | {median:.2f} ({min(values):.2f}–{max(values):.2f}) | {median / whole:.1%} |")
    print()
    print("| part (a pass `chunk` or `link` calls, or a feature's rows) | CPU s | share |")
    print("|---|---|---|")
    for part, values in sorted(parts.items(), key=lambda item: -statistics.median(item[1])):
        median = statistics.median(values)
        print(f"| {part} | {median:.2f} | {median / whole:.1%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
