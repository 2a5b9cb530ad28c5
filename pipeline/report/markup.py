"""HTML building blocks of the report's pages: every value from the database goes through `text`
or `attribute`, and every page is self-contained (inline style, nothing fetched)."""

from __future__ import annotations

import html
from collections.abc import Iterable
from urllib.parse import quote

# The browser enforces what the page promises: no request leaves it (no script, font, style
# sheet or image from anywhere), images only as data: URIs, style only inline.
_CONTENT_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 70rem;
       padding: 1rem 1.5rem 3rem; color: #1d1d1f; line-height: 1.4; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
.lead { color: #555; margin-top: 0; }
.cards { display: flex; flex-wrap: wrap; gap: .8rem; margin: 1rem 0; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: .5rem .9rem; min-width: 7rem; }
.card .value { font-size: 1.5rem; font-weight: 600; display: block; }
.card.alert { border-color: #c0392b; background: #fdf0ee; }
table { border-collapse: collapse; font-size: .85rem; margin: .5rem 0; }
th, td { border-bottom: 1px solid #eee; padding: .2rem .5rem; text-align: left; vertical-align: top; }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
tr.total td { border-top: 2px solid #999; font-weight: 600; }
.warning { border-left: 4px solid #c0392b; background: #fdf0ee; padding: .4rem .8rem; }
.note { color: #555; font-size: .9rem; }
figure { margin: .5rem 0; } figure svg { max-width: 100%; height: auto; }
code, .sid { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .85em; }
.sid, .nowrap { white-space: nowrap; }
ul.tree, ul.tree ul { list-style: none; padding-left: 1.2rem; border-left: 1px dotted #bbb; }
ul.tree { padding-left: .4rem; } .group { font-weight: 600; margin-top: .6rem; }
.labels { color: #666; } .decision { color: #7a4b00; font-size: .85rem; } .decision::before { content: "· "; }
.swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; vertical-align: middle; }
.pages { display: flex; flex-wrap: wrap; gap: .8rem; }
.page { position: relative; display: inline-block; border: 1px solid #ccc; line-height: 0; }
.page img { display: block; } .page svg { position: absolute; left: 0; top: 0; width: 100%; height: 100%; }
.page .number { position: absolute; right: .2rem; bottom: .9rem; font-size: .75rem; background: #fffc; padding: 0 .2rem; line-height: 1.2; }
"""


def text(value: object) -> str:
    """A value as HTML text: `<`, `>`, `&` and quotes escaped."""
    return html.escape(str(value), quote=True)


def attribute(value: object) -> str:
    """A value as a quoted attribute value."""
    return f'"{html.escape(str(value), quote=True)}"'


def href(relative_path: str) -> str:
    """A relative link to a file, its name percent-encoded (a doc_id may hold `%` or `#`)."""
    return attribute(quote(relative_path))


def table(header: Iterable[str], rows: Iterable[Iterable[str]], numeric: frozenset[int] = frozenset()) -> str:
    """A table of cells that are already HTML; columns in `numeric` right-aligned."""
    head = "".join(f'<th{_numeric(index, numeric)}>{cell}</th>' for index, cell in enumerate(header))
    body = "".join(
        "<tr>" + "".join(f"<td{_numeric(index, numeric)}>{cell}</td>" for index, cell in enumerate(row)) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _numeric(index: int, numeric: frozenset[int]) -> str:
    return ' class="number"' if index in numeric else ""


def metric(name: str, value: object) -> str:
    """A number the browser test reads back and compares with the database (`data-metric`)."""
    return f'<span data-metric={attribute(name)}>{text(value)}</span>'


def page(title: str, body: str) -> str:
    """A whole HTML document around `body`."""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{_CONTENT_POLICY}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{text(title)}</title><style>{_STYLE}</style></head>\n<body>\n{body}\n</body></html>\n"
    )
