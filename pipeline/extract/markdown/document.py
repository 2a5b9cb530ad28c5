"""Extract a Markdown paper into blocks with 1-based inclusive source line ranges.

markdown-it-py does the parsing (`markdown_parse.py`: so a `# comment` inside a code fence is
code, not a heading); this module decodes the file, finds its front matter and page markers, and
reads each block's text back from the source lines, so a block's text is what the file says at
those lines.
"""

from __future__ import annotations

import re
from itertools import groupby
from pathlib import Path

from pipeline.extract.markdown.decoding import decode_markdown
from pipeline.extract.markdown.parse import TopBlock, code_lines, parse_blocks
from pipeline.extract.markdown.tables import markdown_tables
from pipeline.extract.source import read_source
from pipeline.records.base import BlockKind, SourceFormat, TextSegment
from pipeline.records.extract import RawBlock, RawDocument
from pipeline.rules import PageMarkerRule
from pipeline.rules.pdf import PdfTableRules

_TABLE_CAPTION = PdfTableRules().caption

# YAML or TOML front matter, found before the parse: the test for a file without blank lines
# must not count its lines, and mdit-py-plugins' front-matter rule reads YAML's `---` alone.
_FRONT_MATTER_FENCES = ("---", "+++")

# A file without one blank line separates its blocks by line breaks alone (Unstructured writes an
# element a line): CommonMark would join every line between two headings into one paragraph,
# running heads and captions included. Such a file is read a block a line, but for lines that
# only make sense together: a pipe table's rows, a setext heading's underline, a blockquote, and a
# word broken at a hyphen. A line that starts in lower case is no sign: Unstructured's continue a
# paragraph that a page broke, and after the running head it would then keep.
_SETEXT_UNDERLINE = re.compile(r" {0,3}(?:=+|-+)\s*$")
_BLOCKQUOTE_LINE = re.compile(r" {0,3}>")

# An image's bytes written into the file (`![Figure 1](data:image/png;base64,iVBOR…)`, as
# converters export figures inline): hundreds of kilobytes of one word, which no chunk could hold
# within the hard maximum and no search would want. The payload is left out of the text where the
# lines are read, so every offset and line number after it stays true; a short one stays.
_DATA_URI = re.compile(r"(?<![\w-])data:[^\s,()\"'<>]*,[^\s()\"'<>]{100,}")
_DATA_URI_SHOWN = "data:…"


def _without_inline_data(lines: list[str]) -> tuple[list[str], list[int]]:
    """The lines with every long data URI's payload left out (`_DATA_URI`), and the 0-based index
    of each line that held one, once per URI."""
    changed: list[int] = []
    kept = list(lines)
    for index, line in enumerate(lines):
        if "data:" in line:
            kept[index], count = _DATA_URI.subn(_DATA_URI_SHOWN, line)
            changed += [index] * count
    return kept, changed


def _inline_data_notes(changed: list[int]) -> list[str]:
    if not changed:
        return []
    return [f"{len(changed)} inline data URI(s) (an image's bytes in the file) shown as `{_DATA_URI_SHOWN}`, from line {changed[0] + 1}"]


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
    # One join and one record per page run, not a record rebuilt for every line of a paper.
    segments: list[TextSegment] = []
    for page, run in groupby(range(first, last + 1), key=page_of_line.__getitem__):
        indexes = list(run)
        text = "\n".join(lines[indexes[0] : indexes[-1] + 1]) + ("\n" if indexes[-1] < last else "")
        segments.append(TextSegment(text=text, page=page))
    return segments


def _raw_block(top: TopBlock, kind: BlockKind, lines: list[str], page_of_line: list[int | None]) -> RawBlock:
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


def _pages_of_lines(line_count: int, page_starts: dict[int, int]) -> list[int | None]:
    """The 1-based page of each line, None for all where the file has no page markers."""
    page_of_line: list[int | None] = []
    page: int | None = None
    if page_starts:
        # Text above the first marker sits on the page before the one that marker starts.
        first_marked = page_starts[min(page_starts)]
        page = first_marked - 1 if first_marked > 1 else None
    for index in range(line_count):
        page = page_starts.get(index, page)
        page_of_line.append(page)
    return page_of_line


def _outside_code(page_starts: dict[int, int], lines: list[str]) -> dict[int, int]:
    """The page markers that stand outside code: a `<!-- page 99 -->` inside a fence is code the
    paper shows. Code as the file is written decides, so it takes a parse of its own, made only
    for a file with markers and a line that may hold code (a fence, or an indented line)."""
    if not page_starts or not any(line.startswith(("    ", "\t")) or "```" in line or "~~~" in line for line in lines):
        return page_starts
    in_code = code_lines(lines)
    return {line: page for line, page in page_starts.items() if line not in in_code}


def _reading_notes(line_breaks: set[int], html_ends: frozenset[int]) -> list[str]:
    """Where the file was read otherwise than CommonMark would, for `inspect` and the stored extraction."""
    notes = ["a block a line, since the file has no blank line (Unstructured writes Markdown so)"] if line_breaks else []
    if html_ends:
        ends = sorted(line + 1 for line in html_ends)
        shown = ", ".join(map(str, ends[:5])) + (", …" if len(ends) > 5 else "")
        notes.append(f"{len(ends)} HTML block(s) ended where the element closes (line {shown}), not at the next blank line")
    return notes


def _block(top: TopBlock, lines: list[str], parse_lines: list[str], page_of_line: list[int | None]) -> RawBlock | None:
    """Our block for one of the parser's, its text read from the source lines; None for an HTML comment."""
    if top.token == "html_block" and parse_lines[top.first].lstrip().startswith("<!--"):
        return None
    if top.kind is BlockKind.heading:
        return RawBlock(
            kind=BlockKind.heading,
            segments=[TextSegment(text=top.heading, page=page_of_line[top.first])],
            level=top.level,
            line_start=top.first + 1,
            line_end=top.end,
        )
    return _raw_block(top, top.kind, lines, page_of_line)


def extract_markdown_text(
    text: str, path: str, markers: list[PageMarkerRule], encoding: str = "utf-8", table_caption: re.Pattern[str] = _TABLE_CAPTION
) -> RawDocument:
    """Turn Markdown source into a `RawDocument`; `path` is relative to the ingested folder, and
    `table_caption` tells a table's caption paragraph."""
    lines, inline_data = _without_inline_data(text.splitlines())
    front_end = _front_matter_end(lines)
    front = set(range(front_end + 1)) if front_end is not None else set()
    blocks: list[RawBlock] = []
    # Blank what the parser must not see but keep the line count, so block ranges stay true lines.
    parse_lines = [("" if index in front else line) for index, line in enumerate(lines)]
    page_starts = _outside_code(_page_starts(lines, markers), parse_lines)
    page_of_line = _pages_of_lines(len(lines), page_starts)
    if front_end is not None:
        segments = _segments_by_page(lines, 0, front_end, page_of_line)
        blocks.append(RawBlock(kind=BlockKind.front_matter, segments=segments, line_start=1, line_end=front_end + 1))
    blanked = set(page_starts) | front
    for index in page_starts:
        parse_lines[index] = ""

    line_breaks = _lines_as_blocks(lines, blanked)
    parse = parse_blocks(parse_lines, line_breaks)
    blocks += [block for top in parse.blocks if (block := _block(top, lines, parse_lines, page_of_line)) is not None]
    return RawDocument(
        path=path,
        format=SourceFormat.markdown,
        blocks=blocks,
        tables=markdown_tables(blocks, lines, table_caption),
        encoding=encoding,
        reading_notes=_reading_notes(line_breaks, parse.html_ends) + _inline_data_notes(inline_data),
    )


def extract_markdown(
    file: Path, path: str, markers: list[PageMarkerRule], table_caption: re.Pattern[str] = _TABLE_CAPTION
) -> RawDocument:
    """Read and extract one Markdown file."""
    return extract_markdown_bytes(read_source(file, path), path, markers, table_caption)


def extract_markdown_bytes(
    data: bytes, path: str, markers: list[PageMarkerRule], table_caption: re.Pattern[str] = _TABLE_CAPTION
) -> RawDocument:
    """Decode and extract one Markdown file's bytes."""
    decoded = decode_markdown(data, path)
    raw = extract_markdown_text(decoded.text, path, markers, decoded.encoding, table_caption)
    return raw if decoded.warning is None else raw.model_copy(update={"reading_notes": [decoded.warning, *raw.reading_notes]})
