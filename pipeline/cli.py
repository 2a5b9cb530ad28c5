"""The `pipeline` command: a thin typer layer over the library.

Results go to stdout; progress and status to stderr (`--quiet` silences them). A
`PipelineError` is printed as `Error: …` with a non-zero exit, never a traceback.
"""

from __future__ import annotations

import csv
import io
import json
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Annotated

import duckdb
import typer
from rich.cells import cell_len, set_cell_size
from rich.markup import escape

from pipeline import __version__
from pipeline.errors import EXIT_FILES_FAILED, IndexingError, PipelineError, RunStopped
from pipeline.export import ExportFormat, Selection, export_database
from pipeline.export import Unit as ExportUnit
from pipeline.index.database import open_readonly
from pipeline.crosslingual.command import DEFAULT_TIMEOUT_SECONDS
from pipeline.crosslingual.glossary import load_glossary
from pipeline.index.expand import expand
from pipeline.index.search import Unit, UnitFilters, search, why_nothing_matched
from pipeline.ingest.run import Engine, IngestOptions, RunSummary, available_cpus, ingest_folder
from pipeline.ingest.scan import doc_id_for
from pipeline.ingest.task import process_file
from pipeline.inspect import render_links, render_tree
from pipeline.models import DocumentStatus, SectionType
from pipeline.report import render_report
from pipeline.search_results import SearchRequest, hit_lines, query_lines, run_search
from pipeline.rules import DEFAULT_RULES_PATH, load_rules


class _ReportingErrors(typer.core.TyperGroup):
    """Every command's `PipelineError` becomes `Error: …` on stderr and the error's exit code,
    never a traceback: in this one place, not in each command."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except PipelineError as error:
            typer.echo(f"Error: {error}", err=True)
            raise typer.Exit(code=error.exit_code) from None


app = typer.Typer(
    cls=_ReportingErrors, add_completion=False, no_args_is_help=True, help="Scientific papers to heading-aware chunks in DuckDB."
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
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress or status on stderr.")]
EngineOption = Annotated[Engine, typer.Option("--engine", help="Where the stages run: this machine's processes, or Ray (the [ray] extra).")]
RayAddressOption = Annotated[
    str | None, typer.Option("--ray-address", help="With Ray: the cluster to join (auto, HOST:PORT); default: start one here.")
]


class OutputFormat(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"


def _one_line(text: str) -> str:
    """A log line that stays one line, whatever the file names in it hold."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def _failure(path: str, cause: str) -> str:
    """A file and why it failed, the file named once: causes mostly start with it already."""
    return cause if cause.startswith(path) else f"{path}: {cause}"


class _LineProgress:
    """Plain log lines, for cron and pipes."""

    def start(self, files: int, to_process: int) -> None:
        typer.echo(f"{files} files found, {to_process} to process", err=True)

    def file_done(self, path: str, status: DocumentStatus, pages: int, chunks: int, error: str | None) -> None:
        typer.echo(_one_line(f"{status:9} " + (_failure(path, error) if error else f"{path} ({chunks} chunks)")), err=True)


class _BarProgress:
    """A progress bar on a terminal: files, pages, pages/s and time left."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.pages = 0
        self.started = 0.0
        self.bar = Progress(
            TextColumn("[bold]ingest"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
            TimeRemainingColumn(), console=Console(stderr=True), transient=True,
        )

    def start(self, files: int, to_process: int) -> None:
        import time

        self.started = time.monotonic()
        self.bar.start()
        self.task = self.bar.add_task("files", total=to_process, rate="")

    def file_done(self, path: str, status: DocumentStatus, pages: int, chunks: int, error: str | None) -> None:
        import time

        self.pages += pages
        rate = self.pages / max(time.monotonic() - self.started, 1e-9)
        self.bar.update(self.task, advance=1, rate=f"{self.pages} pages, {rate:.0f} pages/s")
        if error:
            self.bar.console.print(f"[red]{status}[/red] {escape(_one_line(_failure(path, error)))}", markup=True, highlight=False)

    def stop(self) -> None:
        self.bar.stop()


@contextmanager
def _stopped_by_signals(db: Path) -> Iterator[None]:
    """SIGTERM (what cron, systemd and `kill` send) and Ctrl-C stop the run as an error does: the
    workers are stopped, the half-built copy is removed, and the command says so. Killed by its
    default action instead, the run left its copy behind and its workers' semaphores unreleased."""

    def stop(number: int, frame: object) -> None:
        raise RunStopped(signal.Signals(number).name, number, db)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    except KeyboardInterrupt:
        raise RunStopped("Ctrl-C (SIGINT)", signal.SIGINT, db) from None
    finally:
        signal.signal(signal.SIGTERM, previous)


@app.command()
def ingest(
    folder: Annotated[Path, typer.Argument(help="Folder of papers (*.md, *.pdf), searched recursively.")] = Path("corpus"),
    db: DbOption = DEFAULT_DB,
    rules: RulesOption = DEFAULT_RULES_PATH,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Processes for extract/normalize/chunk; default: the CPUs this process may use.")] = available_cpus(),
    timeout: Annotated[float, typer.Option("--timeout", min=1, help="Seconds one file may take before it is stopped and failed.")] = 300.0,
    allow_mass_removal: Annotated[bool, typer.Option("--allow-mass-removal", help="Let this run remove more than half of the stored papers.")] = False,
    quiet: QuietOption = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the run summary as JSON.")] = False,
    engine: EngineOption = Engine.local,
    ray_address: RayAddressOption = None,
) -> None:
    """Bring the database in line with the papers below FOLDER, and publish it atomically.

    New files are added, changed ones replaced, vanished ones removed, the rest skipped.

    Exit codes: 0 all ingested, 3 finished but some files failed, 1 the run could not complete
    (nothing published), 4 another ingest is running, 130 and 143 stopped by Ctrl-C or SIGTERM
    (nothing published).

    Example: pipeline ingest /papers --db out/papers.duckdb --workers 2
    (on Ray: --engine ray [--ray-address auto], with pip install '.[ray]'; see docs/scaling.md)
    """
    loaded = load_rules(rules)
    options = IngestOptions(
        workers=workers, timeout_seconds=timeout, allow_mass_removal=allow_mass_removal, engine=engine, ray_address=ray_address
    )
    progress = None if quiet else (_BarProgress() if sys.stderr.isatty() else _LineProgress())
    try:
        with _stopped_by_signals(db):
            summary = ingest_folder(folder, db, loaded, options, progress)
    finally:
        if isinstance(progress, _BarProgress):
            progress.stop()
    _print_summary(summary, quiet, as_json)


def _print_summary(summary: RunSummary, quiet: bool, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(summary.as_json(), indent=2, ensure_ascii=False))
    else:
        typer.echo(summary.line())
        if not quiet:
            for path, cause in {**summary.failed, **summary.still_failing}.items():
                typer.echo(_one_line(f"  failed: {_failure(path, cause)}"), err=True)
    if summary.failed or summary.still_failing:
        raise typer.Exit(code=EXIT_FILES_FAILED)


@app.command("export-shards")
def export_shards_command(
    folder: Annotated[Path, typer.Argument(help="Folder of papers (*.md, *.pdf), searched recursively.")],
    out: Annotated[Path, typer.Option("--out", help="Folder for the shards: <table>/<key>.parquet.")],
    rules: RulesOption = DEFAULT_RULES_PATH,
    workers: Annotated[int, typer.Option("--workers", min=1, help="CPUs of the local Ray (without --ray-address).")] = available_cpus(),
    timeout: Annotated[float, typer.Option("--timeout", min=1, help="Seconds one file may take before it is stopped and failed.")] = 300.0,
    ray_address: RayAddressOption = None,
    quiet: QuietOption = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the run summary as JSON.")] = False,
) -> None:
    """Run the stages on FOLDER's papers as Ray tasks and leave their rows as Parquet shards in --out.

    One folder a table, and no database built.

    Shards of papers no longer in FOLDER are deleted; groups of files already exported under
    these rules are not run again. Exit codes as for ingest.

    Example: pipeline export-shards /papers --out out/shards, then in DuckDB
    SELECT count(*) FROM read_parquet('out/shards/chunks/*.parquet')
    """
    from pipeline.ingest.export import export_shards  # imports Ray, an optional extra, only when asked

    options = IngestOptions(workers=workers, timeout_seconds=timeout, engine=Engine.ray, ray_address=ray_address)
    summary = export_shards(folder, out, load_rules(rules), options, None if quiet else _LineProgress())
    if summary.leftovers_removed and not quiet:
        typer.echo(f"removed {summary.leftovers_removed} shards of papers no longer in {folder}", err=True)
    _print_summary(summary, quiet, as_json)


@app.command("search")
def search_command(
    query: Annotated[str, typer.Argument(help="Words to look for (BM25 over heading and text).")],
    db: DbOption = DEFAULT_DB,
    rules: RulesOption = DEFAULT_RULES_PATH,
    section_type: Annotated[
        SectionType | None, typer.Option("--section-type", case_sensitive=False, help="Only chunks of this type.")
    ] = None,
    doc: Annotated[str | None, typer.Option("--doc", help="Only chunks of this doc_id.")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="How many results.")] = 10,
    everything: Annotated[bool, typer.Option("--all", help="Search the bibliography's entries too.")] = False,
    unit: Annotated[Unit, typer.Option("--unit", case_sensitive=False, help="Rank chunks, or paragraphs (each with its parent chunk).")] = Unit.chunk,
    window: Annotated[int, typer.Option("--window", min=0, help="With --unit paragraph: the paragraphs on either side of a hit, in its section.")] = 0,
    glossary: Annotated[Path | None, typer.Option("--glossary", help="Map the query's words first (TOML; e.g. rules/glossary-ko-en.toml).")] = None,
    translate_cmd: Annotated[
        str | None, typer.Option("--translate-cmd", help="A command that reads the query on stdin and writes the search query as one line.")
    ] = None,
    translate_timeout: Annotated[float, typer.Option("--translate-timeout", min=0.1, help="Seconds the translator may take.")] = DEFAULT_TIMEOUT_SECONDS,
    follow: Annotated[bool, typer.Option("--expand", help="After each hit, the chunks it links to (Table 2, Section 4).")] = False,
    depth: Annotated[int, typer.Option("--depth", min=1, help="With --expand: how many links deep.")] = 2,
    most: Annotated[int, typer.Option("--expand-limit", min=1, help="With --expand: the most chunks shown after a hit.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print results as JSON.")] = False,
) -> None:
    """BM25-ranked chunks (or paragraphs) for QUERY, with where each came from.

    British and American spellings find each other (the rules' [search] pairs), and a "quoted
    phrase" must occur as written. The bibliography's entries are left out unless asked (--all,
    --section-type meta). --unit paragraph ranks paragraphs, each with its parent chunk, and
    --window N adds N paragraphs on either side. --glossary maps a query in another language to the
    papers' terms, --translate-cmd asks a translator of yours (falling back to the glossary). With
    --json: the query as typed, the search query run, what mapped, and each hit with its text, its
    `source` and, apart from it, what the paper's own bibliography says its markers cite.

    Example: pipeline search "메타분석의 신뢰구간" --glossary rules/glossary-ko-en.toml --unit paragraph
    """
    if window and unit is not Unit.paragraph:
        raise typer.BadParameter("--window needs --unit paragraph", param_hint="--window")
    filters = UnitFilters(section_type.value if section_type else None, doc, everything)
    request = SearchRequest(query, unit, filters, limit, window, follow, depth, most, translate_cmd, translate_timeout)
    loaded = load_glossary(glossary) if glossary is not None else None
    results = run_search(open_readonly(db), request, load_rules(rules).search, loaded)
    if as_json:
        typer.echo(json.dumps(results.as_json(), indent=2, ensure_ascii=False))
        return
    for note in results.prepared.notes:
        typer.echo(_one_line(f"({note}.)"), err=True)
    if not everything and filters.section_type != "meta":
        typer.echo("(The bibliography's entries are left out: --all or --section-type meta searches them too.)", err=True)
    if glossary is not None or translate_cmd is not None:
        typer.echo("\n".join(query_lines(results.prepared)))
    if results.nothing_found is not None:
        shown = query if len(query) <= _SHOWN_QUERY else query[:_SHOWN_QUERY] + "…"
        typer.echo(_one_line(f"No {unit.value}s match {shown!r}: {results.nothing_found}."), err=True)
        return
    typer.echo("\n".join(hit_lines(results)))


_SHOWN_QUERY = 80
"""Characters of a query a message repeats; a longer one is cut."""


def _format_rows(columns: list[str], rows: list[tuple], output: OutputFormat) -> str:
    if output == OutputFormat.json:
        return json.dumps([dict(zip(columns, row)) for row in rows], indent=2, default=str, ensure_ascii=False)
    if output == OutputFormat.csv:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(columns)
        writer.writerows(rows)
        return buffer.getvalue().rstrip("\n")
    cells = [columns] + [[_cell(value) for value in row] for row in rows]
    # Widths in terminal cells, not characters: Hangul and CJK characters take two.
    widths = [min(_CELL_WIDTH, max(cell_len(row[index]) for row in cells)) for index in range(len(columns))]
    lines = [" | ".join(set_cell_size(value, width) for value, width in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "-+-".join("-" * width for width in widths))
    return "\n".join(lines)


_CELL_WIDTH = 60
"""Cells wider than this are cut in the table format; csv and json give every value whole."""


def _cell(value: object) -> str:
    """A value as one line of a table cell: NULL apart from an empty string, line breaks shown
    as `\\n` so that a row stays one line."""
    if value is None:
        return "NULL"
    return str(value).replace("\\", "\\\\").replace("\r", "\\r").replace("\n", "\\n")


@app.command()
def sql(
    statement: Annotated[str, typer.Argument(help="A SQL query over the database's tables.")],
    db: DbOption = DEFAULT_DB,
    output: Annotated[OutputFormat, typer.Option("--format", help="Output format.")] = OutputFormat.table,
) -> None:
    """Run a SQL query against the chunks database, which it can read and nothing else.

    The database is opened read-only, and files on disk (read_csv, COPY, ATTACH, EXPORT) and
    extensions are out of the query's reach.

    Example: pipeline sql "SELECT section_type, count(*) FROM chunks GROUP BY 1"
    """
    if not statement.strip(" \t\r\n;"):
        raise PipelineError('the query is empty; pass a SQL statement, e.g. pipeline sql "SELECT count(*) FROM chunks"')
    connection = open_readonly(db)
    try:
        result = connection.execute(statement)
    except duckdb.PermissionException as error:
        raise IndexingError(
            f"the query failed: {error}; `pipeline sql` reads the database and nothing else (no files, "
            "other databases or extensions): export with `duckdb -readonly` on the file if that is what you need"
        ) from None
    except duckdb.Error as error:
        raise IndexingError(f"the query failed: {error}") from None
    if result.description is None:
        return
    columns = [column[0] for column in result.description]
    rows = result.fetchall()
    typer.echo(_format_rows(columns, rows, output))


@app.command("inspect")
def inspect_command(
    file: Annotated[Path, typer.Argument(help="One paper (*.md or *.pdf).")],
    rules: RulesOption = DEFAULT_RULES_PATH,
    as_json: Annotated[bool, typer.Option("--json", help="Sections and chunks as JSON.")] = False,
    with_links: Annotated[bool, typer.Option("--links", help="Each chunk's citations and cross-references instead.")] = False,
) -> None:
    """Show the heading tree and every chunking decision for one paper (no database needed).

    Example: pipeline inspect corpus/flat/lee-2022.md
    """
    loaded = load_rules(rules)
    if not file.is_file():
        raise PipelineError(f"{file}: no such file; pass the path of a paper")
    chunked = process_file(file, file.name, doc_id_for(file.name), loaded)
    if as_json:
        typer.echo(chunked.model_dump_json(indent=2, exclude={"document": {"text", "blocks"}}))
    elif with_links:
        typer.echo(render_links(chunked))
    else:
        typer.echo(render_tree(chunked))


@app.command("export")
def export_command(
    out: Annotated[Path, typer.Option("--out", help="File to write (replaced whole once written).")],
    export_format: Annotated[ExportFormat, typer.Option("--format", help="jsonl: a header line, then a record a line; parquet: a record a row.")] = ExportFormat.jsonl,
    db: DbOption = DEFAULT_DB,
    section_types: Annotated[
        list[SectionType] | None, typer.Option("--section-type", case_sensitive=False, help="Only records of this type (repeat for more).")
    ] = None,
    everything: Annotated[bool, typer.Option("--all", help="The bibliography's entries too.")] = False,
    since: Annotated[int | None, typer.Option("--since", min=1, help="Only records added or changed after this run (ids removed: in the header).")] = None,
    unit: Annotated[ExportUnit, typer.Option("--unit", help="chunk, or paragraph (each with its parent chunk).")] = ExportUnit.chunk,
    window: Annotated[int, typer.Option("--window", min=0, help="With --unit paragraph: the N paragraphs either side, in `window`.")] = 0,
    quiet: QuietOption = False,
) -> None:
    """Export chunks (or paragraphs) with their metadata, for a RAG layer or a vector store.

    Each record: `id`, `text` and `metadata` (paper, title, heading path, section, paragraphs,
    pages or lines, offsets, split reason, the entries its markers cite). The bibliography's
    entries are left out unless asked (--all, --section-type meta), as search leaves them out.
    The header (Parquet: key-value metadata) names the pipeline, the rules and the run.

    Example: pipeline export --format parquet --out out/chunks.parquet --since 3
    """
    if window and unit is not ExportUnit.paragraph:
        raise PipelineError("--window takes the neighbouring paragraphs: use it with --unit paragraph")
    selection = Selection(
        unit=unit, section_types=tuple(dict.fromkeys(kind.value for kind in section_types or ())),
        include_bibliography=everything, window=window, since_run_id=since,
    )
    summary = export_database(db, out, export_format, selection)
    if not quiet:
        typer.echo(summary.line(), err=True)


@app.command()
def report(db: DbOption = DEFAULT_DB, rules: RulesOption = DEFAULT_RULES_PATH) -> None:
    """Chunks by section type per paper, the last runs, failing files, and chunk sizes.

    Chunk sizes are counted against the targets of the rules file (--rules).

    Example: pipeline report --db out/papers.duckdb
    """
    typer.echo(render_report(open_readonly(db), load_rules(rules).chunk))


@app.command("audit")
def audit_command(
    page: Annotated[Path, typer.Argument(help="A Markdown page or answer that cites chunks (\\[chunk:ID], [^ID], [^n] footnotes).")],
    db: DbOption = DEFAULT_DB,
    judge: Annotated[str, typer.Option("--judge", help="lexical (word overlap, no model), cmd:'COMMAND' (JSON lines in and out) or hf:PATH (a local NLI model).")] = "lexical",
    threshold: Annotated[float | None, typer.Option("--threshold", min=0, max=1, help="Score from which the judge counts support; default 0.6 for lexical, 0.5 otherwise.")] = None,
    window: Annotated[int | None, typer.Option("--window", min=1, help="With cmd: the most words of passages sent per pair (cut, and said so).")] = None,
    timeout: Annotated[float, typer.Option("--timeout", min=1, help="With cmd: seconds one batch of pairs may take.")] = 120.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Check a generated page's sentences against the chunks they cite (ALCE citation recall, precision).

    Every sentence is listed with its verdict, the judge's score and its passages. The default judge measures lexical overlap (content words and numbers), not entailment: it
    catches a changed number but not a negation or a reversed effect. See docs/audit.md.

    Example: pipeline audit wiki/ovarian-cancer.md --db out/papers.duckdb --judge cmd:'python nli.py'
    """
    from pipeline.audit import audit_page
    from pipeline.audit.judges import make_judge
    from pipeline.audit.render import render_audit
    from pipeline.errors import AuditError

    try:
        text = page.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        cause = error.strerror if isinstance(error, OSError) else "it is not UTF-8 text"
        raise AuditError(f"cannot read {page}: {cause}; pass a Markdown file in UTF-8") from None
    report = audit_page(text, str(page), open_readonly(db), make_judge(judge, threshold, window, timeout))
    typer.echo(report.model_dump_json(indent=2) if as_json else render_audit(report))
