"""A label set in small print on the title's line, apart from it (a journal's `ORIGINAL` or
`Review` badge in the margin), is an aside, not the title's first word; a short label of the same
print beside body text (a figure's) stays where it is."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from pipeline.extract.pdf.document import extract_pdf
from pipeline.records.base import BlockKind

TITLE = ("A study of sleep and memory", "in adults who work at night")
BODY = (
    "Sleep after learning keeps what was learnt, and workers on night shifts sleep by day, when "
    "the light and the noise of the day cut their sleep short. We asked whether a day's sleep "
    "keeps a list of words as well as a night's sleep does, in forty nurses who work at night. "
) * 6


def _paper(path: Path, label: str, label_at: tuple[float, float], label_size: float) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((171, 110), TITLE[0], fontsize=20)
    page.insert_text((171, 136), TITLE[1], fontsize=20)
    page.insert_text(label_at, label, fontsize=label_size, fontname="hebo")
    page.insert_text((171, 170), "Ana Silva and Bo Chen", fontsize=11)
    page.insert_text((171, 210), "Introduction", fontsize=13, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(171, 220, 523, 800), BODY, fontsize=10)
    doc.save(path)
    return path


def test_a_badge_beside_the_title_is_an_aside_not_the_titles_first_word(tmp_path, rules):
    path = _paper(tmp_path / "badge.pdf", "ORIGINAL", (80, 104), 7.5)
    document = extract_pdf(path, path.name, rules)
    [title] = [block.text for block in document.blocks if block.kind is BlockKind.heading and block.level == 1]
    assert " ".join(title.split()) == " ".join(TITLE)
    assert [block.text for block in document.blocks if block.kind is BlockKind.aside] == ["ORIGINAL"]


def test_a_short_label_beside_body_text_stays_where_it_is(tmp_path, rules):
    path = _paper(tmp_path / "figure_label.pdf", "Current", (80, 300), 4)
    document = extract_pdf(path, path.name, rules)
    assert [block.text for block in document.blocks if block.kind is BlockKind.aside] == []
    assert "Current" in " ".join(block.text for block in document.blocks)
