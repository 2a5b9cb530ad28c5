"""`pipeline ingest` and `pipeline export-shards`: a run over a folder, its progress on stderr
and its summary on stdout."""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pipeline import DEFAULT_RULES_PATH
from pipeline.cli.app import DEFAULT_DB, DbOption, EngineOption, LayoutOption, OcrOption, QuietOption, RayAddressOption, RulesOption, app
from pipeline.cli.app import file_and_cause, json_text, one_line
from pipeline.errors import EXIT_FILES_FAILED, PipelineError, RunStopped
from pipeline.ingest.options import Engine, IngestOptions, available_cpus
from pipeline.wording import counted

# The run and the rules load inside the commands: every command, and --help, imports this module.
if TYPE_CHECKING:
    from pipeline.ingest.run import RunSummary
    from pipeline.records.base import DocumentStatus


FilesPerTaskOption = Annotated[
    int | None,
    typer.Option(
        "--files-per-task", min=1,
        help=f"With Ray: files a task gets, on average, each task writing one shard a table; default {IngestOptions.files_per_task}.",
    ),
]
ShardsDirOption = Annotated[
    Path | None,
    typer.Option(
        "--shards-dir",
        help="With Ray: the folder the tasks write their shards in, on storage every worker can write (a run's own "
        "subfolder, deleted at its end); default: beside the database's working copy.",
    ),
]

VectorsOption = Annotated[
    bool | None,
    typer.Option(
        "--vectors/--no-vectors",
        help="Keep a sentence vector of every chunk and paragraph in this database from now on, for search --mode vector|hybrid "
        "(needs pip install -e '.[semantic]'; later runs embed what they change); --no-vectors drops them. Default: as the database does.",
        show_default=False,
    ),
]


class _LineProgress:
    """Plain log lines, for cron and pipes."""

    def start(self, files: int, to_process: int) -> None:
        typer.echo(f"{counted(files, 'file')} found, {to_process} to process", err=True)

    def file_done(self, path: str, status: DocumentStatus, pages: int, chunks: int, error: str | None) -> None:
        typer.echo(one_line(f"{status:9} " + (file_and_cause(path, error) if error else f"{path} ({counted(chunks, 'chunk')})")), err=True)


class _BarProgress:
    """A progress bar on a terminal: files, pages, pages/s and time left."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

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

        from rich.markup import escape

        self.pages += pages
        rate = self.pages / max(time.monotonic() - self.started, 1e-9)
        self.bar.update(self.task, advance=1, rate=f"{counted(self.pages, 'page')}, {rate:.0f} pages/s")
        if error:
            self.bar.console.print(f"[red]{status}[/red] {escape(one_line(file_and_cause(path, error)))}", markup=True, highlight=False)

    def stop(self) -> None:
        self.bar.stop()


@contextmanager
def _stopped_by_signals(db: Path) -> Iterator[None]:
    """SIGTERM (what cron, systemd and `kill` send) and Ctrl-C stop the run as an error does: the
    workers are stopped, the half-built copy is removed, and the command says so. Killed by its
    default action instead, the run left its copy behind and its workers' semaphores unreleased."""
    # A first ingest has no last state to keep: the message must not promise one.
    existed = db.exists()

    def stop(number: int, frame: object) -> None:
        raise RunStopped(signal.Signals(number).name, number, db, existed)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    except KeyboardInterrupt:
        raise RunStopped("Ctrl-C (SIGINT)", signal.SIGINT, db, existed) from None
    finally:
        signal.signal(signal.SIGTERM, previous)


@app.command()
def ingest(
    folder: Annotated[Path, typer.Argument(help="Folder of papers (*.md, *.pdf), searched recursively.")] = Path("corpus"),
    db: DbOption = DEFAULT_DB,
    rules: RulesOption = DEFAULT_RULES_PATH,
    layout: LayoutOption = None,
    ocr: OcrOption = None,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Processes for extract/normalize/chunk; default: the CPUs this process may use.")] = available_cpus(),
    timeout: Annotated[float, typer.Option("--timeout", min=1, help="Seconds one file may take before it is stopped and failed.")] = 300.0,
    memory_limit: Annotated[
        str, typer.Option("--memory-limit", help="Most memory the database writer's process may hold, e.g. 4GB: DuckDB's buffer pool gets 80% of what is left after 192 MiB for the process (2.8 GiB of 4GB), and spills to disk past that.")
    ] = IngestOptions.memory_limit,
    allow_mass_removal: Annotated[bool, typer.Option("--allow-mass-removal", help="Let this run remove more than half of the stored papers.")] = False,
    rehash: Annotated[bool, typer.Option("--rehash", help="Read and hash every file, not only those whose size, mtime or inode changed since they were stored, and store the stat each has now.")] = False,
    quiet: QuietOption = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the run summary as JSON.")] = False,
    engine: EngineOption = Engine.local,
    ray_address: RayAddressOption = None,
    shards_dir: ShardsDirOption = None,
    files_per_task: FilesPerTaskOption = None,
    vectors: VectorsOption = None,
) -> None:
    """Bring the database in line with the papers below FOLDER, and publish it atomically.

    New files are added, changed ones replaced, vanished ones removed, the rest skipped; a file
    whose size, mtime and inode are as stored is not read (--rehash reads all). Where nothing
    changed, the database is left as it was and the run logged in DB.checks.jsonl (see report).
    A file that is not what its name says (a PDF named .md) fails with the cause; a UTF-8 file
    with stray bytes that are not UTF-8 is read with them replaced, and a paper stored so or with
    no chunks is named in the summary and in documents.warning (docs/formats.md).

    A folder with no papers below it is no error: the run says so on stderr and exits 0.

    Exit codes: 0 all ingested (or no papers found), 3 finished but some files failed, 1 the run could not complete
    (nothing published), 4 another ingest is running, 130 and 143 stopped by Ctrl-C or SIGTERM
    (nothing published).

    Example: pipeline ingest /papers --db out/papers.duckdb --workers 2
    (with --vectors once, that database keeps vectors for search --mode hybrid; on Ray: --engine ray [--ray-address auto] [--shards-dir /shared/shards], with pip install -e '.[ray]';
    see docs/scaling.md)
    """
    from pipeline.ingest.run import ingest_folder
    from pipeline.rules import layout_overrides, load_rules

    _refuse_ray_options_without_ray(engine, shards_dir, files_per_task)
    loaded = load_rules(rules, layout_overrides(layout, ocr))
    options = IngestOptions(
        workers=workers, timeout_seconds=timeout, allow_mass_removal=allow_mass_removal, engine=engine, ray_address=ray_address,
        memory_limit=memory_limit, rehash=rehash,
        files_per_task=files_per_task or IngestOptions.files_per_task, shards_dir=shards_dir, vectors=vectors,
    )
    progress = None if quiet else (_BarProgress() if sys.stderr.isatty() else _LineProgress())
    try:
        with _stopped_by_signals(db):
            summary = ingest_folder(folder, db, loaded, options, progress)
    finally:
        if isinstance(progress, _BarProgress):
            progress.stop()
    _say_if_no_papers(folder, summary)
    _print_summary(summary, quiet, as_json)


def _refuse_ray_options_without_ray(engine: Engine, shards_dir: Path | None, files_per_task: int | None) -> None:
    if engine is not Engine.ray and (shards_dir is not None or files_per_task is not None):
        ray_only = {"--shards-dir": shards_dir, "--files-per-task": files_per_task}
        given = [name for name, value in ray_only.items() if value is not None]
        verb = "apply" if len(given) > 1 else "applies"
        raise PipelineError(f"{' and '.join(given)} {verb} only to Ray tasks; add --engine ray, or leave {' and '.join(given)} out")


def _say_if_no_papers(folder: Path, summary: RunSummary) -> None:
    """A folder with nothing to read, said on stderr: a mistyped folder otherwise looks like a
    run that went well."""
    if summary.seen == 0:
        typer.echo(f"No papers (*.md, *.pdf) were found below {folder}.", err=True)


def _print_summary(summary: RunSummary, quiet: bool, as_json: bool) -> None:
    if as_json:
        typer.echo(json_text(summary.as_json()))
    else:
        typer.echo(summary.line())
        if not quiet:
            for path, cause in {**summary.failed, **summary.still_failing}.items():
                typer.echo(one_line(f"  failed: {file_and_cause(path, cause)}"), err=True)
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
    files_per_task: FilesPerTaskOption = None,
    quiet: QuietOption = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the run summary as JSON.")] = False,
) -> None:
    """Run the stages on FOLDER's papers as Ray tasks and leave their rows as Parquet shards in --out.

    One folder a table, and no database built.

    Shards of papers no longer in FOLDER are deleted; groups of files already exported under
    these rules are not run again. Exit codes as for ingest. --files-per-task sets how many
    files share a shard (a million papers at 256: 39,000 files); changing it runs every group again.

    Example: pipeline export-shards /papers --out out/shards, then in DuckDB
    SELECT count(*) FROM read_parquet('out/shards/chunks/*.parquet')
    """
    from pipeline.ingest.export import (
        export_shards,  # imports Ray, an optional extra, only when asked
    )
    from pipeline.rules import load_rules

    options = IngestOptions(
        workers=workers, timeout_seconds=timeout, engine=Engine.ray, ray_address=ray_address,
        files_per_task=files_per_task or IngestOptions.files_per_task,
    )
    summary = export_shards(folder, out, load_rules(rules), options, None if quiet else _LineProgress())
    _say_if_no_papers(folder, summary)
    if summary.leftovers_removed and not quiet:
        typer.echo(f"removed {summary.leftovers_removed} shards of papers no longer in {folder}", err=True)
    _print_summary(summary, quiet, as_json)

