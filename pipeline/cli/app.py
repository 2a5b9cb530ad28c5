"""The `pipeline` command's frame: the typer app, the options its commands share, and the one
place a `PipelineError` becomes `Error: …` and an exit code."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from pipeline import __version__
from pipeline.errors import PipelineError
from pipeline.ingest.options import Engine
from pipeline.records.kinds import LayoutMode, OcrMode


class _ReportingErrors(typer.core.TyperGroup):
    """Every command's `PipelineError` becomes `Error: …` on stderr and the error's exit code,
    never a traceback: in this one place, not in each command."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except PipelineError as error:
            typer.echo(f"Error: {error}", err=True)
            raise typer.Exit(code=error.exit_code) from None

    def format_commands(self, ctx, formatter) -> None:
        """Each command with its first paragraph whole, wrapped: click would cut it at the width."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, " ".join((command.help or "").split("\n\n")[0].split())))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


# Plain help, not rich's: rich keeps a docstring's own line breaks inside a paragraph, so every
# paragraph after the first came out broken short at the source's line ends.
app = typer.Typer(
    cls=_ReportingErrors, add_completion=False, no_args_is_help=True, rich_markup_mode=None,
    help="Scientific papers to heading-aware chunks in DuckDB.",
)


def _print_version(asked: bool) -> None:
    if asked:
        typer.echo(f"pipeline {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Scientific papers to heading-aware chunks in DuckDB."""

DEFAULT_DB = Path("out/papers.duckdb")
DbOption = Annotated[Path, typer.Option("--db", help="DuckDB database file.")]
RulesOption = Annotated[Path, typer.Option("--rules", help="Rules file (TOML).")]
LayoutOption = Annotated[
    LayoutMode | None,
    typer.Option(
        "--layout",
        help="How PDF layout is read: rules (typography alone), model (PyMuPDF's layout model on every page beside it), "
        "auto (the model where typography's reading is doubtful); default: the rules' [pdf.layout] mode, auto.",
    ),
]
OcrOption = Annotated[
    OcrMode | None,
    typer.Option(
        "--ocr",
        help="Which PDF pages are read by OCR: auto (pages without a text layer, or whose layer is not text, where the "
        "[ocr] extra is installed), off (none: a scan stays a no_text row), force (every page); default: the rules' "
        "[pdf.ocr] mode, auto.",
    ),
]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress or status on stderr.")]
FolderOption = Annotated[
    Path | None, typer.Option("--folder", help="Where the papers are now, if not in the folder the last ingest read.")
]
EngineOption = Annotated[Engine, typer.Option("--engine", help="Where the stages run: this machine's processes, or Ray (the [ray] extra).")]
RayAddressOption = Annotated[
    str | None, typer.Option("--ray-address", help="With Ray: the cluster to join (auto, HOST:PORT); default: start one here.")
]


class OutputFormat(str, Enum):
    table = "table"
    vertical = "vertical"
    csv = "csv"
    json = "json"


def one_line(text: str) -> str:
    """A log line that stays one line, whatever the file names in it hold."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def file_and_cause(path: str, cause: str) -> str:
    """A file and why it failed, the file named once: causes mostly start with it already."""
    return cause if cause.startswith(path) else f"{path}: {cause}"


def json_text(value: object, default: Callable[[object], object] | None = None) -> str:
    """`value` as indented JSON, every `--json` output's one way out: NaN and ±Infinity become
    null, as JSON has no words for them (Python's `json` writes `NaN`, which parsers refuse)."""
    return json.dumps(_finite(value), indent=2, ensure_ascii=False, allow_nan=False, default=default)


def _finite(value: object) -> object:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value
