"""Page thumbnails of a stored PDF for the report, with its chunks' boxes drawn over them."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from pathlib import Path

from pipeline.records.doc_ids import relative_path_of
from pipeline.report.data import PaperRow
from pipeline.report.show import zoom_within

THUMBNAIL_DPI = 40
"""Low enough that a paper's pages stay a few hundred kilobytes in its page, high enough to see the layout."""
THUMBNAIL_MAX_PIXELS = 400_000
"""The most pixels of a page's thumbnail, whatever the page's size: a letter or A3 page fits at
`THUMBNAIL_DPI`, while a PDF page may be 14,400 pt a side, 64 million pixels (190 MB) at it."""


@dataclass(frozen=True)
class Thumbnail:
    """One page rendered as PNG, and the page's rectangle in PDF points (the boxes' coordinates)."""

    page: int
    """Physical page, 1-based."""
    png: bytes
    pixel_width: int
    pixel_height: int
    page_width: float
    """Points."""
    page_height: float
    rotation: tuple[float, float, float, float, float, float]
    """The page's rotation matrix: from the unrotated page's coordinates, which PyMuPDF's text
    extraction and so `chunk_boxes` give, to those of the page as rendered."""

    def shown(self, x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
        """Where a box of the unrotated page is on the rendered one."""
        import pymupdf  # here: every command loads the report's modules, and only the report draws

        rect = pymupdf.Rect(x0, y0, x1, y1) * pymupdf.Matrix(*self.rotation)
        return rect.x0, rect.y0, rect.x1, rect.y1

    def data_uri(self) -> str:
        return "data:image/png;base64," + base64.b64encode(self.png).decode("ascii")


def stored_source(folder: str | None, paper: PaperRow) -> tuple[bytes | None, str]:
    """The paper's file's bytes where it is still as it was ingested, else None and why not."""
    if folder is None:
        return None, "the database records no run, so no folder to find the file in"
    # By the doc_id, which spells the file's name: the stored path writes bytes that are not UTF-8 as `\xNN`.
    path = Path(folder) / relative_path_of(paper.doc_id)
    shown = str(path).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    try:
        content = path.read_bytes()
    except OSError as error:
        return None, f"the source file is not at {shown} ({error.strerror}); run the report where the ingest ran"
    if hashlib.sha256(content).hexdigest() != paper.sha256:
        return None, f"{shown} changed since it was ingested; run `pipeline ingest` again to see its pages"
    return content, ""


def render_thumbnails(pdf: bytes, dpi: int = THUMBNAIL_DPI) -> list[Thumbnail]:
    """Every page of the PDF `pdf` as PyMuPDF renders it at `dpi` (less where a page would take
    more than `THUMBNAIL_MAX_PIXELS`)."""
    import pymupdf

    thumbnails = []
    # From the bytes whose hash was checked: PyMuPDF cannot open a path whose name is not UTF-8.
    with pymupdf.open(stream=pdf, filetype="pdf") as document:
        for number, page in enumerate(document, start=1):
            zoom = zoom_within([(page.rect.width, page.rect.height)], dpi, THUMBNAIL_MAX_PIXELS)
            pixmap = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
            thumbnails.append(
                Thumbnail(
                    number, pixmap.tobytes("png"), pixmap.width, pixmap.height, page.rect.width, page.rect.height,
                    tuple(page.rotation_matrix),
                )
            )
    return thumbnails

