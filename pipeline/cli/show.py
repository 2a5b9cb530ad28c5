"""`pipeline show`: where a chunk came from, drawn on its PDF pages or marked in its Markdown source."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pipeline.cli.app import DEFAULT_DB, DbOption, FolderOption, app


@app.command("show")
def show_command(
    chunk_id: Annotated[str, typer.Argument(help="A chunk's id, <doc_id>:<number> as search prints it (reviews/berek-2021.md:3).")],
    db: DbOption = DEFAULT_DB,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="File to write: .png or .html for a PDF chunk, .html or .txt for Markdown. Default: out/show/<chunk>.png (.html). Never the database or its .wal or .lock: refused."),
    ] = None,
    folder: FolderOption = None,
) -> None:
    """Draw a chunk where it came from, and print the path of the picture.

    A PDF chunk: its pages, its boxes filled and the chunks before and after it outlined, under a
    caption with its ids and heading path (and, where OCR read its text, its pages' text source
    and the least confidence of its OCR'd lines). A Markdown chunk: its source lines, marked. The file
    must be the one ingested (its sha256 is checked), or nothing is drawn.

    Example: pipeline show two_column.pdf:4 --out chunk.png
    """
    from pipeline.index.database import open_readonly  # here: every command, and --help, imports this module
    from pipeline.report.show import show_chunk

    with open_readonly(db) as connection:
        typer.echo(str(show_chunk(connection, chunk_id, out, folder)))
