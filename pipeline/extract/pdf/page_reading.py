"""A PDF page's lines as `PrintedLine`s, in the page's writing direction.

`read_page` turns PyMuPDF's lines into printed lines with a box in the page's dominant writing
direction, the size and font most of their characters have, bold and small caps (`spans`); a
bare number set apart from its line by a wide gap, or by a gap and another type (a review copy's
line number), becomes a line of its own, and a Type3 bitmap font's sizes, estimated from its glyphs, are evened out.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, replace

import pymupdf

from pipeline.extract.pdf.records import Lead, PageBox, PrintedLine
from pipeline.extract.pdf.spans import BOLD_FLAG, ITALIC_FLAG, MONOSPACED_FLAG, FontStyles, LineSpans, font_style, line_spans
from pipeline.extract.pdf.typography import SAME_SIZE, SEPARATE_GAP

TEXT_FLAGS = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
_MARGIN_NUMBER = re.compile(r"^\s*\d{1,5}\s*$")

_TYPE3_MAX_SIZE = 3.0
"""Type3 bitmap fonts report a tiny size; no text meant to be read is set under 3 pt."""
_SIZE_PER_GLYPH_WIDTH = 2.0
"""A Type3 line's size is estimated from its advance: an average glyph is half as wide as its size."""
_WORD_SPACE = 0.15
"""A gap between two spans wider than this many font sizes is a word space (as `spans` reads one)."""
_BASELINE_SHIFT = 0.1
"""Font sizes two spans' baselines may differ by and still be one baseline: a superscript is raised further."""
_LINE_HEIGHT = 1.2
"""A line's box is about this many font sizes tall: 0.9 above the baseline and 0.3 below."""
_ASCENT = 0.9
_DESCENT = 0.3


def _frame(direction: tuple[float, float]) -> tuple[int, int]:
    """The cardinal direction nearest to a line's writing direction."""
    dx, dy = direction
    if abs(dx) >= abs(dy):
        return (1, 0) if dx >= 0 else (-1, 0)
    return (0, 1) if dy > 0 else (0, -1)


def to_frame(box: tuple[float, float, float, float], frame: tuple[int, int]) -> tuple[float, float, float, float]:
    """Rotate a box (x0 ≤ x1, y0 ≤ y1, as PyMuPDF gives them) so that `frame`, one of the four
    cardinal directions, points along +x: u = x·c + y·s, v = y·c − x·s."""
    x0, y0, x1, y1 = box
    if frame == (1, 0):
        return x0, y0, x1, y1
    if frame == (0, 1):
        return y0, -x1, y1, -x0
    if frame == (-1, 0):
        return -x1, -y1, -x0, -y0
    return -y1, x0, -y0, x1


def from_frame(box: tuple[float, float, float, float], frame: tuple[int, int]) -> PageBox:
    """`to_frame` undone: a box in `frame` back in page coordinates."""
    u0, v0, u1, v1 = box
    if frame == (1, 0):
        return u0, v0, u1, v1
    if frame == (0, 1):
        return -v1, u0, -v0, u1
    if frame == (-1, 0):
        return -u1, -v1, -u0, -v0
    return v0, -u1, v1, -u0


@dataclass(frozen=True, slots=True)
class _Placement:
    """Where a page's lines go: its number, its dominant writing direction, the top of its frame
    (which `PrintedLine.y0` and `y1` are measured from) and the page's box that line boxes are clipped to."""

    page: int
    main: tuple[int, int]
    top: float
    clip: PageBox


def _one_span(line: dict, frame: tuple[int, int], styles: FontStyles) -> LineSpans | None:
    """What a line of one span says: most lines have one, with no gaps to look for and no
    majority to count, and nothing raised above the rest."""
    span = line["spans"][0]
    text = " ".join(span["text"].split())
    if not text:
        return None
    font, flags = span["font"], span["flags"]
    bold_name, caps_name, italic_name = styles.get(font) or font_style(font, styles)
    bold = bold_name or bool(flags & BOLD_FLAG)
    italic = italic_name or bool(flags & ITALIC_FLAG)
    lead = Lead(len(text), line["bbox"][2], line["bbox"][2], bold, italic, font) if (bold or italic) and frame == (1, 0) else None
    monospaced = bool(flags & MONOSPACED_FLAG)
    return LineSpans(text, len(span["text"].strip()), round(span["size"], 1), font, bold, caps_name, (), lead, monospaced, span["color"])


def _printed_line(line: dict, frame: tuple[int, int], block: int, styles: FontStyles, place: _Placement) -> PrintedLine | None:
    """One PyMuPDF line (of PyMuPDF's `block` on the page) as a printed line: its text, box and the
    size, font and weight most of its characters have."""
    spans = line["spans"]
    read = _one_span(line, frame, styles) if len(spans) == 1 else line_spans(spans, frame, styles)
    if read is None:
        return None
    size, lead = read.size, read.lead
    box = line["bbox"]
    x0, y0, x1, y1 = box if frame == (1, 0) else to_frame(box, frame)
    estimated = size < _TYPE3_MAX_SIZE
    if estimated:
        # Type3 bitmap fonts report a tiny size and glyph boxes that are far too tall: estimate
        # the size from the advance and hang the box on the baseline.
        c, s = frame
        size = max(1.0, min(y1 - y0, _SIZE_PER_GLYPH_WIDTH * (x1 - x0) / len(read.text)) / _LINE_HEIGHT)
        ox, oy = spans[0]["origin"]
        base = oy * c - ox * s
        y0, y1 = base - _ASCENT * size, base + _DESCENT * size
        box = from_frame((x0, y0, x1, y1), frame)
        lead = None
    # A Type3 font's glyph boxes can reach past the page's edge; a box says where the line is
    # printed, which is on the page.
    left, upper, right, lower = place.clip
    box = (max(box[0], left), max(box[1], upper), min(box[2], right), min(box[3], lower))
    return PrintedLine(
        place.page, x0, y0 - place.top, x1, y1 - place.top, read.text, size, read.font, read.bold, read.small_caps, read.chars,
        frame != place.main, block, False, box, read.superscripts, estimated, None, lead, frame, read.monospaced, read.color,
    )


def read_page(
    page: pymupdf.Page, number: int, styles: FontStyles, textpage: pymupdf.TextPage | None = None, text: dict | None = None
) -> tuple[list[PrintedLine], float]:
    """Printed lines of one page in its dominant writing direction; returns them and the page height in that frame.

    Lines in another direction (a rotated margin stamp) are marked `rotated` and keep their own frame.
    `textpage` is the page's text extraction where the caller reads more from it (made with `TEXT_FLAGS`),
    `text` its `dict` where the caller has read it already.
    """
    lines = []
    blocks = []
    text = text if text is not None else page.get_text("dict", flags=TEXT_FLAGS, textpage=textpage)
    for index, block in enumerate(text["blocks"]):
        for line in block.get("lines", ()):
            lines.append(line)
            blocks.append(index)
    frames = [_frame(line["dir"]) for line in lines]
    main = frames[0] if frames else (1, 0)
    if any(frame != main for frame in frames):
        weight: dict[tuple[int, int], int] = {}
        for line, frame in zip(lines, frames):
            weight[frame] = weight.get(frame, 0) + sum(len(span["text"]) for span in line["spans"])
        main = max(weight, key=weight.__getitem__)
    rect = page.rect
    _, top, _, bottom = to_frame(tuple(rect), main)
    # Text comes in the coordinates of the page as stored, before its /Rotate: `page.rect` is
    # the page as shown, turned back here.
    place = _Placement(number, main, top, tuple(rect * page.derotation_matrix))
    printed = []
    for line, frame, block in zip(lines, frames, blocks):
        for part in _margin_numbers_apart(line, frame):
            printed_line = _printed_line(part, frame, block, styles, place)
            if printed_line is not None:
                printed.append(printed_line)
    return _even_out_estimated_sizes(printed), bottom - top


def _even_out_estimated_sizes(lines: list[PrintedLine]) -> list[PrintedLine]:
    """The lines, those of a font whose size was estimated given the median estimate of the font's
    lines on the page, their boxes hung on the same baseline.

    A Type3 bitmap font is drawn at one size, but the estimate from one word's advance swings with
    its letters (`ersities` 5.7 pt and `The` 8.8 pt on one line): word by word, body text would pass
    for small print (an aside), a larger insert (a pull quote) or a heading.
    """
    estimates: dict[str, list[float]] = defaultdict(list)
    for line in lines:
        if line.estimated_size:
            estimates[line.font].append(line.size)
    if not estimates:
        return lines
    sizes = {font: statistics.median(members) for font, members in estimates.items()}
    return [_resized(line, sizes[line.font]) if line.estimated_size else line for line in lines]


def _resized(line: PrintedLine, size: float) -> PrintedLine:
    """`line` set at `size`, its box hung on the same baseline."""
    base = line.y1 - _DESCENT * line.size
    return replace(line, size=size, y0=base - _ASCENT * size, y1=base + _DESCENT * size)


def _set_apart(number: dict, after: list[dict]) -> bool:
    """Whether a number span stands apart from the text after it (`after`, the line's other spans):
    a wide gap between them, or a word space and another font or size (a line number set close
    before its line, `32 Methods`), where a raised figure (`10` and its `5`) is set with none."""
    text = next((span for span in after if span["text"].strip()), after[0])
    gap = text["bbox"][0] - number["bbox"][2]
    spaced = not number["text"][-1:].strip() or not after[0]["text"][:1].strip() or gap > _WORD_SPACE * number["size"]
    other_type = number["font"] != text["font"] or abs(number["size"] - text["size"]) > SAME_SIZE * text["size"]
    # A line number stands on its line's baseline; a raised one is a mark (`¹Department of …`).
    on_baseline = abs(number["origin"][1] - text["origin"][1]) <= _BASELINE_SHIFT * text["size"]
    return gap > SEPARATE_GAP * number["size"] or (spaced and other_type and on_baseline)


def _margin_numbers_apart(line: dict, frame: tuple[int, int]) -> list[dict]:
    """The line, with a bare number at its start set apart (`_set_apart`) or at its end a wide gap sets apart (a review
    copy's line number, which PyMuPDF reads as part of the line beside it) made a line of its own."""
    spans = line["spans"]
    if len(spans) < 2 or frame != (1, 0):
        return [line]
    parts = [spans]
    first = spans[0]
    if _MARGIN_NUMBER.match(first["text"]) and _set_apart(first, spans[1:]):
        parts = [[first], spans[1:]]
    last, before = spans[-1], spans[-2]
    if len(parts[-1]) > 1 and _MARGIN_NUMBER.match(last["text"]) and last["bbox"][0] - before["bbox"][2] > SEPARATE_GAP * last["size"]:
        parts[-1:] = [parts[-1][:-1], [last]]
    if len(parts) == 1:
        return [line]
    return [{**line, "spans": part, "bbox": tuple(pymupdf.Rect(*part[0]["bbox"]) | pymupdf.Rect(*part[-1]["bbox"]))} for part in parts]
