"""A table's grid as cells, and its GitHub-Markdown rendering: what the PDF and Markdown table
readers share.

A grid is a list of rows of equal length; a slot is a cell's text, or None where a cell begun
to its left or above spans over it (as PyMuPDF's `Table.extract()` gives a merged cell).
"""

from __future__ import annotations

from pipeline.records.extract import TableCell

Grid = list[list[str | None]]

_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))
"""Characters that print nothing (a soft hyphen, zero-width spaces): normalize drops them from the
text, so the cells drop them too, and a search for `CIM-Ayu` finds the cell `CIM-\u00adAyu`."""


def cell_text(text: str | None) -> str:
    """A cell's text on one line: its lines joined by spaces, runs of spaces made one."""
    return " ".join((text or "").split())


def grid_cells(grid: Grid, header_rows: int) -> list[TableCell]:
    """The grid's cells, row by row, each once where it starts, with the rows and columns it spans;
    their text as the grid gives it (a reader makes it one line), but for characters that print nothing.

    A covered slot belongs to the cell on its left in the same row where there is one, else to the
    cell above it: a merged header (`Group A` over `n` and `%`) spans columns, a merged first
    column (`Ocimum sanctum` over two rows) spans rows.
    """
    owner: dict[tuple[int, int], tuple[int, int]] = {}
    spans: dict[tuple[int, int], list[int]] = {}
    for row, values in enumerate(grid):
        for col, value in enumerate(values):
            if value is not None:
                owner[row, col] = (row, col)
                spans[row, col] = [1, 1]
                continue
            start = owner.get((row, col - 1)) if col > 0 else None
            if start is not None and start[0] == row:
                spans[start][1] = max(spans[start][1], col - start[1] + 1)
            elif (above := owner.get((row - 1, col))) is not None and above[1] == col:
                spans[above][0] = max(spans[above][0], row - above[0] + 1)
                start = above
            else:
                # A covered slot with no cell to own it (the grid's first slot): an empty cell.
                owner[row, col] = (row, col)
                spans[row, col] = [1, 1]
                continue
            owner[row, col] = start
    return [
        TableCell(
            row=row, col=col, row_span=spans[row, col][0], col_span=spans[row, col][1],
            header=row < header_rows, text=(grid[row][col] or "").translate(_INVISIBLE),
        )
        for row, col in sorted(spans)
    ]


def _escaped(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(cells: list[TableCell], columns: int) -> str:
    """The table as GitHub Markdown: one header row whose every column joins the texts of the
    header cells over it, top to bottom, then each body row with its cells apart. A cell spanning
    body rows or columns is written once, where it starts; a table without header rows gets an
    empty one, which GitHub Markdown requires."""
    header: list[list[str]] = [[] for _ in range(columns)]
    body: dict[int, list[str]] = {}
    for cell in cells:
        if cell.header:
            for col in range(cell.col, min(cell.col + cell.col_span, columns)):
                if cell.text and cell.text not in header[col]:
                    header[col].append(cell.text)
        else:
            body.setdefault(cell.row, [""] * columns)[cell.col] = cell.text
    lines = [
        "| " + " | ".join(_escaped(" ".join(parts)) for parts in header) + " |",
        "|" + "---|" * columns,
    ]
    lines.extend("| " + " | ".join(_escaped(text) for text in body[row]) + " |" for row in sorted(body))
    return "\n".join(lines)


def markdown_rows(markdown: str) -> list[list[str]]:
    """The body rows of a rendering made by `render_markdown`, each as its cells' texts."""
    rows = []
    for line in markdown.splitlines()[2:]:
        cells, current, escaped = [], [], False
        for character in line.strip()[1:-1]:
            if escaped:
                current.append(character)
                escaped = False
            elif character == "\\":
                escaped = True
            elif character == "|":
                cells.append("".join(current).strip())
                current = []
            else:
                current.append(character)
        cells.append("".join(current).strip())
        rows.append(cells)
    return rows
