"""What a heading looks like: the typographic style of a block that may be one, the evidence for
it, and whether a face with no other sign of a heading is a heading style.

A block's style is (size to half a point, bold, capitals, font face); `heading_style` gives it
for a short block that is larger than body, bold, in capitals or in a face of its own at body
size; `consistent_faces` keeps a face-only style where the paper uses it as one; and
`style_evidence` says in words what made a block a heading, for `pipeline inspect`.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass

from pipeline.extract.pdf.columns import TEXT_LINE_MIN_CHARS
from pipeline.extract.pdf.records import Layout, PdfBlock, Row
from pipeline.extract.pdf.typography import TABLE_ROW_MIN_GAPS, TERMINAL, font_face, half_point
from pipeline.text.numbering import NumberKind, pdf_section_number
from pipeline.records.base import BlockKind
from pipeline.rules import Rules
from pipeline.rules.pdf import PdfHeadingRules, PdfTitleRules
from pipeline.rules.sources import ReferenceRules

SECTION_HEADER = "section-header"
"""The layout model's label for a heading (`layout_model.LayoutLabel.section_header`)."""
_HEADING_MIN_LETTERS = 3
_CAPITALS_MIN_LETTERS = 4
"""A heading has a word's worth of letters; one in capitals has four or more (DNA, RNA and
other acronyms have three)."""
_HEADING_MAX_DIGIT_SHARE = 0.3
_HEADING_MIN_LETTER_SHARE = 0.5
"""A heading is mostly letters: a line with more digits (a table row, a date) or few letters
(a formula) is not one."""
_FACE_STYLE_MIN_BLOCKS = 2
_FACE_SPACED_SHARE = 0.8
"""A face with no other sign of a heading marks headings where two lines or more, and nearly all
of its lines, stand apart from the text above them: a heading style recurs, and is set off."""
_MONOSPACED_FONT = re.compile(r"mono(?!type)|courier|consol|code|typewriter|cmtt|lmtt|txtt|menlo|monaco", re.IGNORECASE)
"""Font names of monospaced faces (`Courier`, `Consolas`, `DejaVuSansMono`, `SourceCodePro`, TeX's
`CMTT10`): text set in one apart from the body is code or a command, never a heading. A face the
name does not give away (`GulimChe`) is known by the fixed pitch its font declares (`Row.monospaced`)."""
_SENTENCE_AFTER = re.compile(r"[a-z)\]]\. +[A-Z0-9]")
"""A full stop and a new sentence inside a line: a run-in heading and its text, or two sentences."""
_ROMAN_NUMERAL = re.compile(r"(?:x{0,3}|xl|lx{0,3}|xc|c)(?:ix|iv|v?i{0,3})", re.IGNORECASE)
"""A roman number up to c (100), as front matter's pages are numbered: alone on a line it is a
page number that no running-line test caught, never a heading."""
_CODE_BRACKETS = "([{"
"""Opening brackets that open code, a formula, a citation or an aside, never a title: a title
opens with a letter or a quotation (`「개인정보 보호법」 개정`, `“Omics” in the clinic`)."""
_MARGIN_MIN_ROWS = 2
"""Lines of text of a page that start at one place make it a margin of the page's text."""
_ALIGNED = 1.0
"""Body sizes within which a line starts at a margin or is centred: a heading's number may hang
out a little, a centred line is rounded to the point."""
_SPACED_ABOVE = 1.15
"""Line pitches from the line above beyond which a line has space above it (a heading's)."""


@dataclass(frozen=True, slots=True)
class HeadingRules:
    """What the heading pass reads from the rules."""

    typography: PdfHeadingRules
    title: PdfTitleRules
    caption_start: re.Pattern[str]
    opening_anchors: tuple[re.Pattern[str], ...]
    """Patterns of the anchor rules whose headings open a paper's body on page 1."""
    opening_words: frozenset[str]
    bibliography_anchors: tuple[re.Pattern[str], ...]
    """Patterns of the anchor rules that name a bibliography (`[references] anchors`)."""
    references: ReferenceRules
    """How a bibliography entry opens: its label, its number, its first author, its year."""

    @classmethod
    def from_rules(cls, rules: Rules) -> HeadingRules:
        front = rules.pdf.front_matter
        return cls(
            typography=rules.pdf.headings,
            title=rules.pdf.title,
            caption_start=rules.captions.pdf_start,
            opening_anchors=tuple(anchor.pattern for anchor in rules.anchors_named(front.opening_anchors)),
            opening_words=frozenset(front.opening_words),
            bibliography_anchors=tuple(anchor.pattern for anchor in rules.anchors_named(rules.references.anchors)),
            references=rules.references,
        )


def without_numbering(text: str) -> str:
    """The text after the section number a PDF heading opens with (`pdf_section_number`), its
    separator glyph included (`2.1 | Plant material` → `Plant material`)."""
    number = pdf_section_number(text)
    return text[number.title_start :] if number else text


def numbering_depth(text: str, roman_sections: bool) -> int | None:
    """The heading level below the title a PDF heading's number gives (`2.3` is 2), or None.

    A paper whose sections are roman numbers (`roman_sections`) letters its sub-sections (`A.`
    under `II.`), one level deeper. A number in parentheses (`(1) Study population`, `(b)`)
    numbers sub-headings whose depth it does not say: their level comes from their style; so
    does a section 0, which numbers no part of an outline.
    """
    number = pdf_section_number(text)
    if number is None or number.kind is NumberKind.parenthesized:
        return None
    if number.kind is NumberKind.arabic:
        return number.depth if int(number.parts[0]) != 0 else None
    if number.kind is NumberKind.roman:
        return 1
    return number.depth + 1 if roman_sections else number.depth


def heading_style(block: PdfBlock, layout: Layout, rules: HeadingRules) -> tuple | None:
    """The typographic style of a block that looks like a heading, or None."""
    typography = rules.typography
    if block.kind is not BlockKind.paragraph or len(block.rows) > typography.max_rows:
        return None
    rows = block.rows
    if sum(len(row.text) for row in rows) > typography.max_chars or rows[0].rotated:
        return None
    text = block.text
    words = text.split()
    letters = sum(ch.isalpha() for ch in text)
    if not 1 <= len(words) <= typography.max_words or letters < _HEADING_MIN_LETTERS:
        return None
    first = without_numbering(text)
    letter = opening_letter(first)
    numbered = pdf_section_number(text) is not None
    if not letter.isalpha() or letter.islower() and letter != "i" and not (numbered and _opens_with_a_name(first)):
        return None
    if _ROMAN_NUMERAL.fullmatch(text):
        return None
    closed_title = text[-1] == "." and len(rows) == 1 and rows[0].bold and text[-2:-1].isalpha()
    if text[-1] in ".,;" and not closed_title or rules.caption_start.match(text) or text.count(",") >= 2 or "@" in text:
        return None  # a bold title alone on its line may close with a full stop (`2.1. Soil sampling.`)
    if _SENTENCE_AFTER.search(first):
        return None  # a run-in heading followed by its sentence ("Procedure. The 1H NMR …"), or two sentences ("… activity [44]. Eswar et al")
    if any(row.cells >= TABLE_ROW_MIN_GAPS for row in rows) or (rows[0].cells == 1 and not numbered):
        return None  # table rows
    compact = text.replace(" ", "")
    digits = sum(ch.isdigit() for ch in compact)
    if digits > _HEADING_MAX_DIGIT_SHARE * len(compact) or letters < _HEADING_MIN_LETTER_SHARE * len(compact) or "=" in text:
        return None  # numbers and formulas
    size = max(row.size for row in rows)
    body = layout.body_size
    # Where the layout model reads the lines as a section header, its word stands in for the
    # size and weight that typography asks for: small bold headings under body size, and
    # headings set in body type with only space around them.
    model_header = read_as_header(block)
    if size < typography.min_size * body and not model_header:
        return None
    caps = all(row.small_caps for row in rows) or (first.isupper() and letters >= _CAPITALS_MIN_LETTERS)
    bold = all(row.bold for row in rows)
    larger = size >= typography.larger_size * body
    face = font_face(rows[0].font)
    own_face = face != layout.body_face and all(font_face(row.font) == face for row in rows)
    if own_face and (_MONOSPACED_FONT.search(face) or all(row.monospaced for row in rows)):
        return None  # code; where the body itself is monospaced (an OCR layer's stand-in face), its face says nothing
    plain = not (larger or bold or caps or own_face or model_header)
    sign = quiet_sign(block, layout) if plain else ""
    if plain and not sign:
        return None
    return (half_point(size), bold, caps, face, sign)


def quiet_sign(block: PdfBlock, layout: Layout) -> str:
    """What sets a block in the body's size, weight and face apart, in words: a colour of its own
    (all its lines in one colour that is not the body's), a section number in bold before a
    title in the body's weight (`**3** Results`), a rule drawn across its column above it
    (`Row.ruled_above`), or else a decimal section number (`2.1 Soil sampling`); "" where nothing does. Neither alone makes a
    heading: `consistent_faces` asks the paper's other headings to share it."""
    rows = block.rows
    color = rows[0].color
    if color != layout.body_color and all(row.color == color for row in rows):
        return f"colour #{color:06x}"
    if _bold_number(block):
        return "bold number"
    if rows[0].ruled_above:
        return "a rule above"
    return "numbered" if decimal_number(block) else ""


def decimal_number(block: PdfBlock) -> bool:
    """Whether the block opens with a decimal section number (`2`, `2.1.`)."""
    number = pdf_section_number(block.text)
    return number is not None and number.kind is NumberKind.arabic


def _bold_number(block: PdfBlock) -> bool:
    """Whether the block opens with a section number in bold and no more of it is bold."""
    first = block.rows[0]
    number = pdf_section_number(block.text)
    lead = first.lead
    if number is None or lead is None or not lead.bold or any(row.bold for row in block.rows):
        return False
    return len(block.text[: number.title_start].rstrip()) <= lead.end <= number.title_start


def _opens_with_a_name(title: str) -> bool:
    """Whether a title opens with a name that is written in lowercase but holds a capital or a digit
    (`psbA-trnH`, `mRNA`, `p53`): no sentence's lowercase, so a numbered heading may open with it."""
    word = title.split(" ", 1)[0]
    return any(ch.isupper() or ch.isdigit() for ch in word[1:])


def opening_letter(title: str) -> str:
    """The first character of a heading's title after the quotation marks and corner brackets it
    may open with (`「`, `“`, `"`), or "" for an empty title."""
    for ch in title:
        quoting = unicodedata.category(ch) in ("Pi", "Ps") and ch not in _CODE_BRACKETS or ch == '"'
        if not quoting:
            return ch
    return ""


def inside_a_sentence(blocks: list[PdfBlock], index: int) -> bool:
    """Whether `blocks[index]` stands inside a sentence: the paragraph above it, in its column,
    runs on unclosed and the paragraph below starts in lowercase. A heading never does; a phrase
    set in bold or larger for emphasis, that fills a line of its own, does."""
    if not 0 < index < len(blocks) - 1:
        return False
    above, below, first = blocks[index - 1], blocks[index + 1], blocks[index].rows[0]
    return (
        above.kind is BlockKind.paragraph
        and below.kind is BlockKind.paragraph
        and (above.rows[-1].page, above.rows[-1].group) == (first.page, first.group)
        and above.text.rstrip()[-1:] not in TERMINAL
        and below.text[:1].islower()
    )


def read_as_header(block: PdfBlock) -> bool:
    """Whether the layout model reads every line of the block as a section header."""
    return all(row.label == SECTION_HEADER for row in block.rows)


def _face_only(style: tuple, layout: Layout, rules: HeadingRules) -> bool:
    """Whether a style's only sign of a heading is its font face or a quiet sign (`quiet_sign`):
    not larger, bold or capitals."""
    size, bold, caps, _, _ = style
    return not (bold or caps or size >= rules.typography.larger_size * layout.body_size)


def _shows_style(block: PdfBlock, row: Row, style: tuple) -> bool:
    """Whether a line of a block that is no heading candidate is printed in a face-only or quiet
    `style`: in its face at its size, or with its quiet sign."""
    size, _, _, face, sign = style
    if half_point(row.size) != size:
        return False
    if sign.startswith("colour"):
        return sign == f"colour #{row.color:06x}"
    if sign == "a rule above":
        return row.ruled_above
    if sign == "numbered":
        return row is block.rows[0] and decimal_number(block)
    if sign:
        return row is block.rows[0] and _bold_number(block)
    return font_face(row.font) == face


def consistent_faces(
    blocks: list[PdfBlock], found: list[tuple[int, tuple]], layout: Layout, rules: HeadingRules
) -> list[tuple[int, tuple]]:
    """The candidates without those whose only sign is a font face that is not a heading style.

    A face marks headings where it is used consistently: for `_FACE_STYLE_MIN_BLOCKS` short
    lines or more, each with space above it, and for no more text elsewhere than in them (a face
    that sets captions, tables or a lead paragraph as well is not a heading style).
    """
    by_style: dict[tuple, list[int]] = defaultdict(list)
    for index, style in found:
        by_style[style].append(index)
    chosen = {index for index, _ in found}
    kept_styles = set()
    for style, indexes in by_style.items():
        if not _face_only(style, layout, rules):
            kept_styles.add(style)
            continue
        # Headings the model read: kept one by one below, whatever else the face sets.
        indexes = [index for index in indexes if not read_as_header(blocks[index])]
        if not indexes:
            continue
        elsewhere = sum(
            row.chars
            for position, block in enumerate(blocks)
            if position not in chosen
            for row in block.rows
            if _shows_style(block, row, style)
        )
        spaced = sum(1 for index in indexes if _spaced_above(blocks, index, layout))
        inside = sum(row.chars for index in indexes for row in blocks[index].rows)
        if spaced >= _FACE_STYLE_MIN_BLOCKS and spaced >= _FACE_SPACED_SHARE * len(indexes) and elsewhere <= inside:
            kept_styles.add(style)
    return [(index, style) for index, style in found if style in kept_styles or read_as_header(blocks[index])]


def model_label(block: PdfBlock) -> str | None:
    """The layout model's label that most of the block's characters have; None where the model did not read it."""
    chars: dict[str | None, int] = {}
    for row in block.rows:
        chars[row.label] = chars.get(row.label, 0) + row.chars
    return max(chars, key=chars.__getitem__)


def style_evidence(style: tuple, numbered: bool, layout: Layout, rules: HeadingRules) -> tuple[str, ...]:
    """What in a heading's style (and numbering) made it one, in words."""
    size, bold, caps, face, sign = style
    evidence = [sign] if sign else []
    if size >= rules.typography.larger_size * layout.body_size:
        evidence.append(f"larger than body ({size:g} pt, body {layout.body_size:g} pt)")
    evidence.extend(name for name, shown in (("bold", bold), ("capitals", caps)) if shown)
    if face != layout.body_face:
        evidence.append(f"its own face ({face}, body {layout.body_face})")
    return tuple(evidence + (["numbered"] if numbered else []))


def model_evidence(block: PdfBlock) -> tuple[str, ...]:
    """What the layout model reads a heading as, in words; nothing where the model did not read
    it. Shown whatever it is: a heading it reads as text stands on typography or the outline alone."""
    label = model_label(block)
    if label is None:
        return ()
    return ("the layout model reads a section header",) if label == SECTION_HEADER else (f"the layout model reads {label}",)


def _spaced_above(blocks: list[PdfBlock], index: int, layout: Layout) -> bool:
    """Whether the block starts a column or page, or sits further below the line before it than lines do."""
    first = blocks[index].rows[0]
    above = [block.rows[-1] for block in blocks[:index] if block.rows[-1].page == first.page and block.rows[-1].group == first.group]
    return not above or first.y1 - above[-1].y1 > _SPACED_ABOVE * layout.pitch * first.size


def text_margins(blocks: list[PdfBlock]) -> dict[int, list[tuple[float, float]]]:
    """Where the lines of text (`TEXT_LINE_MIN_CHARS` or more) of every page start and end, by page."""
    margins: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for block in blocks:
        for row in block.rows:
            if row.chars >= TEXT_LINE_MIN_CHARS and not row.rotated:
                margins[row.page].append((row.x0, row.x1))
    return margins


def drawn_in_a_figure(block: PdfBlock, margins: dict[int, list[tuple[float, float]]], layout: Layout) -> bool:
    """Whether a block stands where no text of its page is set: inside its column, right of the
    column's left edge, it neither starts at a margin that lines of text on its page start at
    (its own lines aside) nor is centred on its column or on the page's text. Labels drawn over a
    figure (a map's place names, a chart's legend) stand so; a heading starts at its column's
    margin (or left of it, over a list's numbers) or is centred."""
    first = block.rows[0]
    lines = list(margins.get(first.page, []))
    for row in block.rows:
        if (row.x0, row.x1) in lines:
            lines.remove((row.x0, row.x1))
    reach = _ALIGNED * layout.body_size
    column = layout.edges.get(first.group, (first.x0, first.x1))
    if not lines or first.x0 <= column[0] + reach or sum(1 for x0, _ in lines if abs(x0 - first.x0) <= reach) >= _MARGIN_MIN_ROWS:
        return False
    middle = (min(row.x0 for row in block.rows) + max(row.x1 for row in block.rows)) / 2
    page = (min(x0 for x0, _ in lines), max(x1 for _, x1 in lines))
    return all(abs(middle - (left + right) / 2) > reach for left, right in (column, page))
