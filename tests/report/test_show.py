"""`pipeline show` and `search --show` through typer's CliRunner, on the sample PDF and a Markdown
paper ingested: a PNG of the chunk's pages stacked under its caption with its boxes filled, an HTML
page with the pages inline, Markdown lines marked, and a file that moved or changed refused."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import duckdb
import pymupdf
import pytest
from typer.testing import CliRunner

from conftest import PROJECT, project_script
from pipeline.cli import app
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.report.show import SHOW_DPI, SHOW_MAX_PIXELS

runner = CliRunner()
PDF_CHUNK_COLOURED = 0.5
"""Of the pixels inside a box, the share the highlight tints at least: the rest are its glyphs."""


make_pdfs = project_script("corpus/make_pdfs.py")


@pytest.fixture(scope="module")
def ingested(tmp_path_factory, rules) -> tuple[Path, Path]:
    """(database, papers folder) with the two-column sample PDF and one Markdown paper."""
    root = tmp_path_factory.mktemp("show")
    folder = root / "papers"
    folder.mkdir()
    made = make_pdfs.make_pdfs(root / "made")
    shutil.copy(made["two_column"], folder / "two_column.pdf")
    shutil.copy(PROJECT / "corpus" / "flat" / "lee-2022.md", folder / "lee-2022.md")
    ingest_folder(folder, root / "papers.duckdb", rules, IngestOptions(workers=1))
    return root / "papers.duckdb", folder


def _query(db: Path, sql: str, parameters: list | None = None) -> list[tuple]:
    connection = duckdb.connect(str(db), read_only=True)
    try:
        return connection.execute(sql, parameters or []).fetchall()
    finally:
        connection.close()


def _crossing_chunk(db: Path) -> str:
    """The chunk that holds the paragraph continued over the page break."""
    return _query(db, "SELECT chunk_id FROM chunks WHERE contains(text, ?)", [make_pdfs.CROSSING[:60]])[0][0]


def _show(db: Path, *arguments: str):
    return runner.invoke(app, ["show", *arguments, "--db", str(db)])


def test_a_pdf_chunk_is_drawn_as_its_pages_stacked_under_a_caption(ingested, tmp_path):
    db, folder = ingested
    chunk_id = _crossing_chunk(db)
    result = _show(db, chunk_id, "--out", str(tmp_path / "chunk.png"))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{tmp_path / 'chunk.png'}\n"
    picture = pymupdf.Pixmap(str(tmp_path / "chunk.png"))
    pages = sorted({page for (page,) in _query(db, "SELECT page FROM chunk_boxes WHERE chunk_id = ?", [chunk_id])})
    with pymupdf.open(folder / "two_column.pdf") as doc:
        heights = [doc[page - 1].get_pixmap(dpi=SHOW_DPI).height for page in pages]
        width = doc[0].get_pixmap(dpi=SHOW_DPI).width
    assert len(pages) == 2
    assert picture.width == width and picture.height > sum(heights)


def _tinted_share(picture: pymupdf.Pixmap, top: int, box: tuple[float, float, float, float]) -> float:
    scale = SHOW_DPI / 72
    x0, y0, x1, y1 = (round(value * scale) for value in box)
    pixels = [picture.pixel(x, top + y) for x in range(x0 + 1, x1 - 1, 3) for y in range(y0 + 1, y1 - 1, 3)]
    return sum(1 for red, green, blue in pixels if red > 200 and blue < 200) / len(pixels)


def test_the_chunks_boxes_are_filled_and_the_page_elsewhere_is_not(ingested, tmp_path):
    db, _ = ingested
    chunk_id = _crossing_chunk(db)
    _show(db, chunk_id, "--out", str(tmp_path / "chunk.png"))
    picture = pymupdf.Pixmap(str(tmp_path / "chunk.png"))
    first_page = min(page for (page,) in _query(db, "SELECT page FROM chunk_boxes WHERE chunk_id = ?", [chunk_id]))
    boxes = _query(db, "SELECT x0, y0, x1, y1 FROM chunk_boxes WHERE chunk_id = ? AND page = ?", [chunk_id, first_page])
    caption = picture.height - sum(_page_heights(ingested[1] / "two_column.pdf", db, chunk_id))
    assert all(_tinted_share(picture, caption, box) >= PDF_CHUNK_COLOURED for box in boxes)
    assert _tinted_share(picture, caption, (0, 0, 20, 20)) == 0  # the page's top left corner, a margin


def _page_heights(file: Path, db: Path, chunk_id: str) -> list[int]:
    pages = sorted({page for (page,) in _query(db, "SELECT page FROM chunk_boxes WHERE chunk_id = ?", [chunk_id])})
    with pymupdf.open(file) as doc:
        return [doc[page - 1].get_pixmap(dpi=SHOW_DPI).height for page in pages]


def test_without_out_the_picture_goes_to_out_show_and_its_path_is_printed(ingested, tmp_path, monkeypatch):
    db, _ = ingested
    monkeypatch.chdir(tmp_path)
    result = _show(db, "two_column.pdf:2")
    assert (result.exit_code, result.stdout) == (0, "out/show/two_column.pdf_2.png\n")
    assert (tmp_path / "out" / "show" / "two_column.pdf_2.png").stat().st_size > 0


def test_the_html_page_holds_its_pages_inline_and_loads_nothing(ingested, tmp_path):
    db, _ = ingested
    chunk_id = _crossing_chunk(db)
    result = _show(db, chunk_id, "--out", str(tmp_path / "chunk.html"))
    page = (tmp_path / "chunk.html").read_text()
    assert result.exit_code == 0
    assert page.count('<img alt="page ') == page.count('src="data:image/png;base64,') == 2
    assert "http" not in page and chunk_id in page


def test_a_markdown_chunk_shows_its_source_lines_with_its_own_marked(ingested, tmp_path):
    db, _ = ingested
    line_start, line_end = _query(db, "SELECT line_start, line_end FROM chunks WHERE chunk_id = 'lee-2022.md:3'")[0]
    result = _show(db, "lee-2022.md:3", "--out", str(tmp_path / "chunk.txt"))
    marked = [int(line.split("|")[0][1:]) for line in (tmp_path / "chunk.txt").read_text().splitlines() if line.startswith(">")]
    assert result.exit_code == 0
    assert marked == list(range(line_start, line_end + 1))


def test_a_markdown_chunk_goes_to_an_html_page_that_marks_its_lines(ingested, tmp_path, monkeypatch):
    db, _ = ingested
    monkeypatch.chdir(tmp_path)
    line_start, line_end = _query(db, "SELECT line_start, line_end FROM chunks WHERE chunk_id = 'lee-2022.md:3'")[0]
    result = _show(db, "lee-2022.md:3")
    assert result.stdout == "out/show/lee-2022.md_3.html\n"
    assert (tmp_path / "out" / "show" / "lee-2022.md_3.html").read_text().count("<mark>") == line_end - line_start + 1


def test_a_markdown_chunk_has_no_png(ingested, tmp_path):
    db, _ = ingested
    result = _show(db, "lee-2022.md:3", "--out", str(tmp_path / "chunk.png"))
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: --out {tmp_path / 'chunk.png'}: a Markdown chunk (it has no pages to draw) is shown as .html or .txt; "
        "pass such a file name\n"
    )


def test_an_unknown_paper_is_named_with_the_closest_doc_ids_and_how_to_list_chunk_ids(ingested):
    db, _ = ingested
    result = _show(db, "two_colum.pdf:1")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: no paper 'two_colum.pdf' in the database (the closest doc_id: two_column.pdf); a chunk id is <doc_id>:<number>, "
        "as `pipeline search` prints it, e.g. two_column.pdf:1; list a paper's with "
        "`pipeline sql \"SELECT chunk_id FROM chunks WHERE doc_id = 'two_column.pdf'\"`\n"
    )


def test_an_unknown_chunk_number_names_the_papers_first_and_last_chunk(ingested):
    db, _ = ingested
    (last,) = _query(db, "SELECT max(ordinal) FROM chunks WHERE doc_id = 'lee-2022.md'")[0]
    result = _show(db, "lee-2022.md:999")
    assert result.exit_code == 1
    assert result.stderr == f"Error: no chunk 'lee-2022.md:999' in the database: lee-2022.md's chunks are lee-2022.md:1 to lee-2022.md:{last}\n"


def test_an_id_in_a_database_without_chunks_says_to_ingest_first(tmp_path, rules):
    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "empty.md").write_text("")
    ingest_folder(tmp_path / "papers", tmp_path / "papers.duckdb", rules, IngestOptions(workers=1))
    result = _show(tmp_path / "papers.duckdb", "empty.md:1")
    assert result.exit_code == 1
    assert result.stderr == "Error: no chunk 'empty.md:1': the database holds no chunks; run `pipeline ingest FOLDER` first\n"


def test_the_help_example_is_a_chunk_id_that_can_exist():
    result = runner.invoke(app, ["show", "--help"], env={"COLUMNS": "200"})
    assert "(reviews/berek-2021.md:3)" in result.stdout and "berek-2021:" not in result.stdout


def test_a_markdown_file_changed_since_ingest_is_refused_without_talk_of_boxes(ingested, tmp_path):
    db, folder = ingested
    moved = tmp_path / "papers"
    shutil.copytree(folder, moved)
    with (moved / "lee-2022.md").open("a") as handle:
        handle.write("\nA line added later.\n")
    result = _show(db, "lee-2022.md:3", "--folder", str(moved), "--out", str(tmp_path / "chunk.txt"))
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {moved / 'lee-2022.md'}: changed since it was ingested (its sha256 is not the one stored), so its stored "
        f"line numbers may not fit it; run `pipeline ingest {moved}` again, then show the chunk\n"
    )


def test_a_file_changed_since_ingest_is_refused(ingested, tmp_path, rules):
    db, folder = ingested
    moved = tmp_path / "papers"
    shutil.copytree(folder, moved)
    with (moved / "two_column.pdf").open("ab") as handle:
        handle.write(b"\n% edited\n")
    result = _show(db, "two_column.pdf:2", "--folder", str(moved), "--out", str(tmp_path / "chunk.png"))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {moved / 'two_column.pdf'}: changed since it was ingested")
    assert result.stderr.endswith(f"run `pipeline ingest {moved}` again, then show the chunk\n")
    assert not (tmp_path / "chunk.png").exists()


def test_a_moved_folder_is_found_with_folder(ingested, tmp_path):
    db, folder = ingested
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(folder, elsewhere)
    missing = _show(db, "two_column.pdf:2", "--folder", str(tmp_path), "--out", str(tmp_path / "a.png"))
    found = _show(db, "two_column.pdf:2", "--folder", str(elsewhere), "--out", str(tmp_path / "b.png"))
    assert missing.stderr == f"Error: two_column.pdf: not found in {tmp_path}; pass --folder with the folder the papers are in now\n"
    assert found.exit_code == 0 and (tmp_path / "b.png").exists()


def test_search_show_draws_every_hit_and_prints_where(ingested, tmp_path, monkeypatch):
    db, _ = ingested
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["search", "crossing paragraph", "--db", str(db), "--limit", "2", "--show", "--json"])
    hits = [hit["chunk_id"] for hit in json.loads(result.stdout)["hits"]]
    shown = [line.removeprefix("shown: ") for line in result.stderr.splitlines() if line.startswith("shown: ")]
    assert result.exit_code == 0 and hits
    assert shown == [f"out/show/{chunk_id.replace(':', '_')}.png" for chunk_id in hits]
    assert all((tmp_path / path).exists() for path in shown)


def _one_page_pdf(width: float, height: float) -> bytes:
    document = pymupdf.open()
    page = document.new_page(width=width, height=height)
    page.insert_text((20, 40), "Results", fontsize=16)
    page.insert_text((20, 60), "The treated cohort improved over the study period.", fontsize=10)
    data = document.tobytes()
    document.close()
    return data


def test_a_page_of_the_largest_size_a_pdf_allows_is_drawn_within_the_pixel_budget(tmp_path, rules):
    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "poster.pdf").write_bytes(_one_page_pdf(14_400, 14_400))
    ingest_folder(tmp_path / "papers", tmp_path / "papers.duckdb", rules, IngestOptions(workers=1))
    result = _show(tmp_path / "papers.duckdb", "poster.pdf:1", "--out", str(tmp_path / "chunk.png"))
    assert result.exit_code == 0, result.output
    picture = pymupdf.Pixmap(str(tmp_path / "chunk.png"))
    assert picture.width * picture.height <= SHOW_MAX_PIXELS * 1.05  # the pages, and a caption strip above them


def test_a_page_narrower_than_its_caption_is_drawn_under_the_whole_caption(tmp_path, rules):
    document = pymupdf.open()
    page = document.new_page(width=12, height=800)
    for line, word in enumerate("Results of the strip".split()):
        page.insert_text((1, 40 + 4 * line), word, fontsize=2)
    (tmp_path / "papers").mkdir()
    document.save(tmp_path / "papers" / "strip.pdf")
    ingest_folder(tmp_path / "papers", tmp_path / "papers.duckdb", rules, IngestOptions(workers=1))
    result = _show(tmp_path / "papers.duckdb", "strip.pdf:1", "--out", str(tmp_path / "chunk.png"))
    assert result.exit_code == 0, result.output
    assert pymupdf.Pixmap(str(tmp_path / "chunk.png")).width > 10 * 12 * SHOW_DPI / 72


def _non_utf8_folder(tmp_path: Path) -> Path:
    """A folder holding one Markdown paper whose file name has the byte 0xff, which no UTF-8 text holds."""
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / os.fsdecode(b"caf\xff.md")).write_bytes(b"# A paper\n\n## Results\n\nSerum IL-6 rose in the treated cohort.\n")
    return folder


def test_a_file_named_with_bytes_that_are_not_utf8_is_shown_by_its_doc_id(tmp_path, rules):
    folder = _non_utf8_folder(tmp_path)
    ingest_folder(folder, tmp_path / "papers.duckdb", rules, IngestOptions(workers=1))
    chunk_id = _query(tmp_path / "papers.duckdb", "SELECT chunk_id FROM chunks")[0][0]
    result = _show(tmp_path / "papers.duckdb", chunk_id, "--out", str(tmp_path / "chunk.txt"))
    assert chunk_id == "caf%FF.md:1"
    assert result.exit_code == 0, result.output
    assert "> " in (tmp_path / "chunk.txt").read_text()


def test_a_file_named_with_bytes_that_are_not_utf8_is_found_with_folder(tmp_path, rules):
    folder = _non_utf8_folder(tmp_path)
    ingest_folder(folder, tmp_path / "papers.duckdb", rules, IngestOptions(workers=1))
    moved = shutil.move(folder, tmp_path / "moved")
    result = _show(tmp_path / "papers.duckdb", "caf%FF.md:1", "--folder", str(moved), "--out", str(tmp_path / "chunk.txt"))
    assert result.exit_code == 0, result.output


def test_a_chunk_is_found_by_its_files_own_name_too(ingested, tmp_path, rules):
    db, folder = ingested
    spaced = tmp_path / "spaced"
    spaced.mkdir()
    shutil.copy(folder / "lee-2022.md", spaced / "lee 2022.md")
    ingest_folder(spaced, tmp_path / "spaced.duckdb", rules, IngestOptions(workers=1))
    result = _show(tmp_path / "spaced.duckdb", "lee 2022.md:3", "--out", str(tmp_path / "chunk.txt"))
    assert result.exit_code == 0, result.output
    assert "lee%202022.md:3" in (tmp_path / "chunk.txt").read_text()


def test_a_folder_ingested_by_a_relative_path_is_shown_from_another_folder(tmp_path, rules, monkeypatch):
    (tmp_path / "papers").mkdir()
    shutil.copy(PROJECT / "corpus" / "flat" / "lee-2022.md", tmp_path / "papers" / "lee-2022.md")
    monkeypatch.chdir(tmp_path)
    ingest_folder(Path("papers"), tmp_path / "papers.duckdb", rules, IngestOptions(workers=1))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = _show(tmp_path / "papers.duckdb", "lee-2022.md:3", "--out", str(tmp_path / "chunk.txt"))
    assert _query(tmp_path / "papers.duckdb", "SELECT folder FROM runs") == [(str((tmp_path / "papers").resolve()),)]
    assert result.exit_code == 0 and (tmp_path / "chunk.txt").exists()


def test_an_older_runs_relative_folder_is_read_from_the_current_directory(ingested, tmp_path, monkeypatch):
    db, folder = ingested
    old = tmp_path / "old.duckdb"
    shutil.copy(db, old)
    connection = duckdb.connect(str(old))
    connection.execute("UPDATE runs SET folder = ?", [folder.name])
    connection.close()
    monkeypatch.chdir(folder.parent)
    found = _show(old, "lee-2022.md:3", "--out", str(tmp_path / "chunk.txt"))
    monkeypatch.chdir(tmp_path)
    missing = _show(old, "lee-2022.md:3", "--out", str(tmp_path / "other.txt"))
    assert found.exit_code == 0 and (tmp_path / "chunk.txt").exists()
    assert missing.stderr == (
        f"Error: lee-2022.md: not found in {(tmp_path / folder.name).resolve()}; pass --folder with the folder the papers are in now\n"
    )
