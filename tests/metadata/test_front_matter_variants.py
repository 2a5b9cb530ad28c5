"""Page-1 variants that journals nobody tuned for print (issue 50, class h), each read by the
rules: an ORCID icon given as letters, a long name with particles, a DOI cut across two rows, a
masthead that dates the issue."""

from __future__ import annotations

import pytest

from pipeline.metadata.names import split_names
from pipeline.metadata.pdf_doi import doi
from pipeline.metadata.text_fields import rejoined_dois, year_in
from pipeline.records.extract import FrontLine


def _rows(*texts: str) -> list[FrontLine]:
    """One line a row, 12 points apart, at the left margin."""
    return [FrontLine(text=text, size=9.0, bold=False, x0=50.0, y0=40.0 + 12 * index) for index, text in enumerate(texts)]


def test_an_orcid_icon_read_as_letters_glued_to_a_surname_is_no_part_of_it(rules):
    byline = "Elvina ViennetID1,2*, Francesca D. FrentiuID2, Craig R. Williams3"
    assert split_names(byline, rules.metadata) == ["Elvina Viennet", "Francesca D. Frentiu", "Craig R. Williams"]


def test_a_name_of_seven_words_with_two_particles_is_a_name(rules):
    names = split_names("José Carlos de Souza Lima dos Santos1 and Ana Silva2", rules.metadata)
    assert names == ["José Carlos de Souza Lima dos Santos", "Ana Silva"]


def test_a_sentence_of_seven_capitalised_words_is_still_no_name(rules):
    assert split_names("Department Of Internal Medicine Royal Free Hospital", rules.metadata) is None


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        (("https://doi.org/10.1186/s12889-", "021-10515-8"), "10.1186/s12889-021-10515-8"),
        (("PLOS ONE | https://doi.org/10.1371/journal.", "pone.0229314 March 2020"), "10.1371/journal.pone.0229314"),
        (("DOI: 10.1234/jtest.2020.", "Abstract"), "10.1234/jtest.2020"),
    ],
    ids=["cut after a hyphen", "cut after a dot", "a sentence after the dot"],
)
def test_a_doi_cut_at_a_rows_end_is_read_whole(rows, expected, rules):
    assert doi({}, _rows(*rows), rules.metadata) == (expected, doi({}, _rows(f"doi:{expected}"), rules.metadata)[1])


def test_only_the_first_word_of_the_row_under_a_cut_doi_moves_up():
    assert rejoined_dois("doi:10.1186/s12889-\n021-10515-8 Open Access") == "doi:10.1186/s12889-021-10515-8\n Open Access"


@pytest.mark.parametrize(
    ("masthead", "year"),
    [("Vol. 12, No. 3, March 2019", 2019), ("Volume 7 | Issue 2 | 2020", 2020), ("Vol 5; Iss. 1; Jan. 15, 2018", 2018)],
)
def test_a_masthead_with_volume_issue_and_date_gives_the_year(masthead, year, rules):
    assert year_in([masthead], rules.metadata) == year
