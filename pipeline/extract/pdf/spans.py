"""One PyMuPDF line's spans read together: its text, with a space where a visible gap parts two
spans, the size and font most of its characters have (the initials' size where capitals fake
small capitals), bold and small caps, the char ranges of its superscripts and the run in bold or
italic it opens with (`Lead`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

import pymupdf

from pipeline.extract.pdf.records import Lead
from pipeline.extract.pdf.typography import NEARLY_ALL, SAME_SIZE

_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|medi|\.b\b|,b$|-b$|cmbx|sfbx|bx\d", re.IGNORECASE)
_SMALL_CAPS_FONT = re.compile(r"smallcaps|small-caps|cmcsc|sfcc|-sc$|sc$|caps", re.IGNORECASE)
_ITALIC_FONT = re.compile(r"italic|oblique|-it$|,it$|\.b?i\b|cmti|cmsl", re.IGNORECASE)

_WORD_GAP = 0.15
"""A gap between two spans wider than this many font sizes is a space: kerning and tracking
stay well under it, and a word space (about a quarter of the size) is over."""
_SMALL_CAPS_SCALE = (0.6, 0.9)
"""Faked small capitals are capitals set at this share of their initials' size: a word processor
sets them at about four fifths, and a drop cap is twice the size of its text or more."""
_RAISED = 0.1
"""A span whose baseline sits this many of its line's font sizes above the line's is raised: a
superscript is set a third of the size up, and a baseline never wavers by a tenth."""

# The flags read off every span, bound once (here, for page_reading's one-span lines too): a module
# attribute looked up per span costs more than the test.
_SUPERSCRIPT = pymupdf.TEXT_FONT_SUPERSCRIPT
BOLD_FLAG = pymupdf.TEXT_FONT_BOLD
ITALIC_FLAG = pymupdf.TEXT_FONT_ITALIC
MONOSPACED_FLAG = pymupdf.TEXT_FONT_MONOSPACED

FontStyles = dict[str, tuple[bool, bool, bool]]
"""(bold, small caps, italic) by font name, as the names say: remembered for the fonts a document
has shown so far, so that each name is read once."""


class LineSpans(NamedTuple):
    """What a line's spans say together."""

    text: str
    """Its text, whitespace collapsed."""
    chars: int
    """Characters that are no space."""
    size: float
    """The size most of its characters have, to a tenth of a point; a line of faked small capitals
    has its initials' size (`_faked_small_caps_size`)."""
    font: str
    """The font most of its characters have."""
    bold: bool
    """Whether (nearly) all its characters are bold."""
    small_caps: bool
    """Whether (nearly) all its characters are in small caps."""
    superscripts: tuple[tuple[int, int], ...]
    """Char ranges of `text` set as superscripts (`_superscripts`)."""
    lead: Lead | None
    """The run in bold or italic it opens with (`_lead`)."""
    monospaced: bool = False
    """Whether (nearly) all its characters are in a font that declares itself fixed-pitch."""
    color: int = 0
    """The sRGB colour most of its characters have (`0x000000` is black)."""


def font_style(font: str, styles: FontStyles) -> tuple[bool, bool, bool]:
    """(bold, small caps, italic) as the font name says; `styles` remembers fonts already seen in this document."""
    style = styles.get(font)
    if style is None:
        style = styles[font] = (bool(_BOLD_FONT.search(font)), bool(_SMALL_CAPS_FONT.search(font)), bool(_ITALIC_FONT.search(font)))
    return style


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


def _styled_span(text: str, start: int, x0: float, x1: float, bold: bool, italic: bool, font: str) -> _StyledSpan:
    """A span whose `text` starts at `start` of the written text and spans x0 to x1: a space at
    either end of it takes its share of the span's width."""
    lead_space, end = len(text) - len(text.lstrip()), len(text.rstrip())
    advance = (x1 - x0) / len(text)
    return _StyledSpan(start + lead_space, start + end, x0 + lead_space * advance, x1 - (len(text) - end) * advance, bold, italic, font)


def line_spans(spans: list[dict], frame: tuple[int, int], styles: FontStyles) -> LineSpans | None:
    """What a line of several spans says (see `LineSpans`); None where it has no characters."""
    parts: list[str] = []
    written_length = 0  # of the parts so far: summing them again for every span is quadratic in a line's spans
    chars = bold = caps = fixed = 0
    printed_sizes: dict[float, int] = {}  # by the size as printed, rounded once a size after the loop
    fonts: dict[str, int] = {}
    colors: dict[int, int] = {}  # characters by colour, counted in this loop, not in one more over the spans
    last_end: float | None = None
    flagged: list[tuple[int, dict]] = []  # (where its text starts in the parts, span)
    styled: list[_StyledSpan] = []
    c, s = frame
    seeking_lead = frame == (1, 0)  # `_lead` reads only the spans up to the first that leaves the first one's bold or italic
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
        flags, printed_size, font = span["flags"], span["size"], span["font"]
        # Spans set apart by a visible gap ("1" and "Introduction") are separate words.
        if last_end is not None and x0 - last_end > _WORD_GAP * printed_size and parts[-1][-1:] != " " and text[0] != " ":
            parts.append(" ")
            written_length += 1
        start = written_length
        if flags & _SUPERSCRIPT:
            flagged.append((start, span))
        parts.append(text)
        written_length += len(text)
        last_end = x1
        count = len(stripped)
        chars += count
        printed_sizes[printed_size] = printed_sizes.get(printed_size, 0) + count
        fonts[font] = fonts.get(font, 0) + count
        colors[span["color"]] = colors.get(span["color"], 0) + count
        bold_name, caps_name, italic_name = styles.get(font) or font_style(font, styles)
        span_bold = bold_name or bool(flags & BOLD_FLAG)
        bold += count if span_bold else 0
        caps += count if caps_name else 0
        fixed += count if flags & MONOSPACED_FLAG else 0
        if seeking_lead:
            styled.append(_styled_span(text, start, x0, x1, span_bold, italic_name or bool(flags & ITALIC_FLAG), font))
            first, last = styled[0], styled[-1]
            seeking_lead = (first.bold or first.italic) and (last.bold, last.italic) == (first.bold, first.italic)
    if not chars:
        return None
    sizes = _to_a_tenth(printed_sizes)
    written = "".join(parts)
    text = " ".join(written.split())
    initials = _faked_small_caps_size(spans, text, sizes, frame)
    size = initials or max(sizes, key=sizes.__getitem__)
    superscripts = _superscripts(flagged, spans, size, frame, written, text) if flagged else ()
    lead = _lead(styled, written) if frame == (1, 0) else None
    font, nearly_all = max(fonts, key=fonts.__getitem__), NEARLY_ALL * chars
    return LineSpans(text, chars, size, font, bold >= nearly_all, caps >= nearly_all or initials is not None, superscripts, lead, fixed >= nearly_all, max(colors, key=colors.__getitem__))


def _to_a_tenth(printed_sizes: dict[float, int]) -> dict[float, int]:
    """Characters by size to a tenth of a point, in the order the sizes first come: rounded once
    a size, not once a span."""
    sizes: dict[float, int] = {}
    for printed_size, count in printed_sizes.items():
        size = round(printed_size, 1)
        sizes[size] = sizes.get(size, 0) + count
    return sizes


def _faked_small_caps_size(spans: list[dict], text: str, sizes: dict[float, int], frame: tuple[int, int]) -> float | None:
    """The initials' size of a line in capitals that fakes small capitals (`R` at 10 pt, `ESULTS`
    at 8 pt on the same baseline), as a word processor sets them: the line is read at that size,
    as if set in a small capitals face. None for any other line, a capital with a subscript
    (`G` over `N;M`) among them: its size is that of most of its characters."""
    if len(sizes) != 2 or any(ch.islower() for ch in text):
        return None
    small, large = sorted(sizes)
    if not _SMALL_CAPS_SCALE[0] <= small / large <= _SMALL_CAPS_SCALE[1]:
        return None
    c, s = frame
    baselines = [span["origin"][1] * c - span["origin"][0] * s for span in spans if span["text"].strip()]
    if max(baselines) - min(baselines) > _RAISED * large:
        return None
    lettered = [(round(span["size"], 1), span["text"]) for span in spans if span["text"].strip()]
    if any(size == large and any(sum(ch.isalpha() for ch in token) > 1 for token in written.split()) for size, written in lettered):
        return None  # a whole word at the initials' size: mixed sizes, not small capitals
    continued = any(
        size == large and written[-1:].isalpha() and later == small and later_written[:1].isalpha()
        for (size, written), (later, later_written) in zip(lettered, lettered[1:])
    )
    return large if continued else None


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
    return _carry_ranges(written, ranges, text)


def _carry_ranges(written: str, ranges: list[tuple[int, int]], collapsed: str) -> tuple[tuple[int, int], ...]:
    """`ranges` of `written`, each starting and ending on a character that is no space, as ranges
    of `collapsed`, the same text with its whitespace collapsed: such characters keep their order."""
    if not ranges:
        return ()
    visible = [index for index, character in enumerate(collapsed) if not character.isspace()]
    before = [0]
    for character in written:
        before.append(before[-1] + (not character.isspace()))
    return tuple((visible[before[start]], visible[before[end] - 1] + 1) for start, end in ranges)
