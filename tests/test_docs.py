"""The README's promises: its two set-up commands, and that CI runs the same test command."""

from __future__ import annotations

import re

from conftest import PROJECT


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
