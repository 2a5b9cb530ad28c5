"""PyMuPDF's layout model: what kind of block each PDF line sits in, as evidence beside typography.

`pymupdf-layout` is a small graph network over a page's text boxes (ONNX weights inside its wheel,
CPU only, nothing fetched at run time). For each region of a page it says `section-header`,
`title`, `text`, `list-item`, `caption`, `footnote`, `page-header`, `page-footer`, `table`,
`picture` or `formula`; it gives no levels, no reading order across columns, no section types.
`label_pieces` gives every piece of a page the label of the region that holds most of it; the
heading, running-line and block passes read the labels as one more piece of evidence.

Only the model's box features are used (`rf`): its image features render every page and run a
convolutional network over it, about ten times the cost, and on the development PDFs gave the
same headings. Its table-grid network is not run either: the labels are all this pipeline reads.
"""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass, replace
from enum import StrEnum

import pymupdf

from pipeline.errors import ExtractError
from pipeline.extract.pdf.records import PageBox, PrintedLine


class LayoutLabel(StrEnum):
    """The model's classes, as it names them."""

    section_header = "section-header"
    title = "title"
    text = "text"
    list_item = "list-item"
    caption = "caption"
    footnote = "footnote"
    page_header = "page-header"
    page_footer = "page-footer"
    table = "table"
    picture = "picture"
    formula = "formula"


@dataclass(frozen=True, slots=True)
class Region:
    """One region the model found on a page, in PyMuPDF's page coordinates."""

    box: PageBox
    label: LayoutLabel


_FEATURE_SET = "rf"
"""The model's box features only (see the module docstring)."""


def layout_model_installed() -> bool:
    return importlib.util.find_spec("pymupdf.layout") is not None


class LayoutModel:
    """The model with its ONNX session, loaded once and reused for every page it reads."""

    def __init__(self) -> None:
        if not layout_model_installed():
            raise ExtractError(
                "PyMuPDF's layout model (pymupdf-layout) is not installed; reinstall the pipeline "
                "(`pip install -e .` from the project folder) or read PDFs with `--layout rules`"
            )
        # Importing the package loads PyMuPDF's default model for `Page.get_layout` as well: a
        # second session, one second once per process, that cannot be skipped.
        from pymupdf.layout import DocumentLayoutAnalyzer

        self._model = DocumentLayoutAnalyzer.get_model(feature_set_name=_FEATURE_SET)
        # The table-grid network runs on every `table` region; only the region's label is read.
        self._model._model.table_grid_extractor = None

    def regions(self, page: pymupdf.Page) -> list[Region]:
        """The page's regions, in no particular order (the model's own sort is not used: the
        column pass orders the text)."""
        found = self._model.predict(page, do_sort=False)
        return [Region(box=(x0, y0, x1, y1), label=LayoutLabel(label)) for x0, y0, x1, y1, label, *_ in found]


@functools.cache
def shared_model() -> LayoutModel:
    """The process's one model. Kept for the life of the process, unlike every other piece of
    state in the stages: loading it costs more than reading a paper, and each pool worker reads
    many papers (the issue of its cost asks that one session serve every page and file)."""
    return LayoutModel()


def _overlap(a: PageBox, b: PageBox) -> float:
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    return width * height if width > 0 and height > 0 else 0.0


def label_pieces(pieces: list[PrintedLine], regions: list[Region]) -> list[PrintedLine]:
    """The pieces of one page, each with the label of the region that covers most of its box
    (none where no region touches it)."""
    labelled = []
    for piece in pieces:
        best = max(regions, key=lambda region: _overlap(piece.box, region.box), default=None) if piece.box else None
        label = best.label if best is not None and _overlap(piece.box, best.box) > 0 else None
        labelled.append(replace(piece, label=label))
    return labelled


_FURNITURE = (LayoutLabel.page_header, LayoutLabel.page_footer)


_FURNITURE_MAX_SIZE = 1.1
"""Body sizes up to which a line may be page furniture: running heads and feet are set at body
size or smaller, and the model reads a first page's title, set large in the top band beside the
journal's line, as part of a page head."""


def drop_model_furniture(
    pages: list[list[PrintedLine]], heights: list[float], margin: float, body_size: float
) -> tuple[list[list[PrintedLine]], list[PrintedLine]]:
    """Every page without the lines the model reads as a page head or foot within the margin
    bands (`[pdf.running_lines] margin`), and the pieces dropped.

    Running lines that recur are dropped before this by their recurrence; this catches the ones
    that do not (a head that changes with every page, a first page's journal line). Inside the
    text block the model's word alone is not trusted: a table's header or a heading near a
    page's top would be lost with it; nor for a line larger than body text (`_FURNITURE_MAX_SIZE`).
    """
    kept: list[list[PrintedLine]] = []
    dropped: list[PrintedLine] = []
    for pieces, height in zip(pages, heights):
        page_kept = []
        for piece in pieces:
            middle = (piece.y0 + piece.y1) / 2
            in_band = not piece.rotated and not margin * height <= middle <= (1 - margin) * height
            furniture = piece.label in _FURNITURE and in_band and piece.size <= _FURNITURE_MAX_SIZE * body_size
            (dropped if furniture else page_kept).append(piece)
        kept.append(page_kept)
    return kept, dropped
