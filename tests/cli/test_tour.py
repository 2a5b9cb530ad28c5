"""The README's tour and its examples, run as a newcomer runs them: in a project folder where the
first set-up command has ingested `corpus/` once, with none of the optional extras installed."""

from __future__ import annotations

import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from conftest import PROJECT
from pipeline.cli import app

README = (PROJECT / "README.md").read_text()
# What the first set-up command (`pip install -e .`) leaves out: the optional extras' packages.
EXTRAS_MODULES = ("matplotlib", "kiwipiepy", "kiwipiepy_model", "lightgbm", "ray", "langchain_core", "llama_index", "transformers", "torch")
# What the tour reads from the project folder besides the papers.
PROJECT_FOLDERS = ("corpus", "rules", "docs")


@dataclass(frozen=True)
class Ran:
    command: str
    exit_code: int
    output: str


def _section(title: str) -> str:
    return README.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


def _tour_commands() -> list[str]:
    block = re.search(r"```\n(.+?)\n```", _section("A short tour"), re.S)[1]
    return block.splitlines()


def _run(command: str) -> Ran:
    """A README line as the shell would split it, comments left out, run by the CLI in this process."""
    words = shlex.split(command, comments=True)
    assert words[0] == "pipeline", command
    result = CliRunner().invoke(app, words[1:])
    return Ran(command, result.exit_code, result.output)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A project folder after the first set-up command: the sample papers ingested into out/papers.duckdb."""
    folder = tmp_path_factory.mktemp("project")
    for name in PROJECT_FOLDERS:
        (folder / name).symlink_to(PROJECT / name)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        assert _run("pipeline ingest corpus").exit_code == 0
    return folder


@pytest.fixture(scope="module")
def toured(project) -> list[Ran]:
    """Every command of the tour, in order, as the README writes it, without the extras."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project)
        for module in EXTRAS_MODULES:
            patch.setitem(sys.modules, module, None)
        return [_run(command) for command in _tour_commands()]


def test_every_tour_command_runs_on_the_readmes_own_install(toured):
    assert [(ran.command, ran.exit_code) for ran in toured if ran.exit_code != 0] == []


def test_the_tour_writes_nothing_outside_out(project, toured):
    assert sorted(path.name for path in project.iterdir()) == sorted([*PROJECT_FOLDERS, "out"])


def test_the_tours_html_report_says_which_extra_adds_its_plots(toured):
    (report,) = [ran for ran in toured if "--html" in ran.command]
    assert "plots left out: matplotlib is not installed; pip install -e '.[report]' from the project folder adds them" in report.output


def test_the_readme_names_the_folder_the_html_report_writes_beside_its_page(project, toured):
    assert (project / "out" / "report_files").is_dir()
    assert "`report_files/` for `report.html`" in _section("Seeing where a chunk came from")
    assert "self-contained page" not in README


def test_the_wiki_sections_commands_run_after_the_first_set_up(tmp_path, monkeypatch):
    for name in PROJECT_FOLDERS:
        (tmp_path / name).symlink_to(PROJECT / name)
    monkeypatch.chdir(tmp_path)
    assert _run("pipeline ingest corpus").exit_code == 0
    commands = re.findall(r"^    (pipeline .+)$", _section("Feeding a wiki or RAG layer"), re.M)
    assert [(ran.command, ran.exit_code, ran.output) for ran in map(_run, commands) if ran.exit_code != 0] == []


def _sql_examples() -> list[tuple[str, str]]:
    """The README's SQL examples: (their comment, the query)."""
    block = re.search(r"```sql\n(.+?)\n```", README, re.S)[1]
    examples = []
    for part in filter(str.strip, block.split(";")):
        lines = part.strip().splitlines()
        comment = " ".join(line.removeprefix("-- ") for line in lines if line.startswith("--"))
        examples.append((comment, "\n".join(line for line in lines if not line.startswith("--"))))
    return examples


@pytest.mark.parametrize(("comment", "query"), _sql_examples(), ids=lambda value: value[:40])
def test_each_sql_example_shows_rows_on_corpus_or_says_it_shows_none(project, comment, query):
    rows = duckdb.connect(str(project / "out" / "papers.duckdb"), read_only=True).execute(query).fetchall()
    assert rows or "no rows on corpus/" in comment
