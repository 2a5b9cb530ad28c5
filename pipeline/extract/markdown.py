"""Extract a Markdown paper into blocks with 1-based inclusive source line ranges.

pyromark (pulldown-cmark, in Rust) does the parsing (so a `# comment` inside a code fence is code,
not a heading); this module only maps its top-level blocks to ours and reads each block's text
back from the source lines, so a block's text is what the file says at those lines.
"""

from __future__ import annotations

import codecs
import re
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate, groupby
from pathlib import Path

import pyromark
from markdown_it.common.html_blocks import block_names
from markdown_it.common.html_re import HTML_OPEN_CLOSE_TAG_STR

from pipeline.errors import ExtractError
from pipeline.models import BlockKind, RawBlock, RawDocument, SourceFormat, TextSegment
from pipeline.rules import PageMarkerRule

# pulldown-cmark's top-level tags → our kinds; a thematic break (`Rule`) and link reference
# definitions make no block. An HTML block is a paragraph, unless it is a comment.
_KINDS = {
    "Paragraph": BlockKind.paragraph,
    "List": BlockKind.list,
    "Table": BlockKind.table,
    "BlockQuote": BlockKind.blockquote,
    "CodeBlock": BlockKind.code,
    "HtmlBlock": BlockKind.paragraph,
    "Heading": BlockKind.heading,
}
_FRONT_MATTER_FENCES = ("---", "+++")

# CommonMark with GFM tables, as markdown-it-py's "commonmark" preset with tables parsed it before:
# on the 294 Markdown files of the shared corpus and `corpus/` both find the same top-level blocks
# on the same lines, and pulldown-cmark's pass is 15x faster than markdown-it's block phase alone
# (0.11 s against 1.60 s). One parser for every file; it is immutable.
_PARSER = pyromark.Markdown(options=pyromark.Options.ENABLE_TABLES)
# An ATX heading's opening sequence: up to three spaces of indent, then one to six `#`.
_ATX_OPENING = re.compile(r" {0,3}#{1,6}(?=[ \t]|$)")


@dataclass(frozen=True)
class _TopBlock:
    """A top-level block as the parser found it: its tag, and lines `first`..`end` (0-based, end
    exclusive), from its first line to its last that holds text."""

    tag: str
    first: int
    end: int
    level: int | None = None


# CommonMark runs an HTML block on to the next blank line, past the tag that closes it. A file
# written without blank lines (Unstructured's Markdown has none) then loses every heading and
# paragraph after a `<table>…</table>`, so a block is ended at the line where its element closes.
_OPENING_TAG = re.compile(r" {0,3}<([A-Za-z][A-Za-z0-9-]*)")
_VOID_TAGS = frozenset("area base br col embed hr img input link meta source track wbr".split())
# CommonMark's start conditions 6 and 7, for an HTML block that ends at a blank line, in
# markdown-it-py's patterns for them.
_BLOCK_TAG_LINE = re.compile(r"</?(?a:(" + "|".join(block_names) + r"))(?=(\s|/?>|$))", re.IGNORECASE)
_LONE_TAG_LINE = re.compile(HTML_OPEN_CLOSE_TAG_STR + r"\s*$")
# A file without one blank line separates its blocks by line breaks alone (Unstructured writes an
# element a line): CommonMark would join every line between two headings into one paragraph,
# running heads and captions included. Such a file is read a block a line, but for lines that
# only make sense together: a pipe table's rows, a setext heading's underline, a blockquote, and a
# word broken at a hyphen. A line that starts in lower case is no sign: Unstructured's continue a
# paragraph that a page broke, and after the running head it would then keep.
_SETEXT_UNDERLINE = re.compile(r" {0,3}(?:=+|-+)\s*$")
_BLOCKQUOTE_LINE = re.compile(r" {0,3}>")


# Byte-order marks of the wide encodings (Windows' "Unicode" text is UTF-16 LE with one), UTF-32
# first: its little-endian mark begins with UTF-16's.
_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode_markdown(data: bytes, path: str) -> tuple[str, str]:
    """Decode a Markdown file's bytes; return the text and the encoding used.

    UTF-16 or UTF-32 where a byte-order mark says so; else UTF-8 (with or without a BOM) first,
    then cp1252, which also reads Latin-1 text in practice. Bytes that are not text at all (NUL
    bytes) fail with the cause.
    """
    for bom, encoding in _WIDE_BOMS:
        if data.startswith(bom):
            try:
                data = data.decode(encoding).encode("utf-8")
            except UnicodeDecodeError as error:
                raise ExtractError(
                    f"{path}: starts with a {encoding.upper()} byte-order mark but byte {error.start} is not {encoding.upper()}; "
                    "re-save it as UTF-8"
                ) from None
            text, _ = decode_markdown(data, path)
            return text, encoding
    if not data.strip():
        raise ExtractError(f"{path}: the file is empty; nothing to ingest")
    if b"\x00" in data:
        offset = data.index(b"\x00")
        raise ExtractError(
            f"{path}: NUL byte at offset {offset}: this is not a text file, or it is UTF-16 without a byte-order mark; "
            "check that it really is Markdown, and re-save it as UTF-8"
        )
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        has_bom = encoding == "utf-8-sig" and data.startswith(b"\xef\xbb\xbf")
        return text, ("utf-8-sig" if has_bom else "utf-8") if encoding == "utf-8-sig" else encoding
    raise ExtractError(f"{path}: the file is neither UTF-8 nor cp1252/Latin-1 text; re-save it as UTF-8")


def _front_matter_end(lines: list[str]) -> int | None:
    """Index of the closing fence of a YAML/TOML front-matter block at the top of the file."""
    if not lines or lines[0].strip() not in _FRONT_MATTER_FENCES:
        return None
    fence = lines[0].strip()
    for index in range(1, len(lines)):
        if lines[index].strip() in (fence, "...") and index > 1:
            return index
    return None


def _page_starts(lines: list[str], markers: list[PageMarkerRule]) -> dict[int, int]:
    """Map 0-based line index of every explicit page marker to the 1-based page it starts."""
    compiled = [(marker.pattern, marker.first_page) for marker in markers]
    starts = {}
    for index, line in enumerate(lines):
        for regex, first_page in compiled:
            match = regex.match(line)
            if match:
                starts[index] = int(match.group("page")) - first_page + 1
                break
    return starts


def _segments_by_page(
    lines: list[str], first: int, last: int, page_of_line: list[int | None]
) -> list[TextSegment]:
    """Lines `first`..`last` (0-based, inclusive) as one segment per run of lines on one page;
    a segment that another follows keeps the newline between them."""
    # One join and one record per page run, not a record rebuilt for every line:
    # extract 0.95 s -> 0.88 s on the shared Markdown corpus.
    segments: list[TextSegment] = []
    for page, run in groupby(range(first, last + 1), key=page_of_line.__getitem__):
        indexes = list(run)
        text = "\n".join(lines[indexes[0] : indexes[-1] + 1]) + ("\n" if indexes[-1] < last else "")
        segments.append(TextSegment(text=text, page=page))
    return segments


def _raw_block(top: _TopBlock, kind: BlockKind, lines: list[str], page_of_line: list[int | None]) -> RawBlock:
    return RawBlock(
        kind=kind,
        segments=_segments_by_page(lines, top.first, top.end - 1, page_of_line),
        line_start=top.first + 1,
        line_end=top.end,
    )


def _lines_as_blocks(lines: list[str], blanked: set[int]) -> set[int]:
    """The lines after which a blank line goes, so that a file with no blank line of its own is
    read a block a line (see `_SETEXT_UNDERLINE`); none for any other file."""
    if any(not line.strip() for index, line in enumerate(lines) if index not in blanked):
        return set()  # nearly every file, found at its first blank line
    written = [index for index in range(len(lines)) if index not in blanked]
    return {index for index in written[:-1] if not _read_together(lines[index], lines[index + 1])}


def _read_together(line: str, next_line: str) -> bool:
    return (
        line.rstrip().endswith("-")
        or ("|" in line and "|" in next_line)
        or bool(_SETEXT_UNDERLINE.match(next_line))
        or bool(_BLOCKQUOTE_LINE.match(line) and _BLOCKQUOTE_LINE.match(next_line))
    )


def _parse_blocks(lines: list[str], blank_after: set[int]) -> tuple[list[_TopBlock], set[int]]:
    """The top-level blocks of `lines` with a blank line after each line of `blank_after`, and
    each HTML block ended at the line where its element closes: where one ran on past it, a blank
    line goes after that line too and the text is parsed again, until none does. Also the lines
    where HTML blocks were so ended."""
    closing_lines = set(blank_after)
    while True:
        blocks = _parse_with_blank_lines_after(lines, closing_lines)
        run_on = {
            closing
            for block in blocks
            if block.tag == "HtmlBlock"
            for closing in _element_ends(lines, block.first, block.end)
        }
        if run_on <= closing_lines:
            return blocks, closing_lines - blank_after
        closing_lines |= run_on


def _parse_with_blank_lines_after(lines: list[str], after: set[int]) -> list[_TopBlock]:
    """The top-level blocks of `lines` with a blank line put after each line in `after`, on the
    lines of `lines`."""
    if not after:
        return _top_blocks(lines)
    parsed_lines: list[str] = []
    line_of: list[int] = []  # parsed line -> line of `lines`; a blank put in counts as the next one
    for index, line in enumerate(lines):
        parsed_lines.append(line)
        line_of.append(index)
        if index in after:
            parsed_lines.append("")
            line_of.append(index + 1)
    line_of.append(len(lines))
    return [
        _TopBlock(block.tag, line_of[block.first], line_of[block.end], block.level)
        for block in _top_blocks(parsed_lines)
    ]


def _top_blocks(lines: list[str]) -> list[_TopBlock]:
    """The parser's top-level blocks of `lines`, joined by newlines. Its ranges count UTF-8 bytes,
    so they are turned into lines by where each line starts in the encoded text."""
    text = "\n".join(lines)
    if text.isascii():
        line_starts = list(accumulate((len(line) + 1 for line in lines), initial=0))
    else:
        line_starts = list(accumulate((len(line.encode()) + 1 for line in lines), initial=0))
    blocks = []
    depth = 0
    for event, span in _PARSER.events_with_range(text, merge_text=True):
        if type(event) is str:  # a break or a thematic break, which hold nothing
            continue
        tag = event.get("Start")
        if tag is None:
            if "End" in event:
                depth -= 1
            continue
        depth += 1
        if depth > 1:
            continue
        name = tag if type(tag) is str else next(iter(tag))
        first = bisect_right(line_starts, span["start"]) - 1
        # The range ends past its last byte, which may be the last line's own newline. A list's
        # runs on over the blank lines after it (a page marker blanked for the parser among
        # them), and into the indent of the line after those, which belong to no block; a block
        # ends at its last line that holds more than whitespace.
        last = bisect_right(line_starts, max(span["end"] - 1, span["start"])) - 1
        while last > first and not lines[last][: span["end"] - line_starts[last]].strip():
            last -= 1
        end = last + 1
        level = int(tag["Heading"]["level"][1:]) if name == "Heading" else None
        blocks.append(_TopBlock(name, first, end, level))
    return blocks


def _heading_text(lines: list[str], block: _TopBlock) -> str:
    """A heading's text as written, as CommonMark reads it: an ATX heading's line without its
    `#` sequences, a setext heading's lines without the underline."""
    opening = _ATX_OPENING.match(lines[block.first]) if block.end == block.first + 1 else None
    if opening is None:
        return "\n".join(lines[block.first : block.end - 1]).strip()
    text = lines[block.first][opening.end() :].rstrip(" \t")
    # A closing run of `#` goes where a space or tab comes before it (`## Methods ##`, not `C#`).
    without_closing = text.rstrip("#")
    if without_closing[-1:] in (" ", "\t"):
        text = without_closing
    return text.strip()


def _element_ends(lines: list[str], first: int, end: int) -> list[int]:
    """Where an HTML block of lines `first`..`end` (exclusive) ran on past its element: the line
    that element closes, and those of the elements whose lines would then start HTML blocks of
    their own within it. All at once: one per parse took 31 s for a file of 1,000 one-line
    tables, each swallowing the next."""
    closings: list[int] = []
    closing = _element_end(lines, first, end)
    while closing is not None:
        closings.append(closing)
        start = next(
            (index for index in range(closing + 1, end) if _starts_html_block(lines[index], after_blank=index == closing + 1)),
            None,
        )
        closing = None if start is None else _element_end(lines, start, end)
    return [closing for closing in closings if closing < end - 1]


def _starts_html_block(line: str, after_blank: bool) -> bool:
    """CommonMark's test: a block-level tag starts one anywhere, a lone tag only after a blank
    line, since it cannot interrupt a paragraph."""
    unindented = line.lstrip(" ")
    if len(line) - len(unindented) > 3:
        return False  # indented code
    return bool(_BLOCK_TAG_LINE.match(unindented) or (after_blank and _LONE_TAG_LINE.match(unindented)))


def _element_end(lines: list[str], first: int, end: int) -> int | None:
    """The line where the HTML element that opens line `first` closes, if it does before `end`."""
    opening = _OPENING_TAG.match(lines[first])
    if opening is None:
        return None
    tag = opening.group(1).lower()
    if tag in _VOID_TAGS:
        return first
    closing_tag = f"</{tag}>"
    return next((index for index in range(first, end) if lines[index].rstrip().lower().endswith(closing_tag)), None)


def extract_markdown_text(text: str, path: str, markers: list[PageMarkerRule], encoding: str = "utf-8") -> RawDocument:
    """Turn Markdown source into a `RawDocument`; `path` is relative to the ingested folder."""
    lines = text.splitlines()
    page_starts = _page_starts(lines, markers)
    page_of_line: list[int | None] = []
    page: int | None = None
    if page_starts:
        # Text above the first marker sits on the page before the one that marker starts.
        first_marked = page_starts[min(page_starts)]
        page = first_marked - 1 if first_marked > 1 else None
    for index in range(len(lines)):
        page = page_starts.get(index, page)
        page_of_line.append(page)

    blocks: list[RawBlock] = []
    parse_lines = list(lines)
    front_end = _front_matter_end(lines)
    if front_end is not None:
        blocks.append(
            RawBlock(
                kind=BlockKind.front_matter,
                segments=_segments_by_page(lines, 0, front_end, page_of_line),
                line_start=1,
                line_end=front_end + 1,
            )
        )
    # Blank what the parser must not see but keep the line count, so block ranges stay true lines.
    blanked = set(page_starts) | (set(range(front_end + 1)) if front_end is not None else set())
    for index in blanked:
        parse_lines[index] = ""

    line_breaks = _lines_as_blocks(lines, blanked)
    top_blocks, html_ends = _parse_blocks(parse_lines, line_breaks)
    notes = ["a block a line, since the file has no blank line (Unstructured writes Markdown so)"] if line_breaks else []
    if html_ends:
        ends = sorted(line + 1 for line in html_ends)
        shown = ", ".join(map(str, ends[:5])) + (", …" if len(ends) > 5 else "")
        notes.append(f"{len(ends)} HTML block(s) ended where the element closes (line {shown}), not at the next blank line")
    for top in top_blocks:
        kind = _KINDS.get(top.tag)
        if kind == BlockKind.heading:
            blocks.append(
                RawBlock(
                    kind=BlockKind.heading,
                    segments=[TextSegment(text=_heading_text(parse_lines, top), page=page_of_line[top.first])],
                    level=top.level,
                    line_start=top.first + 1,
                    line_end=top.end,
                )
            )
        elif kind is not None:
            is_comment = top.tag == "HtmlBlock" and parse_lines[top.first].lstrip().startswith("<!--")
            if not is_comment:
                blocks.append(_raw_block(top, kind, lines, page_of_line))
    return RawDocument(
        path=path,
        format=SourceFormat.markdown,
        blocks=blocks,
        encoding=encoding,
        reading_notes=notes,
    )


def extract_markdown(file: Path, path: str, markers: list[PageMarkerRule]) -> RawDocument:
    """Read and extract one Markdown file."""
    try:
        data = file.read_bytes()
    except OSError as error:
        raise ExtractError(f"{path}: cannot read the file: {error.strerror}; check its permissions") from None
    text, encoding = decode_markdown(data, path)
    return extract_markdown_text(text, path, markers, encoding)
