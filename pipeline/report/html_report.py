"""`pipeline report --html`: the report as an HTML page, and a page per paper in a folder beside
it (`report_files/<doc_id>.html` for `report.html`); nothing in either is fetched from the network."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from statistics import median

import duckdb

from pipeline.errors import PipelineError
from pipeline.export.destination import refuse_database_files, write_bytes_out
from pipeline.index.database import has_table
from pipeline.report import data
from pipeline.report.data import SECTION_TYPES, PaperRow, RunRow
from pipeline.report.markup import href, metric, page, table, text
from pipeline.report.paper_page import render_paper_page
from pipeline.report.plots import PLOTS_LEFT_OUT, can_plot, runs_svg, size_svg, type_colour
from pipeline.rules import ChunkRules

RUNS_PLOTTED = 50
RUNS_LISTED = 10
_PAGES_SUFFIX = "_files"
_UNSAFE_PARTS = {"": "%20", ".": "%2E", "..": "%2E%2E"}


@dataclass(frozen=True)
class HtmlReport:
    """What `write_html_report` wrote."""

    report: Path
    paper_pages: Path
    """The folder of the papers' pages."""
    paper_count: int
    plotted: bool
    """Whether the plots are in the page: matplotlib, the extra `report`, draws them."""

    def line(self) -> str:
        wrote = f"wrote {self.report} and {self.paper_count} paper page(s) in {self.paper_pages}"
        return wrote if self.plotted else f"{wrote}; {PLOTS_LEFT_OUT}"


def write_html_report(connection: duckdb.DuckDBPyConnection, sizes: ChunkRules, out: Path, database: Path) -> HtmlReport:
    """Write the report to `out` and a page per stored paper into the folder beside it.

    The pages are written into a staging folder beside that one and moved in only once the report
    is written, so a run that fails (a full disk) leaves the last report and its pages as they were
    and nothing of its own; pages of papers no longer stored stay where an earlier run wrote them.
    """
    folder = out.with_name(out.stem + _PAGES_SUFFIX)
    stored = data.papers(connection)
    pages = {paper.doc_id: paper_page_name(paper.doc_id) for paper in stored}
    for target in (out, *(folder / name for name in pages.values())):
        refuse_database_files(target, database)
    plotted = can_plot()
    created = _missing_folders(folder.parent)
    staging: Path | None = None
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        # Beside the folder's real place, so that moving the pages in is a rename on one file system.
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".partial", dir=Path(os.path.realpath(folder)).parent))
        _write_paper_pages(connection, stored, sizes, staging, pages, out.name)
        report = render_html_report(connection, sizes, database, f"{folder.name}/", pages, plotted)
        write_bytes_out(out, report.encode(), database)
        _move_pages(staging, folder, pages.values())
    except OSError as error:
        raise PipelineError(
            f"cannot write the report's paper pages in {folder}: {error.strerror}; check that its folder is writable and has room"
        ) from None
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        # After a failure, the folders this run made for the report; after a success the report is
        # in the first of them, which keeps them all.
        _remove_empty(created)
    return HtmlReport(out, folder, len(stored), plotted)


def _write_paper_pages(
    connection: duckdb.DuckDBPyConnection, stored: list[PaperRow], sizes: ChunkRules, staging: Path, pages: dict[str, str], report_name: str
) -> None:
    """Write each paper's page into `staging`, at its name in `pages`, linking back to `report_name`."""
    source_folder = data.latest_folder(connection)
    for paper in stored:
        parts = PurePosixPath(pages[paper.doc_id]).parts
        target = staging.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        back = "../" * len(parts) + report_name
        target.write_text(render_paper_page(connection, paper, sizes, source_folder, back), encoding="utf-8")


def _move_pages(staging: Path, folder: Path, names: Iterable[str]) -> None:
    """Move each staged page to its place in `folder`, over the page an earlier report wrote."""
    for name in names:
        parts = PurePosixPath(name).parts
        target = folder.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staging.joinpath(*parts), target)


def _missing_folders(folder: Path) -> list[Path]:
    """`folder` and those of its parents that do not exist yet, the deepest first."""
    return [path for path in (folder, *folder.parents) if not path.exists()]


def _remove_empty(folders: list[Path]) -> None:
    """Remove the folders a failed run created, deepest first, where nothing else was put in them."""
    for path in folders:
        try:
            path.rmdir()
        except OSError:
            return


def paper_page_name(doc_id: str) -> str:
    """The paper page's path inside the pages folder: the doc_id's folders as folders. A doc_id
    never holds `.` or `..` as a part (it is a path found inside the ingested folder), but a
    database is data, so such a part is spelt out rather than followed."""
    parts = [_UNSAFE_PARTS.get(part, part) for part in doc_id.split("/")]
    return "/".join(parts) + ".html"


def render_html_report(
    connection: duckdb.DuckDBPyConnection, sizes: ChunkRules, database: Path, pages_folder: str, pages: dict[str, str], plotted: bool
) -> str:
    """The report's page; `pages` maps each doc_id to its page inside `pages_folder`. Without
    `plotted`, each plot's place says what adds it."""
    stored = data.papers(connection)
    runs = data.last_runs(connection, RUNS_PLOTTED)
    word_counts = data.word_counts_by_type(connection)
    failing = data.failing_files(connection)
    unstructured = data.unstructured_papers(connection, sizes)
    links = {doc_id: f"{pages_folder}{name}" for doc_id, name in pages.items()}
    body = [
        "<h1>Paper pipeline report</h1>",
        f'<p class="lead">{text(database)} · {_last_run_line(runs)} · chunk sizes against '
        f"target {sizes.target_min_words}–{sizes.target_max_words} words, hard maximum {sizes.hard_max_words}</p>",
        _cards(stored, word_counts, failing, unstructured),
        "<h2>Last runs</h2>",
        _runs(runs, plotted),
        "<h2>Chunk sizes by section type</h2>",
        _sizes(word_counts, sizes, plotted),
        "<h2>Papers</h2>",
        _papers(data.paper_metadata(connection) if has_table(connection, "papers") else [], links),
        "<h2>Section types per paper</h2>",
        _types_per_paper(data.chunks_per_paper(connection), stored, links),
        "<h2>Papers whose body headings were not found</h2>",
        _unstructured(unstructured, sizes, links),
        "<h2>Failing files</h2>",
        _failing(failing),
        *_warnings(data.paper_warnings(connection)),
        "<h2>Unresolved citations and broken cross-references</h2>",
        _unresolved(data.unresolved_links(connection), links),
    ]
    return page("Paper pipeline report", "\n".join(body))


def _warnings(rows: list[data.PaperWarning]) -> list[str]:
    """The section of papers stored with a warning, where there are any."""
    if not rows:
        return []
    items = "".join(f"<li><code>{text(row.path)}</code>: {text(row.warning)}</li>" for row in rows)
    return ["<h2>Papers stored with a warning</h2>", f"<ul>{items}</ul>"]


def _last_run_line(runs: list[RunRow]) -> str:
    if not runs:
        return "no run recorded"
    return f"last run #{runs[0].run_id} at {runs[0].started_at:%Y-%m-%d %H:%M} UTC"


def _cards(
    stored: list[PaperRow], word_counts: dict[str, list[int]], failing: list[data.FailingFile], unstructured: list[data.UnstructuredPaper]
) -> str:
    ingested = sum(1 for paper in stored if paper.status == "ingested")
    cards = [
        ("papers ingested", metric("papers", ingested), ""),
        ("chunks", metric("chunks", sum(len(counts) for counts in word_counts.values())), ""),
        ("failing files", metric("failing-files", len(failing)), " alert" if failing else ""),
        ("without body headings", metric("unstructured", len(unstructured)), " alert" if unstructured else ""),
    ]
    return '<div class="cards">' + "".join(
        f'<div class="card{alert}"><span class="value">{value}</span>{text(label)}</div>' for label, value, alert in cards
    ) + "</div>"


def _runs(runs: list[RunRow], plotted: bool) -> str:
    if not runs:
        return '<p class="note">No run recorded yet: run <code>pipeline ingest</code>.</p>'
    rows = [
        [
            str(run.run_id), text(f"{run.started_at:%Y-%m-%d %H:%M}"), str(run.seen), str(run.added), str(run.updated),
            str(run.unchanged), str(run.removed), str(run.failed), str(run.pages), str(run.chunks), f"{run.duration_seconds:.1f}",
            f"{run.chunks_added} / {run.chunks_changed} / {run.chunks_removed}",
        ]
        for run in runs[:RUNS_LISTED]
    ]
    header = ["run", "started (UTC)", "seen", "added", "updated", "unchanged", "removed", "failed", "pages", "chunks", "seconds",
              "chunks added / changed / removed"]
    return _figure(lambda: runs_svg(runs), plotted) + table(header, rows, numeric=frozenset(range(2, 11)))


def _sizes(word_counts: dict[str, list[int]], sizes: ChunkRules, plotted: bool) -> str:
    rows = [
        [
            f'<span class="swatch" style="background:{type_colour(kind)}"></span> {text(kind)}',
            metric(f"chunks-{kind}", len(counts)), str(counts[0]), f"{median(counts):.0f}", str(counts[-1]),
            str(sum(1 for count in counts if count > sizes.target_max_words)),
            str(sum(1 for count in counts if count > sizes.hard_max_words)),
        ]
        for kind, counts in word_counts.items()
    ]
    header = ["section type", "chunks", "fewest words", "median", "most", f"over {sizes.target_max_words}", f"over {sizes.hard_max_words}"]
    legend = (
        '<p class="note">Words per chunk, a panel per section type; the lines are the rules\' '
        "<code>target_min_words</code>, <code>target_max_words</code> and <code>hard_max_words</code>. "
        "Captions are sized by their figure, not by the targets.</p>"
    )
    return (legend if plotted else "") + _figure(lambda: size_svg(word_counts, sizes), plotted) + table(
        header, rows, numeric=frozenset(range(1, 7))
    )


def _figure(svg: Callable[[], str], plotted: bool) -> str:
    """A plot, or where matplotlib is missing, a note in its place saying what adds it."""
    if not plotted:
        return f'<p class="note plot-left-out">{text(PLOTS_LEFT_OUT[:1].upper() + PLOTS_LEFT_OUT[1:])}.</p>'
    return f"<figure>{svg()}</figure>"


def _types_per_paper(per_doc: dict[str, dict[str, int]], stored: list[PaperRow], links: dict[str, str]) -> str:
    paths = {paper.doc_id: paper.path for paper in stored}
    busiest = max([count for types in per_doc.values() for count in types.values()], default=1)
    rows = []
    for doc_id, types in per_doc.items():
        cells = [_shaded(types.get(kind, 0), busiest, kind) for kind in SECTION_TYPES]
        link = f"<a href={href(links[doc_id])}>{text(paths.get(doc_id, doc_id))}</a>" if doc_id in links else text(doc_id)
        rows.append([link, *cells, str(sum(types.values()))])
    totals = [sum(types.get(kind, 0) for types in per_doc.values()) for kind in SECTION_TYPES]
    total_row = "<tr class=\"total\"><td>all papers</td>" + "".join(
        f'<td class="number">{metric(f"total-{kind}", total)}</td>' for kind, total in zip(SECTION_TYPES, totals)
    ) + f'<td class="number">{sum(totals)}</td></tr>'
    header = ["paper (its page: heading tree, decisions, pages)", *SECTION_TYPES, "total"]
    return table(header, rows, numeric=frozenset(range(1, len(SECTION_TYPES) + 2))).replace("</tbody>", total_row + "</tbody>")


def _shaded(count: int, busiest: int, kind: str) -> str:
    if not count:
        return '<span class="note">0</span>'
    # The cell's strength follows its count, in its type's colour: a paper's make-up at a glance.
    alpha = 0.15 + 0.6 * count / busiest
    return f'<span style="background:{type_colour(kind)}{round(alpha * 255):02x};padding:0 .3rem">{count}</span>'


def _unstructured(rows: list[data.UnstructuredPaper], sizes: ChunkRules, links: dict[str, str]) -> str:
    if not rows:
        return f'<p class="note">None: every paper of more than {sizes.unstructured_min_words} body words has its section headings.</p>'
    items = [
        [
            f"<a href={href(links[row.doc_id])}>{text(row.path)}</a>" if row.doc_id in links else text(row.path),
            str(row.words),
            "no section heading found" if not row.headed_sections else f"{row.front_words} words before the first section heading",
        ]
        for row in rows
    ]
    return (
        '<p class="warning">Stored as front matter cut by size, so section typing never ran on them: check their headings '
        "(<code>pipeline inspect FILE</code>).</p>" + table(["paper", "body words", "why"], items, numeric=frozenset({1}))
    )


def _papers(rows: list[data.PaperMetadataRow], links: dict[str, str]) -> str:
    """Each paper's metadata as it prints it, most cited in the folder first (`paper_links`)."""
    if not rows:
        return '<p class="note">None.</p>'
    items = [
        [
            f"<a href={href(links[row.doc_id])}>{text(row.doc_id)}</a>" if row.doc_id in links else text(row.doc_id),
            text(row.title or ""), text(", ".join(row.authors)), text(str(row.year or "")), text(row.journal or ""),
            text(row.doi or ""), str(row.cited_by),
        ]
        for row in rows
    ]
    return '<p class="note">As each paper prints it; blank where it does not (docs/metadata.md). Most cited in the folder first.</p>' + table(
        ["paper", "title", "authors", "year", "journal", "DOI", "cited by papers of the folder"], items, numeric=frozenset({6})
    )


def _failing(rows: list[data.FailingFile]) -> str:
    if not rows:
        return '<p class="note">None.</p>'
    return table(["file", "status", "cause"], [[text(row.path), text(row.status), text(row.error or "")] for row in rows])


def _unresolved(rows: list[data.UnresolvedLinks], links: dict[str, str]) -> str:
    if not rows:
        return '<p class="note">None.</p>'
    items = [
        [f"<a href={href(links[row.doc_id])}>{text(row.path)}</a>" if row.doc_id in links else text(row.path), str(row.citations), str(row.links)]
        for row in rows
    ]
    return '<p class="note"><code>pipeline inspect FILE --links</code> lists them.</p>' + table(
        ["paper", "citations naming no entry or two", "links leading nowhere"], items, numeric=frozenset({1, 2})
    )

