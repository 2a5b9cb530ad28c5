"""What a PDF says of itself besides its pages, and its first page's lines as read, kept for the
paper metadata step (`pipeline.metadata`), which needs no PyMuPDF: the document information
dictionary and the XMP stream, as stored, and page 1's pieces before any pass drops furniture
(a journal line or a DOI printed in the margin is furniture to the body text, and metadata here).
"""

from __future__ import annotations

import re
from collections import Counter
from xml.etree import ElementTree

import pymupdf

from pipeline.extract.pdf.records import PrintedLine
from pipeline.extract.pdf.running_lines import margin_lines
from pipeline.records.extract import FrontLine

# The XMP properties read, by namespace; each kept as `xmp:{prefix}:{name}`. A list (an rdf:Seq
# of creators, an rdf:Bag of subjects) is kept joined by "; ", in its order.
_XMP_NAMESPACES = {
    "dc": "http://purl.org/dc/elements/1.1/",
    "prism": "http://prismstandard.org/namespaces/basic/2.0/",
    "prism3": "http://prismstandard.org/namespaces/basic/3.0/",
    "pdfx": "http://ns.adobe.com/pdfx/1.3/",
}
_XMP_PROPERTIES = {
    "dc": ("title", "creator", "identifier", "subject"),
    "prism": ("doi", "publicationName", "volume", "startingPage", "endingPage", "coverDate", "publicationDate"),
    "prism3": ("doi", "publicationName", "volume", "startingPage", "endingPage", "coverDate", "publicationDate"),
    "pdfx": ("doi",),
}
_RDF_ITEM = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}li"
_INFO_KEYS = ("title", "author", "subject", "keywords")
_DIGITS = re.compile(r"\d+")


def embedded_metadata(doc: pymupdf.Document) -> dict[str, str]:
    """The document information's title, author, subject and keywords (`info:title`, …) and the
    XMP properties above (`xmp:dc:title`, `xmp:prism:doi`, …), whitespace collapsed, empty ones
    left out. A broken XMP stream costs only the XMP fields."""
    found = {f"info:{key}": " ".join(str(value).split()) for key, value in (doc.metadata or {}).items() if key in _INFO_KEYS and value}
    try:
        xmp = doc.get_xml_metadata()
    except RuntimeError:
        xmp = ""
    found.update(_xmp_fields(xmp))
    return {key: value for key, value in found.items() if value}


def _xmp_fields(xmp: str) -> dict[str, str]:
    if not xmp.strip():
        return {}
    try:
        # The packet's processing instructions (`<?xpacket …?>`) around the root are legal XML.
        root = ElementTree.fromstring(re.sub(r"^\s*<\?xpacket[^>]*\?>", "", xmp.strip()).encode())
    except ElementTree.ParseError:
        return {}
    fields = {}
    for prefix, names in _XMP_PROPERTIES.items():
        namespace = _XMP_NAMESPACES[prefix]
        for name in names:
            for element in root.iter(f"{{{namespace}}}{name}"):
                items = [" ".join("".join(item.itertext()).split()) for item in element.iter(_RDF_ITEM)]
                value = "; ".join(item for item in items if item) if items else " ".join("".join(element.itertext()).split())
                if value:
                    fields.setdefault(f"xmp:{prefix.rstrip('3')}:{name}", value)
            # A property may also be written as an attribute of rdf:Description.
            for element in root.iter():
                value = element.attrib.get(f"{{{namespace}}}{name}")
                if value and value.strip():
                    fields.setdefault(f"xmp:{prefix.rstrip('3')}:{name}", " ".join(value.split()))
    return fields


def front_page(pages: list[list[PrintedLine]], cover_sheet: re.Pattern[str]) -> list[PrintedLine]:
    """The pieces of the paper's first page: page 1's, or page 2's where page 1 is a cover sheet
    (two different `cover_sheet` cues on it, and none on page 2: a stamp on every page is none)."""
    cues = {match.group(0).casefold() for piece in pages[0] for match in cover_sheet.finditer(piece.text)}
    if len(cues) < 2 or len(pages) < 2 or any(cover_sheet.search(piece.text) for piece in pages[1]):
        return pages[0]
    return pages[1]


_TALL_SHARE = 1.75
"""How much taller than the page's other lines of its size a line is where a glyph's box (a raised
`™` whose box is tall) sets its top above its letters': an affiliation mark raised the usual
third of a size makes a line taller by less, and its top stays as read."""


def first_page_lines(pieces: list[PrintedLine]) -> list[FrontLine]:
    """The first page's pieces (`front_page`) as `FrontLine`s, in PyMuPDF's order, rotated ones (a
    margin stamp) left out. A piece much taller than the page's other lines of its size has its
    top put where theirs would be over its bottom: a raised `™` at a title row's end would set the
    row above the one it follows."""
    heights: dict[float, list[float]] = {}
    for piece in pieces:
        heights.setdefault(round(piece.size * 2) / 2, []).append(piece.y1 - piece.y0)
    usual = {size: sorted(found)[len(found) // 2] for size, found in heights.items()}

    def top(piece: PrintedLine) -> float:
        height = usual[round(piece.size * 2) / 2]
        return piece.y1 - height if piece.y1 - piece.y0 > _TALL_SHARE * height > 0 else piece.y0

    return [
        FrontLine(
            text=piece.text, size=round(piece.size, 2), bold=piece.bold, x0=round(piece.x0, 1), y0=round(top(piece), 1),
            superscripts=list(piece.superscripts),
        )
        for piece in pieces
        if not piece.rotated and piece.text.strip()
    ]


_LONE_ROW_MAX_WORDS = 4
"""Words on a margin row that no other page's margin repeats, kept all the same (`doi:10.…`,
`DOI 10.… Page 9`): a longer one may be the end of a reference entry, whose DOI is another work's."""


def later_margin_rows(pages: list[list[PrintedLine]], heights: list[float], band: float) -> list[str]:
    """The text of the running heads and feet of page 2 and of the last page, top to bottom: the
    rows in the top and bottom `band` (a share of the page height) whose text, digits aside,
    another page after page 1 repeats in its margins, and short rows of their own there. The
    body's text drops them as furniture; some papers print their DOI there and not on page 1."""
    margins = [[_row_text(row) for row in margin_lines(page, height, band)] for page, height in zip(pages[1:], heights[1:])]
    pages_with = Counter(key for texts in margins for key in {_masked(text) for text in texts})
    kept = sorted({0, len(margins) - 1}) if margins else []
    return [text for index in kept for text in margins[index] if pages_with[_masked(text)] > 1 or len(text.split()) <= _LONE_ROW_MAX_WORDS]


def _row_text(row: list[PrintedLine]) -> str:
    return " ".join(piece.text.strip() for piece in sorted(row, key=lambda piece: piece.x0))


def _masked(text: str) -> str:
    """A margin row's text as compared across pages: digits masked (page numbers), case and spaces aside."""
    return _DIGITS.sub("#", " ".join(text.casefold().split()))
