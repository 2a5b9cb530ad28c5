"""Links from bibliography entries to the papers of the folder: made by DOI, or by title, year
and first author; recomputed from the stored rows at every run, both ways."""

from __future__ import annotations

import sys

import pytest

from conftest import PROJECT, ingested_papers, shared_corpus, writable_database
from pipeline.index import paper_links
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.index.database import open_readonly
from pipeline.export.records import Selection, read_records
from pipeline.report import render_report
from pipeline.index.search_request import SearchRequest, run_search
from pipeline.report.search_results import hit_lines

OPTIONS = IngestOptions(workers=1)

CITED = """---
title: Sleep loss raises interleukin-6 in healthy adults
authors: [Maria Okafor, Jun Park]
year: 2019
doi: 10.1000/sleep.2019.7
---

# Sleep loss raises interleukin-6 in healthy adults

## Results

IL-6 rose after one night without sleep.
"""

# The same work as a preprint: no DOI, the same title, year and first author.
PREPRINT = """# Sleep loss raises interleukin-6 in healthy adults

Maria Okafor, Jun Park

Published online 3 May 2019.

## Results

IL-6 rose after one night without sleep, in a first sample.
"""


def _citing(entries: str) -> str:
    return f"# A review of inflammation and sleep\n\n## Results\n\nSleep matters [1].\n\n## References\n\n{entries}\n"


BY_DOI = "1. Okafor M, Park J. Sleep loss raises interleukin-6 in healthy adults. J Sleep. 2019;4:1-9. doi:10.1000/sleep.2019.7\n"
BY_TITLE = "1. Okafor M, Park J. Sleep loss raises interleukin-6 in healthy adults. J Sleep. 2019;4:1-9.\n"
OTHER_YEAR = "1. Okafor M, Park J. Sleep loss raises interleukin-6 in healthy adults. J Sleep. 2017;2:1-9.\n"
YEAR_OFF_BY_ONE = "1. Okafor M, Park J. Sleep loss raises interleukin-6 in healthy adults. J Sleep. 2020;5:1-9.\n"
OTHER_WORK = "1. Okafor M. Exercise and interleukin-6 in healthy adults. J Sleep. 2019;4:10-19.\n"


def _links(db):
    return sorted(open_readonly(db).execute("SELECT doc_id, ref_id, cited_doc_id, matched_by FROM paper_links").fetchall())


def _ingest(folder, db, rules, files: dict[str, str]):
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return ingest_folder(folder, db, rules, OPTIONS)


def test_an_entry_with_the_papers_doi_links_to_it(tmp_path, rules):
    _ingest(tmp_path / "papers", tmp_path / "db.duckdb", rules, {"cited.md": CITED, "review.md": _citing(BY_DOI)})
    assert _links(tmp_path / "db.duckdb") == [("review.md", "R1", "cited.md", "doi")]


@pytest.mark.parametrize(
    "written",
    [
        "[https://doi.org/10.1000/sleep.2019.7](https://doi.org/10.1000/sleep.2019.7)",
        "*doi:10.1000/sleep.2019.7*",
        "“doi:10.1000/SLEEP.2019.7”",
    ],
)
def test_an_entry_whose_doi_is_written_in_markup_or_quotes_links_to_it(written, tmp_path, rules):
    entry = f"1. Okafor M, Park J. Sleep loss raises interleukin-6 in healthy adults. J Sleep. 2019;4:1-9. {written}\n"
    _ingest(tmp_path / "papers", tmp_path / "db.duckdb", rules, {"cited.md": CITED, "review.md": _citing(entry)})
    assert _links(tmp_path / "db.duckdb") == [("review.md", "R1", "cited.md", "doi")]


def test_an_entry_without_a_doi_links_by_title_year_and_first_author_to_every_copy_held(tmp_path, rules):
    _ingest(tmp_path / "papers", tmp_path / "db.duckdb", rules, {"cited.md": CITED, "preprint.md": PREPRINT, "review.md": _citing(BY_TITLE)})
    assert _links(tmp_path / "db.duckdb") == [
        ("review.md", "R1", "cited.md", "title_year_author"),
        ("review.md", "R1", "preprint.md", "title_year_author"),
    ]


@pytest.mark.parametrize(
    "entry",
    [
        "1. M. Okafor, J. Park, Sleep loss raises interleukin-6 in healthy adults, J. Sleep 4 (2019) 1.\n",
        "1. Maria Okafor and Jun Park. 2019. Sleep loss raises interleukin-6 in healthy adults. J Sleep 4.\n",
    ],
)
def test_an_entry_that_gives_the_first_authors_initials_or_name_before_the_surname_links_by_title(entry, tmp_path, rules):
    _ingest(tmp_path / "papers", tmp_path / "db.duckdb", rules, {"cited.md": CITED, "review.md": _citing(entry)})
    assert _links(tmp_path / "db.duckdb") == [("review.md", "R1", "cited.md", "title_year_author")]


def test_an_entry_that_gives_the_year_next_to_the_papers_links_by_title_year_and_first_author(tmp_path, rules):
    # The paper went online in 2019 and came out in an issue of 2020, which the entry gives.
    _ingest(tmp_path / "papers", tmp_path / "db.duckdb", rules, {"cited.md": CITED, "review.md": _citing(YEAR_OFF_BY_ONE)})
    assert _links(tmp_path / "db.duckdb") == [("review.md", "R1", "cited.md", "title_year_author")]


# The same work with no year anywhere: a preprint whose front prints none.
UNDATED = """# Sleep loss raises interleukin-6 in healthy adults

Maria Okafor, Jun Park

## Results

IL-6 rose after one night without sleep.
"""
NO_YEAR = "1. Okafor M, Park J. Sleep loss raises interleukin-6 in healthy adults. J Sleep. 4:1-9.\n"


def test_an_entry_that_prints_no_year_links_by_title_and_first_author(tmp_path, rules):
    _ingest(tmp_path / "papers", tmp_path / "db.duckdb", rules, {"cited.md": CITED, "review.md": _citing(NO_YEAR)})
    assert _links(tmp_path / "db.duckdb") == [("review.md", "R1", "cited.md", "title_year_author")]


def test_a_paper_that_prints_no_year_is_linked_by_title_and_first_author_from_a_dated_entry(tmp_path, rules):
    _ingest(tmp_path / "papers", tmp_path / "db.duckdb", rules, {"undated.md": UNDATED, "review.md": _citing(BY_TITLE)})
    assert _links(tmp_path / "db.duckdb") == [("review.md", "R1", "undated.md", "title_year_author")]


def test_without_a_year_another_first_author_still_links_nothing(tmp_path, rules):
    entry = NO_YEAR.replace("Okafor M, Park J", "Park J, Okafor M")
    _ingest(tmp_path / "papers", tmp_path / "db.duckdb", rules, {"cited.md": CITED, "review.md": _citing(entry)})
    assert _links(tmp_path / "db.duckdb") == []


def test_the_same_title_in_another_year_or_another_work_of_the_author_links_nothing(tmp_path, rules):
    entries = OTHER_YEAR + "\n" + OTHER_WORK.replace("1.", "2.", 1)
    _ingest(tmp_path / "papers", tmp_path / "db.duckdb", rules, {"cited.md": CITED, "review.md": _citing(entries)})
    assert _links(tmp_path / "db.duckdb") == []


def test_a_paper_added_later_completes_the_links_of_papers_ingested_before_and_its_removal_takes_them_away(tmp_path, rules):
    folder, db = tmp_path / "papers", tmp_path / "db.duckdb"
    _ingest(folder, db, rules, {"review.md": _citing(BY_DOI), "other.md": _citing(OTHER_WORK)})
    assert _links(db) == []
    added = _ingest(folder, db, rules, {"cited.md": CITED})
    assert (added.added, added.unchanged) == (1, 2)  # the review was not read again
    assert _links(db) == [("review.md", "R1", "cited.md", "doi")]
    (folder / "cited.md").unlink()
    ingest_folder(folder, db, rules, OPTIONS)
    assert _links(db) == []


def test_the_report_lists_each_papers_metadata_and_the_most_cited_papers_of_the_folder(tmp_path, rules):
    db = tmp_path / "db.duckdb"
    _ingest(tmp_path / "papers", db, rules, {"cited.md": CITED, "review.md": _citing(BY_DOI), "review2.md": _citing(BY_DOI)})
    report = render_report(open_readonly(db), rules.chunk).splitlines()
    assert "  cited.md: Sleep loss raises interleukin-6 in healthy adults (Maria Okafor, Jun Park; 2019; doi:10.1000/sleep.2019.7)" in report
    most_cited = report.index("Most cited in the folder (papers of it whose bibliography holds them, paper_links):")
    assert report[most_cited + 1] == "     2  cited.md: Sleep loss raises interleukin-6 in healthy adults"


@pytest.mark.slow
def test_on_the_shared_pdfs_and_papers_citing_them_every_link_is_right(tmp_path, rules):
    corpus = shared_corpus()
    if not (corpus / "pdf_jats").is_dir():
        pytest.skip(f"the shared corpus has no pdf_jats: {corpus / 'pdf_jats'} does not exist")
    sys.path.insert(0, str(PROJECT / "scripts"))
    from score_paper_links import build_folder

    folder, db = tmp_path / "papers", tmp_path / "db.duckdb"
    folder.mkdir()
    known = build_folder(corpus, folder)
    ingest_folder(folder, db, rules, IngestOptions(workers=2))
    found = {
        (doc_id, "" if doc_id.endswith(".pdf") else ref_id, cited)
        for doc_id, ref_id, cited in open_readonly(db).execute("SELECT doc_id, ref_id, cited_doc_id FROM paper_links").fetchall()
    }
    assert found <= known  # precision 1.0: every link found is one the JATS or the citing paper makes
    assert len(found) >= 0.9 * len(known)


def test_an_exported_entry_names_the_papers_of_the_folder_it_is(tmp_path, rules):
    db = tmp_path / "db.duckdb"
    _ingest(tmp_path / "papers", db, rules, {"cited.md": CITED, "preprint.md": PREPRINT, "review.md": _citing(BY_TITLE)})
    records = {record.id: record.metadata for record in read_records(open_readonly(db), Selection())}
    assert [reference["doc_ids"] for reference in records["review.md:1"]["references"]] == [["cited.md", "preprint.md"]]
    assert records["cited.md:2"]["paper"] == {"authors": ["Maria Okafor", "Jun Park"], "year": 2019, "journal": None, "volume": None, "doi": "10.1000/sleep.2019.7"}


def test_a_paper_added_later_records_a_change_of_the_records_that_cite_it(tmp_path, rules):
    folder, db = tmp_path / "papers", tmp_path / "db.duckdb"
    _ingest(folder, db, rules, {"review.md": _citing(BY_DOI)})
    second = _ingest(folder, db, rules, {"cited.md": CITED})
    changes = open_readonly(db).execute("SELECT record_id, change, text_changed FROM run_changes WHERE run_id = ? AND unit = 'chunk' ORDER BY 1", [second.run_id]).fetchall()
    assert ("review.md:1", "changed", False) in changes  # its entry now names cited.md
    assert {record_id for record_id, _, _ in changes} == {"cited.md:1", "cited.md:2", "review.md:1"}


def test_search_expand_follows_a_citation_into_the_cited_papers_chunks_apart_from_the_hits_own(tmp_path, rules):
    db = tmp_path / "db.duckdb"
    _ingest(tmp_path / "papers", db, rules, {"cited.md": CITED, "review.md": _citing(BY_DOI)})
    results = run_search(open_readonly(db), SearchRequest(query="sleep matters", expand=True), rules.search)
    hit = next(hit for hit in results.as_json()["hits"] if hit["chunk_id"] == "review.md:1")
    assert hit["linked"] == []  # the hit's own paper's cross-references: none
    [cited] = hit["cited_papers"]
    assert (cited["doc_id"], cited["marker"], cited["matched_by"], cited["best_for_query"]) == ("cited.md", "[1]", "doi", True)
    assert cited["chunk_id"].startswith("cited.md:")
    assert "        ⇒ cited paper cited.md: Sleep loss raises interleukin-6 in healthy adults" in hit_lines(results)


def test_search_without_expand_follows_no_citation(tmp_path, rules):
    db = tmp_path / "db.duckdb"
    _ingest(tmp_path / "papers", db, rules, {"cited.md": CITED, "review.md": _citing(BY_DOI)})
    results = run_search(open_readonly(db), SearchRequest(query="sleep matters"), rules.search)
    assert results.cited == {} and all("cited_papers" not in hit for hit in results.as_json()["hits"])


def test_the_title_join_pairs_entries_with_papers_by_first_author_not_every_entry_with_every_paper(tmp_path, rules):
    # Paired every way and then filtered, the join grew with the square of the library
    # (docs/performance.md gives the figures at 10 and 30 copies of the shared corpus).
    db = ingested_papers(tmp_path, {"cited.md": "# A paper\n\nText.\n"}, rules)
    with writable_database(db) as connection:
        connection.execute("CREATE TEMP TABLE touched_papers AS SELECT 'cited.md' AS doc_id")
        plans = [connection.execute("EXPLAIN " + links).fetchall()[0][1] for links in (paper_links.ALL_LINKS, paper_links.TOUCHED_LINKS)]
    assert ["HASH_JOIN" in plan for plan in plans] == [True, True]
    assert [("NESTED_LOOP_JOIN" in plan or "CROSS_PRODUCT" in plan) for plan in plans] == [False, False]


def test_a_run_relinks_only_the_papers_it_wrote_or_removed_and_leaves_the_other_links_as_they_were(tmp_path, rules):
    # A link depends on one entry and one paper: recomputing every link each run cost a minute
    # at a million chunks. A link planted between two untouched papers shows it is not recomputed.
    folder, db = tmp_path / "papers", tmp_path / "db.duckdb"
    _ingest(folder, db, rules, {"cited.md": CITED, "review.md": _citing(BY_DOI), "other.md": _citing(OTHER_WORK)})
    with writable_database(db) as connection:
        connection.execute("INSERT INTO paper_links VALUES ('other.md', 'R1', 'review.md', 'doi')")
    _ingest(folder, db, rules, {"preprint.md": PREPRINT})
    assert ("other.md", "R1", "review.md", "doi") in _links(db)
    assert ("review.md", "R1", "cited.md", "doi") in _links(db)


def test_links_kept_up_run_by_run_are_the_links_recomputed_whole(tmp_path, rules):
    folder, db = tmp_path / "papers", tmp_path / "db.duckdb"
    papers = {"cited.md": CITED, "review.md": _citing(BY_DOI), "other.md": _citing(OTHER_WORK), "titled.md": _citing(BY_TITLE)}
    _ingest(folder, db, rules, papers)
    _ingest(folder, db, rules, {"preprint.md": PREPRINT})  # a second copy of the cited work, no DOI
    _ingest(folder, db, rules, {"cited.md": CITED.replace("title: Sleep loss", "title: Loss of sleep")})  # no longer its title
    (folder / "review.md").unlink()
    ingest_folder(folder, db, rules, OPTIONS)
    with writable_database(db) as connection:
        whole = sorted(connection.execute(paper_links.ALL_LINKS).fetchall())
    assert _links(db) == whole
    assert ("titled.md", "R1", "preprint.md", "title_year_author") in whole
