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
