"""Page 1's first author, DOI and year in each of the ways papers print them (issue 50, item 3h):
every fixture is a first page written with PyMuPDF whose truth is known, one printed form each.
A byline's `^{…}` is set as a superscript (smaller print, raised), as publishers set marks."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pymupdf
import pytest

from front_page_helpers import AFFILIATION, BODY, describe, print_marked, TITLE


# Its rows set characters beyond Latin-1 (`’`, `‐`, `–`, Chinese) in a CJK font.
_print = partial(print_marked, wide_font="china-s")


def _paper(
    path: Path,
    byline: tuple[str, ...] = ("Ana Silva^{1}, Bo Chen^{2} and Rui Costa^{1}",),
    *,
    header: str = "",
    footer: str = "",
    notes: tuple[str, ...] = (),
    cover: tuple[str, ...] = (),
    last_page: tuple[str, ...] = (),
) -> Path:
    """A paper: an optional cover sheet (its rows in body print), then a first page with an
    optional header and footer row, the title in two rows, the byline's rows, an affiliation and
    note rows in small print, the abstract and a section; an optional last page's rows."""
    doc = pymupdf.open()
    if cover:
        sheet = doc.new_page(width=595, height=842)
        for row, text in enumerate(cover):
            sheet.insert_text((72, 100 + 16 * row), text, fontsize=10)
    page = doc.new_page(width=595, height=842)
    if header:
        _print(page, 72, 40, header, 8)
    if footer:
        _print(page, 72, 815, footer, 8)
    _print(page, 72, 110, TITLE[0], 20, "hebo")
    _print(page, 72, 136, TITLE[1], 20, "hebo")
    y = 168.0
    for row in byline:
        _print(page, 72, y, row, 12)
        y += 16
    for note in (AFFILIATION, *notes):
        _print(page, 72, y + 4, note, 8)
        y += 12
    page.insert_text((72, y + 24), "Abstract", fontsize=11, fontname="hebo")
    page.insert_text((72, y + 42), "We measured interleukin-6 after a night without sleep in forty adults.", fontsize=10)
    page.insert_text((72, y + 74), "1. Introduction", fontsize=12, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, y + 84, 523, 800), BODY, fontsize=10)
    if last_page:
        end = doc.new_page(width=595, height=842)
        end.insert_textbox(pymupdf.Rect(72, 72, 523, 400), BODY, fontsize=10)
        for row, text in enumerate(last_page):
            end.insert_text((72, 420 + 14 * row), text, fontsize=8)
    doc.save(path)
    return path


@pytest.mark.parametrize(
    ("byline", "first_key"),
    [
        (("Laurens van der Maaten^{1}, Bo Chen^{2}",), "vandermaaten"),
        (("María de la Cruz^{1} and Bo Chen^{2}",), "delacruz"),
        (("Omar Al-Hassan^{1}, Bo Chen^{2}",), "alhassan"),
        (("Sean McDonald^{1}, Bo Chen^{2}",), "mcdonald"),
        (("Sean O’Brien^{1}, Bo Chen^{2}",), "obrien"),
        (("Sean O'Brien^{1}, Bo Chen^{2}",), "obrien"),
        (("J.-P. Smith^{1}, K. L. Jones^{2}",), "smith"),
        (("JP Smith^{1}, KL Jones^{2}",), "smith"),
        (("JEAN-PIERRE SMITH^{1}, KAREN JONES^{2}",), "smith"),
        (("SILVA Ana^{1}, CHEN Bo^{2}",), "silva"),
        (("Ana Silva^{1,2,*}, Bo Chen^{3}",), "silva"),
        (("Ana Silva*, Bo Chen†",), "silva"),
        (("Ana Silva^{a,b}, Bo Chen^{c}",), "silva"),
        (("Ana Silva^{1}ID, Bo Chen^{2}ID",), "silva"),
        (("Ana Silva & Bo Chen",), "silva"),
        (("Ana Silva^{1}, Bo Chen^{2},", "Rui Costa^{1} and Li Wei^{2}"), "silva"),
        (("By Ana Silva and Bo Chen",), "silva"),
        (("Authors: Ana Silva^{1}, Bo Chen^{2}",), "silva"),
        (("Ana Silva^{1}, Bo Chen^{2}, on behalf of the Sleep Trial Investigators",), "silva"),
        (("John Smith, Jr.^{1}, Bo Chen^{2}",), "smith"),
        (("Ana da Silva e Souza^{1} e Bo Chen^{2}",), "dasilvaesouza"),
        (("Ana Silva^{1} e Bo Chen^{2}",), "silva"),
        (("João Silva Filho^{1}, Bo Chen^{2}",), "silvafilho"),
        (("Ana Silva^{1} Bo Chen^{2} Rui Costa^{1}",), "silva"),
        (("Ana Silva1,* Bo Chen2 Rui Costa1",), "silva"),
        (("Silva A.M.^{1}, Chen B.^{2}",), "silva"),
        (("Ana Silva MDS^{1}, Bo Chen MBBS^{2}",), "silva"),
    ],
)
def test_the_first_author_is_read_as_bylines_print_names(tmp_path, rules, byline, first_key):
    metadata = describe(_paper(tmp_path / "paper.pdf", byline), rules)
    assert metadata.author_keys[:1] == [first_key]


@pytest.mark.parametrize(
    ("row", "doi"),
    [
        ("doi:10.1234/jtr.2021.0042", "10.1234/jtr.2021.0042"),
        ("DOI 10.1234/jtr.2021.0042", "10.1234/jtr.2021.0042"),
        ("https://doi.org/10.1234/jtr.2021.0042", "10.1234/jtr.2021.0042"),
        ("http://dx.doi.org/10.1234/jtr.2021.0042", "10.1234/jtr.2021.0042"),
        ("DOI: 10.1234/jtr.2021.0042.", "10.1234/jtr.2021.0042"),
        ("https://doi.org/10.1186/s12889–021–10515–8", "10.1186/s12889-021-10515-8"),
        ("https://doi.org/10.1186/s12889‐021‐10515‐8", "10.1186/s12889-021-10515-8"),
        ("https://doi.org/10.1186/s12889\u00ad021\u00ad10515\u00ad8", "10.1186/s12889-021-10515-8"),
        ("https://doi.org/ 10.1234/jtr.2021.0042", "10.1234/jtr.2021.0042"),
        ("DOI: https://doi.org/10.1234/jtr.2021.0042", "10.1234/jtr.2021.0042"),
        ("Digital Object Identifier 10.1234/jtr.2021.0042", "10.1234/jtr.2021.0042"),
        ("https://onlinelibrary.example.com/doi/full/10.1234/jtr.2021.0042", "10.1234/jtr.2021.0042"),
        ("DOI number: 10.1234/jtr.2021.0042", "10.1234/jtr.2021.0042"),
        ("DOI: 10.1234/ jtr.2021.0042", "10.1234/jtr.2021.0042"),
        ("10.1234/jtr.2021.0042", "10.1234/jtr.2021.0042"),
    ],
)
def test_the_doi_is_read_in_each_printed_form(tmp_path, rules, row, doi):
    assert describe(_paper(tmp_path / "paper.pdf", notes=(row,)), rules).doi == doi


def test_a_bare_doi_inside_a_sentence_is_no_papers_own(tmp_path, rules):
    file = _paper(tmp_path / "paper.pdf", notes=("The data are deposited under 10.5061/dryad.abc123 in the archive.",))
    assert describe(file, rules).doi is None


def test_a_doi_label_printed_over_its_value_in_a_side_column_is_read_with_it(tmp_path, rules):
    doc = pymupdf.open(_paper(tmp_path / "plain.pdf"))
    page = doc[0]
    for row, (label, value) in enumerate((("Received", "DOI"), ("2 May 2021", "10.1234/jtr.2021.0042"))):
        page.insert_text((380, 40 + 10 * row), label, fontsize=7)
        page.insert_text((470, 40 + 10 * row), value, fontsize=7)
    doc.save(tmp_path / "paper.pdf")
    assert describe(tmp_path / "paper.pdf", rules).doi == "10.1234/jtr.2021.0042"


def test_a_doi_cut_short_is_passed_over_for_the_whole_one(tmp_path, rules):
    """A header row cut after `jtr-` whose rest a page number beside it keeps from the row under."""
    doc = pymupdf.open(_paper(tmp_path / "plain.pdf", header="DOI: 10.1234/jtr-", footer="https://doi.org/10.1234/jtr-2021-0042"))
    doc[0].insert_text((500, 40), "1", fontsize=8)
    doc.save(tmp_path / "paper.pdf")
    file = tmp_path / "paper.pdf"
    assert describe(file, rules).doi == "10.1234/jtr-2021-0042"


@pytest.mark.parametrize(
    ("place", "rows"),
    [
        ("header", ("Journal of Test Results 12 (2021) 101-110 https://doi.org/10.1234/jtr.2021.0042",)),
        ("footer", ("https://doi.org/10.1234/jtr.2021.0042 © 2021 The Authors",)),
        ("notes", ("https://doi.org/10.1234/", "jtr.2021.0042")),
        ("notes", ("https://doi.org/10.1234/jtr.", "2021.0042")),
        ("notes", ("https://doi.org/", "10.1234/jtr.2021.0042")),
        ("last_page", ("DOI: 10.1234/jtr.2021.0042",)),
    ],
)
def test_the_doi_is_read_wherever_page_one_or_the_last_page_prints_it(tmp_path, rules, place, rows):
    placed = {"header": {"header": rows[0]}, "footer": {"footer": rows[0]}, "notes": {"notes": rows}, "last_page": {"last_page": rows}}
    assert describe(_paper(tmp_path / "paper.pdf", **placed[place]), rules).doi == "10.1234/jtr.2021.0042"


@pytest.mark.parametrize(
    "row",
    [
        "Received: 2 January 2020; Accepted: 5 May 2020; Published: 3 June 2021",
        "Received 2 January 2020 / Accepted 5 May 2021",
        "Copyright © 2021 Silva et al. This is an open access article.",
        "© 2021 The Authors. Published by Test Press.",
        "Journal of Test Results 12 (2021) 101-110",
        "J Test Res. 2021;12(3):101–110.",
        "Journal of Test Results, Volume 12, 2021",
    ],
)
def test_the_year_is_read_from_each_line_that_dates_the_paper(tmp_path, rules, row):
    assert describe(_paper(tmp_path / "paper.pdf", notes=(row,)), rules).year == 2021


@pytest.mark.parametrize(
    "cover",
    [
        ("This is an author manuscript that has been accepted for publication.", "Downloaded from https://repository.example.org on 3 May 2022"),
        ("Test University Repository", "Citation: Silva A, Chen B. Interleukin-6 after sleep loss.", "Downloaded from https://repository.example.org"),
    ],
)
def test_a_cover_sheet_before_the_paper_leaves_its_title_and_byline_to_the_next_page(tmp_path, rules, cover):
    metadata = describe(_paper(tmp_path / "paper.pdf", notes=("doi:10.1234/jtr.2021.0042",), cover=cover), rules)
    assert (metadata.title, metadata.author_keys[:1], metadata.doi) == (" ".join(TITLE), ["silva"], "10.1234/jtr.2021.0042")


def test_a_group_author_first_in_the_byline_is_the_first_author(tmp_path, rules):
    metadata = describe(_paper(tmp_path / "paper.pdf", ("The Sleep Trial Collaborative Group^{1}, Ana Silva^{2}",)), rules)
    assert metadata.author_keys[:1] == ["sleeptrialcollaborativegroup"]


def test_a_byline_of_chinese_names_gives_each_surname(tmp_path, rules):
    metadata = describe(_paper(tmp_path / "paper.pdf", ("张伟^{1}，李娜^{2}",)), rules)
    assert metadata.author_keys == ["张", "李"]


def _with_creators(path: Path, creators: str, byline: tuple[str, ...]) -> Path:
    doc = pymupdf.open(_paper(path.with_name("plain.pdf"), byline))
    doc.set_metadata({"author": creators})
    doc.save(path)
    return path


def test_a_surname_the_files_own_list_writes_first_keys_the_byline_name(tmp_path, rules):
    """`Ana De Souza` in the byline could be keyed `souza` or `desouza`; the file filing her as
    `De Souza, Ana` says which."""
    file = _with_creators(tmp_path / "paper.pdf", "De Souza, Ana; Chen, Bo", ("Ana De Souza^{1} and Bo Chen^{2}",))
    assert describe(file, rules).author_keys == ["desouza", "chen"]


def test_the_files_own_list_written_surname_first_names_the_authors_where_no_byline_is_read(tmp_path, rules):
    file = _with_creators(tmp_path / "paper.pdf", "Silva, Ana; Chen, Bo", ("For Ana Silva and Bo Chen: the testing council",))
    metadata = describe(file, rules)
    assert (metadata.authors, metadata.author_keys) == (["Ana Silva", "Bo Chen"], ["silva", "chen"])


def _piece(text: str, y0: float, y1: float, size: float = 24.0):
    from pipeline.extract.pdf.records import PrintedLine

    return PrintedLine(page=1, x0=56.6, y0=y0, x1=500.0, y1=y1, text=text, size=size, font="Bold", bold=True, small_caps=False, chars=len(text))


def test_a_title_row_whose_raised_mark_sets_its_top_high_keeps_its_place_under_the_row_above(rules):
    """A `™` whose glyph box is tall sets its row's top above the row it follows; its bottom says
    where it is."""
    from pipeline.extract.pdf.metadata import first_page_lines
    from pipeline.metadata.pdf_front import page_text

    pieces = [
        _piece("The efficacy and safety of indocyanine", 115.6, 144.5),
        _piece("green-hyaluronic acid mixture (LuminoMark™)", 111.8, 170.5),
        _piece("for localization in breast lesions", 167.6, 196.5),
    ]
    assert page_text(first_page_lines(pieces)) == [piece.text for piece in pieces]


def test_the_files_own_title_cut_short_inside_a_row_gives_way_to_the_printed_title(tmp_path, rules):
    doc = pymupdf.open(_paper(tmp_path / "plain.pdf"))
    doc.set_metadata({"title": "Interleukin-6 after sleep"})
    doc.save(tmp_path / "paper.pdf")
    assert describe(tmp_path / "paper.pdf", rules).title == " ".join(TITLE)


def test_the_byline_order_stands_where_the_files_own_list_puts_another_author_first(tmp_path, rules):
    file = _with_creators(tmp_path / "paper.pdf", "Bo Chen; Ana Silva; Rui Costa", ("Ana Silva^{1}, Bo Chen^{2} and Rui Costa^{1}",))
    assert describe(file, rules).author_keys == ["silva", "chen", "costa"]


def test_a_ligature_in_a_printed_doi_is_its_letters(rules):
    from pipeline.metadata.pdf_doi import doi
    from pipeline.records.extract import FrontLine

    lines = [FrontLine(text="doi: 10.3389/ﬁmmu.2020.00042", size=8.0, bold=False, x0=50.0, y0=40.0)]
    assert doi({}, lines, rules.metadata)[0] == "10.3389/fimmu.2020.00042"


@pytest.mark.parametrize(
    ("byline", "citation", "first_key"),
    [
        ("Paulina Gutiérrez Macías^{1}, Bo Chen^{2}", "Citation: Gutiérrez Macías P, Chen B (2021) Interleukin-6 after sleep loss.", "gutierrezmacias"),
        ("Ahmad Al Khatib^{1}, Bo Chen^{2}", "How to cite this article: Al Khatib A, Chen B. Interleukin-6 after sleep loss.", "alkhatib"),
    ],
)
def test_the_papers_own_citation_says_where_a_two_word_surname_starts(tmp_path, rules, byline, citation, first_key):
    metadata = describe(_paper(tmp_path / "paper.pdf", (byline,), notes=(citation,)), rules)
    assert metadata.author_keys == [first_key, "chen"]
