"""Extract a Markdown paper into blocks with 1-based inclusive source line ranges.

markdown-it-py does the parsing (so a `# comment` inside a code fence is code, not a heading);
this module only maps its top-level tokens to blocks and reads each block's text back from the
source lines, so a block's text is what the file says at those lines.
"""

from __future__ import annotations

import codecs
import re
from itertools import groupby
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.common.html_blocks import block_names
from markdown_it.common.html_re import HTML_OPEN_CLOSE_TAG_STR
from markdown_it.token import Token

from pipeline.errors import ExtractError
from pipeline.models import BlockKind, RawBlock, RawDocument, SourceFormat, TextSegment
from pipeline.rules import PageMarkerRule

_OPENING_TOKENS = {
    "paragraph_open": BlockKind.paragraph,
    "bullet_list_open": BlockKind.list,
    "ordered_list_open": BlockKind.list,
    "table_open": BlockKind.table,
    "blockquote_open": BlockKind.blockquote,
}
_LEAF_TOKENS = {"fence": BlockKind.code, "code_block": BlockKind.code, "html_block": BlockKind.paragraph}
_FRONT_MATTER_FENCES = ("---", "+++")

# Blocks are read from the token maps and the source lines, never from the inline tokens, so
# the inline phase (more than half of the parse) is skipped: extract 1.64 s -> 0.95 s on the
# shared Markdown corpus. A heading's inline token still carries its `content`. One parser for
# every file: building it took 0.3 ms a file. Each `parse` keeps its state to itself.
_BLOCK_PARSER = MarkdownIt("commonmark").enable("table").disable("inline")


# CommonMark runs an HTML block on to the next blank line, past the tag that closes it. A file
# written without blank lines (Unstructured's Markdown has none) then loses every heading and
# paragraph after a `<table>…</table>`, so a block is ended at the line where its element closes.
_OPENING_TAG = re.compile(r" {0,3}<([A-Za-z][A-Za-z0-9-]*)")
_VOID_TAGS = frozenset("area base br col embed hr img input link meta source track wbr".split())
# markdown-it's own patterns for a line that starts an HTML block ending at a blank line.
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
    compiled = [(marker.regex, marker.first_page) for marker in markers]
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


def _block_from_token(
    token: Token, kind: BlockKind, lines: list[str], page_of_line: list[int | None]
) -> RawBlock | None:
    first, end = token.map  # 0-based, end exclusive
    while end > first and not lines[end - 1].strip():
        end -= 1
    if end <= first:
        return None
    return RawBlock(
        kind=kind,
        segments=_segments_by_page(lines, first, end - 1, page_of_line),
        line_start=first + 1,
        line_end=end,
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


def _parse_blocks(lines: list[str], blank_after: set[int]) -> tuple[list[Token], set[int]]:
    """markdown-it's tokens of `lines` with a blank line after each line of `blank_after`, and
    each HTML block ended at the line where its element closes: where one ran on past it, a blank
    line goes after that line too and the text is parsed again, until none does. Also the lines
    where HTML blocks were so ended."""
    closing_lines = set(blank_after)
    while True:
        tokens = _parse_with_blank_lines_after(lines, closing_lines)
        run_on = {
            closing
            for token in tokens
            if token.type == "html_block" and token.level == 0 and token.map is not None
            for closing in _element_ends(lines, *token.map)
        }
        if run_on <= closing_lines:
            return tokens, closing_lines - blank_after
        closing_lines |= run_on


def _parse_with_blank_lines_after(lines: list[str], after: set[int]) -> list[Token]:
    """markdown-it's tokens of `lines` with a blank line put after each line in `after`; their
    maps count the lines of `lines`."""
    if not after:
        return _BLOCK_PARSER.parse("\n".join(lines))
    parsed_lines: list[str] = []
    line_of: list[int] = []  # parsed line -> line of `lines`; a blank put in counts as the next one
    for index, line in enumerate(lines):
        parsed_lines.append(line)
        line_of.append(index)
        if index in after:
            parsed_lines.append("")
            line_of.append(index + 1)
    line_of.append(len(lines))
    tokens = _BLOCK_PARSER.parse("\n".join(parsed_lines))
    for token in tokens:
        if token.map is not None:
            token.map = [line_of[token.map[0]], line_of[token.map[1]]]
    return tokens


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
    """markdown-it's test: a block-level tag starts one anywhere, a lone tag only after a blank
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
    # Blank what the parser must not see but keep the line count, so token maps stay true lines.
    blanked = set(page_starts) | (set(range(front_end + 1)) if front_end is not None else set())
    for index in blanked:
        parse_lines[index] = ""

    line_breaks = _lines_as_blocks(lines, blanked)
    tokens, html_ends = _parse_blocks(parse_lines, line_breaks)
    notes = ["a block a line, since the file has no blank line (Unstructured writes Markdown so)"] if line_breaks else []
    if html_ends:
        ends = sorted(line + 1 for line in html_ends)
        shown = ", ".join(map(str, ends[:5])) + (", …" if len(ends) > 5 else "")
        notes.append(f"{len(ends)} HTML block(s) ended where the element closes (line {shown}), not at the next blank line")
    for index, token in enumerate(tokens):
        if token.level != 0 or token.map is None:
            continue
        if token.type == "heading_open":
            inline = tokens[index + 1]
            first, end = token.map
            blocks.append(
                RawBlock(
                    kind=BlockKind.heading,
                    segments=[TextSegment(text=inline.content.strip(), page=page_of_line[first])],
                    level=int(token.tag[1:]),
                    line_start=first + 1,
                    line_end=end,
                )
            )
        elif token.type in _OPENING_TOKENS or token.type in _LEAF_TOKENS:
            kind = _OPENING_TOKENS.get(token.type) or _LEAF_TOKENS[token.type]
            block = _block_from_token(token, kind, lines, page_of_line)
            is_comment = token.type == "html_block" and token.content.lstrip().startswith("<!--")
            if block is not None and not is_comment:
                blocks.append(block)
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
