"""Which bibliography entries are papers of the folder: `paper_links`, recomputed from the stored
rows (`bibliography`, `papers`) at the end of every run, whatever the run read.

A link is made two ways, and says which (`matched_by`):

- `doi`: the entry shows a DOI, and a paper of the folder has it;
- `title_year_author`: where the entry or the paper has no DOI, the entry's text holds the
  paper's whole title (letters and digits compared, in lower case, accents dropped), the entry's
  year is the paper's or within `YEAR_SPREAD` of it, and its first author's surname (initials
  and given names left out, before or after it) is the paper's first author's. A title of fewer than `MIN_TITLE_LETTERS` letters is
  too common to say which work it is. Where the entry or the paper gives no year, the whole
  title and the first author are enough (an entry citing a preprint or a report often prints
  none); two years that differ by more than `YEAR_SPREAD` still link nothing.

An entry links to every paper that matches it: a work held twice (a preprint and its version of
record) is linked twice. A paper never links to itself. A link depends on one entry's row and one
paper's row, so a run recomputes only the links of the papers it wrote or removed, both ways: their
entries against every paper, and every entry against them (`link_papers`'s `touched`). The rest
are as they were; recomputing every link each run cost a minute at a million chunks, pairing every
entry with every paper of its first author's surname. A paper added tonight still completes the
links of papers ingested long ago, and a removed one takes its links away. The title join pairs an entry with the papers whose first
author is its own, each of the entry's two readings of its surname a key of the join: DuckDB
hashes an equality, where `IN` over the two made it pair every entry with every paper and test
each pair, which grew with the square of the library.
"""

from __future__ import annotations

from collections.abc import Collection

import duckdb

from pipeline.index.database import Transaction

MIN_TITLE_LETTERS = 20
YEAR_SPREAD = 1
"""Years an entry's year may be off the paper's: an entry may give the year the work went online,
or its preprint's, where the paper prints its issue's (online in December, in an issue of
January), or the other way round. The whole title and the first author must still match."""

# Letters and digits in lower case, accents dropped: titles as compared.
_KEY = "regexp_replace(lower(strip_accents({0})), '[^\\p{{L}}\\p{{N}}]+', '', 'g')"
# An entry's first author as the entry writes it (`Okafor M`, `Dias, C.H.S.`) less the initials
# after the surname: `papers.author_keys` hold surnames.
_SURNAME = "regexp_replace({0}, '(?:[,\\s]+(?:\\p{{Lu}}{{1,3}}\\.?-?)+)+$', '')"
_ENTRY_SURNAME = _SURNAME.format("b.first_author")
# The entry's surname is its first author's key whole (`Okafor M`, `de Iaco A`), or the last word
# of it where initials or a given name come first (`M. Okafor`, `Maria Okafor`, and `dos Santos`
# for a paper whose own citation cuts the surname `Santos`).
_ENTRY_LAST_WORD = f"regexp_extract({_ENTRY_SURNAME}, '(\\S+)$', 1)"
_ENTRY_KEYS = f"[{_KEY.format(_ENTRY_SURNAME)}, {_KEY.format(_ENTRY_LAST_WORD)}]"
_LINKS = f"""
SELECT DISTINCT b.doc_id, b.ref_id, p.doc_id AS cited_doc_id, 'doi' AS matched_by
FROM {{entries}} b JOIN {{papers}} p ON lower(b.doi) = p.doi
WHERE b.doi IS NOT NULL AND b.doc_id <> p.doc_id
UNION ALL
SELECT DISTINCT b.doc_id, b.ref_id, p.doc_id AS cited_doc_id, 'title_year_author' AS matched_by
FROM (SELECT doc_id, ref_id, doi, text, TRY_CAST(left(year, 4) AS INTEGER) AS year, unnest({_ENTRY_KEYS}) AS entry_key
      FROM {{entries}} b) b
JOIN (SELECT doc_id, doi, year, author_keys[1] AS first_key, {_KEY.format('title')} AS title_key FROM {{papers}}
      WHERE title IS NOT NULL AND len(author_keys) > 0) p
  ON p.first_key = b.entry_key
WHERE (b.year IS NULL OR p.year IS NULL OR abs(b.year - p.year) <= {YEAR_SPREAD})
  AND (b.doi IS NULL OR p.doi IS NULL) AND b.doc_id <> p.doc_id
  AND length(p.title_key) >= {MIN_TITLE_LETTERS}
  AND contains({_KEY.format('b.text')}, p.title_key)
"""


def _links_of(entries: str, papers: str) -> str:
    """The links statement over these entries' and papers' rows (a table or a subquery each);
    replaced, not formatted, since the statement's patterns hold braces."""
    return _LINKS.replace("{entries}", entries).replace("{papers}", papers)


ALL_LINKS = _links_of("bibliography", "papers")
"""Every link of the stored rows."""
# The links of the touched papers, both ways: their entries against every paper, every entry
# against them. Two joins whose small side is the touched papers' rows.
_TOUCHED = "(SELECT * FROM {table} WHERE doc_id IN (SELECT doc_id FROM touched_papers))"
TOUCHED_LINKS = (
    f"SELECT * FROM ({_links_of(_TOUCHED.format(table='bibliography'), 'papers')})\nUNION\n"
    f"SELECT * FROM ({_links_of('bibliography', _TOUCHED.format(table='papers'))})"
)
"""The links whose entry or paper is one of `touched_papers`."""


def link_papers(connection: duckdb.DuckDBPyConnection, touched: Collection[str] | None = None) -> set[str]:
    """Bring `paper_links` up to date with the stored bibliography and papers, in one transaction,
    and return the citing papers whose links it changed: their exported records name the papers
    their entries are (`pipeline.export.records`), so they changed though their own rows did not.
    The table holds the published state's links until then (a run builds on a copy of it).

    `touched` are the papers whose rows the run wrote or removed: only links whose entry or paper
    is one of them can have changed, and only those are recomputed. None recomputes every link."""
    if touched is not None and 2 * len(touched) >= connection.execute("SELECT count(*) FROM papers").fetchone()[0]:
        touched = None  # both ways over most of the papers would be every link twice
    with Transaction(connection):
        if touched is None:
            connection.execute("CREATE OR REPLACE TEMP TABLE unlinked AS SELECT * FROM paper_links")
            connection.execute("DELETE FROM paper_links")
            connection.execute(f"CREATE OR REPLACE TEMP TABLE linked AS {ALL_LINKS}")
        else:
            connection.execute("CREATE OR REPLACE TEMP TABLE touched_papers AS SELECT DISTINCT unnest(?::VARCHAR[]) AS doc_id", [sorted(touched)])
            touching = "doc_id IN (SELECT doc_id FROM touched_papers) OR cited_doc_id IN (SELECT doc_id FROM touched_papers)"
            connection.execute(f"CREATE OR REPLACE TEMP TABLE unlinked AS SELECT * FROM paper_links WHERE {touching}")
            connection.execute(f"DELETE FROM paper_links WHERE {touching}")
            connection.execute(f"CREATE OR REPLACE TEMP TABLE linked AS {TOUCHED_LINKS}")
            connection.execute("DROP TABLE touched_papers")
        connection.execute("INSERT INTO paper_links SELECT * FROM linked")
        changed = connection.execute(
            """SELECT DISTINCT doc_id FROM (
                   (SELECT * FROM unlinked EXCEPT SELECT * FROM linked)
                   UNION ALL (SELECT * FROM linked EXCEPT SELECT * FROM unlinked))"""
        ).fetchall()
        connection.execute("DROP TABLE unlinked")
        connection.execute("DROP TABLE linked")
    return {doc_id for (doc_id,) in changed}
