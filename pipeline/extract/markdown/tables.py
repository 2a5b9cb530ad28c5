"""A Markdown paper's tables as cells: GFM pipe tables and HTML `<table>` elements.

A pipe table's cells are what markdown-it-py's table rule reads (the source of each `th`/`td`,
stripped, escaped pipes kept as written), its header the row above the delimiter row. An HTML
table is read with the standard library's HTML parser: `tr`, `th`/`td` with their `rowspan` and
`colspan`, header rows those of `thead` or made of `th` alone. A table's caption is an HTML
`<caption>`, or the paragraph just before (else just after) it that opens like a table caption
(`[pdf.tables] caption`, emphasis marks aside).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from markdown_it import MarkdownIt

from pipeline.extract.tables import Grid, cell_text, grid_cells, render_markdown
from pipeline.records.base import BlockKind
from pipeline.records.extract import RawBlock, Table, TableParse

_PIPE_TABLES = MarkdownIt("commonmark").enable("table")
_EMPHASIS = re.compile(r"^[*_\s]+")
_HTML_TABLE = re.compile(r"<table\b", re.IGNORECASE)
_HTML_TABLE_END = re.compile(r"</table\s*>", re.IGNORECASE)


def pipe_table_grid(source: str) -> tuple[Grid, int] | None:
    """The grid of the first pipe table in `source` and its header rows (one), as markdown-it reads it."""
    rows: Grid = []
    header_rows = 0
    tokens = _PIPE_TABLES.parse(source)
    inside = False
    for index, token in enumerate(tokens):
        if token.type == "table_open":
            if inside:
                break
            inside = True
        elif token.type == "table_close":
            break
        elif inside and token.type == "tr_open":
            rows.append([])
        elif inside and token.type in ("th_open", "td_open"):
            rows[-1].append(tokens[index + 1].content.strip())
            if token.type == "th_open" and len(rows) == 1:
                header_rows = 1
    if not rows:
        return None
    width = max(len(row) for row in rows)
    return [row + [""] * (width - len(row)) for row in rows], header_rows


class _HtmlTable(HTMLParser):
    """Rows of `(text, rowspan, colspan, is_header)` of the first table, and its caption."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[tuple[str, int, int, bool]]] = []
        self.head_rows = 0
        self.caption: str | None = None
        self._depth = 0
        self._cell: list[str] | None = None
        self._spans = (1, 1, False)
        self._in_head = False
        self._caption: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._depth += 1
        if self._depth != 1:
            return
        values = dict(attrs)
        if tag == "thead":
            self._in_head = True
        elif tag == "tr":
            self.rows.append([])
            if self._in_head:
                self.head_rows += 1
        elif tag in ("td", "th") and self.rows:
            self._cell = []
            self._spans = (_span(values.get("rowspan")), _span(values.get("colspan")), tag == "th")
        elif tag == "caption":
            self._caption = []
        elif tag == "br" and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._depth -= 1
        if self._depth > 1 or (self._depth == 0 and tag != "table"):
            return
        if tag == "thead":
            self._in_head = False
        elif tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append((cell_text("".join(self._cell)), *self._spans))
            self._cell = None
        elif tag == "caption" and self._caption is not None:
            self.caption = cell_text("".join(self._caption)) or None
            self._caption = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        elif self._caption is not None:
            self._caption.append(data)


def _span(value: str | None) -> int:
    return int(value) if value and value.strip().isdigit() and int(value) > 0 else 1


def html_table_grid(source: str) -> tuple[Grid, int, str | None] | None:
    """The grid of the first HTML table in `source`, its header rows and its caption."""
    parser = _HtmlTable()
    parser.feed(source)
    parser.close()
    rows = [row for row in parser.rows if row]
    if not rows:
        return None
    placed: dict[tuple[int, int], str | None] = {}
    for r, row in enumerate(rows):
        c = 0
        for text, rowspan, colspan, _ in row:
            while (r, c) in placed:
                c += 1
            for dr in range(rowspan):
                for dc in range(colspan):
                    placed[r + dr, c + dc] = text if (dr, dc) == (0, 0) else None
            c += colspan
    height = max(r for r, _ in placed) + 1
    width = max(c for _, c in placed) + 1
    grid: Grid = [[placed.get((r, c), "") for c in range(width)] for r in range(height)]
    header_rows = parser.head_rows
    if not header_rows:
        while header_rows < len(rows) - 1 and all(cell[3] for cell in rows[header_rows]):
            header_rows += 1
    return grid, header_rows, parser.caption


def _caption_near(blocks: list[RawBlock], index: int, caption: re.Pattern[str]) -> tuple[str, str] | None:
    for neighbour in (index - 1, index + 1):
        if 0 <= neighbour < len(blocks) and blocks[neighbour].kind is BlockKind.paragraph:
            text = " ".join(blocks[neighbour].text.split())
            if (match := caption.match(_EMPHASIS.sub("", text))) is not None:
                return " ".join(match["label"].split()), text
    return None


def markdown_tables(blocks: list[RawBlock], lines: list[str], caption: re.Pattern[str]) -> list[Table]:
    """Every pipe or HTML table among the blocks, in order; `lines` are the file's source lines."""
    tables: list[Table] = []
    covered = 0
    for index, block in enumerate(blocks):
        if block.line_start is None or block.line_end is None or block.line_start <= covered:
            continue
        line_end = block.line_end
        if block.kind is BlockKind.paragraph and _HTML_TABLE.search(lines[block.line_start - 1]):
            # Each line of an HTML table that opens with a block tag (`<tr>`, `<thead>`) is a
            # block of its own: the table runs on to the line that closes it.
            line_end = next((n + 1 for n in range(block.line_start - 1, len(lines)) if _HTML_TABLE_END.search(lines[n])), line_end)
            covered = line_end
        source = "\n".join(lines[block.line_start - 1 : line_end])
        if block.kind is BlockKind.table:
            parsed = pipe_table_grid(source)
            if parsed is None:
                continue
            grid, header_rows = parsed
            own_caption = None
        elif block.kind is BlockKind.paragraph and _HTML_TABLE.search(lines[block.line_start - 1]):
            parsed_html = html_table_grid(source)
            if parsed_html is None:
                continue
            grid, header_rows, own_caption = parsed_html
        else:
            continue
        # Looked for only beside a table: most blocks are not one.
        label_and_text = _caption_near(blocks, index, caption)
        if own_caption is not None and (match := caption.match(_EMPHASIS.sub("", own_caption))) is not None:
            label_and_text = (" ".join(match["label"].split()), own_caption)
        elif own_caption is not None and label_and_text is None:
            label_and_text = (None, own_caption)
        cells = grid_cells(grid, header_rows)
        tables.append(
            Table(
                table_id=f"T{len(tables) + 1}",
                label=label_and_text[0] if label_and_text else None,
                caption=label_and_text[1] if label_and_text else None,
                parse=TableParse.cells,
                line_start=block.line_start, line_end=line_end,
                header_rows=header_rows, cells=cells, markdown=render_markdown(cells, len(grid[0])),
            )
        )
    return tables
