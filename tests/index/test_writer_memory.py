"""The writer's memory is bounded: `ingest --memory-limit` (default 4GB) bounds the writer's
process, DuckDB's memory_limit on every connection a run writes with is its share of it, so its
buffer pool no longer grows with the database, and the process has room besides."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from conftest import PROJECT
from pipeline.cli import app
from pipeline.errors import PipelineError
from pipeline.index.database import duckdb_memory_limit, memory_bytes, open_for_writing, published_beside
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.ingest import run


def test_a_writer_opened_with_a_memory_limit_holds_duckdb_to_its_share(tmp_path):
    with open_for_writing(tmp_path / "papers.duckdb", memory_limit="4GB") as connection:
        assert connection.execute("SELECT current_setting('memory_limit')").fetchone()[0] == "2.8 GiB"


@pytest.mark.parametrize(("limit", "duckdb_mib"), [("4GB", 2898), ("1GB", 609), ("1.5GiB", 1075)])
def test_duckdb_gets_four_fifths_of_what_the_process_reserve_leaves(limit, duckdb_mib):
    # 4GB is 3,815 MiB: 3,815 - 192 = 3,623, of which 80%.
    assert memory_bytes(duckdb_memory_limit(limit)) // 2**20 == duckdb_mib


def test_a_limit_too_small_for_the_reserve_still_gives_duckdb_its_floor():
    assert memory_bytes(duckdb_memory_limit("256MB")) == 128 * 2**20


def test_every_connection_a_run_writes_with_has_the_runs_memory_limit(tmp_path, rules, monkeypatch):
    limits = []

    def spied(db, shown_as=None, memory_limit=None):
        limits.append(memory_limit)
        return open_for_writing(db, shown_as, memory_limit)

    monkeypatch.setattr(run, "open_for_writing", spied)
    ingest_folder(PROJECT / "corpus" / "flat", tmp_path / "papers.duckdb", rules, IngestOptions(workers=1, memory_limit="256MB"))

    assert limits and set(limits) == {"256MB"}


def test_the_default_limit_is_4gb():
    assert IngestOptions(workers=1).memory_limit == "4GB"


def test_a_memory_limit_that_is_no_size_is_refused_with_an_example():
    with pytest.raises(PipelineError, match=r"^memory limit 'lots' is not a size; pass --memory-limit as a number and a unit, e\.g\. 4GB"):
        IngestOptions(workers=1, memory_limit="lots")


def test_ingest_names_a_bad_memory_limit_in_one_line(tmp_path):
    result = CliRunner().invoke(app, ["ingest", str(PROJECT / "corpus"), "--db", str(tmp_path / "p.duckdb"), "--memory-limit", "lots"])

    assert result.exit_code == 1
    assert "Error: memory limit 'lots' is not a size" in result.output
    assert not (tmp_path / "p.duckdb").exists()


def test_the_published_database_a_run_reads_shares_the_writers_memory_limit(tmp_path):
    published = tmp_path / "papers.duckdb"
    with open_for_writing(published) as connection:
        connection.execute("CREATE TABLE documents AS SELECT 'a' AS doc_id")
    with open_for_writing(tmp_path / "building.duckdb", memory_limit="512MB") as connection:
        with published_beside(connection, published) as reader:
            assert reader.execute("SELECT current_setting('memory_limit')").fetchone()[0] == "237.0 MiB"
            assert reader.execute("SELECT doc_id FROM documents").fetchall() == [("a",)]
        assert connection.execute("SELECT count(*) FROM duckdb_databases() WHERE NOT internal").fetchone()[0] == 1
