"""The BM25 index: which terms a chunk is indexed under, how the postings grow and shrink paper
by paper, and scores equal to DuckDB fts' own."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from conftest import PROJECT, chunk_markdown, writable_database
from pipeline.errors import IndexingError
from pipeline.index.writer import order_search_index
from pipeline.index.search import search
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.index import terms
from pipeline.index.terms import TermCounter, count_paper_terms, index_words, search_terms, table_cells_text
from pipeline.index.database import open_readonly
from pipeline.index.unmarked import text_to_index
from pipeline.ingest.scan import doc_id_for, find_papers
from pipeline.ingest.process import process


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("IL-6 and p53", ["il-6", "and", "p53", "il", "6"]),
        ("FDG-PET/CT, CO2.", ["fdg-pet/ct", "co2", "fdg", "pet", "ct"]),
        ("Café naïve Ångström", ["cafe", "naive", "angstrom"]),
        ("정확도가 높다", ["정확도가", "높다", "정확", "확도", "도가", "높다"]),
        ("snake_case x² 523", ["snake", "case", "x²", "523"]),
        ("p53—ki67 2×3 “quoted” a\u2009b", ["p53", "ki67", "2", "3", "quoted", "a", "b"]),
    ],
)
def test_words_keep_letters_digits_hyphens_and_slashes_of_every_script_plus_compound_parts(text, expected):
    assert index_words(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "cafe\u0301 (a combining accent) 정확도가 ٣ ＡＢ Ⅻ ½ x² a\u200db 10–20 “q” 2×3 snake case",
        "p53—ki67 co2/o2 il-6 ∼5 ≥ 3 ±0.1 ° ′ … ‘ ’",
    ],
)
def test_the_tokenizer_splits_exactly_where_the_token_pattern_does(text):
    assert terms._tokens(text) == terms._TOKEN.findall(text)


def test_the_joined_tokens_are_the_tokens_that_hold_a_hyphen_or_a_slash_in_order():
    spaced = terms._spaced("fdg-pet/ct and il-6, a/b or -x y- end-")
    assert terms._joined_tokens(spaced) == [token for token in spaced.split() if "-" in token or "/" in token]
    assert terms._joined_tokens(spaced) == ["fdg-pet/ct", "il-6", "a/b", "-x", "y-", "end-"]


def test_the_characters_beyond_ascii_are_read_from_the_utf8_bytes_in_order():
    assert terms._beyond_ascii("naïve 10–20 정확 x²") == "ï–정확²"
    assert terms._beyond_ascii("plain ascii") == ""


@pytest.mark.parametrize(
    "text",
    ["Café NAÏVE Ångström", "ΟΔΟΣ ΚΑΙ ΣΟΦΙΑ", "İstanbul", "5 \u212a (Kelvin sign)", "ǅemal Straße", "ABC plain"],
)
def test_a_text_is_lowered_as_str_lower_lowers_it_final_sigma_and_all(text):
    lowered, beyond_ascii = terms._lowered(text)
    assert lowered == text.lower()
    assert beyond_ascii == "".join(character for character in text.lower() if not character.isascii())


def test_the_text_the_index_reads_holds_compound_parts_and_bigrams():
    assert search_terms("FDG-PET/CT 정확도가") == "FDG-PET/CT 정확도가 FDG PET CT 정확 확도 도가"


def test_a_chunk_counts_stemmed_terms_without_stopwords():
    counts = TermCounter().count("Results", "The mice were treated, and the treated mice worked.")
    assert counts == {"result": 1, "mice": 2, "treat": 2, "work": 1}


def test_the_index_reads_a_paper_without_the_numbers_that_point_into_its_bibliography(rules):
    paper = chunk_markdown(
        "## Results\n\nIL-6 rose [2], [1–2] and [9] (Park, 2019).\n\n## References\n\n1. Park J. One. 2019\n2. Lee H. Two. 2020\n",
        rules,
    )
    assert text_to_index(paper) == (
        "Results\n\nIL-6 rose    ,       and [9] (Park, 2019).\n\nReferences\n\n . Park J. One. 2019\n . Lee H. Two. 2020"
    )


def test_a_paper_s_postings_do_not_depend_on_the_papers_counted_before_it(rules):
    paper, counter = chunk_markdown("# T\n\n## Results\n\nThe treated mice worked.\n", rules), TermCounter()
    first = count_paper_terms(paper, TermCounter())
    count_paper_terms(chunk_markdown("# U\n\n## Methods\n\nMice were treated with IL-6.\n", rules), counter)
    assert count_paper_terms(paper, counter) == first


def _as_read_whole(chunk) -> list[tuple[str, int]]:
    return list(TermCounter().count(" ".join(chunk.heading_path), chunk.text).items())


def test_a_chunk_s_postings_are_those_of_its_heading_path_and_text_read_whole(rules):
    # Read from its paragraphs and the headings between them: the same terms, in the same order.
    markdown = "# T\n\n## Results\n\nIL-6 and FDG-PET/CT rose 정확도가.\n\n### ΟΔΟΣ\n\nΟΔΟΣ mice-treated and the mice.\n"
    paper = chunk_markdown(markdown, rules)
    counted = count_paper_terms(paper, TermCounter())
    assert [list(zip(c.terms, c.frequencies)) for c in counted.chunks] == [_as_read_whole(c) for c in paper.chunks]


def test_a_chunk_whose_paragraphs_would_cut_a_word_is_read_whole(rules):
    paper = chunk_markdown("## Results\n\nalpha beta\n\ngamma delta\n", rules)
    first = paper.paragraphs[0]
    cut = paper.model_copy(update={"paragraphs": [first.model_copy(update={"char_end": first.char_end - 2}), *paper.paragraphs[1:]]})
    counted = count_paper_terms(cut, TermCounter())
    assert [list(zip(c.terms, c.frequencies)) for c in counted.chunks] == [_as_read_whole(c) for c in paper.chunks]


def test_a_counter_past_its_limit_forgets_its_words_so_a_worker_s_memory_stays_flat(rules, monkeypatch):
    monkeypatch.setattr(terms, "REMEMBERED_WORDS", 3)
    counter = TermCounter()
    count_paper_terms(chunk_markdown("## Results\n\nalpha beta gamma delta\n", rules), counter)
    count_paper_terms(chunk_markdown("## Methods\n\nepsilon zeta\n", rules), counter)
    assert counter.remembered == len({"methods", "epsilon", "zeta"})


def test_a_query_keeps_stopwords_as_fts_does():
    assert TermCounter().query_terms("the IL-6 results") == ["6", "il", "il-6", "result", "the"]


# ---------------------------------------------------------------- the postings in the database


def _ingest(folder: Path, db: Path, rules) -> None:
    summary = ingest_folder(folder, db, rules, IngestOptions(workers=1, allow_mass_removal=True))
    assert not summary.failed


def _postings(db: Path) -> list[tuple]:
    connection = open_readonly(db)
    try:
        return connection.execute("SELECT term, chunk_id, tf FROM chunk_postings ORDER BY ALL").fetchall()
    finally:
        connection.close()


def test_a_papers_postings_go_with_the_paper(tmp_path, rules):
    (tmp_path / "a.md").write_text("# A\n\n## Results\n\nSerum IL-6 rose.\n")
    (tmp_path / "b.md").write_text("# B\n\n## Results\n\nTumour p53 fell.\n")
    db = tmp_path / "out" / "papers.duckdb"
    _ingest(tmp_path, db, rules)
    (tmp_path / "b.md").unlink()
    _ingest(tmp_path, db, rules)
    assert {chunk_id.split(":")[0] for _, chunk_id, _ in _postings(db)} == {"a.md"}


def test_putting_the_postings_in_term_order_changes_no_search_result(tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    _ingest(PROJECT / "corpus", db, rules)
    connection = writable_database(db)
    _shuffle_postings(connection)
    before = [(hit.chunk_id, hit.score) for hit in search(connection, "IL-6 imaging")]
    assert order_search_index(connection, unsorted_limit=0)
    terms = [term for (term,) in connection.execute("SELECT term FROM chunk_postings").fetchall()]
    after = [(hit.chunk_id, hit.score) for hit in search(connection, "IL-6 imaging")]
    unsorted = connection.execute("SELECT unsorted_rows FROM search_index_state").fetchone()[0]
    connection.close()
    assert terms == sorted(terms) and unsorted == 0
    assert [chunk_id for chunk_id, _ in after] == [chunk_id for chunk_id, _ in before]
    assert all(abs(a - b) < 1e-9 for (_, a), (_, b) in zip(after, before))  # sums may add in another order


def _shuffle_postings(connection) -> int:
    """Put the postings out of term order, as the Ray engine's merge loads them (a local run writes
    its own in order), and count them as such; return how many."""
    for table, key in (("chunk_postings", "chunk_id"), ("paragraph_postings", "paragraph_key")):
        connection.execute(f"CREATE OR REPLACE TABLE rows.{table} AS SELECT * FROM rows.{table} ORDER BY hash({key}, term)")
    written = "SELECT (SELECT count(*) FROM chunk_postings) + (SELECT count(*) FROM paragraph_postings)"
    unsorted = connection.execute(written).fetchone()[0]
    connection.execute("UPDATE search_index_state SET unsorted_rows = ?", [unsorted])
    return unsorted


def test_the_postings_are_left_alone_while_few_rows_are_out_of_order(tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    _ingest(PROJECT / "corpus", db, rules)
    connection = writable_database(db)
    unsorted = _shuffle_postings(connection)
    assert not order_search_index(connection, unsorted_limit=unsorted)
    connection.close()


def test_a_database_an_older_pipeline_wrote_is_rebuilt_by_the_next_ingest(tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    old = duckdb.connect(str(db))
    old.execute("CREATE TABLE documents (doc_id VARCHAR, path VARCHAR)")  # schema 1 had no pipeline_schema
    old.execute("CREATE TABLE chunk_terms (chunk_id VARCHAR, heading_terms VARCHAR, text_terms VARCHAR)")
    old.execute("INSERT INTO documents VALUES ('gone', 'gone.md')")
    old.close()
    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "a.md").write_text("# A\n\n## Results\n\nSerum IL-6 rose.\n")
    summary = ingest_folder(tmp_path / "papers", db, rules, IngestOptions(workers=1))
    assert (summary.added, summary.removed) == (1, 0)
    connection = open_readonly(db)
    assert [hit.doc_id for hit in search(connection, "IL-6")] == ["a.md"]
    assert not connection.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'chunk_terms'").fetchone()[0]
    connection.close()


def test_the_run_that_rebuilds_an_older_database_says_so(tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    old = duckdb.connect(str(db))
    old.execute("CREATE TABLE pipeline_schema (version INTEGER NOT NULL)")
    old.execute("INSERT INTO pipeline_schema VALUES (2)")
    old.close()
    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "a.md").write_text("# A\n\n## Results\n\nSerum IL-6 rose.\n")
    first = ingest_folder(tmp_path / "papers", db, rules, IngestOptions(workers=1))
    assert first.rebuilt_from_schema == 2
    assert "(rebuilt: the database had schema version 2, from an older pipeline)" in first.line()
    assert ingest_folder(tmp_path / "papers", db, rules, IngestOptions(workers=1)).rebuilt_from_schema is None


# ---------------------------------------------------------------- the same scores as fts


def _fts_or_skip(connection: duckdb.DuckDBPyConnection) -> None:
    try:
        import duckdb_extension_fts
    except ImportError:
        pytest.skip("duckdb-extension-fts is not installed (a test extra on Linux x86_64): nothing to compare with")
    extension = Path(duckdb_extension_fts.__file__).parent / "extensions" / f"v{duckdb.__version__}" / "fts.duckdb_extension"
    try:
        connection.execute(f"LOAD '{extension}'")
    except duckdb.Error as error:
        pytest.skip(f"DuckDB's fts extension would not load ({error}): nothing to compare with")


def _indexed_chunks(folder: Path, rules) -> list[tuple[str, str, str]]:
    """Each chunk of the papers in `folder`: its id, heading path and text as the index reads it
    (`text_to_index`: the citation markers and entries' numbers blanked; a table chunk's cells after it)."""
    rows = []
    for path in find_papers(folder):
        relative = path.relative_to(folder).as_posix()
        chunked = process(path, relative, doc_id_for(relative), rules).chunked
        indexed = text_to_index(chunked)
        cells = table_cells_text(chunked)
        rows += [
            (c.chunk_id, " ".join(c.heading_path), indexed[c.char_start : c.char_end] + ("\n" + cells[c.chunk_id] if c.chunk_id in cells else ""))
            for c in chunked.chunks
        ]
    return rows


@pytest.fixture(scope="module")
def fts_reference(tmp_path_factory, rules):
    """The sample corpus ingested, and beside it DuckDB fts' own index over the same chunks, built
    as the pipeline used to build it (heading path and text as the index reads it, the same
    tokenizer settings)."""
    db = tmp_path_factory.mktemp("fts") / "papers.duckdb"
    _ingest(PROJECT / "corpus", db, rules)
    connection = writable_database(db)
    _fts_or_skip(connection)
    rows = _indexed_chunks(PROJECT / "corpus", rules)
    ingested = connection.execute("SELECT chunk_id FROM chunks").fetchall()
    assert sorted(chunk_id for chunk_id, _, _ in rows) == sorted(chunk_id for (chunk_id,) in ingested)
    connection.execute("CREATE TABLE fts_input (chunk_id VARCHAR, heading_terms VARCHAR, text_terms VARCHAR)")
    connection.executemany(
        "INSERT INTO fts_input VALUES (?, ?, ?)",
        [(chunk_id, search_terms(path), search_terms(text)) for chunk_id, path, text in rows],
    )
    connection.execute(
        "PRAGMA create_fts_index('fts_input', 'chunk_id', 'heading_terms', 'text_terms', stemmer = 'porter', "
        r"stopwords = 'english', ignore = '[^\p{L}\p{N}/-]+', strip_accents = 1, lower = 1)"
    )
    yield connection
    connection.close()


@pytest.mark.parametrize("query", ["IL-6", "FDG-PET/CT reading", "patients imaging", "정확도", "the tumour values"])
def test_search_scores_exactly_as_fts_match_bm25(fts_reference, query):
    reference = fts_reference.execute(
        """SELECT chunk_id, score FROM (
               SELECT chunk_id, fts_main_fts_input.match_bm25(chunk_id, ?) AS score FROM fts_input
           ) WHERE score IS NOT NULL ORDER BY score DESC, chunk_id LIMIT 10""",
        [search_terms(query)],
    ).fetchall()
    ours = [(hit.chunk_id, hit.score) for hit in search(fts_reference, query, limit=10, bibliography=True)]
    assert reference
    assert [chunk_id for chunk_id, _ in ours] == [chunk_id for chunk_id, _ in reference]
    assert all(abs(a - b) < 1e-9 for (_, a), (_, b) in zip(ours, reference))


def test_searching_a_database_an_older_pipeline_wrote_says_to_ingest_again(tmp_path):
    db = tmp_path / "papers.duckdb"
    old = duckdb.connect(str(db))
    old.execute("CREATE TABLE documents (doc_id VARCHAR, path VARCHAR)")
    old.close()
    connection = open_readonly(db)
    with pytest.raises(IndexingError, match="no search index of this pipeline's version; run `pipeline ingest`"):
        search(connection, "IL-6")
    connection.close()
