"""Page 1's title, first author, year and DOI in printed forms papers in general use that the
rules read wrong (issue 50, item 3h): each fixture is a paper written with PyMuPDF, a masthead,
a title, a byline, an affiliation, an abstract and a footer, whose truth is known."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from front_page_helpers import AFFILIATION, BODY, describe, print_marked, TITLE
from pipeline.extract import extract
from pipeline.metadata.names import author_keys
from pipeline.normalize.stage import normalize

BYLINE = "Ana Silva^{1}, Bo Chen^{2} and Rui Costa^{1}"
DOI = "10.1234/jtr.2021.0042"


def _paper(path: Path, *, notes: tuple[str, ...] = (), masthead: str = "", byline: str = BYLINE) -> Path:
    """A one-page paper: a masthead row, the title in two rows, the byline, the affiliation and
    note rows in small print, the abstract, a section and a footer."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    print_marked(page, 72, 40, masthead or "Journal of Test Results", 8)
    print_marked(page, 72, 110, TITLE[0], 20, "hebo")
    print_marked(page, 72, 136, TITLE[1], 20, "hebo")
    print_marked(page, 72, 168, byline, 12)
    y = 184.0
    for note in (AFFILIATION, *notes):
        print_marked(page, 72, y, note, 8)
        y += 12
    page.insert_text((72, y + 20), "Abstract", fontsize=11, fontname="hebo")
    page.insert_text((72, y + 38), "We measured interleukin-6 after a night without sleep in forty adults.", fontsize=10)
    page.insert_text((72, y + 70), "1. Introduction", fontsize=12, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, y + 80, 523, 790), BODY, fontsize=10)
    print_marked(page, 72, 815, "Page 1 of 1", 8)
    doc.save(path)
    return path


@pytest.mark.parametrize(
    "notes",
    [
        ("doi: 10. 1234/jtr.2021.0042",),  # justified print sets a space after the `10.`
        ("https://doi. org/10.1234/jtr.2021.0042",),  # or inside the link
        ("https://doi.org/10.", "1234/jtr.2021.0042"),  # a row's end cuts it after the `10.`
    ],
    ids=["space after 10.", "space in doi. org", "cut after 10."],
)
def test_a_doi_that_print_parts_near_its_prefix_is_read_whole(tmp_path, rules, notes):
    assert describe(_paper(tmp_path / "paper.pdf", notes=notes), rules).doi == DOI


@pytest.mark.parametrize(
    ("where", "row", "year"),
    [
        ("notes", "Cite this article: Silva A, Chen B. Interleukin-6 after sleep loss. J Test Res. (2020)", 2020),
        ("masthead", "Journal of Test Results | March 2021 | Volume 12 | Article 101", 2021),
        ("masthead", "Journal of Test Results • Spring 2019 • Vol 12", 2019),
        ("masthead", "Journal of Test Results 412 (2019) 125198", 2019),
    ],
    ids=["cite this article", "date then volume", "season then volume", "article number"],
)
def test_the_year_is_read_where_one_line_alone_dates_the_paper(tmp_path, rules, where, row, year):
    placed = {"notes": (row,)} if where == "notes" else {"masthead": row}
    assert describe(_paper(tmp_path / "paper.pdf", **placed), rules).year == year


@pytest.mark.parametrize(
    ("name", "key"),
    [("Anna Van der Berg", "vanderberg"), ("Juan De la Cruz", "delacruz"), ("Maria Del Coco", "coco")],
)
def test_a_capitalised_particle_before_a_lower_case_one_opens_the_surname(rules, name, key):
    """`Van der Berg` is cited so, as bibliographies key it; a capitalised particle alone (`Del
    Coco`) stays a given name, as the stored keys have it."""
    assert author_keys([name, "Bo Chen"], rules.metadata) == [key, "chen"]


def test_a_byline_with_a_capitalised_particle_keys_the_whole_surname(tmp_path, rules):
    file = _paper(tmp_path / "paper.pdf", byline="Anna Van der Berg^{1}, Bo Chen^{2}")
    assert describe(file, rules).author_keys == ["vanderberg", "chen"]


def _over_title(path: Path, *, masthead: tuple[str, float] | None = None, byline_over: bool = False, between: str = "") -> Path:
    """A one-page paper whose byline is printed over the title, or whose journal's name is set
    above the title in larger print (`masthead`: its text and size), with an optional row in body
    print (`between`) under it."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 80.0
    if masthead:
        print_marked(page, 72, y, masthead[0], masthead[1], "hebo")
        y += 2.2 * masthead[1]
    if between:
        print_marked(page, 72, y, between, 10)
        y += 24
    if byline_over:
        print_marked(page, 72, y, BYLINE, 12)
        y += 30
    print_marked(page, 72, y, TITLE[0], 20, "hebo")
    print_marked(page, 72, y + 26, TITLE[1], 20, "hebo")
    y += 60
    if not byline_over:
        print_marked(page, 72, y, BYLINE, 12)
        y += 16
    print_marked(page, 72, y, AFFILIATION, 8)
    page.insert_text((72, y + 30), "Abstract", fontsize=11, fontname="hebo")
    page.insert_text((72, y + 48), "We measured interleukin-6 after a night without sleep in forty adults.", fontsize=10)
    page.insert_text((72, y + 80), "1. Introduction", fontsize=12, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, y + 90, 523, 800), BODY, fontsize=10)
    doc.save(path)
    return path


def test_a_byline_printed_over_the_title_gives_the_authors(tmp_path, rules):
    metadata = describe(_over_title(tmp_path / "paper.pdf", byline_over=True), rules)
    assert (metadata.title, metadata.author_keys) == (" ".join(TITLE), ["silva", "chen", "costa"])


def test_a_label_over_the_title_is_no_byline(tmp_path, rules):
    """`Original Article` reads as one name with no author's mark: a label, not an author."""
    metadata = describe(_over_title(tmp_path / "paper.pdf", between="Original Article"), rules)
    assert metadata.author_keys == ["silva", "chen", "costa"]


@pytest.mark.parametrize("between", ["", "Original Article"], ids=["set apart by a gap", "set apart by a label"])
def test_a_journals_name_set_larger_over_the_title_is_not_the_title(tmp_path, rules, between):
    file = _over_title(tmp_path / "paper.pdf", masthead=("Journal of Testing", 24), between=between)
    metadata = describe(file, rules)
    assert (metadata.title, metadata.author_keys[:1]) == (" ".join(TITLE), ["silva"])


def test_a_short_title_with_a_smaller_subtitle_right_under_it_stays_the_title(tmp_path, rules):
    """A subtitle follows its title within a title's leading; a masthead stands apart."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    print_marked(page, 72, 100, "Sleep and interleukin-6", 24, "hebo")
    print_marked(page, 72, 128, "A randomised crossover trial in adults", 16, "hebo")
    print_marked(page, 72, 160, BYLINE, 12)
    print_marked(page, 72, 176, AFFILIATION, 8)
    page.insert_textbox(pymupdf.Rect(72, 200, 523, 800), BODY, fontsize=10)
    doc.save(tmp_path / "paper.pdf")
    assert describe(tmp_path / "paper.pdf", rules).title == "Sleep and interleukin-6"


def _with_later_pages(path: Path, feet: tuple[str, ...]) -> Path:
    """`_paper` with a page of body text for each of `feet`, that text its foot."""
    doc = pymupdf.open(_paper(path.with_name("one.pdf")))
    for foot in feet:
        page = doc.new_page(width=595, height=842)
        page.insert_textbox(pymupdf.Rect(72, 72, 523, 780), BODY, fontsize=10)
        if foot:
            print_marked(page, 72, 815, foot, 8)
    doc.save(path)
    return path


RUNNING_FOOT = f"Journal of Test Results 12 | https://doi.org/{DOI}"


@pytest.mark.parametrize(
    "feet",
    [(f"{RUNNING_FOOT} | 2", f"{RUNNING_FOOT} | 3"), ("", f"doi:{DOI}")],
    ids=["a running foot from page 2 on", "the last page's foot alone"],
)
def test_a_doi_printed_only_in_a_later_pages_foot_is_read(tmp_path, rules, feet):
    metadata = describe(_with_later_pages(tmp_path / "paper.pdf", feet), rules)
    assert (metadata.doi, metadata.doi_source) == (DOI, "running_line")


def test_a_reference_entrys_doi_at_the_foot_of_the_last_page_is_no_papers_own(tmp_path, rules):
    """The last page's bottom rows may end the bibliography: a row there that no other page
    repeats, longer than a DOI with a label, is a reference entry's."""
    feet = ("", "Chen B, Costa R. Sleep and cytokines. J Sleep Res. 2019;28:e12. doi:10.5555/jsr.2019.12")
    assert describe(_with_later_pages(tmp_path / "paper.pdf", feet), rules).doi is None


def test_a_byline_in_large_print_set_apart_under_a_short_title_is_not_the_title(tmp_path, rules):
    """A byline in 12 points on a 10-point page is large print, and a gap sets it apart from a
    short title as a title is set apart from a masthead over it: the short title is still the
    paper's title, the heading its text opens with."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    print_marked(page, 72, 110, "Interleukin-6 after sleep loss", 18, "hebo")
    print_marked(page, 72, 160, "A. Silva, B. Chen, and R. Costa", 12)
    print_marked(page, 72, 182, "University of Testing, Lisbon, Portugal", 9)
    print_marked(page, 72, 200, "Correspondence should be addressed to A. Silva; silva@example.org", 9)
    page.insert_textbox(pymupdf.Rect(72, 230, 523, 800), BODY, fontsize=10)
    doc.save(tmp_path / "paper.pdf")
    raw = extract(tmp_path / "paper.pdf", "paper.pdf", rules)
    assert normalize(raw, "paper.pdf", rules).title == "Interleukin-6 after sleep loss"


def _rows_under_title(path: Path, rows: tuple[tuple[str, float], ...]) -> Path:
    """A one-page paper: the title in two rows, then `rows` (text, size) one under another, the
    abstract and a section."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    print_marked(page, 72, 110, TITLE[0], 20, "hebo")
    print_marked(page, 72, 136, TITLE[1], 20, "hebo")
    y = 168.0
    for text, size in rows:
        print_marked(page, 72, y, text, size)
        y += 14
    page.insert_text((72, y + 20), "Abstract", fontsize=11, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, y + 30, 523, 800), BODY, fontsize=10)
    doc.save(path)
    return path


def test_a_byline_of_one_name_a_row_gives_each_author(tmp_path, rules):
    """A row that ends on an author's mark ends a name: the row under is the next author's, not
    more of the same name (`Ana Silva Bo Chen Rui Costa`, keyed `costa`)."""
    rows = (("Ana Silva^{1}", 12), ("Bo Chen^{2}", 12), ("Rui Costa^{1}", 12), (AFFILIATION, 8))
    assert describe(_rows_under_title(tmp_path / "paper.pdf", rows), rules).author_keys == ["silva", "chen", "costa"]


def test_a_dated_row_over_a_byline_in_large_print_is_no_author(tmp_path, rules):
    """Where a `Received` row keeps the byline out of reach under the title, the byline in large
    print is no title of its own, and the date over it (`Received 3 May 2020`) is no author's name."""
    rows = (("Running title: Interleukin-6 and sleep", 9), ("Received 3 May 2020", 9), ("Ana Silva^{1}, Bo Chen^{2}", 12), (AFFILIATION, 8))
    metadata = describe(_rows_under_title(tmp_path / "paper.pdf", rows), rules)
    assert (metadata.title, "may" in metadata.author_keys) == (" ".join(TITLE), False)


@pytest.mark.parametrize(
    "byline",
    ["Silva, A. M.^{1}; Chen, B.^{2}; Costa, R.^{1}", "SILVA, A. M.^{1}, CHEN, B.^{2} and COSTA, R.^{1}"],
    ids=["semicolons", "capitals and a joiner"],
)
def test_a_byline_printed_surname_comma_initials_gives_each_author(tmp_path, rules, byline):
    assert describe(_paper(tmp_path / "paper.pdf", byline=byline), rules).author_keys == ["silva", "chen", "costa"]
