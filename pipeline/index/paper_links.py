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
record) is linked twice. A paper never links to itself. Recomputing it whole costs one join a run,
and needs no file: a paper added tonight completes the links of papers ingested long ago, and a
removed one takes its links away. The title join pairs an entry with the papers whose first
author is its own, each of the entry's two readings of its surname a key of the join: DuckDB
hashes an equality, where `IN` over the two made it pair every entry with every paper and test
each pair, which grew with the square of the library.
"""

from __future__ import annotations

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
INSERT INTO paper_links
SELECT DISTINCT b.doc_id, b.ref_id, p.doc_id, 'doi'
FROM bibliography b JOIN papers p ON lower(b.doi) = p.doi
WHERE b.doi IS NOT NULL AND b.doc_id <> p.doc_id
UNION ALL
SELECT DISTINCT b.doc_id, b.ref_id, p.doc_id, 'title_year_author'
FROM (SELECT doc_id, ref_id, doi, text, TRY_CAST(left(year, 4) AS INTEGER) AS year, unnest({_ENTRY_KEYS}) AS entry_key
      FROM bibliography b) b
JOIN (SELECT doc_id, doi, year, author_keys[1] AS first_key, {_KEY.format('title')} AS title_key FROM papers
      WHERE title IS NOT NULL AND len(author_keys) > 0) p
  ON p.first_key = b.entry_key
WHERE (b.year IS NULL OR p.year IS NULL OR abs(b.year - p.year) <= {YEAR_SPREAD})
  AND (b.doi IS NULL OR p.doi IS NULL) AND b.doc_id <> p.doc_id
  AND length(p.title_key) >= {MIN_TITLE_LETTERS}
  AND contains({_KEY.format('b.text')}, p.title_key)
"""


def link_papers(connection: duckdb.DuckDBPyConnection) -> set[str]:
    """Recompute `paper_links` from the stored bibliography and papers, in one transaction, and
    return the citing papers whose links it changed: their exported records name the papers their
    entries are (`pipeline.export.records`), so they changed though their own rows did not. The
    table holds the published state's links until then (a run builds on a copy of it)."""
    with Transaction(connection):
        connection.execute("CREATE OR REPLACE TEMP TABLE previous_paper_links AS SELECT * FROM paper_links")
        connection.execute("DELETE FROM paper_links")
        connection.execute(_LINKS)
        changed = connection.execute(
            """SELECT DISTINCT doc_id FROM (
                   (SELECT * FROM previous_paper_links EXCEPT SELECT * FROM paper_links)
                   UNION ALL (SELECT * FROM paper_links EXCEPT SELECT * FROM previous_paper_links))"""
        ).fetchall()
        connection.execute("DROP TABLE previous_paper_links")
    return {doc_id for (doc_id,) in changed}
