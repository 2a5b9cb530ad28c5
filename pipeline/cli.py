"""The `pipeline` command: a thin typer layer over the library.

Results go to stdout; progress and status to stderr (`--quiet` silences them). A
`PipelineError` is printed as `Error: …` with a non-zero exit, never a traceback.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import duckdb
import typer

from pipeline.errors import IndexingError, PipelineError
from pipeline.index import connect, search
from pipeline.inspect import render_tree
from pipeline.ingest import doc_id_for, ingest_folder, process_file
from pipeline.report import render_report
from pipeline.rules import DEFAULT_RULES_PATH, load_rules

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Scientific papers to heading-aware chunks in DuckDB.")

DEFAULT_DB = Path("out/papers.duckdb")
DbOption = Annotated[Path, typer.Option("--db", help="DuckDB database file.")]
RulesOption = Annotated[Path, typer.Option("--rules", help="Rules file (TOML).")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress or status on stderr.")]


class OutputFormat(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"


class SectionTypeChoice(str, Enum):
    intro = "intro"
    methods = "methods"
    results = "results"
    discussion = "discussion"
    conclusion = "conclusion"
    meta = "meta"
    figure_caption = "figure_caption"
    other = "other"


def _fail(error: Exception) -> typer.Exit:
    typer.echo(f"Error: {error}", err=True)
    return typer.Exit(code=1)


@app.command()
def ingest(
    folder: Annotated[Path, typer.Argument(help="Folder of papers (*.md, *.pdf), searched recursively.")] = Path("corpus"),
    db: DbOption = DEFAULT_DB,
    rules: RulesOption = DEFAULT_RULES_PATH,
    quiet: QuietOption = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Ingest every paper below FOLDER into the database and rebuild the search index.

    Example: pipeline ingest corpus --db out/papers.duckdb
    """
    try:
        loaded = load_rules(rules)
        progress = (lambda message: None) if quiet else (lambda message: typer.echo(message, err=True))
        summary = ingest_folder(folder, db, loaded, progress)
    except PipelineError as error:
        raise _fail(error) from None
    if as_json:
        typer.echo(json.dumps({**summary.__dict__, "section_types": dict(summary.section_types)}, indent=2))
    else:
        typer.echo(summary.line())
        for path, cause in summary.failed.items():
            typer.echo(f"  failed: {cause}", err=True)
    if summary.failed:
        raise typer.Exit(code=3)


@app.command("search")
def search_command(
    query: Annotated[str, typer.Argument(help="Words to look for (BM25 over heading and text).")],
    db: DbOption = DEFAULT_DB,
    section_type: Annotated[SectionTypeChoice | None, typer.Option("--section-type", help="Only chunks of this type.")] = None,
    doc: Annotated[str | None, typer.Option("--doc", help="Only chunks of this doc_id.")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="How many results.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print results as JSON.")] = False,
) -> None:
    """BM25-ranked chunks for QUERY, with where each came from.

    Example: pipeline search "IL-6" --section-type results --limit 5
    """
    try:
        connection = connect(db, read_only=True)
        hits = search(connection, query, section_type.value if section_type else None, doc, limit)
    except PipelineError as error:
        raise _fail(error) from None
    if as_json:
        typer.echo(json.dumps([hit.__dict__ for hit in hits], indent=2, ensure_ascii=False))
        return
    if not hits:
        typer.echo(f"No chunks match {query!r}.", err=True)
        return
    for hit in hits:
        where = f"pages {hit.page_start}-{hit.page_end}" if hit.page_start else f"lines {hit.line_start}-{hit.line_end}"
        typer.echo(f"{hit.score:6.2f}  {hit.chunk_id}  [{hit.section_type}]  {hit.path} ({where})")
        typer.echo(f"        {' › '.join(hit.heading_path) or '(front matter)'}")
        typer.echo(f"        {hit.snippet}\n")


def _format_rows(columns: list[str], rows: list[tuple], output: OutputFormat) -> str:
    if output == OutputFormat.json:
        return json.dumps([dict(zip(columns, row)) for row in rows], indent=2, default=str, ensure_ascii=False)
    if output == OutputFormat.csv:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(columns)
        writer.writerows(rows)
        return buffer.getvalue().rstrip("\n")
    cells = [columns] + [["" if value is None else str(value) for value in row] for row in rows]
    widths = [min(60, max(len(row[index]) for row in cells)) for index in range(len(columns))]
    lines = [" | ".join(value[:60].ljust(width) for value, width in zip(row, widths)) for row in cells]
    lines.insert(1, "-+-".join("-" * width for width in widths))
    return "\n".join(lines)


@app.command()
def sql(
    statement: Annotated[str, typer.Argument(help="A SQL query; the database is opened read-only.")],
    db: DbOption = DEFAULT_DB,
    output: Annotated[OutputFormat, typer.Option("--format", help="Output format.")] = OutputFormat.table,
) -> None:
    """Run a read-only SQL query against the chunks database.

    Example: pipeline sql "SELECT section_type, count(*) FROM chunks GROUP BY 1"
    """
    try:
        connection = connect(db, read_only=True)
        try:
            result = connection.execute(statement)
        except duckdb.Error as error:
            raise IndexingError(f"the query failed: {error}") from None
        if result.description is None:
            return
        columns = [column[0] for column in result.description]
        rows = result.fetchall()
    except PipelineError as error:
        raise _fail(error) from None
    typer.echo(_format_rows(columns, rows, output))


@app.command("inspect")
def inspect_command(
    file: Annotated[Path, typer.Argument(help="One paper (*.md or *.pdf).")],
    rules: RulesOption = DEFAULT_RULES_PATH,
    as_json: Annotated[bool, typer.Option("--json", help="Sections and chunks as JSON.")] = False,
) -> None:
    """Show the heading tree and every chunking decision for one paper (no database needed).

    Example: pipeline inspect corpus/flat/lee-2022.md
    """
    try:
        loaded = load_rules(rules)
        if not file.is_file():
            raise PipelineError(f"{file}: no such file; pass the path of a paper")
        chunked = process_file(file, file.name, doc_id_for(file.name), loaded)
    except PipelineError as error:
        raise _fail(error) from None
    if as_json:
        typer.echo(chunked.model_dump_json(indent=2, exclude={"document": {"text", "blocks"}}))
    else:
        typer.echo(render_tree(chunked))


@app.command()
def report(db: DbOption = DEFAULT_DB) -> None:
    """Per paper: chunks by section_type, and the chunk size distribution.

    Example: pipeline report --db out/papers.duckdb
    """
    try:
        connection = connect(db, read_only=True)
        typer.echo(render_report(connection))
    except PipelineError as error:
        raise _fail(error) from None


def main() -> None:  # pragma: no cover - console entry
    app(prog_name="pipeline")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
