"""Time `pipeline export` of the whole shared corpus: chunks and paragraphs, JSONL and Parquet.

    .venv/bin/python bench/export.py [--corpus ../shared/corpus] [--repeat 3]

Ingests the corpus's PDFs and Markdown (as bench/run.py lays them out) into a fresh database
once, then prints the median seconds of each export over --repeat runs.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from corpus import find_corpus, lay_out

PROJECT = Path(__file__).resolve().parent.parent


def main() -> None:
    from pipeline.export import ExportFormat, Selection, Unit, export_database
    from pipeline.ingest import ingest_folder
    from pipeline.rules import load_rules

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=PROJECT.parent / "shared" / "corpus")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        folder = lay_out(find_corpus(args.corpus), Path(work) / "corpus", 1)
        db = Path(work) / "papers.duckdb"
        summary = ingest_folder(folder, db, load_rules())
        print(f"corpus: {summary.seen} files, {summary.chunks} chunks")
        cases = [
            ("chunks, jsonl", ExportFormat.jsonl, Selection()),
            ("chunks, parquet", ExportFormat.parquet, Selection()),
            ("paragraphs, jsonl", ExportFormat.jsonl, Selection(unit=Unit.paragraph)),
            ("paragraphs --window 1, jsonl", ExportFormat.jsonl, Selection(unit=Unit.paragraph, window=1)),
        ]
        for label, export_format, selection in cases:
            seconds = []
            for _ in range(args.repeat):
                started = time.perf_counter()
                written = export_database(db, Path(work) / f"out.{export_format.value}", export_format, selection)
                seconds.append(time.perf_counter() - started)
            print(f"{label:<32} {written.records:>7} records  {statistics.median(seconds):6.2f} s (median of {args.repeat})")


if __name__ == "__main__":
    main()
