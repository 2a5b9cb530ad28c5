"""PDF lines as pieces with a box and a style, the records the later passes share, and running lines.

`read_page` turns PyMuPDF's lines into `Piece`s in the page's writing direction, with the size
and font most of their characters have, bold and small caps; `drop_running_lines` removes the
journal heads, author lines and page numbers that recur in the margins. `Row`, `PdfBlock` and
`Layout` are the records the column, block and heading passes hand on; `TERMINAL` and
`font_family` are the typographic tests more than one pass applies.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import pymupdf

from pipeline.records.base import BlockKind
from pipeline.rules.pdf import PdfRunningLineRules

TEXT_FLAGS = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|medi|\.b$|,b$|-b$|cmbx|sfbx|bx\d", re.IGNORECASE)
_SMALL_CAPS_FONT = re.compile(r"smallcaps|small-caps|cmcsc|sfcc|-sc$|sc$|caps", re.IGNORECASE)
_ITALIC_FONT = re.compile(r"italic|oblique|-it$|,it$|cmti|cmsl", re.IGNORECASE)
TERMINAL = ".!?:"
_MARGIN_NUMBER = re.compile(r"^\s*\d{1,5}\s*$")
_PAGE_NUMBER = re.compile(r"^(?:page\s+)?(?:\d{1,4}|[ivx]{1,5})(?:\s+of\s+\d{1,4})?$", re.IGNORECASE)

NEARLY_ALL = 0.95
"""A line is bold or in small caps when this share of its characters is: a bold heading may
hold a regular digit, dash or symbol font glyph."""
SAME_LINE_OVERLAP = 0.5
"""Two boxes are on one line when they overlap by this share of a box's height: sub- and
superscripts and mixed sizes shift boxes, but the next line never overlaps by half."""
SAME_SIZE = 0.05
"""Two font sizes within this share of each other are one size: sizes are rounded to a tenth
of a point, and a line's size is that of most of its characters."""
TABLE_ROW_MIN_GAPS = 2
"""A row parted by this many wide gaps (three cells) is a table row; a single gap is often a
heading's number set apart from its title."""
HEADING_LINE_FILL = 0.6
"""A heading line that reaches this share of its column's width may wrap onto the next line;
one that stops before it was set short on purpose."""

_WORD_GAP = 0.15
"""A gap between two spans wider than this many font sizes is a space: kerning and tracking
stay well under it, and a word space (about a quarter of the size) is over."""
_TYPE3_MAX_SIZE = 3.0
"""Type3 bitmap fonts report a tiny size; no text meant to be read is set under 3 pt."""
_SIZE_PER_GLYPH_WIDTH = 2.0
"""A Type3 line's size is estimated from its advance: an average glyph is half as wide as its size."""
_RAISED = 0.1
"""A span whose baseline sits this many of its line's font sizes above the line's is raised: a
superscript is set a third of the size up, and a baseline never wavers by a tenth."""
_LINE_HEIGHT = 1.2
"""A line's box is about this many font sizes tall: 0.9 above the baseline and 0.3 below."""
_ASCENT = 0.9
_DESCENT = 0.3
_SEPARATE_GAP = 1.5
"""A margin piece this many font sizes from its neighbours stands alone (a journal name at the
left, a page number at the right), wider than any word space."""
_SEPARATE_MIN_CHARS = 12
"""A separate margin piece is compared on its own from this length: a shorter one (a single
word) may recur by chance."""


PageBox = tuple[float, float, float, float]
"""x0, y0, x1, y1 in PyMuPDF's page coordinates: points, origin top left, y down."""


def union(boxes: list[PageBox]) -> PageBox:
    x0s, y0s, x1s, y1s = zip(*boxes)
    return min(x0s), min(y0s), max(x1s), max(y1s)


@dataclass(frozen=True, slots=True)
class Lead:
    """A line's leading run of words set in bold or italic: the whole line, or a run that lighter
    text follows on the line (a run-in heading, `Animal preparation. In total…`). Sought in
    horizontal text only, where x along the line is the page's own x."""

    end: int
    """Characters of the line's text in the run; a full stop or colon set just after it, in the
    lighter face, is counted in."""
    x1: float
    """Where the run ends along the line, in points."""
    rest_x0: float
    """Where the text after it starts, in points; `x1` where the run is the whole line."""
    bold: bool
    italic: bool
    font: str
    """The run's font."""


@dataclass(slots=True)
class Piece:
    """One PyMuPDF line, in the page's reading frame (x along the text, y down the page)."""

    page: int
    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    size: float
    font: str
    bold: bool
    small_caps: bool
    chars: int
    rotated: bool = False
    block: int = 0
    """The PyMuPDF block the line is in, numbered on its page."""
    aside: bool = False
    """Set beside the body in smaller print (`pdf_margins.mark_asides`)."""
    box: PageBox | None = None
    """The line's box in the page's own coordinates (PyMuPDF's, whatever the writing direction),
    where the line is printed; None for a box a pass draws around several pieces to measure them."""
    superscripts: tuple[tuple[int, int], ...] = ()
    """Char ranges of `text` set as superscripts: flagged so by MuPDF, smaller than the line and raised."""
    estimated_size: bool = False
    """The font reports no usable size (a Type3 bitmap font): `size` is estimated from the glyphs."""
    label: str | None = None
    """What PyMuPDF's layout model calls the region the line is in (`section-header`, `text`,
    `page-footer`, …: `pdf_layout_model.LayoutLabel`); None where the model did not read the page."""
    lead: Lead | None = None
    """Its leading run in bold or italic, if it opens with one."""
    frame: tuple[int, int] = (1, 0)
    """Its writing direction, the cardinal one nearest (`to_frame`): (0, -1) for a line that runs up the page."""


@dataclass(slots=True)
class Row:
    """Pieces that share a baseline inside one column: the unit of paragraph building."""

    page: int
    group: int
    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    size: float
    font: str
    bold: bool
    small_caps: bool
    chars: int
    cells: int
    rotated: bool
    aside: bool = False
    box: PageBox | None = None
    """Its pieces' boxes together, in page coordinates (`Piece.box`)."""
    superscripts: tuple[tuple[int, int], ...] = ()
    """Char ranges of `text` set as superscripts (see `Piece`)."""
    label: str | None = None
    """The layout model's label that most of its characters have (see `Piece`)."""
    lead: Lead | None = None
    """Its leading run in bold or italic, if it opens with one (see `Piece`)."""


@dataclass(frozen=True, slots=True)
class PdfBlock:
    """Rows that make one paragraph, list, table or heading; `level` is set on headings.

    Frozen: a pass that joins, splits or marks blocks returns new ones (`dataclasses.replace`).
    """

    kind: BlockKind
    rows: tuple[Row, ...]
    level: int | None = None
    evidence: tuple[str, ...] = ()
    """What made the block a heading, in words (`pipeline inspect` shows it)."""

    @property
    def text(self) -> str:
        return " ".join(row.text for row in self.rows)


@dataclass(slots=True)
class Layout:
    """What the whole document says about its body text, measured before blocks are built."""

    body_size: float
    """The font size that carries the most characters, in points."""
    pitch: float
    """Baseline-to-baseline distance of body lines, in body font sizes."""
    edges: dict[int, tuple[float, float]] = field(default_factory=dict)
    """Left and right edge of every column group, by group id."""
    body_face: str = ""
    """The font face (`font_face`) that carries the most characters at body size."""


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
    """`_to_frame` undone: a box in `frame` back in page coordinates."""
    u0, v0, u1, v1 = box
    if frame == (1, 0):
        return u0, v0, u1, v1
    if frame == (0, 1):
        return -v1, u0, -v0, u1
    if frame == (-1, 0):
        return -u1, -v1, -u0, -v0
    return v0, -u1, v1, -u0


def _font_style(font: str, styles: dict[str, tuple[bool, bool, bool]]) -> tuple[bool, bool, bool]:
    """(bold, small caps, italic) as the font name says; `styles` remembers fonts already seen in this document."""
    style = styles.get(font)
    if style is None:
        style = styles[font] = (bool(_BOLD_FONT.search(font)), bool(_SMALL_CAPS_FONT.search(font)), bool(_ITALIC_FONT.search(font)))
    return style


def half_point(size: float) -> float:
    """`size` rounded to half a point, the grain at which sizes are told apart as styles."""
    return round(size * 2) / 2


def font_face(font: str) -> str:
    """The font's name without the subset prefix (`ABCDEF+`): one face of a family, such as `Times-Bold`."""
    return font.split("+")[-1].casefold()


def font_family(font: str) -> str:
    return re.split(r"[-,+]", font.split("+")[-1], maxsplit=1)[0].casefold()


def _piece(line: dict, frame: tuple[int, int], block: int, styles: dict[str, tuple[bool, bool, bool]], place: _Placement) -> Piece | None:
    """One PyMuPDF line (of PyMuPDF's `block` on the page) as a piece: its text, box and the
    size, font and weight most of its characters have."""
    spans = line["spans"]
    if len(spans) == 1:
        # Most lines have one span: no gaps to look for and no majority to count.
        span = spans[0]
        text = " ".join(span["text"].split())
        if not text:
            return None
        chars = len(span["text"].strip())
        size = round(span["size"], 1)
        font = span["font"]
        bold_name, caps_name, italic_name = styles.get(font) or _font_style(font, styles)
        bold = bold_name or bool(span["flags"] & pymupdf.TEXT_FONT_BOLD)
        small_caps = caps_name
        superscripts = ()  # a line of one span has nothing raised above the rest
        italic = italic_name or bool(span["flags"] & pymupdf.TEXT_FONT_ITALIC)
        lead = Lead(len(text), line["bbox"][2], line["bbox"][2], bold, italic, font) if (bold or italic) and frame == (1, 0) else None
    else:
        summed = _summed_spans(spans, frame, styles)
        if summed is None:
            return None
        text, chars, size, font, bold, small_caps, superscripts, lead = summed
    box = line["bbox"]
    x0, y0, x1, y1 = box if frame == (1, 0) else to_frame(box, frame)
    estimated = size < _TYPE3_MAX_SIZE
    if estimated:
        # Type3 bitmap fonts report a tiny size and glyph boxes that are far too tall: estimate
        # the size from the advance and hang the box on the baseline.
        c, s = frame
        size = max(1.0, min(y1 - y0, _SIZE_PER_GLYPH_WIDTH * (x1 - x0) / len(text)) / _LINE_HEIGHT)
        ox, oy = spans[0]["origin"]
        base = oy * c - ox * s
        y0, y1 = base - _ASCENT * size, base + _DESCENT * size
        box = from_frame((x0, y0, x1, y1), frame)
        lead = None
    # A Type3 font's glyph boxes can reach past the page's edge; a box says where the line is
    # printed, which is on the page.
    left, upper, right, lower = place.clip
    box = (max(box[0], left), max(box[1], upper), min(box[2], right), min(box[3], lower))
    return Piece(
        place.page, x0, y0 - place.top, x1, y1 - place.top, text, size, font, bold, small_caps, chars, frame != place.main,
        block, False, box, superscripts, estimated, None, lead, frame,
    )


@dataclass(frozen=True, slots=True)
class _Placement:
    """Where a page's pieces go: its number, its dominant writing direction, the top of its frame
    (which `Piece.y0` and `y1` are measured from) and the page's box that line boxes are clipped to."""

    page: int
    main: tuple[int, int]
    top: float
    clip: PageBox


def _summed_spans(
    spans: list[dict], frame: tuple[int, int], styles: dict[str, tuple[bool, bool, bool]]
) -> tuple[str, int, float, str, bool, bool, tuple[tuple[int, int], ...], Lead | None] | None:
    """A line's text from its spans, with a space where a visible gap parts two of them, and its
    characters, then the size and font most of them have, whether (nearly) all are bold, small
    caps, the char ranges of its superscripts (`_superscripts`) and its lead (`_lead`)."""
    parts: list[str] = []
    written_length = 0  # of the parts so far: summing them again for every span is quadratic in a line's spans
    chars = bold = caps = 0
    sizes: dict[float, int] = {}
    fonts: dict[str, int] = {}
    last_end: float | None = None
    flagged: list[tuple[int, dict]] = []  # (where its text starts in the parts, span)
    styled: list[_StyledSpan] = []
    c, s = frame
    # `_lead` reads the spans up to the first that leaves the first span's bold or italic: only
    # those are written out (of a line that opens in the regular face, its first span alone).
    seeking_lead = frame == (1, 0)
    for span in spans:
        text = span["text"]
        stripped = text.strip()
        if not stripped:
            if text and parts:
                parts.append(" ")
                written_length += 1
            continue
        x0, y0, x1, y1 = span["bbox"]
        if c != 1:
            x0, x1 = sorted((x0 * c + y0 * s, x1 * c + y1 * s))
        span_size = span["size"]
        flags = span["flags"]
        # Spans set apart by a visible gap ("1" and "Introduction") are separate words.
        if last_end is not None and x0 - last_end > _WORD_GAP * span_size and parts[-1][-1:] != " " and text[0] != " ":
            parts.append(" ")
            written_length += 1
        start = written_length
        if flags & pymupdf.TEXT_FONT_SUPERSCRIPT:
            flagged.append((start, span))
        parts.append(text)
        written_length += len(text)
        last_end = x1
        count = len(stripped)
        chars += count
        size = round(span_size, 1)
        sizes[size] = sizes.get(size, 0) + count
        font = span["font"]
        fonts[font] = fonts.get(font, 0) + count
        bold_name, caps_name, italic_name = styles.get(font) or _font_style(font, styles)
        span_bold = bold_name or bool(flags & pymupdf.TEXT_FONT_BOLD)
        if span_bold:
            bold += count
        if caps_name:
            caps += count
        if seeking_lead:
            span_italic = italic_name or bool(flags & pymupdf.TEXT_FONT_ITALIC)
            # Where its text starts and ends: a space at either end takes its share of the span's width.
            lead_space, end = len(text) - len(text.lstrip()), len(text.rstrip())
            advance = (x1 - x0) / len(text)
            styled.append(_StyledSpan(
                start + lead_space, start + end, x0 + lead_space * advance, x1 - (len(text) - end) * advance, span_bold, span_italic, font,
            ))
            first = styled[0]
            seeking_lead = (first.bold or first.italic) and span_bold == first.bold and span_italic == first.italic
    if not chars:
        return None
    written = "".join(parts)
    text = " ".join(written.split())
    size = max(sizes, key=sizes.__getitem__)
    superscripts = _superscripts(flagged, spans, size, frame, written, text) if flagged else ()
    lead = _lead(styled, written) if frame == (1, 0) else None
    return text, chars, size, max(fonts, key=fonts.__getitem__), bold >= NEARLY_ALL * chars, caps >= NEARLY_ALL * chars, superscripts, lead


@dataclass(frozen=True, slots=True)
class _StyledSpan:
    """A span with text: where its text starts and ends in the line's written text and along the
    line, its weight, slant and font."""

    start: int
    end: int
    x0: float
    x1: float
    bold: bool
    italic: bool
    font: str


def _lead(spans: list[_StyledSpan], written: str) -> Lead | None:
    """The run of spans in bold or italic a line opens with, where the whole line is in it or
    lighter text follows (upright and regular after italic, regular after bold); None otherwise.

    A full stop or colon that opens the lighter text (`**Animal preparation**. In total…`) closes
    the run: its end is placed by the share of the span's characters before it.
    """
    first = spans[0]
    if not (first.bold or first.italic):
        return None
    count = next((index for index, span in enumerate(spans) if (span.bold, span.italic) != (first.bold, first.italic)), len(spans))
    last = spans[count - 1]
    if count == len(spans):
        return Lead(len(" ".join(written.split())), last.x1, last.x1, first.bold, first.italic, first.font)
    after = spans[count]
    if after.bold or (after.italic and not first.bold):
        return None  # the text after is no lighter: a change of emphasis inside a heading
    end, x1, rest_x0 = last.end, last.x1, after.x0
    if written[end - 1] not in ".:" and written[after.start] in ".:":
        end = after.start + 1
        x1 = rest_x0 = after.x0 + (after.x1 - after.x0) / (after.end - after.start)
    return Lead(len(" ".join(written[:end].split())), x1, rest_x0, first.bold, first.italic, first.font)


def _superscripts(
    flagged: list[tuple[int, dict]], spans: list[dict], size: float, frame: tuple[int, int], written: str, text: str
) -> tuple[tuple[int, int], ...]:
    """Char ranges in `text` (the line's `written` text with its whitespace collapsed) of the
    spans MuPDF flags as superscripts that are also smaller than the line's `size` and raised
    above its baseline: the flag alone is set on any raised glyph, a degree sign or a prime."""
    c, s = frame
    baselines = [span["origin"][1] * c - span["origin"][0] * s for span in spans if abs(round(span["size"], 1) - size) <= SAME_SIZE * size]
    if not baselines:
        return ()
    baseline = max(set(baselines), key=baselines.count)
    ranges = []
    for start, span in flagged:
        raised = baseline - (span["origin"][1] * c - span["origin"][0] * s) > _RAISED * size
        if round(span["size"], 1) < (1 - SAME_SIZE) * size and raised and span["text"].strip():
            lead = len(span["text"]) - len(span["text"].lstrip())
            ranges.append((start + lead, start + len(span["text"].rstrip())))
    return carry_ranges(written, ranges, text)


def carry_ranges(written: str, ranges: list[tuple[int, int]], collapsed: str) -> tuple[tuple[int, int], ...]:
    """`ranges` of `written`, each starting and ending on a character that is no space, as ranges
    of `collapsed`, the same text with its whitespace collapsed: such characters keep their order."""
    if not ranges:
        return ()
    visible = [index for index, character in enumerate(collapsed) if not character.isspace()]
    before = [0]
    for character in written:
        before.append(before[-1] + (not character.isspace()))
    return tuple((visible[before[start]], visible[before[end] - 1] + 1) for start, end in ranges)


def joined_superscripts(parts: list[tuple[str, tuple[tuple[int, int], ...]]], separator: str) -> tuple[tuple[int, int], ...]:
    """The superscripts of texts (each with its own) joined with `separator`, as ranges of the joined text."""
    if not any(superscripts for _, superscripts in parts):
        return ()
    joined: list[tuple[int, int]] = []
    offset = 0
    for text, superscripts in parts:
        joined.extend((offset + start, offset + end) for start, end in superscripts)
        offset += len(text) + len(separator)
    return tuple(joined)


def read_page(
    page: pymupdf.Page, number: int, styles: dict[str, tuple[bool, bool, bool]], textpage: pymupdf.TextPage | None = None
) -> tuple[list[Piece], float]:
    """Pieces of one page in its dominant writing direction; returns them and the page height in that frame.

    Lines in another direction (a rotated margin stamp) are marked `rotated` and keep their own frame.
    `textpage` is the page's text extraction where the caller reads more from it (made with `TEXT_FLAGS`).
    """
    lines = []
    blocks = []
    for index, block in enumerate(page.get_text("dict", flags=TEXT_FLAGS, textpage=textpage)["blocks"]):
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
    _, top, _, bottom = to_frame(tuple(page.rect), main)
    # Text comes in the coordinates of the page as stored, before its /Rotate: `page.rect` is
    # the page as shown, turned back here.
    place = _Placement(number, main, top, tuple(page.rect * page.derotation_matrix))
    pieces = []
    for line, frame, block in zip(lines, frames, blocks):
        for part in _margin_numbers_apart(line, frame):
            piece = _piece(part, frame, block, styles, place)
            if piece is not None:
                pieces.append(piece)
    _even_out_estimated_sizes(pieces)
    return pieces, bottom - top


def _even_out_estimated_sizes(pieces: list[Piece]) -> None:
    """Give every piece of a font whose size was estimated the median estimate of the font's pieces
    on the page, its box hung on the same baseline.

    A Type3 bitmap font is drawn at one size, but the estimate from one word's advance swings with
    its letters (`ersities` 5.7 pt and `The` 8.8 pt on one line): word by word, body text would pass
    for small print (an aside), a larger insert (a pull quote) or a heading.
    """
    estimates: dict[str, list[Piece]] = defaultdict(list)
    for piece in pieces:
        if piece.estimated_size:
            estimates[piece.font].append(piece)
    for members in estimates.values():
        size = statistics.median(piece.size for piece in members)
        for piece in members:
            base = piece.y1 - _DESCENT * piece.size
            piece.size, piece.y0, piece.y1 = size, base - _ASCENT * size, base + _DESCENT * size


def _margin_numbers_apart(line: dict, frame: tuple[int, int]) -> list[dict]:
    """The line, with a bare number at its start or end that a wide gap sets apart (a review
    copy's line number, which PyMuPDF reads as part of the line beside it) made a line of its own."""
    spans = line["spans"]
    if len(spans) < 2 or frame != (1, 0):
        return [line]
    parts = [spans]
    first, second = spans[0], spans[1]
    if _MARGIN_NUMBER.match(first["text"]) and second["bbox"][0] - first["bbox"][2] > _SEPARATE_GAP * first["size"]:
        parts = [[first], spans[1:]]
    last, before = spans[-1], spans[-2]
    if len(parts[-1]) > 1 and _MARGIN_NUMBER.match(last["text"]) and last["bbox"][0] - before["bbox"][2] > _SEPARATE_GAP * last["size"]:
        parts[-1:] = [parts[-1][:-1], [last]]
    if len(parts) == 1:
        return [line]
    return [{**line, "spans": part, "bbox": tuple(pymupdf.Rect(*part[0]["bbox"]) | pymupdf.Rect(*part[-1]["bbox"]))} for part in parts]


# ---------------------------------------------------------------- running heads and feet


def _running_key(text: str) -> str:
    """A margin line's text as compared across pages: digits masked, and a page number in roman
    masked whole (front matter's `iii` recurs with the body's `12` at the same height)."""
    key = " ".join(text.casefold().split())
    return "#" if _PAGE_NUMBER.match(key) else re.sub(r"\d+", "#", key)


def margin_lines(pieces: list[Piece], height: float, band: float) -> list[list[Piece]]:
    """Pieces in the top and bottom `band` (a share of the page height), gathered into lines across the page width."""
    return gathered_lines(p for p in pieces if not p.rotated and not band * height <= (p.y0 + p.y1) / 2 <= (1 - band) * height)


def line_middle(line: list[Piece]) -> float:
    """The height of a line's middle, its pieces' middles averaged."""
    return sum(p.y0 + p.y1 for p in line) / (2 * len(line))


def gathered_lines(pieces: Iterable[Piece]) -> list[list[Piece]]:
    """Pieces gathered into lines across the page width, top to bottom (each line's pieces in the
    order they come: sorted by their tops)."""
    lines: list[list[Piece]] = []
    for piece in sorted(pieces, key=lambda p: p.y0):
        if lines and piece.y0 < max(p.y1 for p in lines[-1]) - SAME_LINE_OVERLAP * (piece.y1 - piece.y0):
            lines[-1].append(piece)
        else:
            lines.append([piece])
    return lines


def _separate_pieces(line: list[Piece]) -> list[Piece]:
    """Pieces of a margin line set well apart from their neighbours: long, or a page number."""
    chosen = []
    for index, piece in enumerate(line):
        before = line[index - 1].x1 if index else float("-inf")
        after = line[index + 1].x0 if index + 1 < len(line) else float("inf")
        apart = piece.x0 - before > _SEPARATE_GAP * piece.size and after - piece.x1 > _SEPARATE_GAP * piece.size
        if apart and (piece.chars >= _SEPARATE_MIN_CHARS or _PAGE_NUMBER.match(piece.text)):
            chosen.append(piece)
    return chosen


def drop_running_lines(
    pages: list[list[Piece]], heights: list[float], rules: PdfRunningLineRules
) -> tuple[list[list[Piece]], list[Piece]]:
    """Every page without its margin lines whose text (digits masked) recurs at the same height
    on other pages, and the pieces dropped.

    A whole margin line is compared, and so is each of its pieces that stands apart and is a
    page number or a dozen characters long (a running head set apart from the page number on
    the same line).
    """
    if len(pages) < 2:
        return pages, []
    least_pages = rules.short_document_min_pages if len(pages) <= rules.min_pages else rules.min_pages
    seen: dict[str, list[tuple[int, float]]] = defaultdict(list)
    candidates: list[tuple[str, int, float, float, list[Piece]]] = []
    for index, (pieces, height) in enumerate(zip(pages, heights)):
        for line in margin_lines(pieces, height, rules.margin):
            line.sort(key=lambda p: p.x0)
            middle = line_middle(line)
            keys = [(_running_key(" ".join(p.text for p in line)), line)]
            if len(line) > 1:
                keys += [(_running_key(p.text), [p]) for p in _separate_pieces(line)]
            for key, members in keys:
                seen[key].append((index, middle))
                candidates.append((key, index, middle, max(rules.min_height_tolerance, rules.height_tolerance * height), members))
    running: set[int] = set()
    for key, _index, middle, tolerance, members in candidates:
        if len({other for other, y in seen[key] if abs(y - middle) <= tolerance}) >= least_pages:
            running.update(id(p) for p in members)
    removed = [p for pieces in pages for p in pieces if id(p) in running]
    return [[p for p in pieces if id(p) not in running] for pieces in pages], removed
