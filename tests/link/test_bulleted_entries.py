"""A bibliography printed as a bulleted list. A PDF prints bullets in many glyphs (a symbol font's
`·`, squares, circles, dashes); the reader makes a list of such lines, and every later stage must
know the same glyphs, or the list stays one item and no entry is read. The PDF is written here
with PyMuPDF, whose Helvetica prints `•` as `·`, so its truth is known."""

from __future__ import annotations

import pymupdf
import pytest

from pipeline.ingest.process import process
from pipeline.normalize.list_items import list_item_spans
from pipeline.text.entry_text import reads_as_entry

ENTRIES = (
    "Silva A, Chen B. Tillage and the soil microbiome. Soil Biol Biochem. 2019;12:1-9.",
    "Costa R, Silva A. Microbial carbon under four tillage regimes. Geoderma. 2020;4:22-31.",
    "Chen B, Costa R. Nitrogen cycling in tilled plots. Appl Soil Ecol. 2018;7:40-47.",
)


@pytest.mark.parametrize("bullet", ["·", "▪", "●", "–", "\uf0b7"])
def test_a_list_splits_between_items_at_any_printed_bullet(bullet):
    text = f"{bullet} first item\n{bullet} second item"

    assert list_item_spans(text, 0, len(text)) == [(0, 12), (13, len(text))]


def test_an_entry_behind_a_printed_bullet_reads_as_an_entry(rules):
    assert reads_as_entry("▪ " + ENTRIES[0], rules.references)


@pytest.fixture
def bulleted_bibliography(tmp_path, rules):
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Soil microbes under four tillage regimes", fontsize=18, fontname="hebo")
    page.insert_text((72, 130), "Introduction", fontsize=11, fontname="hebo")
    page.insert_text((72, 148), "Tillage changes the soil's microbes, as was shown before in three studies.", fontsize=10)
    page.insert_text((72, 180), "References", fontsize=11, fontname="hebo")
    for row, entry in enumerate(ENTRIES):
        page.insert_text((72, 198 + 14 * row), "\u2022 " + entry, fontsize=9)
    path = tmp_path / "bulleted.pdf"
    doc.save(path)
    return process(path, path.name, "bulleted", rules).chunked


def test_a_pdf_s_bulleted_bibliography_reads_one_entry_a_bullet(bulleted_bibliography):
    assert [reference.first_author for reference in bulleted_bibliography.references] == ["Silva A", "Costa R", "Chen B"]
