"""Rule lines drawn above headings (`heading_rule_lines`): which rules count, and where they are read."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from pipeline.extract.pdf.document import extract_pdf
from pipeline.extract.pdf.heading_rule_lines import horizontal_rules, mark_ruled_rows
from pipeline.extract.pdf.heading_styles import HeadingRules
from pipeline.extract.pdf.records import Layout, PdfBlock, Row
from pipeline.records.base import BlockKind
from pipeline.rules import load_rules

_BODY = "Soil samples were taken from ten plots at a depth of twenty centimetres and kept at four"


def _row(text: str, y: float, page: int = 1) -> Row:
    width = 4.9 * len(text)
    return Row(page, 0, 72, y - 10, 72 + width, y, text, 10.0, "Helvetica", False, False, len(text), 0, False, box=(72, y - 10, 72 + width, y))


def _paragraph(*rows: Row) -> PdfBlock:
    return PdfBlock(kind=BlockKind.paragraph, rows=rows)


_LAYOUT = Layout(body_size=10.0, pitch=1.2, edges={0: (72.0, 500.0)}, body_face="helvetica")


def test_a_line_and_a_thin_filled_rectangle_are_rules_and_a_short_or_thick_one_is_not(tmp_path: Path):
    doc = pymupdf.open()
    page = doc.new_page()
    page.draw_line((72, 100), (500, 100), width=0.5)
    page.draw_rect((72, 200, 500, 200.8), color=None, fill=(0, 0, 0))
    page.draw_line((72, 300), (80, 300))  # a dash
    page.draw_rect((72, 400, 500, 430), color=(0, 0, 0))  # a box: its sides are lines, its top and bottom rules
    ys = sorted(round(y) for _, _, y in horizontal_rules(page))
    assert ys[:2] == [100, 200] and 300 not in ys


def test_a_row_is_marked_only_where_a_rule_spans_its_column_between_it_and_the_line_above():
    blocks = [_paragraph(_row(_BODY, 100)), _paragraph(_row("Methods", 130)), _paragraph(_row(_BODY, 145))]
    rules = HeadingRules.from_rules(load_rules())
    spanning = mark_ruled_rows(blocks, _LAYOUT, lambda page: [(72.0, 500.0, 112.0)], rules)
    short = mark_ruled_rows(blocks, _LAYOUT, lambda page: [(72.0, 200.0, 112.0)], rules)
    assert (spanning[1].rows[0].ruled_above, short[1].rows[0].ruled_above) == (True, False)


def test_a_line_ruled_above_and_below_is_a_tables_header_not_a_heading():
    blocks = [_paragraph(_row(_BODY, 100)), _paragraph(_row("Methods", 130)), _paragraph(_row(_BODY, 150))]
    rules = HeadingRules.from_rules(load_rules())
    marked = mark_ruled_rows(blocks, _LAYOUT, lambda page: [(72.0, 500.0, 112.0), (72.0, 500.0, 134.0)], rules)
    assert not marked[1].rows[0].ruled_above


def test_drawings_are_read_only_on_pages_where_a_rule_would_make_a_heading():
    asked: list[int] = []

    def rules_on(page: int) -> list:
        asked.append(page)
        return []

    blocks = [
        _paragraph(_row(_BODY, 100)), _paragraph(_row("Methods", 130)), _paragraph(_row(_BODY, 145)),
        _paragraph(_row(_BODY, 100, page=2)), _paragraph(_row(_BODY, 112, page=2)),
    ]
    mark_ruled_rows(blocks, _LAYOUT, rules_on, HeadingRules.from_rules(load_rules()))
    assert asked == [1]


def test_rules_between_paragraphs_make_no_headings_of_their_first_lines(tmp_path: Path):
    """Long lines under rules (a text box's frame, a separator between paragraphs) stay text."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Soil microbes under four tillage regimes", fontsize=18, fontname="hebo")
    y = 130.0
    for _ in range(4):
        page.draw_line((72, y - 12), (520, y - 12), width=0.8)
        for _ in range(6):
            page.insert_text((72, y), _BODY, fontsize=10, fontname="helv")
            y += 12
        y += 16
    path = tmp_path / "separated.pdf"
    doc.save(path)
    raw = extract_pdf(path, path.name, load_rules(overrides={"pdf": {"layout": {"mode": "rules"}}}))
    assert [block.text for block in raw.blocks if block.kind is BlockKind.heading and (block.level or 0) >= 2] == []
