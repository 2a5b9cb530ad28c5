"""`pipeline sql`: the user's own SQL over the published database, which it may read and nothing
else, each statement's result printed in turn as a table, row by row (vertical), csv or json."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated

import typer
from rich.cells import cell_len, set_cell_size

from pipeline.cli.app import DEFAULT_DB, DbOption, OutputFormat, app, json_text
from pipeline.errors import IndexingError, PipelineError

# DuckDB and the index load inside the command: every command, and --help, imports this module.
if TYPE_CHECKING:
    import duckdb

_READS_ALONE = (
    "`pipeline sql` reads the database and nothing else (no files, other databases, extensions, profiling or logging): "
    "export with `duckdb -readonly` on the file if that is what you need"
)
_EMPTY = 'the query is empty; pass a SQL statement, e.g. pipeline sql "SELECT count(*) FROM chunks"'


@app.command()
def sql(
    statement: Annotated[str, typer.Argument(help="SQL over the database's tables; several statements, separated by `;`, run in turn.")],
    db: DbOption = DEFAULT_DB,
    output: Annotated[
        OutputFormat,
        typer.Option(
            "--format",
            help="table: a row a line, cells cut at 60 characters, line breaks shown as \\n. vertical: a `column: value` "
            "line each, every value whole with its line breaks. csv. json: json writes null for NaN and Infinity, which "
            "JSON has no words for.",
        ),
    ] = OutputFormat.table,
) -> None:
    """Run a SQL query against the chunks database, which it can read and nothing else.

    The database is opened read-only, and files on disk (read_csv, COPY, ATTACH, EXPORT),
    extensions and DuckDB's profiling and logging are out of the query's reach. Several
    statements run one after another, and each one's result is printed in turn, a blank line
    between (with --format json, a JSON array each); the first that fails stops the rest.

    Example: pipeline sql "SELECT c.chunk_id, t.markdown FROM chunks c JOIN paper_tables t USING (chunk_id)" --format vertical
    """
    from pipeline.index.database import open_readonly, profiling_or_logging

    if not statement.strip(" \t\r\n;"):
        raise PipelineError(_EMPTY)
    setting = profiling_or_logging(statement)
    if setting is not None:
        raise IndexingError(
            f"the query failed: it sets DuckDB's profiling or logging ({setting}), which write files or to the terminal; {_READS_ALONE}"
        )
    with open_readonly(db) as connection:
        cut = False
        for number, (columns, rows) in enumerate(statement_results(connection, statement)):
            text, cut_here = format_rows(columns, rows, output)
            typer.echo(("\n" if number else "") + text)
            cut = cut or cut_here
    if cut:
        typer.echo(f"(Cells longer than {CELL_WIDTH} characters are cut, marked …: --format vertical shows every value whole.)", err=True)


def statement_results(connection: duckdb.DuckDBPyConnection, query: str) -> Iterator[tuple[list[str], list[tuple]]]:
    """Run each statement of `query` in turn; the columns and rows of each one that returns rows."""
    import duckdb

    try:
        statements = connection.extract_statements(query)
    except duckdb.Error as error:
        raise _failed(error, "") from None
    if not statements:
        raise PipelineError(_EMPTY)
    for number, statement in enumerate(statements, start=1):
        try:
            result = connection.execute(statement)
            columns = [column[0] for column in result.description or ()]
            rows = result.fetchall() if columns else []
        except duckdb.Error as error:
            raise _failed(error, f" at statement {number} of {len(statements)}" if len(statements) > 1 else "") from None
        # A lone, empty `Success` column is how DuckDB's Python API returns a statement that
        # returns nothing (SET, BEGIN, CHECKPOINT): no result to print.
        if columns and (columns, rows) != (["Success"], []):
            yield columns, rows


def _failed(error: duckdb.Error, where: str) -> IndexingError:
    """DuckDB's error as one line: its message and hints (`Candidate bindings: …`), without the
    query's line and the caret drawn under it, which would not line up in a one-line message."""
    import duckdb

    message = " ".join(str(error).split("\n\n")[0].split())
    advice = f"; {_READS_ALONE}" if isinstance(error, duckdb.PermissionException) else ""
    return IndexingError(f"the query failed{where}: {message}{advice}")


def format_rows(columns: list[str], rows: list[tuple], output: OutputFormat) -> tuple[str, bool]:
    """One statement's result in `output`'s format, and whether a table cut any cell."""
    if output == OutputFormat.json:
        return json_text([dict(zip(columns, row)) for row in rows], default=str), False
    if output == OutputFormat.csv:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(columns)
        writer.writerows(rows)
        return buffer.getvalue().rstrip("\n"), False
    if output == OutputFormat.vertical:
        return _vertical(columns, rows), False
    return _table(columns, rows)


CELL_WIDTH = 60
"""Cells wider than this are cut in the table format; vertical, csv and json give every value whole."""


def _table(columns: list[str], rows: list[tuple]) -> tuple[str, bool]:
    cells = [columns] + [[_cell(value) for value in row] for row in rows]
    # Widths in terminal cells, not characters: Hangul and CJK characters take two.
    widths = [min(CELL_WIDTH, max(cell_len(row[index]) for row in cells)) for index in range(len(columns))]
    lines = [" | ".join(_fitted(value, width) for value, width in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "-+-".join("-" * width for width in widths))
    cut = any(cell_len(value) > CELL_WIDTH for row in cells for value in row)
    return "\n".join(lines), cut


def _fitted(value: str, width: int) -> str:
    """`value` padded to `width` cells, or cut to it with `…` as its last cell."""
    return set_cell_size(value, width) if cell_len(value) <= width else set_cell_size(value, width - 1) + "…"


def _cell(value: object) -> str:
    """A value as one line of a table cell: NULL apart from an empty string, line breaks and tabs
    shown as `\\n` and `\\t` so that a row stays one line and its columns line up."""
    if value is None:
        return "NULL"
    return str(value).replace("\\", "\\\\").replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")


def _vertical(columns: list[str], rows: list[tuple]) -> str:
    """Each row under a `-[ row N ]` line, a `column: value` line each, the values whole: a
    value's further lines start under its first, so that where one value ends stays plain."""
    if not rows:
        return "(no rows)"
    width = max(cell_len(column) for column in columns) + 2
    blocks = []
    for number, row in enumerate(rows, start=1):
        lines = [f"-[ row {number} ]"]
        for column, value in zip(columns, row):
            first, *more = ("NULL" if value is None else str(value)).split("\n")
            lines.append(set_cell_size(f"{column}:", width) + first if first else f"{column}:")
            lines.extend(" " * width + line if line else "" for line in more)
        blocks.append("\n".join(lines))
    return "\n".join(blocks)
