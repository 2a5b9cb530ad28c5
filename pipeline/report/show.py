"""Show where a chunk came from: its PDF pages with its boxes highlighted and its neighbours'
outlined, or its Markdown source lines with the chunk's range marked.

`read_shown_chunk` reads what the database holds of a chunk, `read_source` reads the file it was
read from and refuses one that changed since (its boxes would be drawn on another text), and
`show_chunk` renders it to a PNG (pages stacked under a caption), a self-contained HTML page
(pages inline) or, for Markdown, text.
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import html
import json
import math
import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import duckdb

from pipeline.errors import IndexingError, PipelineError
from pipeline.export.destination import connection_database, write_bytes_out
from pipeline.index.database import readable_schema
from pipeline.records.base import Box, SourceFormat
from pipeline.records.doc_ids import doc_id_for, relative_path_of
from pipeline.report.provenance import PageSource, confidence_note, stored_confidences, stored_page_sources, text_sources

DEFAULT_SHOW_FOLDER = Path("out/show")
SHOW_DPI = 120
"""Pages are rendered at this resolution: body text of 9-10 pt stays readable, and a page is
about a thousand pixels wide."""
SHOW_MAX_PIXELS = 12_000_000
"""The most pixels a chunk's pages take together, whatever their size: a PDF page may be 14,400 pt
a side, 24,000 pixels at `SHOW_DPI`, which MuPDF refuses to allocate. Eight letter pages fit at
`SHOW_DPI` (more than a chunk spans); the stacked picture is about 36 MB while it is drawn."""
MARKDOWN_CONTEXT_LINES = 3
"""Source lines shown before and after a Markdown chunk's own."""
_CAPTION_SIZE = 10.0
"""Points of the caption drawn above a PNG's pages."""
_CAPTION_MIN_WIDTH = 400.0
"""Points: a caption over a narrower page is wider than it, so its lines stay readable."""
_CLOSEST_DOC_IDS = 3
"""Doc_ids an unknown id's error names, those spelt most like it: enough to spot a typo, one line still."""
_CHUNK_FILL = (1.0, 0.78, 0.0)
_CHUNK_FILL_OPACITY = 0.35
_NEIGHBOUR_OUTLINE = (0.1, 0.4, 0.9)
_OUTLINE_WIDTH = 1.0
_UNSAFE_IN_NAMES = re.compile(r"[^\w.-]+")


class ShowFormat(StrEnum):
    png = "png"
    html = "html"
    txt = "txt"


@dataclass(frozen=True)
class ShownChunk:
    """What the database holds of a chunk to show it, and of its neighbours."""

    chunk_id: str
    doc_id: str
    section_id: str
    heading_path: list[str]
    path: str
    """The file, relative to the ingested folder."""
    format: SourceFormat
    sha256: str
    encoding: str | None
    line_start: int | None
    line_end: int | None
    pages: list[int]
    boxes: list[Box]
    neighbours: dict[str, list[Box]]
    """The previous and next chunk of the paper (where there are such), by id, with their boxes."""
    read_by_ocr: list[PageSource]
    """The chunk's pages whose text OCR read, and why; its other pages were read from their text layer."""
    ocr_confidence: float | None
    """The least confidence of the OCR'd lines the chunk's text is on; None where OCR read none of it."""
    folder: str | None
    """The folder the last ingest read, None where no run is recorded. Runs record it absolute; an
    older run's relative folder is resolved against the current directory (see `_ingested_folder`)."""


def default_out(chunk_id: str, source_format: SourceFormat) -> Path:
    """`out/show/<chunk id>.png` (`.html` for Markdown), the id made a file name."""
    suffix = ".png" if source_format is SourceFormat.pdf else ".html"
    return DEFAULT_SHOW_FOLDER / (_UNSAFE_IN_NAMES.sub("_", chunk_id) + suffix)


def read_shown_chunk(connection: duckdb.DuckDBPyConnection, chunk_id: str) -> ShownChunk:
    """The chunk `chunk_id`, its boxes and its neighbours', as the database holds them."""
    if not readable_schema(connection):
        raise IndexingError("the database was written by an older pipeline and holds no chunk boxes; run `pipeline ingest`, which rebuilds it")
    # The id as the file is named (`Berek 2021.md:3`, or with bytes that are not UTF-8) is found
    # too, by the doc_id's spelling of the name (`Berek%202021.md:3`).
    name, colon, number = chunk_id.rpartition(":")
    spelt = f"{doc_id_for(name)}:{number}" if colon else chunk_id
    if not _is_text(chunk_id):
        chunk_id = spelt  # no stored id holds such bytes, and DuckDB takes none
    row = _chunk_row(connection, chunk_id) or _chunk_row(connection, spelt)
    if row is None:
        raise PipelineError(_unknown_chunk(connection, chunk_id))
    chunk_id, doc_id, ordinal, section_id, heading_path, line_start, line_end, pages, path, source_format, sha256, encoding = row
    neighbours = [
        neighbour
        for (neighbour,) in connection.execute(
            "SELECT chunk_id FROM chunks WHERE doc_id = ? AND ordinal IN (?, ?) ORDER BY ordinal", [doc_id, ordinal - 1, ordinal + 1]
        ).fetchall()
    ]
    folder = connection.execute("SELECT folder FROM runs ORDER BY run_id DESC LIMIT 1").fetchone()
    return ShownChunk(
        chunk_id=chunk_id, doc_id=doc_id, section_id=section_id, heading_path=list(heading_path), path=path,
        format=SourceFormat(source_format), sha256=sha256, encoding=encoding, line_start=line_start, line_end=line_end,
        pages=list(pages), boxes=_boxes(connection, chunk_id) + _table_boxes(connection, chunk_id),
        neighbours={n: _boxes(connection, n) for n in neighbours},
        read_by_ocr=[source for source in stored_page_sources(connection, doc_id) if source.page in pages],
        ocr_confidence=stored_confidences(connection, doc_id).get(chunk_id),
        folder=_ingested_folder(folder[0]) if folder else None,
    )


def _ingested_folder(recorded: str) -> str:
    """The folder a run recorded, absolute. Runs record it resolved; runs written before that hold
    the path as typed, relative to the folder `pipeline ingest` ran in, which is not recorded.
    The current directory is taken for it, not the database's folder: the default database is
    `out/papers.duckdb`, below the folder the ingest ran in, so its folder is the wrong base in the
    usual case; where the guess is wrong, the error names the folder tried and `--folder` overrides it."""
    return str(Path(recorded).resolve())


def _chunk_row(connection: duckdb.DuckDBPyConnection, chunk_id: str) -> tuple | None:
    return connection.execute(
        """SELECT c.chunk_id, c.doc_id, c.ordinal, c.section_id, c.heading_path, c.line_start, c.line_end, c.pages,
                  d.path, d.format, d.sha256, d.encoding
           FROM chunks c JOIN documents d USING (doc_id) WHERE c.chunk_id = ?""",
        [chunk_id],
    ).fetchone()


def _is_text(text: str) -> bool:
    """Whether `text` is Unicode text, not the bytes of a file name that are not UTF-8 (held as surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _unknown_chunk(connection: duckdb.DuckDBPyConnection, chunk_id: str) -> str:
    """Why there is no chunk `chunk_id`, and the ids there are instead."""
    doc_id = chunk_id.rpartition(":")[0] or chunk_id
    first_last = connection.execute(
        "SELECT min(ordinal), max(ordinal) FROM chunks WHERE doc_id = ? HAVING count(*) > 0", [doc_id]
    ).fetchone()
    if first_last is not None:
        return f"no chunk {chunk_id!r} in the database: {doc_id}'s chunks are {doc_id}:{first_last[0]} to {doc_id}:{first_last[1]}"
    stored = [stored_id for (stored_id,) in connection.execute("SELECT DISTINCT doc_id FROM chunks ORDER BY doc_id").fetchall()]
    if not stored:
        return f"no chunk {chunk_id!r}: the database holds no chunks; run `pipeline ingest FOLDER` first"
    closest = difflib.get_close_matches(doc_id, stored, n=_CLOSEST_DOC_IDS) or stored[:_CLOSEST_DOC_IDS]
    nearby = f"the closest doc_id{'s' if len(closest) > 1 else ''}: {', '.join(closest)}"
    return (
        f"no paper {doc_id!r} in the database ({nearby}); a chunk id is <doc_id>:<number>, as `pipeline search` prints it, "
        f"e.g. {closest[0]}:1; list a paper's with `pipeline sql \"SELECT chunk_id FROM chunks WHERE doc_id = '{closest[0]}'\"`"
    )


def _boxes(connection: duckdb.DuckDBPyConnection, chunk_id: str) -> list[Box]:
    rows = connection.execute("SELECT page, x0, y0, x1, y1 FROM chunk_boxes WHERE chunk_id = ? ORDER BY ALL", [chunk_id]).fetchall()
    return [Box(page=page, x0=x0, y0=y0, x1=x1, y1=y1) for page, x0, y0, x1, y1 in rows]


def _table_boxes(connection: duckdb.DuckDBPyConnection, chunk_id: str) -> list[Box]:
    """Where a table chunk's table is printed (its grid, under or over the caption the chunk's own
    boxes hold), so that showing the table's chunk shows the table."""
    rows = connection.execute("SELECT boxes FROM paper_tables WHERE chunk_id = ?", [chunk_id]).fetchall()
    return [Box(**box) for (boxes,) in rows for box in json.loads(boxes)]


def read_source(shown: ShownChunk, folder: Path | None = None) -> tuple[Path, bytes]:
    """The file the chunk was read from, below `folder` (default: the folder the last ingest
    read), and its bytes; refused where it is missing or is no longer the file ingested."""
    where = folder if folder is not None else Path(shown.folder) if shown.folder else None
    if where is None:
        raise PipelineError(f"{shown.path}: the database records no ingested folder; pass --folder with where the papers are")
    # The path as stored is for reading (a name's bytes that are not UTF-8 written as `\xNN`); the doc_id is the name itself.
    file = where / relative_path_of(shown.doc_id)
    try:
        content = file.read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        raise PipelineError(f"{shown.path}: not found in {where}; pass --folder with the folder the papers are in now") from None
    except OSError as error:
        raise PipelineError(f"{_shown(file)}: cannot read it: {error.strerror}; check its permissions") from None
    if hashlib.sha256(content).hexdigest() != shown.sha256:
        stale = "the stored boxes" if shown.format is SourceFormat.pdf else "its stored line numbers"
        raise PipelineError(
            f"{_shown(file)}: changed since it was ingested (its sha256 is not the one stored), so {stale} may not fit it; "
            f"run `pipeline ingest {where}` again, then show the chunk"
        )
    return file, content


def _shown(file: Path) -> str:
    """A path as text that prints: bytes of its name that are not UTF-8 as `\\xNN`."""
    return str(file).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def show_chunk(connection: duckdb.DuckDBPyConnection, chunk_id: str, out: Path | None = None, folder: Path | None = None) -> Path:
    """Write a picture of where the chunk came from to `out` (`.png`, `.html`, or `.txt` for
    Markdown; default `default_out`) and return the path written."""
    shown = read_shown_chunk(connection, chunk_id)
    out = out if out is not None else default_out(shown.chunk_id, shown.format)
    shown_as = _format_of(out, shown)
    _, source = read_source(shown, folder)
    if shown.format is SourceFormat.pdf:
        if not shown.boxes:
            raise PipelineError(f"{shown.chunk_id}: the database holds no boxes for this PDF chunk, so there is nothing to highlight")
        pages = _render_pages(source, shown)
        content: bytes = _stacked_png(pages, _caption_lines(shown)) if shown_as is ShowFormat.png else _pages_html(pages, shown).encode()
    else:
        lines = source.decode(shown.encoding or "utf-8", errors="replace").splitlines()
        content = (_marked_lines_html(lines, shown) if shown_as is ShowFormat.html else _marked_lines_text(lines, shown)).encode()
    write_bytes_out(out, content, connection_database(connection))
    return out


def _format_of(out: Path, shown: ShownChunk) -> ShowFormat:
    suffix = out.suffix.lower().lstrip(".")
    allowed = [ShowFormat.png, ShowFormat.html] if shown.format is SourceFormat.pdf else [ShowFormat.html, ShowFormat.txt]
    if suffix not in allowed:
        kind = "a PDF chunk" if shown.format is SourceFormat.pdf else "a Markdown chunk (it has no pages to draw)"
        raise PipelineError(f"--out {out}: {kind} is shown as {' or '.join('.' + f.value for f in allowed)}; pass such a file name")
    return ShowFormat(suffix)


def _caption_lines(shown: ShownChunk) -> list[str]:
    """Where the chunk is, its heading path, and what the picture marks."""
    if shown.format is SourceFormat.pdf:
        where = f"page{'s' if len(shown.pages) > 1 else ''} {', '.join(map(str, shown.pages))}"
        legend = f"filled: this chunk; outlined: the chunks before and after it ({', '.join(shown.neighbours) or 'none'})"
    else:
        where = f"lines {shown.line_start}-{shown.line_end}"
        legend = "marked: this chunk's source lines"
    # A chunk OCR read says so, and how sure the recognizer was: its words on the scan are guesses.
    read = [f"text: {text_sources(shown.read_by_ocr, shown.pages)}"] if shown.read_by_ocr else []
    read += [confidence_note(shown.ocr_confidence)] if shown.ocr_confidence is not None else []
    return [
        f"{shown.chunk_id}   section {shown.section_id}   {shown.path}, {where}",
        " › ".join(shown.heading_path) or "(front matter)",
        *(["   ".join(read)] if read else []),
        legend,
    ]


# ---------------------------------------------------------------- PDF


def zoom_within(sizes: list[tuple[float, float]], dpi: float, max_pixels: int) -> float:
    """Pixels per point at which pages of `sizes` (width, height in points), stacked one under
    the other, take at most `max_pixels`: `dpi` / 72 where they fit at `dpi`, less where not."""
    width, height, count = max(w for w, _ in sizes), sum(h for _, h in sizes), len(sizes)
    # A side of p points rounds up to at most p * zoom + 1 pixels, so the pages take at most
    # (width * zoom + 1) * (height * zoom + count) pixels: the zoom is where that is max_pixels.
    a, b, c = width * height, width * count + height, count - max_pixels
    return min(dpi / 72, (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a))


def _render_pages(pdf: bytes, shown: ShownChunk) -> list[tuple[int, bytes]]:
    """Each page the chunk has boxes on, as PNG bytes at `SHOW_DPI` (less where the pages would
    take more than `SHOW_MAX_PIXELS`), its boxes filled and its neighbours' outlined; the file is
    changed in memory only."""
    import pymupdf  # here: search and sql load this module's caller, and need no PyMuPDF

    pages = sorted({box.page for box in shown.boxes})
    rendered = []
    # Opened from the bytes whose hash was checked: the file may change meanwhile, and PyMuPDF
    # cannot open a path whose name is not UTF-8.
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        zoom = zoom_within([(doc[number - 1].rect.width, doc[number - 1].rect.height) for number in pages], SHOW_DPI, SHOW_MAX_PIXELS)
        for number in pages:
            page = doc[number - 1]
            shape = page.new_shape()
            # Drawing takes the page's coordinates as stored, which are the boxes' own.
            for boxes in shown.neighbours.values():
                for box in boxes:
                    if box.page == number:
                        shape.draw_rect(pymupdf.Rect(box.x0, box.y0, box.x1, box.y1))
            shape.finish(color=_NEIGHBOUR_OUTLINE, width=_OUTLINE_WIDTH, dashes="[3 2] 0")
            for box in shown.boxes:
                if box.page == number:
                    shape.draw_rect(pymupdf.Rect(box.x0, box.y0, box.x1, box.y1))
            shape.finish(color=_CHUNK_FILL, fill=_CHUNK_FILL, fill_opacity=_CHUNK_FILL_OPACITY, width=_OUTLINE_WIDTH)
            shape.commit()
            rendered.append((number, page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom)).tobytes("png")))
    return rendered


def _stacked_png(pages: list[tuple[int, bytes]], caption: list[str]) -> bytes:
    """The caption, then the pages one under the other, as one PNG."""
    import pymupdf

    pixmaps = [pymupdf.Pixmap(png) for _, png in pages]
    pixmaps.insert(0, _caption_pixmap(caption, max(pixmap.width for pixmap in pixmaps) / (SHOW_DPI / 72)))
    size = pymupdf.IRect(0, 0, max(pixmap.width for pixmap in pixmaps), sum(pixmap.height for pixmap in pixmaps))
    stacked = pymupdf.Pixmap(pymupdf.csRGB, size, False)
    stacked.clear_with(255)
    top = 0
    for pixmap in pixmaps:
        if pixmap.alpha:
            pixmap = pymupdf.Pixmap(pixmap, 0)
        pixmap.set_origin(0, top)
        stacked.copy(pixmap, pixmap.irect)
        top += pixmap.height
    return stacked.tobytes("png")


def _caption_pixmap(caption: list[str], width: float):
    """The caption's lines drawn on a white strip `width` points wide (`_CAPTION_MIN_WIDTH` at least) at `SHOW_DPI`."""
    import pymupdf

    page_width = max(width, _CAPTION_MIN_WIDTH)
    margin = _CAPTION_SIZE
    height = margin * 2 + 1.5 * _CAPTION_SIZE * len(caption)
    while True:  # a long heading path wraps: the strip grows until the text fits
        with pymupdf.open() as doc:
            page = doc.new_page(width=page_width, height=height)
            left = page.insert_textbox(
                pymupdf.Rect(margin, margin, page_width - margin, height - margin / 2), "\n".join(caption), fontsize=_CAPTION_SIZE, fontname="helv"
            )
            if left >= 0:
                return page.get_pixmap(dpi=SHOW_DPI)
        height += 1.5 * _CAPTION_SIZE


def _pages_html(pages: list[tuple[int, bytes]], shown: ShownChunk) -> str:
    images = "\n".join(
        f'<img alt="page {number} of {html.escape(shown.path)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'
        for number, png in pages
    )
    return _html_page(shown, images)


def _html_page(shown: ShownChunk, body: str) -> str:
    *where, legend = _caption_lines(shown)
    caption = "<br>".join(html.escape(line) for line in where)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(shown.chunk_id)}</title>\n<style>"
        "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}figcaption{margin-bottom:1em}"
        "img{display:block;max-width:100%;border:1px solid #ccc;margin-bottom:1em}"
        "pre{line-height:1.35}mark{background:#ffe08a;display:inline-block;width:100%}"
        "</style></head>\n<body><figure>\n"
        f"<figcaption><strong>{caption}</strong><br><small>{html.escape(legend)}</small></figcaption>\n{body}\n</figure></body></html>\n"
    )


# ---------------------------------------------------------------- Markdown


def _shown_line_range(lines: list[str], shown: ShownChunk) -> range:
    first = max(1, (shown.line_start or 1) - MARKDOWN_CONTEXT_LINES)
    last = min(len(lines), (shown.line_end or len(lines)) + MARKDOWN_CONTEXT_LINES)
    return range(first, last + 1)


def _in_chunk(number: int, shown: ShownChunk) -> bool:
    return shown.line_start is not None and shown.line_end is not None and shown.line_start <= number <= shown.line_end


def _marked_lines_text(lines: list[str], shown: ShownChunk) -> str:
    """The chunk's source lines, with a few around them, those of the chunk marked `>`."""
    width = len(str(len(lines)))
    header = [*_caption_lines(shown), ""]
    body = [
        f"{'>' if _in_chunk(number, shown) else ' '} {number:>{width}} | {lines[number - 1]}".rstrip()
        for number in _shown_line_range(lines, shown)
    ]
    return "\n".join(header + body) + "\n"


def _marked_lines_html(lines: list[str], shown: ShownChunk) -> str:
    width = len(str(len(lines)))
    rows = []
    for number in _shown_line_range(lines, shown):
        row = f"{number:>{width}}  {html.escape(lines[number - 1])}"
        rows.append(f"<mark>{row}</mark>" if _in_chunk(number, shown) else row)
    return _html_page(shown, "<pre>" + "\n".join(rows) + "</pre>")
