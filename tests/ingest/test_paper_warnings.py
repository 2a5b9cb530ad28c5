"""A paper whose reading lost something is stored with a warning that the documents row, the
run's summary and `pipeline report` name: bytes that are not UTF-8 replaced, no chunks at all."""

from __future__ import annotations

import pytest

from pipeline.index.database import open_readonly
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.report.text import render_report

GOOD = "# Good paper\n\n## Results\n\nIL-6 rose in the treated cohort.\n"
STRAY_BYTE = "# 정확도 of the café\n\n## Results\n\nThe café's 정확도 rose.\n".encode() + b"na\xefve\n"
NOTHING_TO_CHUNK = "<!-- an export that wrote nothing but this comment -->\n"


@pytest.fixture(scope="module")
def ingested(tmp_path_factory, rules):
    folder = tmp_path_factory.mktemp("warned") / "papers"
    folder.mkdir()
    (folder / "good.md").write_text(GOOD)
    (folder / "stray.md").write_bytes(STRAY_BYTE)
    (folder / "empty.md").write_text(NOTHING_TO_CHUNK)
    db = folder.parent / "papers.duckdb"
    summary = ingest_folder(folder, db, rules, IngestOptions(workers=1))
    return db, summary


def _row(db, path):
    with open_readonly(db) as connection:
        return connection.execute("SELECT status, encoding, warning, text FROM documents WHERE path = ?", [path]).fetchone()


def test_a_stray_byte_is_replaced_and_warned_on_the_documents_row(ingested):
    status, encoding, warning, text = _row(ingested[0], "stray.md")
    assert (status, encoding) == ("ingested", "utf-8")
    assert "정확도" in text and "café" in text and "na\ufffdve" in text
    assert warning.startswith("1 run(s) of bytes that are not UTF-8 replaced by U+FFFD (the first at byte")


def test_a_paper_stored_with_no_chunks_is_warned_on_the_documents_row(ingested):
    status, _, warning, _ = _row(ingested[0], "empty.md")
    assert (status, warning) == ("ingested", "stored with no chunks: no text was left to chunk (`pipeline inspect` shows what was read)")


def test_a_clean_paper_has_no_warning(ingested):
    assert _row(ingested[0], "good.md")[2] is None


def test_the_run_summary_names_the_papers_with_a_warning(ingested):
    summary = ingested[1]
    assert sorted(summary.warnings) == ["empty.md", "stray.md"]
    assert "2 paper(s) stored with a warning (`pipeline report` lists them): empty.md (stored with no chunks" in summary.line()


def test_the_report_names_the_papers_with_a_warning(ingested, rules):
    with open_readonly(ingested[0]) as connection:
        report = render_report(connection, rules.chunk)
    listed = report.split("Stored with a warning (pipeline inspect FILE shows what was read):\n")[1].splitlines()[:2]
    assert [line.split(":")[0].strip() for line in listed] == ["empty.md", "stray.md"]
