"""Column gutters of PDF pages: fixtures written with PyMuPDF, each with the columns it prints."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from pipeline.extract.pdf.document import extract_pdf
from pipeline.records.base import BlockKind
from pipeline.rules import Rules, load_rules

BODY = (
    "Whether giving birth to highly altricial young is a special adaptation or the retention of a "
    "primitive strategy is unresolved, but the consequence may have been a slow transition in milk. "
)
THREE_COLUMNS = ((56, 184), (197, 325), (338, 466))
"""Left and right of each column of a bibliography set in three, in points: gutters of 13 points."""


@pytest.fixture(scope="module")
def rules() -> Rules:
    return load_rules(overrides={"pdf": {"layout": {"mode": "rules"}}})


SURNAMES = ("Langer", "Simpson", "Trott", "Roopenian", "Simister", "Baumrucker", "Ramsay", "Loeffler", "Gundling", "Thomas", "Zhang")
SUBJECTS = ("whey proteins", "the neonate", "milk sugars", "colostrum", "immunoglobulins", "marsupial young", "lactation")
JOURNALS = ("J. Zool.", "Proc. R. Soc. B", "Mol. Ecol.", "Dairy Sci. Technol.", "Biol. Rev.")


def _entry(number: int) -> str:
    """A reference whose words differ from its neighbours' (alike lines at one height on every
    page would be taken for a running head)."""
    surname, subject, journal = (words[number % len(words)] for words in (SURNAMES, SUBJECTS, JOURNALS))
    return f"{number}. {surname} AB, Other CD. {1950 + number} A study of {subject} in bears. {journal} {number}, {100 + number}-{110 + number}."


def _entries_in_columns(page: pymupdf.Page, first: int, top: float, bottom: float, per_column: int) -> int:
    """Entries from `first` on, `per_column` to each of the three columns; the next number."""
    for x0, x1 in THREE_COLUMNS:
        text = "\n".join(_entry(first + index) for index in range(per_column))
        assert page.insert_textbox(pymupdf.Rect(x0, top, x1, bottom), text, fontsize=7.5) >= 0
        first += per_column
    return first


def _bibliography_in_three_columns(tmp_path: Path) -> Path:
    """A last page of body text set across the page with the bibliography's first entries in three
    columns under it, and a page of entries in three columns after it."""
    doc = pymupdf.open()
    page = doc.new_page(width=522, height=756)
    page.insert_textbox(pymupdf.Rect(56, 50, 467, 420), BODY * 8, fontsize=9.5)
    page.insert_textbox(pymupdf.Rect(56, 424, 467, 440), "Competing interests. We have no competing interests.", fontsize=9.5)
    page.insert_textbox(pymupdf.Rect(56, 444, 467, 520), "Funding. The work was funded in part by a grant. " * 6, fontsize=9.5)
    page.insert_text((56, 560), "References", fontsize=14)
    number = _entries_in_columns(page, 1, 580, 740, 3)
    for top in (40, 70):  # the pages' last lines at one height would be taken for running feet
        number = _entries_in_columns(doc.new_page(width=522, height=756), number, top, 740, 10)
    path = tmp_path / "paper.pdf"
    doc.save(path)
    return path


@pytest.fixture(scope="module")
def bibliography(tmp_path_factory: pytest.TempPathFactory, rules: Rules):
    path = _bibliography_in_three_columns(tmp_path_factory.mktemp("columns"))
    return extract_pdf(path, path.name, rules)


def test_a_bibliography_in_three_columns_is_no_table(bibliography) -> None:
    assert [block.text[:60] for block in bibliography.blocks if block.kind is BlockKind.table] == []


@pytest.mark.parametrize("number", [1, 5, 9, 10, 30, 40, 69])
def test_each_entry_of_a_bibliography_in_three_columns_is_read_whole_in_its_column(bibliography, number: int) -> None:
    """Entries 1–9 stand under the body's last paragraphs (set across the page), the others on
    pages of their own; read across, a page line joins the lines of three entries."""
    words = " ".join(_entry(number).split())
    assert any(words in " ".join(block.text.split()) for block in bibliography.blocks)


LEFT_TEXT = (
    "The copper nanoparticles were made with a leaf extract at room temperature and their size was "
    "measured by the scattering of light in water, which gave a narrow spread of sizes. "
)
RIGHT_TEXT = (
    "The reduction of the nitrophenol was followed by its absorption peak, which fell within minutes "
    "once the particles were added and stayed unchanged without them for two days. "
)
TWO_COLUMNS = ((56, 290), (305, 539))
"""Left and right of each column of running text, in points: a gutter of 15 points."""
TABLE_CELLS = (56, 181, 345, 448, 522)
"""Where each of the table's five columns starts, in points."""
TABLE_ROWS = tuple(
    (f"{method} {kind}", f"{measure} can be measured", f"Not for {sample} samples", f"{row} nm", f"[{20 + row}]")
    for row, (method, kind, measure, sample) in enumerate(
        zip(
            ("Ultraviolet", "Infrared", "X-ray", "Electron", "Light", "Neutron", "Raman", "Mass") * 2,
            ("spectroscopy", "diffraction", "microscopy", "scattering") * 4,
            ("Concentration and shape", "Nature of the bonds", "Size and crystallinity", "Shape and size") * 4,
            ("liquid", "solid", "frozen", "dry", "wet", "thin", "thick", "small") * 2,
        )
    )
)
"""A table as wide as the page whose middle cells hold phrases as long as a line of text, one of
them crossing the gutter between the columns below it."""


def _page_in_two_columns(doc: pymupdf.Document, top: float) -> None:
    page = doc.new_page(width=595, height=842)
    for (x0, x1), text in zip(TWO_COLUMNS, (LEFT_TEXT, RIGHT_TEXT)):
        assert page.insert_textbox(pymupdf.Rect(x0, top, x1, 800), text * 9, fontsize=9.5) >= 0


def _table_over_two_columns(tmp_path: Path) -> Path:
    """Two pages of text in two columns, then a page that prints a wide table over its two columns."""
    doc = pymupdf.open()
    for top in (60, 80):  # the pages' first lines at one height would be taken for running heads
        _page_in_two_columns(doc, top)
    page = doc.new_page(width=595, height=842)
    page.insert_text((56, 70), "Table 3 Techniques of characterization and their limits", fontsize=9)
    for row, cells in enumerate(TABLE_ROWS):
        for x0, cell in zip(TABLE_CELLS, cells):
            page.insert_text((x0, 95 + 16 * row), cell, fontsize=8)
    for (x0, x1), text in zip(TWO_COLUMNS, (LEFT_TEXT, RIGHT_TEXT)):
        assert page.insert_textbox(pymupdf.Rect(x0, 370, x1, 800), text * 5, fontsize=9.5) >= 0
    path = tmp_path / "paper.pdf"
    doc.save(path)
    return path


def test_the_columns_under_a_wide_table_of_long_cells_are_read_one_after_the_other(tmp_path: Path, rules: Rules) -> None:
    path = _table_over_two_columns(tmp_path)
    document = extract_pdf(path, path.name, rules)
    third_page = " ".join(" ".join(block.text.split()) for block in document.blocks if block.segments[0].page == 3)
    assert " ".join((LEFT_TEXT * 5).split()) in third_page
