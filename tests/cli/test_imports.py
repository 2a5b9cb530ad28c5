"""What each command imports: `--help` and the commands that read the database load neither the
stages that write it (extract, normalize, metadata, bibliography, chunk, link) nor the run
(ingest), nor the heavy libraries only those use. Checked on the import graph, in a fresh
process per command, never by the clock; docs/performance.md has what each command costs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from conftest import PROJECT
from pipeline.cli import app

WRITING_STAGES = ("pipeline.extract", "pipeline.normalize", "pipeline.metadata", "pipeline.bibliography", "pipeline.chunk", "pipeline.link")
RUN_OPTIONS = "pipeline.ingest.options"
"""The one module of the run every command loads: `ingest`'s options and their defaults (a
dataclass and an enum), which the command line builds its options from."""
HEAVY_LIBRARIES = ("fitz", "pymupdf", "markdown_it", "matplotlib", "lightgbm", "ray", "numpy", "yaml", "pebble", "rich.markup", "rich.progress")
HELP_NEEDS_NONE_OF = ("duckdb", "pydantic", "pipeline.rules", "pipeline.records.base", "pipeline.index.search")
"""`--help` opens no database and reads no rules: typer builds every command's options, and
nothing more."""

PAPER = """# A small paper

## Introduction

Interleukin 6 rises after surgery.

## Methods

We measured interleukin 6 in forty patients.
"""

# Run as the `pipeline` command does; the modules it loaded go to the file named first.
PROBE = """
import json, sys
from pathlib import Path
listing = Path(sys.argv.pop(1))
sys.argv[0] = "pipeline"
from pipeline.__main__ import main
try:
    main()
except SystemExit as stop:
    listing.write_text(json.dumps({"exit": stop.code or 0, "modules": sorted(sys.modules)}))
"""


@pytest.fixture(scope="module")
def papers(tmp_path_factory):
    """A database of one Markdown paper, and the folder it was ingested from."""
    folder = tmp_path_factory.mktemp("imports")
    (folder / "papers").mkdir()
    (folder / "papers" / "paper.md").write_text(PAPER, encoding="utf-8")
    result = CliRunner().invoke(app, ["ingest", str(folder / "papers"), "--db", str(folder / "papers.duckdb"), "--quiet"])
    assert result.exit_code == 0, result.output
    return folder


def _modules_loaded_by(folder, *arguments: str) -> list[str]:
    listing = folder / "modules.json"
    environment = {**os.environ, "PYTHONPATH": str(PROJECT)}
    subprocess.run([sys.executable, "-c", PROBE, str(listing), *arguments], cwd=folder, env=environment, capture_output=True, check=True)
    loaded = json.loads(listing.read_text())
    assert loaded["exit"] == 0, arguments
    return loaded["modules"]


def _under(modules: list[str], packages: tuple[str, ...]) -> list[str]:
    return [module for module in modules if module.startswith(tuple(f"{package}." for package in packages)) or module in packages]


def _not_for_reading(modules: list[str]) -> list[str]:
    run = [module for module in _under(modules, ("pipeline.ingest",)) if module not in ("pipeline.ingest", RUN_OPTIONS)]
    return _under(modules, WRITING_STAGES) + run + _under(modules, HEAVY_LIBRARIES)


READING_COMMANDS = {
    "search": ["search", "interleukin", "--db", "papers.duckdb"],
    "search --unit paragraph --expand": ["search", "interleukin", "--db", "papers.duckdb", "--unit", "paragraph", "--expand"],
    "sql": ["sql", "SELECT count(*) FROM chunks", "--db", "papers.duckdb"],
    "show": ["show", "paper.md:2", "--db", "papers.duckdb", "--folder", "papers", "--out", "shown.html"],
    "report": ["report", "--db", "papers.duckdb"],
    "export": ["export", "--out", "chunks.jsonl", "--db", "papers.duckdb", "--quiet"],
}


def test_help_loads_no_stage_no_database_and_no_rules(papers):
    loaded = _modules_loaded_by(papers, "--help")
    assert "pipeline.cli.query" in loaded
    assert _not_for_reading(loaded) + _under(loaded, HELP_NEEDS_NONE_OF) == []


@pytest.mark.parametrize("command", READING_COMMANDS.values(), ids=READING_COMMANDS.keys())
def test_a_command_that_reads_the_database_loads_no_stage_that_writes_it(papers, command):
    loaded = _modules_loaded_by(papers, *command)
    assert "duckdb" in loaded
    assert _not_for_reading(loaded) == []


@pytest.mark.parametrize("command", ["sql", "show", "export"])
def test_a_command_that_takes_no_rules_loads_none(papers, command):
    loaded = _modules_loaded_by(papers, *READING_COMMANDS[command])
    assert "pipeline.cli.query" in loaded
    assert _under(loaded, ("pipeline.rules",)) == []


def test_inspect_still_loads_the_stages_it_runs(papers):
    loaded = _modules_loaded_by(papers, "inspect", "papers/paper.md")
    assert {"pipeline.extract", "pipeline.chunk", "pipeline.link"} <= set(loaded)


@pytest.mark.parametrize(("command", "table"), [("search", "pipeline.rules.search"), ("report", "pipeline.rules.chunk_sizes")])
def test_search_and_report_read_their_own_rules_table_alone(papers, command, table):
    """`search` validates `[search]`, `report` `[chunk]`, and nothing else: no table of the
    ingest's is built, and the PDF, metadata and bibliography rules are not imported."""
    loaded = _modules_loaded_by(papers, *READING_COMMANDS[command])
    assert table in loaded
    assert [module for module in ("pipeline.rules.tables", "pipeline.rules.pdf", "pipeline.rules.metadata", "pipeline.rules.sources") if module in loaded] == []
