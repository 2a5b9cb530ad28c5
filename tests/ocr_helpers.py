"""Small PDFs for the OCR tests: a text PDF of a heading and a paragraph a page, and scans made of
it (its pages rendered grey and saved as images alone), so that the truth is the text removed."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from pipeline.extract.pdf.ocr import ocr_installed

PAGES = [
    ("Introduction", "Lanterns glow above the harbour while fishermen mend their nets before dawn."),
    ("Methods", "Gardeners measured seventeen tomato plants every morning during the summer."),
]
"""A heading and a sentence a page: the sentence is printed four times under its heading."""

RAPIDOCR_MISSING = "rapidocr is not installed (pip install -e '.[ocr]')"


def rapidocr_missing() -> bool:
    """Whether the `[ocr]` extra is absent, so that the tests reading a scan are skipped."""
    return not ocr_installed()


def text_pdf(path: Path, pages: list[tuple[str, str]]) -> Path:
    """A text PDF: on each page a heading in large type over a paragraph (its sentence four times)."""
    with pymupdf.open() as doc:
        for heading, sentence in pages:
            page = doc.new_page()
            page.insert_text((72, 100), heading, fontsize=18)
            words, line, y = (sentence + " ") * 4, "", 140
            for word in words.split():
                if len(line) + len(word) > 70:
                    page.insert_text((72, y), line, fontsize=11)
                    line, y = "", y + 15
                line += word + " "
            page.insert_text((72, y), line, fontsize=11)
        doc.save(path)
    return path


def image_only(source_pdf: Path, path: Path, dpi: int = 200, scanned: set[int] | None = None) -> Path:
    """The PDF with its pages (those of `scanned`, 1-based; every page where None) rendered grey
    and saved as images alone, the other pages kept as they are."""
    with pymupdf.open(source_pdf) as source, pymupdf.open() as scan:
        for number, page in enumerate(source, start=1):
            if scanned is not None and number not in scanned:
                scan.insert_pdf(source, from_page=number - 1, to_page=number - 1)
                continue
            new = scan.new_page(width=page.rect.width, height=page.rect.height)
            new.insert_image(new.rect, pixmap=page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY))
        scan.save(path)
    return path
