"""`pipeline report --html`: the page's parts on a small ingested fixture, then the page in a real
browser (Debian's Chromium, driven by Playwright for Python; skipped with its reason where either
is missing).

Run as a script, it makes the README's picture of the report from `corpus/` and the sample PDF:

    .venv/bin/python tests/report/test_report_html.py docs/report.png
"""

from __future__ import annotations

import errno
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from urllib.parse import unquote

import pymupdf
import pytest
from typer.testing import CliRunner

from conftest import PROJECT, edited_rules_file, ingested_papers, words, project_script
from pipeline.cli import app
from pipeline.index.database import open_for_writing, open_readonly
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.report.html_report import write_html_report
from pipeline.report.plots import size_figure
from pipeline.report import data
from pipeline.report.thumbnails import THUMBNAIL_MAX_PIXELS, render_thumbnails, stored_source
from pipeline.rules import load_rules


runner = CliRunner()
CHROMIUM = Path("/usr/bin/chromium")
# What the browser is started with: headless, and nothing of its own fetched or synced.
CHROMIUM_ARGUMENTS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]

PAPERS = {
    "good.md": "# A good paper\n\n## Methods\n\n" + words(120) + "\n\n## Results\n\n" + words(80) + "\n",
    "notes.md": "# One long note\n\n" + words(1600) + "\n",
    "bad<b>.md": "",
    "odd<i>.md": "# Odd <script>alert(1)</script> title\n\n## Results & more\n\n" + words(60) + "\n",
}


def _pdf_bytes() -> bytes:
    document = pymupdf.open()
    page = document.new_page()
    page.insert_text((72, 72), "Results", fontsize=16)
    page.insert_text((72, 100), "The treated cohort improved over the study period in most volunteers.", fontsize=10)
    data = document.tobytes()
    document.close()
    return data


def _section(page: str, title: str) -> str:
    """The page's HTML from the heading `title` to the next heading."""
    start = page.index(f"<h2>{title}</h2>")
    end = page.find("<h2>", start + 1)
    return page[start : end if end > 0 else None]


@pytest.fixture(scope="module")
def small(tmp_path_factory, rules) -> Path:
    """Four Markdown files (one empty, one without headings, two with `<` in their names), then a PDF in a second run."""
    folder = tmp_path_factory.mktemp("small")
    db = ingested_papers(folder, PAPERS, rules)
    (folder / "papers" / "scan.pdf").write_bytes(_pdf_bytes())
    ingest_folder(folder / "papers", db, rules, IngestOptions(workers=1))
    return db


@pytest.fixture(scope="module")
def written(small, rules) -> Path:
    out = small.parent / "out" / "report.html"
    write_html_report(open_readonly(small), rules.chunk, out, small)
    return out


def test_the_histograms_rule_lines_are_the_rules_sizes(tmp_path):
    custom = load_rules(edited_rules_file(tmp_path, "target_min_words = 500", "target_min_words = 432")).chunk
    figure = size_figure({"methods": [100, 700], "results": [300]}, custom)
    drawn = [{line.get_gid(): line.get_xdata()[0] for line in axis.lines} for axis in figure.axes]
    rules_sizes = {"rule-target_min_words": 432, "rule-target_max_words": custom.target_max_words, "rule-hard_max_words": custom.hard_max_words}
    assert drawn == [rules_sizes, rules_sizes]  # a panel each for methods and results


def test_the_page_names_the_rules_sizes_it_drew(small, tmp_path):
    custom = load_rules(edited_rules_file(tmp_path, "hard_max_words = 1200", "hard_max_words = 1234")).chunk
    out = tmp_path / "report.html"
    write_html_report(open_readonly(small), custom, out, small)
    sizes = _section(out.read_text(), "Chunk sizes by section type")
    assert "hard_max_words = 1234" in sizes and "over 1234" in sizes


def test_the_papers_table_shows_each_papers_title_as_it_prints_it(written):
    papers = _section(written.read_text(encoding="utf-8"), "Papers")
    assert "<td>A good paper</td>" in papers and "Odd &lt;script&gt;" in papers


def test_a_failing_file_shows_with_its_cause(written):
    failing = _section(written.read_text(), "Failing files")
    assert "<td>bad&lt;b&gt;.md</td><td>failed</td><td>bad&lt;b&gt;.md: the file is empty; nothing to ingest</td>" in failing


def test_a_paper_without_body_headings_is_listed_with_a_link_to_its_page(written):
    unstructured = _section(written.read_text(), "Papers whose body headings were not found")
    assert '<a href="report_files/notes.md.html">notes.md</a>' in unstructured
    assert "no section heading found" in unstructured
    assert (written.parent / "report_files" / "notes.md.html").is_file()


def test_every_value_from_the_database_is_escaped(written):
    report = written.read_text()
    paper = (written.parent / "report_files" / "odd%3Ci%3E.md.html").read_text()
    assert "bad<b>" not in report and "odd<i>" not in report
    assert "<script" not in report + paper
    assert "Odd &lt;script&gt;alert(1)&lt;/script&gt; title" in paper
    assert "Results &amp; more" in paper


def test_every_stored_file_has_a_page_that_its_link_reaches(written):
    links = re.findall(r'href="(report_files/[^"]+)"', _section(written.read_text(), "Section types per paper"))
    assert len(links) == 4  # the stored papers with chunks: all but the empty file
    assert all((written.parent / unquote(link)).is_file() for link in links)
    assert (written.parent / "report_files" / "bad%3Cb%3E.md.html").is_file()


def test_the_page_loads_nothing_from_elsewhere(written):
    report = written.read_text()
    assert "default-src 'none'; img-src data:" in report
    # url(#id) is the plots' own clip paths; anything else would leave the page.
    assert not re.search(r"""(?:src|href)=["']?(?:https?:)?//|url\((?!#)|@import""", report)


def test_a_paper_page_has_the_heading_tree_and_the_decisions(written):
    paper = (written.parent / "report_files" / "good.md.html").read_text()
    assert '<span class="sid">S2</span> Methods <span class="labels">(methods, strict anchor: methods;' in paper
    assert "Methods chunk group" in paper and '<a href="../report.html">' in paper


def test_a_pdf_page_says_what_read_its_layout_and_why(written):
    paper = (written.parent / "report_files" / "scan.pdf.html").read_text()
    assert "layout read by rules (auto: the typographic reading shows no doubt)" in paper


def test_a_pdf_page_shows_its_pages_without_boxes_and_says_why(small, rules, tmp_path):
    db = tmp_path / "older.duckdb"
    shutil.copy(small, db)
    connection = open_for_writing(db)
    connection.execute("DROP VIEW chunk_boxes")  # a papers' table: a view over the catalog's rows (pipeline.index.layout)
    connection.execute("DROP TABLE rows.chunk_boxes")
    connection.close()
    write_html_report(open_readonly(db), rules.chunk, tmp_path / "report.html", db)
    paper = (tmp_path / "report_files" / "scan.pdf.html").read_text()
    assert paper.count('<img src="data:image/png;base64,') == 1
    assert "this database has no <code>chunk_boxes</code> table" in paper


def test_a_pdf_page_draws_the_chunk_boxes_where_the_database_has_them(small, rules, tmp_path):
    db = tmp_path / "boxes.duckdb"
    shutil.copy(small, db)
    connection = open_for_writing(db)
    connection.execute("DELETE FROM rows.chunk_boxes")  # the view's rows (pipeline.index.layout)
    connection.execute("INSERT INTO rows.chunk_boxes VALUES ('scan.pdf:1', 1, 72, 60, 400, 104)")
    connection.close()
    out = tmp_path / "report.html"
    write_html_report(open_readonly(db), rules.chunk, out, db)
    paper = (tmp_path / "report_files" / "scan.pdf.html").read_text()
    assert 'data-boxes="1"' in paper
    assert '<rect x="72.0" y="60.0" width="328.0" height="44.0"' in paper and "<title>scan.pdf:1</title>" in paper


def test_a_box_on_a_rotated_page_is_drawn_where_the_rendered_page_shows_it(tmp_path):
    document = pymupdf.open()
    document.new_page(width=600, height=800).set_rotation(90)
    document.save(tmp_path / "turned.pdf")
    (thumbnail,) = render_thumbnails((tmp_path / "turned.pdf").read_bytes())
    assert (thumbnail.page_width, thumbnail.page_height) == (800, 600)
    # The unrotated page's top left corner turns to the rendered page's top right.
    assert thumbnail.shown(10, 20, 110, 40) == (760, 10, 780, 110)


def test_a_pdf_that_changed_since_its_ingest_shows_no_pages(rules, tmp_path):
    db = ingested_papers(tmp_path, {}, rules)
    (tmp_path / "papers" / "scan.pdf").write_bytes(_pdf_bytes())
    ingest_folder(tmp_path / "papers", db, rules, IngestOptions(workers=1))
    (tmp_path / "papers" / "scan.pdf").write_bytes(_pdf_bytes() + b"\n% edited\n")
    write_html_report(open_readonly(db), rules.chunk, tmp_path / "report.html", db)
    paper = (tmp_path / "report_files" / "scan.pdf.html").read_text()
    assert "<img" not in paper
    assert "scan.pdf changed since it was ingested; run `pipeline ingest` again to see its pages" in paper


def test_a_pdf_whose_file_vanished_since_its_ingest_shows_no_pages(rules, tmp_path):
    db = ingested_papers(tmp_path, {}, rules)
    (tmp_path / "papers" / "scan.pdf").write_bytes(_pdf_bytes())
    ingest_folder(tmp_path / "papers", db, rules, IngestOptions(workers=1))
    (tmp_path / "papers" / "scan.pdf").unlink()
    write_html_report(open_readonly(db), rules.chunk, tmp_path / "report.html", db)
    paper = (tmp_path / "report_files" / "scan.pdf.html").read_text()
    assert "<img" not in paper
    assert f"No thumbnails: the source file is not at {tmp_path / 'papers' / 'scan.pdf'} (No such file or directory)" in paper


def _encrypted_pdf_bytes() -> bytes:
    document = pymupdf.open()
    document.new_page().insert_text((72, 72), "Secret results", fontsize=12)
    data = document.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")
    document.close()
    return data


def test_a_pdf_that_failed_to_ingest_is_listed_and_never_opened(rules, tmp_path):
    db = ingested_papers(tmp_path, {"good.md": PAPERS["good.md"]}, rules)
    (tmp_path / "papers" / "locked.pdf").write_bytes(_encrypted_pdf_bytes())
    ingest_folder(tmp_path / "papers", db, rules, IngestOptions(workers=1))
    result = runner.invoke(app, ["report", "--db", str(db), "--html", str(tmp_path / "report.html")])
    assert result.exit_code == 0, result.output
    paper = (tmp_path / "report_files" / "locked.pdf.html").read_text()
    assert "locked.pdf" in _section((tmp_path / "report.html").read_text(), "Failing files")
    assert "<img" not in paper and "No thumbnails: it failed to ingest (the cause is above)." in paper


def test_a_pdf_named_with_bytes_that_are_not_utf8_is_found_by_its_doc_id(tmp_path):
    pdf = _pdf_bytes()
    (tmp_path / os.fsdecode(b"scan\xff.pdf")).write_bytes(pdf)
    paper = data.PaperRow(
        doc_id="scan%FF.pdf", path="scan\\xff.pdf", format="pdf", sha256=hashlib.sha256(pdf).hexdigest(),
        title=None, page_count=1, status="ingested", error=None,
    )
    assert stored_source(str(tmp_path), paper) == (pdf, "")


def test_a_thumbnail_of_a_page_of_the_largest_size_fits_the_pixel_budget(tmp_path):
    document = pymupdf.open()
    document.new_page(width=14_400, height=14_400)
    (thumbnail,) = render_thumbnails(document.tobytes())
    assert thumbnail.pixel_width * thumbnail.pixel_height <= THUMBNAIL_MAX_PIXELS


def test_report_html_says_where_it_wrote(small, tmp_path):
    out = tmp_path / "report.html"
    result = runner.invoke(app, ["report", "--db", str(small), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stderr == f"wrote {out} and 5 paper page(s) in {tmp_path / 'report_files'}\n"
    assert result.stdout == ""


def test_report_html_without_matplotlib_leaves_the_plots_out_and_names_the_extra(small, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = tmp_path / "report.html"
    result = runner.invoke(app, ["report", "--db", str(small), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        f"wrote {out} and 5 paper page(s) in {tmp_path / 'report_files'}; plots left out: matplotlib is not installed; "
        "pip install -e '.[report]' from the project folder adds them\n"
    )
    page = out.read_text()
    assert "<svg" not in _section(page, "Last runs") and "<svg" not in _section(page, "Chunk sizes by section type")
    assert page.count("Plots left out: matplotlib is not installed; pip install -e &#x27;.[report]&#x27; from the project folder adds them.") == 2
    assert (tmp_path / "report_files" / "good.md.html").is_file()


def _fail_on_write(monkeypatch, method: str, calls_before: int) -> None:
    """Make `Path.<method>` fail as a full disk does from its call number `calls_before + 1` on."""
    original = getattr(Path, method)
    calls = []

    def write(self, *arguments, **options):
        calls.append(self)
        if len(calls) > calls_before:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return original(self, *arguments, **options)

    monkeypatch.setattr(Path, method, write)


@pytest.mark.parametrize(
    ("method", "calls_before"), [("write_text", 3), ("write_bytes", 0)], ids=["at the fourth paper page", "at the report itself"]
)
def test_report_html_on_a_full_disk_leaves_nothing_it_wrote_and_says_so_in_one_line(small, tmp_path, monkeypatch, method, calls_before):
    _fail_on_write(monkeypatch, method, calls_before)
    result = runner.invoke(app, ["report", "--db", str(small), "--html", str(tmp_path / "out" / "report.html")])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: cannot write ") and result.stderr.count("\n") == 1
    assert "No space left on device" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_report_html_on_a_full_disk_keeps_the_last_report_and_its_pages(small, tmp_path, monkeypatch):
    out = tmp_path / "report.html"
    runner.invoke(app, ["report", "--db", str(small), "--html", str(out)])
    before = {path: f"{path.name} of an earlier report".encode() for path in tmp_path.rglob("*") if path.is_file()}
    for path, content in before.items():
        path.write_bytes(content)
    _fail_on_write(monkeypatch, "write_text", 2)
    assert runner.invoke(app, ["report", "--db", str(small), "--html", str(out)]).exit_code == 1
    assert {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()} == before


# ------------------------------------------------------------------ in a real browser


def _browser_or_skip():
    if not CHROMIUM.is_file():
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install -y chromium (.ci/run does)")
    if importlib.util.find_spec("playwright") is None:
        pytest.skip("Playwright for Python is not installed: pip install -e '.[test]'")
    from playwright.sync_api import sync_playwright

    return sync_playwright


class OpenedPage:
    """A page as the browser showed it: what it logged, its images, and its `data-metric` numbers."""

    def __init__(self, browser, path: Path, screenshot: Path | None = None) -> None:
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        self.errors: list[str] = []
        page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.goto(path.as_uri(), wait_until="load")
        self.image_widths: list[int] = page.evaluate("[...document.images].map(image => image.complete ? image.naturalWidth : 0)")
        self.metrics: dict[str, int] = page.evaluate(
            "Object.fromEntries([...document.querySelectorAll('[data-metric]')].map(node => [node.dataset.metric, Number(node.innerText)]))"
        )
        if screenshot is not None:
            page.screenshot(path=str(screenshot), full_page=True)
        page.close()


@pytest.fixture(scope="module")
def browser():
    sync_playwright = _browser_or_skip()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGUMENTS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def corpus_report(tmp_path_factory, rules) -> Path:
    """corpus/, the sample PDF and an empty file, ingested and reported."""
    return _corpus_report(tmp_path_factory.mktemp("corpus"), rules, with_failure=True)


def _corpus_report(folder: Path, rules, with_failure: bool, shown_as: Path | None = None) -> Path:
    """Two runs, as a user would make them: corpus/'s Markdown, then the sample PDF added."""
    papers = folder / "papers"
    shutil.copytree(PROJECT / "corpus", papers, ignore=shutil.ignore_patterns("*.py", "*.txt"))
    db = folder / "papers.duckdb"
    ingest_folder(papers, db, rules, IngestOptions(workers=1))
    made = project_script("corpus/make_pdfs.py").make_pdfs(folder / "pdfs")
    (papers / "pdf").mkdir()
    shutil.copy(made["two_column"], papers / "pdf" / "two_column.pdf")
    if with_failure:
        (papers / "empty.md").write_bytes(b"")
    ingest_folder(papers, db, rules, IngestOptions(workers=1))
    out = folder / "out" / "report.html"
    write_html_report(open_readonly(db), rules.chunk, out, shown_as or db)
    return out


def test_the_report_shows_in_chromium_without_console_errors(browser, corpus_report, tmp_path):
    shown = OpenedPage(browser, corpus_report, screenshot=tmp_path / "report.png")
    assert shown.errors == []
    assert (tmp_path / "report.png").read_bytes().startswith(b"\x89PNG")


def test_a_pdf_papers_page_shows_in_chromium_with_every_thumbnail_loaded(browser, corpus_report):
    shown = OpenedPage(browser, corpus_report.parent / "report_files" / "pdf" / "two_column.pdf.html")
    assert shown.errors == []
    assert shown.image_widths and all(width > 0 for width in shown.image_widths)


def test_the_numbers_chromium_shows_are_the_databases(browser, corpus_report):
    shown = OpenedPage(browser, corpus_report)
    connection = open_readonly(corpus_report.parent.parent / "papers.duckdb")
    per_type = dict(connection.execute("SELECT section_type, count(*) FROM chunks GROUP BY ALL").fetchall())
    papers, failing = connection.execute(
        "SELECT count(*) FILTER (WHERE status = 'ingested'), count(*) FILTER (WHERE status <> 'ingested') FROM documents"
    ).fetchone()
    assert {kind: shown.metrics[f"chunks-{kind}"] for kind in per_type} == per_type
    assert {kind: shown.metrics[f"total-{kind}"] for kind in per_type} == per_type
    assert (shown.metrics["papers"], shown.metrics["failing-files"], shown.metrics["chunks"]) == (papers, failing, sum(per_type.values()))
    assert failing == 1


def main(screenshot: Path) -> None:
    """Ingest corpus/ and the sample PDF, write the report, and take its screenshot."""
    sync_playwright = _browser_or_skip()
    with tempfile.TemporaryDirectory() as folder:
        report = _corpus_report(Path(folder), load_rules(), with_failure=False, shown_as=Path("out/papers.duckdb"))
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGUMENTS)
            shown = OpenedPage(browser, report, screenshot=screenshot)
            browser.close()
    print(f"{screenshot}: {screenshot.stat().st_size // 1024} KB, console errors: {len(shown.errors)}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/report.png"))
