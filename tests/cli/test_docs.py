"""The README's promises (its two set-up commands, and that CI runs the same test command, the
slow tests included), and the benchmark's generated section of docs/performance.md."""

from __future__ import annotations

import copy
import importlib.util
import json
import re
import sys
import tomllib
from types import ModuleType

import pytest

from conftest import PROJECT

BENCH_REPORT = PROJECT / "tests" / "bench_report.json"


def _setup_commands() -> list[str]:
    readme = (PROJECT / "README.md").read_text()
    setup = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```\n(.+?)\n```", setup)


def test_readme_has_exactly_two_setup_commands():
    commands = _setup_commands()
    assert len(commands) == 2
    assert commands[0].endswith("pipeline ingest corpus")


def test_ci_runs_the_readmes_test_command():
    ci_lines = (PROJECT / ".ci" / "run").read_text().splitlines()
    assert _setup_commands()[1] in ci_lines


def test_ci_runs_the_tests_marked_slow_too():
    options = tomllib.loads((PROJECT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert any(marker.startswith("slow:") for marker in options["markers"])
    assert not any(option.startswith(("-m", "--deselect", "-k")) for option in options.get("addopts", []))
    pytest_options = _setup_commands()[1].split("-m pytest", 1)[1].split()
    assert not any(option.startswith(("-m", "--deselect", "-k")) for option in pytest_options)


def _tour() -> str:
    readme = (PROJECT / "README.md").read_text()
    return readme.split("## A short tour", 1)[1].split("\n## ", 1)[0]


def test_the_tour_audits_a_page_that_exists_and_cites_chunks_of_the_sample_papers(tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli import app
    from pipeline.ingest import IngestOptions, ingest_folder
    from pipeline.rules import load_rules

    page = re.search(r"pipeline audit (\S+)", _tour())[1]
    ingest_folder(PROJECT / "corpus", tmp_path / "papers.duckdb", load_rules(), IngestOptions(workers=1))

    result = CliRunner().invoke(app, ["audit", str(PROJECT / page), "--db", str(tmp_path / "papers.duckdb"), "--json"])

    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    cited = [citation for sentence in report["sentences"] for citation in sentence["citations"]]
    assert cited and all(citation["verdict"] != "unknown" for citation in cited)


def test_the_tour_s_korean_example_finds_paragraphs_holding_its_translated_terms(tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli import app
    from pipeline.ingest import IngestOptions, ingest_folder
    from pipeline.rules import load_rules

    query, glossary = re.search(r'pipeline search "([^"]*[\uac00-\ud7a3][^"]*)" --glossary (\S+)', _tour()).groups()
    ingest_folder(PROJECT / "corpus", tmp_path / "papers.duckdb", load_rules(), IngestOptions(workers=1))

    arguments = ["search", query, "--glossary", str(PROJECT / glossary), "--unit", "paragraph", "--json", "--db", str(tmp_path / "papers.duckdb")]
    output = json.loads(CliRunner().invoke(app, arguments).stdout)

    assert output["untranslated"] == [] and len(output["hits"]) >= 3
    assert all("lymph node" in hit["text"].lower() or "magnetic resonance" in hit["text"].lower() for hit in output["hits"][:3])


def test_the_tour_says_how_to_run_pipeline_from_the_venv():
    assert ".venv/bin/activate" in _tour()


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    """bench/run.py, loaded by path: it is a script beside its own modules, not a package."""
    sys.path.insert(0, str(PROJECT / "bench"))  # for its `from corpus import ...`
    try:
        spec = importlib.util.spec_from_file_location("bench_run", PROJECT / "bench" / "run.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(PROJECT / "bench"))
    return module


@pytest.fixture
def report() -> dict:
    return json.loads(BENCH_REPORT.read_text())


def _document(bench: ModuleType, section: str) -> str:
    return f"# Performance\n\nThe method.\n\n{bench.SECTION_BEGIN}\n{section}\n{bench.SECTION_END}\n\nAfter the tables.\n"


def test_bench_replaces_the_marked_section(bench, report):
    written = bench.replace_section(_document(bench, "| an old table |"), bench.render_markdown(report))
    between = written.split(bench.SECTION_BEGIN, 1)[1].split(bench.SECTION_END, 1)[0]
    assert between == "\n" + bench.render_markdown(report) + "\n"


def test_bench_keeps_the_text_outside_the_markers(bench, report):
    written = bench.replace_section(_document(bench, "| an old table |"), bench.render_markdown(report))
    assert written.startswith(f"# Performance\n\nThe method.\n\n{bench.SECTION_BEGIN}\n")
    assert written.endswith(f"\n{bench.SECTION_END}\n\nAfter the tables.\n")


def test_bench_writes_the_section_into_the_file_it_is_given(bench, report, tmp_path):
    docs = tmp_path / "performance.md"
    docs.write_text(_document(bench, "| an old table |"))
    bench.write_performance_doc(report, docs)
    assert "| an old table |" not in docs.read_text()
    assert "| pipeline end to end, 2 workers | 0.25 (0.24–0.30) | 80 | 0.80 |" in docs.read_text()


def test_bench_shows_a_variant_it_did_not_measure_as_not_measured(bench, report):
    assert report["pdf"]["rows"]["recipe"] is None
    assert "| recipe: pymupdf4llm + LangChain splitters | not measured | — | — | — | — |" in bench.render_markdown(report)


def test_bench_shows_a_missing_scale_run_as_not_measured(bench, report):
    assert "scale" not in report
    assert "Scale: not measured (the run had `--scale 1`)." in bench.render_markdown(report)


def test_bench_shows_the_recipe_as_missing_when_its_packages_are(bench, report):
    missing = copy.deepcopy(report)
    missing["recipe_missing"] = "pymupdf4llm not installed: .venv/bin/pip install -e '.[bench]'"
    missing["markdown"]["rows"]["recipe"] = None
    assert "| recipe: LangChain header + recursive splitters | pymupdf4llm not installed" in bench.render_markdown(missing)


def test_bench_refuses_a_document_without_markers_and_says_what_to_add(bench, report):
    with pytest.raises(bench.BenchError, match=re.escape(bench.SECTION_BEGIN)):
        bench.replace_section("# Performance\n\nNo markers here.\n", bench.render_markdown(report), "docs/performance.md")


def test_performance_doc_has_the_markers_the_bench_writes_between(bench):
    text = (PROJECT / "docs" / "performance.md").read_text()
    assert text.count(bench.SECTION_BEGIN) == 1 and text.count(bench.SECTION_END) == 1
    assert text.index(bench.SECTION_BEGIN) < text.index(bench.SECTION_END)


def _summary_table(markdown: str) -> str:
    table = re.search(r"\| run \| latest \|\n(?:\|.*\|\n)+", markdown)
    assert table, "no table headed | run | latest |"
    return table.group(0)


def test_readme_carries_the_performance_summary_table(bench):
    """The README's copy of the table the bench writes; copy it again after a bench run."""
    performance = (PROJECT / "docs" / "performance.md").read_text().split(bench.SECTION_BEGIN, 1)[1]
    assert _summary_table((PROJECT / "README.md").read_text()) == _summary_table(performance)


def test_the_summary_carries_the_writers_peak_of_the_memory_runs_with_their_dates(bench, report):
    measured = copy.deepcopy(report)
    measured["writer_memory"] = {
        "date": "2026-12-06 03:40 UTC", "copies": 30, "files": 9360, "chunks": 182000, "workers": 2, "memory_limit": "4GB",
        "rss_main_mib": 3500.4, "rss_worker_mib": 112.0, "seconds": 300.2, "load_average_at_start": [2.5, 2.0, 1.0],
    }
    measured["million"] = {
        "date": "2026-12-06 04:00 UTC", "memory_limit": "4GB", "load_average_at_start": [3.0, 2.0, 1.0],
        "build": {"chunks": 1000620, "db_bytes": 16.0e9}, "nightly": {"seconds": 150.0, "rss_main_mib": 3400.0, "rss_other_mib": 87.0},
    }
    summary = _summary_table(bench.render_markdown(measured))
    assert ("| 30 copies, first run (9,360 files, 182,000 chunks, 2 workers; `bench/writer_memory.py`, 2026-12-06 03:40 UTC) "
            "| writer peak 3,500 MiB under `--memory-limit 4GB` (3,815 MiB), largest worker 112 MiB; 300 s at load 2.5 |") in summary
    assert ("| nightly run over 1,000,620 chunks (16.0 GB; `bench/million.py`, 2026-12-06 04:00 UTC) "
            "| writer peak 3,400 MiB under `--memory-limit 4GB` (3,815 MiB), largest worker 87 MiB; 150 s at load 3.0 |") in summary


def test_the_summary_leaves_out_the_memory_runs_that_were_not_made(bench, report):
    summary = _summary_table(bench.render_markdown(report))
    assert "bench/writer_memory.py" not in summary and "bench/million.py" not in summary
    assert "| peak RSS of the first runs above, writer / largest worker |" in summary
