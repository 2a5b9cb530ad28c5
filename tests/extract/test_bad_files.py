"""Bad files are isolated: each is a documents row with a status and its cause, and the good
paper beside them is ingested all the same."""

from __future__ import annotations

import os

import pymupdf
import pytest

from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.index.database import open_readonly

GOOD = "# Good paper\n\n## Results\n\nIL-6 rose in the treated cohort.\n"


def _pdf_bytes(text: str = "A page of real text about IL-6.") -> bytes:
    document = pymupdf.open()
    page = document.new_page()
    page.insert_text((72, 72), text)
    data = document.tobytes()
    document.close()
    return data


def _scanned_pdf_bytes() -> bytes:
    document = pymupdf.open()
    page = document.new_page()
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 200, 100), False)
    pixmap.clear_with(200)
    page.insert_image(page.rect, pixmap=pixmap)
    data = document.tobytes()
    document.close()
    return data


def _encrypted_pdf_bytes() -> bytes:
    document = pymupdf.open(stream=_pdf_bytes(), filetype="pdf")
    data = document.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")
    document.close()
    return data


BAD_FILES = {
    "empty.md": (b"", "failed", "the file is empty"),
    "nul.md": (b"# Title\x00\x00binary", "failed", "NUL byte at offset 7"),
    "zero.pdf": (b"", "failed", "zero.pdf"),
    "truncated.pdf": (_pdf_bytes()[:300], "failed", "truncated.pdf"),
    "not-a-pdf.pdf": (b"<html><body>Sorry, access denied</body></html>", "failed", "not-a-pdf.pdf"),
    "encrypted.pdf": (_encrypted_pdf_bytes(), "failed", "encrypted.pdf"),
    "scanned.pdf": (_scanned_pdf_bytes(), "no_text", "OCR"),
}


@pytest.fixture(scope="module")
def outcome(tmp_path_factory, rules):
    folder = tmp_path_factory.mktemp("bad") / "papers"
    folder.mkdir()
    (folder / "good.md").write_text(GOOD)
    for name, (content, _, _) in BAD_FILES.items():
        (folder / name).write_bytes(content)
    (folder / "latin1.md").write_bytes("# Résumé\n\n## Results\n\nLes données étaient complètes.\n".encode("latin-1"))
    (folder / "bom.md").write_bytes("\ufeff# With a BOM\n\n## Methods\n\nText.\n".encode("utf-8"))
    (folder / "name with spaces é 논문.md").write_text(GOOD)
    (folder / "headings.md").write_text("# Many\n\n" + "".join(f"## Heading {index}\n\nText {index}.\n\n" for index in range(10_000)))
    (folder / "dangling.md").symlink_to(folder / "nowhere.md")
    (folder / "loop.md").symlink_to(folder / "loop.md")
    (folder / "sub").mkdir()
    (folder / "sub" / "back").symlink_to(folder, target_is_directory=True)  # a folder loop
    db = folder.parent / "papers.duckdb"
    summary = ingest_folder(folder, db, rules, IngestOptions(workers=2, timeout_seconds=120))
    connection = open_readonly(db)
    rows = {path: (status, error) for path, status, error in connection.execute("SELECT path, status, error FROM documents").fetchall()}
    encodings = dict(connection.execute("SELECT path, encoding FROM documents WHERE format = 'markdown'").fetchall())
    connection.close()
    return summary, rows, encodings


@pytest.mark.parametrize("name", BAD_FILES)
def test_each_bad_file_is_recorded_with_its_status_and_cause(outcome, name):
    _, rows, _ = outcome
    _, status, cause = BAD_FILES[name]
    assert rows[name][0] == status
    assert cause in rows[name][1]
    assert rows[name][1].startswith(name)


def test_the_good_paper_beside_them_is_ingested(outcome):
    _, rows, _ = outcome
    assert rows["good.md"] == ("ingested", None)


def test_latin1_and_bom_markdown_are_read_and_their_encoding_recorded(outcome):
    _, rows, encodings = outcome
    assert rows["latin1.md"] == ("ingested", None) and rows["bom.md"] == ("ingested", None)
    assert (encodings["latin1.md"], encodings["bom.md"], encodings["good.md"]) == ("cp1252", "utf-8-sig", "utf-8")


def test_names_with_spaces_and_non_ascii_characters_are_ingested(outcome):
    _, rows, _ = outcome
    assert rows["name with spaces é 논문.md"] == ("ingested", None)


def test_a_file_with_ten_thousand_headings_is_ingested(outcome):
    _, rows, _ = outcome
    assert rows["headings.md"] == ("ingested", None)


def test_unreadable_files_fail_with_the_operating_system_cause(outcome):
    _, rows, _ = outcome
    assert rows["dangling.md"] == (
        "failed", "dangling.md: a symbolic link to a file that does not exist; point it at the paper or remove it"
    )
    assert rows["loop.md"] == ("failed", "loop.md: a symbolic link that loops back on itself; point it at the paper or remove it")


def test_a_folder_symlink_loop_is_not_followed(outcome):
    _, rows, _ = outcome
    assert not any(path.startswith("sub/back") for path in rows)


def test_a_link_to_a_folder_elsewhere_is_followed_and_a_folder_reached_twice_is_read_once(tmp_path, rules):
    archive = tmp_path / "archive"
    archive.mkdir()
    (archive / "old.md").write_text(GOOD)
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "2019").symlink_to(archive, target_is_directory=True)
    (folder / "again").symlink_to(archive, target_is_directory=True)
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, IngestOptions(workers=1))
    connection = open_readonly(db)
    assert connection.execute("SELECT path FROM documents").fetchall() == [("2019/old.md",)]
    connection.close()


def test_the_run_reports_every_failure(outcome):
    summary, _, _ = outcome
    assert set(summary.failed) == set(BAD_FILES) | {"dangling.md", "loop.md"}


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_a_file_without_read_permission_fails_with_the_cause(tmp_path, rules):
    (tmp_path / "secret.md").write_text(GOOD)
    (tmp_path / "secret.md").chmod(0)
    summary = ingest_folder(tmp_path, tmp_path / "out.duckdb", rules, IngestOptions(workers=1))
    assert "Permission denied" in summary.failed["secret.md"]


def test_a_file_over_the_time_limit_is_stopped_and_failed(tmp_path, rules):
    (tmp_path / "good.md").write_text(GOOD)
    # 32 MB: more than even markdown-it-py's bare parse gets through in the 1 s limit.
    (tmp_path / "slow.md").write_text("# Slow\n\n" + "".join(f"## H{index}\n\n" + "word " * 400 + "\n\n" for index in range(16000)))
    summary = ingest_folder(tmp_path / ".", tmp_path / "out" / "papers.duckdb", rules, IngestOptions(workers=1, timeout_seconds=1))
    assert summary.failed["slow.md"] == "slow.md: stopped after 1 s (time limit per file); if the file is sound, raise --timeout"
    assert "good.md" not in summary.failed


@pytest.mark.slow
def test_a_50_mb_markdown_file_is_ingested_beside_a_small_one(tmp_path, rules):
    (tmp_path / "good.md").write_text(GOOD)
    section = "## Section {index}\n\n" + "The cohort of patients was followed with imaging and blood tests. " * 30 + "\n\n"
    with open(tmp_path / "huge.md", "w") as huge:
        huge.write("# A huge paper\n\n")
        index = 0
        while huge.tell() < 50_000_000:
            huge.write(section.format(index=index))
            index += 1
    db = tmp_path / "out" / "papers.duckdb"
    summary = ingest_folder(tmp_path, db, rules, IngestOptions(workers=2, timeout_seconds=600))
    assert summary.failed == {}
    connection = open_readonly(db)
    assert connection.execute("SELECT count(*), max(word_count) FROM chunks WHERE doc_id = 'huge.md'").fetchone() == (index, 2 + 30 * 11)  # one per section; the title alone is no chunk
    assert connection.execute("SELECT status FROM documents WHERE doc_id = 'good.md'").fetchone() == ("ingested",)
