"""Patterns that a long run of one character can make take minutes, as a heading of 160,000 dots
and spaces once stalled `inspect`. Each test gives the code that holds such a pattern a 200 KB
run; a linear pattern reads it in milliseconds and a quadratic one in minutes, so a bound of
seconds tells them apart without flaking. `bench/pattern_growth.py` sweeps every pattern of the
rules and of the package over such runs and prints how their time grows."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from typer.testing import CliRunner

from conftest import chunk_markdown
from pipeline.cli import app
from pipeline.index.terms import index_words
from pipeline.text.heading_key import heading_key

runner = CliRunner()
LONG = 200_000
"""Characters in an adversarial run: minutes for a quadratic pattern, milliseconds for a linear one."""
BOUND = 10
"""Seconds a linear pass over a long run may take, a hundred times what it needs."""


@contextmanager
def finishes_within(seconds: int) -> Iterator[None]:
    """Fail the test at `seconds` instead of waiting the minutes a quadratic pattern takes."""

    def stop(*_: object) -> None:
        raise TimeoutError(f"still running after {seconds} s: super-linear on a long run")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _run(fill: str, length: int = LONG) -> str:
    return (fill * length)[:length]


@pytest.mark.parametrize("fill", [".", ". ", "-", ":;,", "<"])
def test_a_heading_key_is_found_in_linear_time_in_a_long_run_of_punctuation(fill):
    with finishes_within(BOUND):
        key = heading_key("Methods" + _run(fill) + "x")
    assert key.startswith("methods") and key.endswith("x")


def test_a_heading_key_drops_a_long_run_of_trailing_punctuation():
    with finishes_within(BOUND):
        assert heading_key("Methods" + _run(". ")) == "methods"


def test_inspect_of_a_160_kb_heading_of_dots_and_spaces_finishes(tmp_path):
    paper = tmp_path / "dots.md"
    paper.write_text("# Methods" + _run(". ", 160_000) + "x\n\nText.\n")
    with finishes_within(BOUND):
        result = runner.invoke(app, ["inspect", str(paper)])
    assert result.exit_code == 0, result.output


def test_a_line_that_ends_in_a_hyphen_after_a_long_word_is_read_in_linear_time(rules):
    with finishes_within(BOUND):
        chunked = chunk_markdown("# T\n\n## Results\n\n" + _run("a") + ".-\nnext word.\n", rules)
    assert chunked.chunks[-1].text.endswith(".- next word.")


def test_the_index_words_of_a_long_word_before_a_dash_and_a_slash_are_read_in_linear_time():
    with finishes_within(BOUND):
        found = index_words(_run("a") + "-/ fdg-pet/ct")
    assert found[-3:] == ["fdg", "pet", "ct"]


@pytest.mark.parametrize("fill", ["a1,", "a.1", "1,", "a1-", "<sup>1", "^1", "[^1"])
def test_superscripts_flattened_or_written_out_are_read_in_linear_time_in_a_long_run(rules, fill):
    with finishes_within(BOUND):
        chunk_markdown("# T\n\n## Results\n\nAs trials" + _run(fill) + "x.\n\n## References\n\n1. Park J. One. 2019\n", rules)
