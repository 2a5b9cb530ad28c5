"""A paper's page of the HTML report: what `pipeline inspect` shows (the heading tree and the
chunker's decisions, from the stored sections), its chunks, and its pages with the chunks' boxes."""

from __future__ import annotations

from collections import defaultdict

import duckdb

from pipeline.chunk.structure import structure_warning
from pipeline.report.inspection import TYPE_TITLES, chunk_note, section_labels, section_where
from pipeline.records.base import DocumentStatus
from pipeline.records.chunks import Chunk, Section
from pipeline.index.database import has_table
from pipeline.report import data
from pipeline.report.data import PaperRow
from pipeline.report.markup import attribute, href, page, table, text
from pipeline.report.plots import type_colour
from pipeline.report.provenance import stored_confidences, stored_page_sources, text_sources
from pipeline.report.thumbnails import Thumbnail, render_thumbnails, stored_source
from pipeline.rules import ChunkRules
from pipeline.wording import counted

_OPENING_CHARACTERS = 90
# Chunks are told apart on a page by colour, in turn; the chunks table shows each one's swatch.
_CHUNK_COLOURS = ("#e15759", "#4e79a7", "#59a14f", "#f28e2b", "#b07aa1", "#76b7b2", "#edc948", "#9c755f")


def chunk_colour(chunk: Chunk) -> str:
    return _CHUNK_COLOURS[(chunk.ordinal - 1) % len(_CHUNK_COLOURS)]


def render_paper_page(
    connection: duckdb.DuckDBPyConnection, paper: PaperRow, sizes: ChunkRules, folder: str | None, back: str
) -> str:
    """The page of one stored paper; `back` is the relative link to the report."""
    sections = data.paper_sections(connection, paper.doc_id)
    chunks = data.paper_chunks(connection, paper.doc_id)
    warning = structure_warning(sections, sizes) if sections else None
    read_by_ocr, confidences = stored_page_sources(connection, paper.doc_id), stored_confidences(connection, paper.doc_id)
    parts = [
        f'<p><a href={href(back)}>← report</a></p>',
        f"<h1>{text(paper.path)}</h1>",
        f'<p class="lead">{text(paper.title or "(no title found)")}</p>',
        f"<p>{_facts(paper, sections, chunks)}</p>",
        f"<p>Text source: {text(text_sources(read_by_ocr, range(1, (paper.page_count or 0) + 1)))}</p>" if read_by_ocr else "",
        f'<p class="warning">{text(warning)}</p>' if warning else "",
        f'<p class="warning">{text(paper.status)}: {text(paper.error)}</p>' if paper.status != "ingested" else "",
        "<h2>Heading tree and decisions</h2>",
        '<p class="note">As <code>pipeline inspect</code> shows them: each section with its type, how it was typed, '
        "its chunks, and what the chunker decided there (absorbed siblings, soft splits, size cuts).</p>",
        _tree(sections, chunks, confidences),
        "<h2>Chunks</h2>",
        _chunk_table(chunks),
        "<h2>Pages</h2>",
        _pages(connection, paper, chunks, folder),
    ]
    return page(f"{paper.path} · pipeline report", "\n".join(part for part in parts if part))


def _facts(paper: PaperRow, sections: list[Section], chunks: list[Chunk]) -> str:
    pages = f", {counted(paper.page_count, 'page')}" if paper.page_count else ""
    layout = f' · layout read by {text(paper.layout)} ({text(paper.layout_reason or "")})' if paper.layout else ""
    return (
        f"<code>{text(paper.doc_id)}</code> · {text(paper.format)}{text(pages)} · "
        f'<span data-metric="sections">{len(sections)}</span> sections, <span data-metric="chunks">{len(chunks)}</span> chunks'
        f"{layout}"
    )


def _tree(sections: list[Section], chunks: list[Chunk], confidences: dict[str, float]) -> str:
    if not sections:
        return '<p class="note">No sections stored.</p>'
    children: dict[str | None, list[Section]] = defaultdict(list)
    for section in sections:
        children[section.parent_id].append(section)
    chunks_by_section: dict[str, list[Chunk]] = defaultdict(list)
    for chunk in chunks:
        chunks_by_section[chunk.section_id].append(chunk)

    def types_within(section: Section) -> list[str]:
        return [section.section_type.value] + [kind for child in children[section.section_id] for kind in types_within(child)]

    def item(section: Section) -> str:
        notes = ", ".join(
            f'<a href="#chunk-{chunk.ordinal}">{text(chunk_note(chunk, confidences.get(chunk.chunk_id)))}</a>' for chunk in chunks_by_section[section.section_id]
        )
        location = section_where(section)
        decisions = "".join(f'<li class="decision">{text(decision)}</li>' for decision in section.decisions)
        kids = "".join(item(child) for child in children[section.section_id])
        return (
            f'<li><span class="sid">{text(section.section_id)}</span> {text(section.heading or "(front matter before the first heading)")} '
            f'<span class="labels">({text(section_labels(section))}; {counted(section.word_count, "word")}{text("; " + location if location else "")})</span>'
            + (f" → {notes}" if notes else "")
            + (f"<ul>{decisions}</ul>" if decisions else "")
            + (f"<ul>{kids}</ul>" if kids else "")
            + "</li>"
        )

    groups = []
    for section in children[None]:
        # Titled by every type its sections carry, as `pipeline inspect` titles its groups.
        titles = [TYPE_TITLES.get(kind, kind) for kind in dict.fromkeys(types_within(section))]
        title = " and ".join(filter(None, [", ".join(titles[:-1]), titles[-1]]))
        groups.append(f'<div class="group">{text(title + " chunk group" if section.level > 1 else "Front matter")}</div>')
        groups.append(f'<ul class="tree">{item(section)}</ul>')
    return "\n".join(groups)


def _chunk_table(chunks: list[Chunk]) -> str:
    if not chunks:
        return '<p class="note">No chunks stored.</p>'
    rows = [
        [
            f'<span class="swatch" style="background:{chunk_colour(chunk)}"></span>',
            f'<span id="chunk-{chunk.ordinal}" class="sid">{text(chunk.chunk_id)}</span>',
            f'<span class="nowrap"><span class="swatch" style="background:{type_colour(chunk.section_type.value)}"></span> '
            f"{text(chunk.section_type.value)}</span>",
            text(chunk.split.value),
            str(chunk.word_count),
            f'<span class="nowrap">{text(_span(chunk))}</span>',
            text(" › ".join(chunk.heading_path) or "(front matter)"),
            text(chunk.text[:_OPENING_CHARACTERS] + ("…" if len(chunk.text) > _OPENING_CHARACTERS else "")),
        ]
        for chunk in chunks
    ]
    return table(["", "chunk", "type", "split", "words", "where", "heading path", "opening"], rows, numeric=frozenset({4}))


def _span(chunk: Chunk) -> str:
    if chunk.pages:
        return f"p. {chunk.pages[0]}" if len(chunk.pages) == 1 else f"pp. {chunk.pages[0]}-{chunk.pages[-1]}"
    if chunk.line_start is not None:
        return f"lines {chunk.line_start}-{chunk.line_end}"
    return ""


def _pages(connection: duckdb.DuckDBPyConnection, paper: PaperRow, chunks: list[Chunk], folder: str | None) -> str:
    if paper.format != "pdf":
        return '<p class="note">A Markdown paper has no pages: its chunks are the source lines in the table above.</p>'
    if paper.status == DocumentStatus.failed:
        # Never opened: what failed to ingest (encrypted, corrupt) fails to render too.
        return '<p class="note">No thumbnails: it failed to ingest (the cause is above).</p>'
    source, why_not = stored_source(folder, paper)
    if source is None:
        return f'<p class="note">No thumbnails: {text(why_not)}.</p>'
    thumbnails = render_thumbnails(source)
    if has_table(connection, "chunk_boxes"):
        boxes = data.chunk_boxes(connection, paper.doc_id)
        note = "Each chunk's boxes in its colour (the chunks table gives it); hover a box for its chunk."
    else:
        boxes = {}
        note = (
            "No chunk boxes: this database has no <code>chunk_boxes</code> table (a pipeline that stores "
            "chunk boxes writes it); the pages are shown without them."
        )
    colours = {chunk.chunk_id: chunk_colour(chunk) for chunk in chunks}
    ordinals = {chunk.chunk_id: chunk.ordinal for chunk in chunks}
    figures = "".join(_thumbnail(thumbnail, boxes.get(thumbnail.page, []), colours, ordinals) for thumbnail in thumbnails)
    return f'<p class="note">{note}</p><div class="pages">{figures}</div>'


def _thumbnail(
    thumbnail: Thumbnail, boxes: list[tuple[str, float, float, float, float]], colours: dict[str, str], ordinals: dict[str, int]
) -> str:
    # The overlay's view box is the page in PDF points, so boxes go in as stored (turned with a
    # rotated page), whatever size the thumbnail is drawn at.
    rectangles = "".join(_box(chunk_id, thumbnail.shown(*corners), colours, ordinals) for chunk_id, *corners in boxes)
    return (
        f'<div class="page"><img src="{thumbnail.data_uri()}" width="{thumbnail.pixel_width}" height="{thumbnail.pixel_height}" '
        f'alt="page {thumbnail.page}">'
        f'<svg viewBox="0 0 {thumbnail.page_width:.1f} {thumbnail.page_height:.1f}" preserveAspectRatio="none" '
        f'data-boxes="{len(boxes)}">{rectangles}</svg>'
        f'<span class="number">p. {thumbnail.page}</span></div>'
    )


def _box(chunk_id: str, corners: tuple[float, float, float, float], colours: dict[str, str], ordinals: dict[str, int]) -> str:
    x0, y0, x1, y1 = corners
    colour = attribute(colours.get(chunk_id, "#888888"))
    return (
        f'<a href="#chunk-{ordinals.get(chunk_id, 0)}"><rect x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" height="{y1 - y0:.1f}" '
        f'fill={colour} fill-opacity="0.25" stroke={colour} stroke-width="1"><title>{text(chunk_id)}</title></rect></a>'
    )
