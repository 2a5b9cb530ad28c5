"""In what order a run hands files to its workers."""

from __future__ import annotations

from pipeline.ingest import IngestOptions, ingest_folder


class _Recorder:
    def __init__(self) -> None:
        self.done: list[str] = []

    def start(self, files: int, to_process: int) -> None:
        pass

    def file_done(self, path: str, status: str, pages: int, chunks: int, error: str | None) -> None:
        self.done.append(path)


def test_the_largest_files_go_first_so_a_big_file_does_not_end_the_run_alone(tmp_path, rules):
    for name, sections in (("a-small.md", 1), ("b-large.md", 30), ("c-medium.md", 10)):
        (tmp_path / name).write_text("# Paper\n\n" + "## Results\n\nIL-6 rose in the cohort.\n\n" * sections)
    recorder = _Recorder()
    # One worker finishes files in the order it was given them.
    ingest_folder(tmp_path, tmp_path / "out" / "papers.duckdb", rules, IngestOptions(workers=1), recorder)
    assert recorder.done == ["b-large.md", "c-medium.md", "a-small.md"]
