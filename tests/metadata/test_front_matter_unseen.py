"""Page 1's title, first author, year and DOI as journals nobody tuned for print them (issue 50,
class h): each fixture is a first page written with PyMuPDF whose truth is known, one cause each."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from front_page_helpers import BODY, describe, TITLE
from pipeline.metadata.names import author_keys, split_names
from pipeline.metadata.text_fields import year_in


def _first_page(
    path: Path,
    byline: str,
    *,
    header: str = "",
    notes: tuple[str, ...] = (),
    above_byline: tuple[tuple[str, float], ...] = (),
    byline_size: float = 12,
    body_size: float = 10,
) -> Path:
    """A one-column first page: an optional header row, the title in two rows, rows set between
    the title and the byline (text, size), the byline, note rows in small print, the abstract and
    a section in `body_size`."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    if header:
        page.insert_text((72, 50), header, fontsize=8)
    page.insert_text((72, 110), TITLE[0], fontsize=20, fontname="hebo")
    page.insert_text((72, 136), TITLE[1], fontsize=20, fontname="hebo")
    y = 160.0
    for text, size in above_byline:
        page.insert_text((72, y), text, fontsize=size, fontname="hebo" if size > 12 else "helv")
        y += size * 1.4
    page.insert_text((72, y + 4), byline, fontsize=byline_size)
    y += 24
    for note in ("1 Department of Medicine, University of Testing, Lisbon, Portugal", *notes):
        page.insert_text((72, y), note, fontsize=8)
        y += 12
    page.insert_text((72, y + 20), "Abstract", fontsize=11, fontname="hebo")
    page.insert_text((72, y + 38), "We measured interleukin-6 after a night without sleep in forty adults.", fontsize=body_size)
    page.insert_text((72, y + 70), "1. Introduction", fontsize=12, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, y + 80, 523, 800), BODY, fontsize=body_size)
    doc.save(path)
    return path


@pytest.mark.parametrize(
    ("byline", "keys"),
    [
        # Degrees printed as parts of their own after a comma, in no list (Lippincott's bylines).
        ("Ana Silva, MM, Bo Chen, MB, Rui Costa, BS", ["silva", "chen", "costa"]),
        # Names in capitals, joined by a joiner in capitals.
        ("ANA M. SILVA1, BO CHEN2 AND RUI COSTA1", ["silva", "chen", "costa"]),
        # Names parted by middle dots (Springer's bylines).
        ("Ana Silva1 · Bo Chen2 · Rui Costa1", ["silva", "chen", "costa"]),
        # Surname first with dotless initials, as citations print names.
        ("Silva AM, Chen B, Costa R", ["silva", "chen", "costa"]),
        # A TeX cedilla set as a glyph of its own before its letter.
        ("A¸skin Kor1, Fran¸coise Dubois2", ["kor", "dubois"]),
    ],
)
def test_a_byline_as_other_journals_print_it_gives_every_author(tmp_path, rules, byline, keys):
    metadata = describe(_first_page(tmp_path / "paper.pdf", byline), rules)
    assert metadata.author_keys == keys
    assert metadata.title == " ".join(TITLE)


def test_a_byline_in_larger_print_than_the_body_under_a_subtitle_and_a_mark_is_read(tmp_path, rules):
    """A byline in 10.5 points on a 9-point page is in a title's print by size alone; under a
    subtitle and a mark in small print it is still a byline, not a title of its own."""
    file = _first_page(
        tmp_path / "protocol.pdf",
        "Ana Silva, MB, Bo Chen, MD, Rui Costa, MM",
        above_byline=(("A protocol for a randomized controlled trial", 16), ("*", 7)),
        byline_size=10.5,
        body_size=9,
    )
    assert describe(file, rules).author_keys == ["silva", "chen", "costa"]


@pytest.mark.parametrize(
    ("note", "year"),
    [
        ("© The Author(s), under exclusive licence to Test Publishing Limited 2021", 2021),
        ("Molecules of Testing 2017, 22, 1763; https://example.org/mot", 2017),
        ("Int J Test Sci. 2020 Mar; 21(5): 1234.", 2020),
        ("Available online 12 March 2019", 2019),
        ("Citation: Silva A, Chen B (2018) Interleukin-6 after sleep loss. Test Med 15(3): e0234567.", 2018),
    ],
)
def test_the_year_is_read_where_only_one_line_of_page_one_gives_it(tmp_path, rules, note, year):
    file = _first_page(tmp_path / "paper.pdf", "Ana Silva1, Bo Chen2 and Rui Costa1", notes=(note,))
    assert describe(file, rules).year == year


def test_a_sentence_with_two_numbers_after_a_year_is_no_journal_line(rules):
    assert year_in(["Twelve adults were seen in 2019, 12, 15 patients in 2020 and"], rules.metadata) is None


def test_the_doi_on_a_row_of_its_own_is_the_papers_not_one_inside_a_sentence(tmp_path, rules):
    file = _first_page(
        tmp_path / "paper.pdf",
        "Ana Silva1, Bo Chen2 and Rui Costa1",
        notes=("OSF Registration number: DOI 10.17605/OSF.IO/9ZW34.", "http://dx.doi.org/10.1234/TEST.0000000000025342"),
    )
    assert describe(file, rules).doi == "10.1234/test.0000000000025342"


@pytest.mark.parametrize(
    ("byline", "names"),
    [
        ("˙Isa Cavido˘glu, Ay¸se Kor", ["İsa Cavidoğlu", "Ayşe Kor"]),
        ("By Ana Silva and Bo Chen", ["Ana Silva", "Bo Chen"]),
        ("Ana Silva, PharmD, Bo Chen, MBChB", ["Ana Silva", "Bo Chen"]),
        ("Omar al-Hassan and Jean d’Alembert", ["Omar al-Hassan", "Jean d’Alembert"]),
        ("Ana Silva1 ORCID: 0000-0002-1825-0097, Bo Chen2 ORCID", ["Ana Silva", "Bo Chen"]),
        ("Ana Silva https://orcid.org/0000-0002-1825-0097 and Bo Chen", ["Ana Silva", "Bo Chen"]),
    ],
)
def test_a_byline_is_cut_into_names_as_printed(byline, names, rules):
    assert split_names(byline, rules.metadata) == names


@pytest.mark.parametrize(
    ("names", "keys"),
    [
        (["Wei LI", "Jun WU"], ["li", "wu"]),  # given names, then surnames in capitals
        (["Xiaohong LI", "Bo Chen"], ["li", "chen"]),
        (["Silva JA", "van Dijk KL"], ["silva", "vandijk"]),  # surname first, dotless initials
    ],
)
def test_trailing_capitals_are_initials_only_where_some_cannot_be_a_surname(names, keys, rules):
    assert author_keys(names, rules.metadata) == keys


def test_a_lone_author_unmarked_over_an_affiliation_is_the_byline(tmp_path, rules):
    """One name with no mark reads as well as a short heading; an affiliation under it says it is
    an author's (`1 Department of …` is the fixture's first note row)."""
    assert describe(_first_page(tmp_path / "essay.pdf", "Ana Maria Silva"), rules).author_keys == ["silva"]


def test_a_to_cite_box_gives_the_year(rules):
    line = "To cite: Silva A, Chen B. Interleukin-6 after sleep loss. Test Open, first issue of 2020."
    assert year_in([line], rules.metadata) == 2020


@pytest.mark.parametrize("mark", ["1", "*"])
def test_a_footnote_mark_raised_after_the_title_is_no_part_of_it(tmp_path, rules, mark):
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 110), TITLE[0], fontsize=20, fontname="hebo")
    page.insert_text((72, 136), TITLE[1], fontsize=20, fontname="hebo")
    page.insert_text((73 + pymupdf.get_text_length(TITLE[1], fontname="hebo", fontsize=20), 128), mark, fontsize=11)
    page.insert_text((72, 170), "Ana Silva1, Bo Chen2 and Rui Costa1", fontsize=12)
    page.insert_text((72, 190), "1 Department of Medicine, University of Testing, Lisbon, Portugal", fontsize=8)
    page.insert_textbox(pymupdf.Rect(72, 220, 523, 800), BODY, fontsize=10)
    doc.save(tmp_path / "noted.pdf")
    assert describe(tmp_path / "noted.pdf", rules).title == " ".join(TITLE)


@pytest.mark.parametrize(("font", "size"), [("heit", 20), ("helv", 20), ("hebo", 17)])
def test_a_title_row_in_another_face_or_size_that_carries_the_title_on_is_part_of_it(tmp_path, rules, font, size):
    """A title ending on `with` goes on: its last row in italics (a species name), in a regular
    face, or a size smaller is still the title's, not a subtitle."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 110), "Interleukin-6 after sleep loss in a randomised", fontsize=20, fontname="hebo")
    page.insert_text((72, 136), "crossover trial of adults infected with", fontsize=20, fontname="hebo")
    page.insert_text((72, 162), "Escherichia coli", fontsize=size, fontname=font)
    page.insert_text((72, 196), "Ana Silva1, Bo Chen2 and Rui Costa1", fontsize=12)
    page.insert_text((72, 216), "1 Department of Medicine, University of Testing, Lisbon, Portugal", fontsize=8)
    page.insert_textbox(pymupdf.Rect(72, 240, 523, 800), BODY, fontsize=10)
    doc.save(tmp_path / "coli.pdf")
    metadata = describe(tmp_path / "coli.pdf", rules)
    assert metadata.title == "Interleukin-6 after sleep loss in a randomised crossover trial of adults infected with Escherichia coli"
    assert metadata.author_keys == ["silva", "chen", "costa"]


def test_a_subtitle_under_a_finished_title_stays_out_of_it(tmp_path, rules):
    file = _first_page(tmp_path / "protocol.pdf", "Ana Silva1, Bo Chen2", above_byline=(("A protocol for a randomized controlled trial", 16),))
    assert describe(file, rules).title == " ".join(TITLE)
