"""Search by paragraph: each paragraph ranked by BM25 on its own, carrying its parent chunk, its
section and where it sits, with a window of its section's neighbours."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.index.database import open_readonly
from pipeline.index.paragraphs import search_paragraphs
from pipeline.index.search import UnitFilters
from pipeline.ingest import IngestOptions, ingest_folder

runner = CliRunner()
TRIAL = """# A trial

## Methods

Adults with asthma were enrolled at four sites.

Randomisation used sealed envelopes prepared by a statistician.

Outcomes were assessed blind to allocation.

## Results

Exacerbations fell by a third with the inhaler.

No serious adverse events occurred.
"""
OTHER = "# Other\n\n## Methods\n\nChildren with eczema were enrolled.\n"


@pytest.fixture(scope="module")
def database(tmp_path_factory, rules):
    folder = tmp_path_factory.mktemp("paragraphs") / "papers"
    folder.mkdir()
    (folder / "trial.md").write_text(TRIAL)
    (folder / "other.md").write_text(OTHER)
    db = folder.parent / "papers.duckdb"
    ingest_folder(folder, db, rules, IngestOptions(workers=1))
    return db


def test_a_paragraph_hit_is_the_paragraph_that_holds_the_words_not_its_chunk(database):
    (hit,) = search_paragraphs(open_readonly(database), "sealed envelopes")
    assert (hit.paragraph_key, hit.paragraph.paragraph_id) == ("trial.md:S2-P2", "S2-P2")
    assert hit.text == "Randomisation used sealed envelopes prepared by a statistician."


def test_a_paragraph_hit_carries_the_chunk_that_holds_it_and_its_section(database):
    connection = open_readonly(database)
    (hit,) = search_paragraphs(connection, "sealed envelopes")
    start, end, paragraph_ids = connection.execute(
        "SELECT char_start, char_end, paragraph_ids FROM chunks WHERE chunk_id = ?", [hit.chunk_id]
    ).fetchone()
    assert start <= hit.paragraph.char_start < end and "S2-P2" in paragraph_ids
    assert (hit.section_id, hit.heading_path, hit.section_type) == ("S2", ["Methods"], "methods")


def test_a_paragraph_hit_s_text_is_an_exact_slice_of_its_paper_and_its_lines_hold_it(database):
    (hit,) = search_paragraphs(open_readonly(database), "sealed envelopes")
    assert TRIAL.splitlines()[hit.paragraph.line_start - 1] == hit.text
    paper = open_readonly(database).execute("SELECT text FROM documents WHERE doc_id = 'trial.md'").fetchone()[0]
    assert paper[hit.paragraph.char_start : hit.paragraph.char_end] == hit.text


def test_the_window_adds_the_neighbours_on_either_side_within_the_section(database):
    (hit,) = search_paragraphs(open_readonly(database), "sealed envelopes", window=1)
    assert [span.paragraph_id for span in hit.window] == ["S2-P1", "S2-P3"]
    assert [span.paragraph_id for span in hit.context()] == ["S2-P1", "S2-P2", "S2-P3"]


def test_the_window_stops_at_the_section_s_edge(database):
    (hit,) = search_paragraphs(open_readonly(database), "exacerbations inhaler", window=2)
    assert [span.paragraph_id for span in hit.window] == ["S3-P2"]


def test_paragraphs_are_filtered_by_section_type_and_paper_as_chunks_are(database):
    connection = open_readonly(database)
    assert {hit.doc_id for hit in search_paragraphs(connection, "enrolled")} == {"trial.md", "other.md"}
    assert [hit.doc_id for hit in search_paragraphs(connection, "enrolled", UnitFilters(doc_id="other.md"))] == ["other.md"]
    assert search_paragraphs(connection, "enrolled", UnitFilters(section_type="results")) == []


def test_a_paragraph_s_length_is_the_sum_of_its_postings(database):
    rows = open_readonly(database).execute(
        "SELECT any_value(p.term_count), sum(pp.tf) FROM paragraphs p JOIN paragraph_postings pp USING (paragraph_key) "
        "GROUP BY paragraph_key"
    ).fetchall()
    assert len(rows) == 6 and all(length == total for length, total in rows)


def test_a_paper_s_paragraph_postings_go_when_the_paper_goes(tmp_path, rules):
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "trial.md").write_text(TRIAL)
    (folder / "other.md").write_text(OTHER)
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, IngestOptions(workers=1))
    (folder / "other.md").unlink()
    ingest_folder(folder, db, rules, IngestOptions(workers=1))
    keys = open_readonly(db).execute("SELECT DISTINCT paragraph_key FROM paragraph_postings").fetchall()
    assert keys and all(key.startswith("trial.md:") for (key,) in keys)


def test_the_json_paragraph_hit_names_its_parent_chunk_section_lines_and_window(database):
    result = runner.invoke(app, ["search", "sealed envelopes", "--db", str(database), "--unit", "paragraph", "--window", "1", "--json"])
    output = json.loads(result.stdout)
    (hit,) = output["hits"]
    assert output["unit"] == "paragraph" and hit["id"] == "trial.md:S2-P2"
    assert hit["source"]["parent_chunk_id"].startswith("trial.md:") and hit["source"]["section_id"] == "S2"
    assert (hit["source"]["line_start"], hit["source"]["line_end"]) == (7, 7)
    assert [neighbour["paragraph_id"] for neighbour in hit["window"]] == ["S2-P1", "S2-P3"]


def test_the_text_output_shows_the_parent_chunk_and_the_window(database):
    result = runner.invoke(app, ["search", "sealed envelopes", "--db", str(database), "--unit", "paragraph", "--window", "1"])
    assert "trial.md:S2-P2" in result.stdout and "(in chunk trial.md:" in result.stdout
    assert "↑ S2-P1: Adults with asthma" in result.stdout and "↓ S2-P3: Outcomes were assessed" in result.stdout


def test_a_window_asked_for_chunks_is_refused(database):
    result = runner.invoke(app, ["search", "asthma", "--db", str(database), "--window", "1"])
    assert result.exit_code == 2 and "--window needs --unit paragraph" in result.stderr


def test_a_paragraph_search_that_finds_nothing_says_so_in_paragraphs(database):
    result = runner.invoke(app, ["search", "zzyzx", "--db", str(database), "--unit", "paragraph"])
    assert result.stderr.splitlines()[-1] == "No paragraphs match 'zzyzx': no paragraph holds any of its words."


def test_a_citation_marker_is_no_index_term_of_its_paragraph(tmp_path, rules):
    folder = tmp_path / "papers"
    folder.mkdir()
    entries = "".join(f"{n}. Author{n} A. Title. J 2001.\n" for n in range(1, 7))
    (folder / "cites.md").write_text(f"# E\n\n## Results\n\nCytokines rose, as reported before [6].\n\n## References\n\n{entries}")
    (folder / "says.md").write_text("# F\n\n## Results\n\nSerum IL-6 rose.\n")
    ingest_folder(folder, tmp_path / "papers.duckdb", rules, IngestOptions(workers=1))
    hits = search_paragraphs(open_readonly(tmp_path / "papers.duckdb"), "IL-6")
    assert [hit.doc_id for hit in hits] == ["says.md"]
