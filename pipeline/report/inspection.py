"""The `pipeline inspect` view: the heading tree and why the chunks came out as they did."""

from __future__ import annotations

from collections import defaultdict

from pipeline.index.ocr_rows import chunk_confidences
from pipeline.records.base import ChunkSplit, TypeSource
from pipeline.records.chunked import ChunkedDocument
from pipeline.records.chunks import Chunk, Section
from pipeline.report.provenance import PageSource, confidence_note, text_sources
from pipeline.wording import counted

TYPE_TITLES = {
    "intro": "Introduction", "methods": "Methods", "results": "Results", "discussion": "Discussion",
    "conclusion": "Conclusion", "meta": "Meta", "other": "Other",
}


def section_labels(section: Section) -> str:
    """A section's type and how it got it: `methods, strict anchor: methods`, `results, absorbed`."""
    parts = [section.section_type.value]
    if section.anchor:
        parts.append(f"strict anchor: {section.anchor}")
    if section.absorbed_into:
        parts.append("absorbed")
    elif section.type_source is TypeSource.classified:
        parts.append("classified, not an anchor")
    elif section.type_source is TypeSource.inherited:
        parts.append("inherited")
    return ", ".join(parts)


def section_where(section: Section) -> str:
    """Where a section starts: its page or pages (PDF), or its first line (Markdown)."""
    if section.page_start is not None:
        return f"p. {section.page_start}" if section.page_start == section.page_end else f"pp. {section.page_start}-{section.page_end}"
    if section.line_start is not None:
        return f"line {section.line_start}"
    return ""


def chunk_note(chunk: Chunk, ocr_confidence: float | None = None) -> str:
    """A chunk as the tree names it: its ordinal, why it starts there and its words, and where
    OCR read its text, the least confidence of its lines (`ocr_confidence`)."""
    read = f"; {confidence_note(ocr_confidence)}" if ocr_confidence is not None else ""
    return f"chunk {chunk.ordinal} ({chunk.split}, {counted(chunk.word_count, 'word')}{read})"


def render_tree(chunked: ChunkedDocument, paper_title: str | None = None) -> str:
    """The paper's sections grouped as the chunker grouped them, with its decisions; `paper_title`
    is the title its metadata reads (`papers.title`, and so `documents.title`), where it has one."""
    return "\n".join(_TreeView(chunked, paper_title).lines())


class _TreeView:
    """The lines of `render_tree`: a header on the document, a group per top-level section with
    its sub-sections as a tree, then the captions."""

    def __init__(self, chunked: ChunkedDocument, paper_title: str | None = None) -> None:
        self.chunked = chunked
        self.paper_title = paper_title
        self.chunks_by_section: dict[str, list[Chunk]] = defaultdict(list)
        for chunk in chunked.chunks:
            self.chunks_by_section[chunk.section_id].append(chunk)
        self.children: dict[str | None, list[Section]] = defaultdict(list)
        for section in chunked.sections:
            self.children[section.parent_id].append(section)
        self.evidence = {block.char_start: block.heading_evidence for block in chunked.document.blocks if block.heading_evidence}
        self.confidences = {chunk_id: read.min_confidence for chunk_id, read in chunk_confidences(chunked).items()}

    def lines(self) -> list[str]:
        lines = self._header()
        for section in self.children[None]:
            lines.extend(self._group(section))
        return lines + self._captions()

    def _header(self) -> list[str]:
        document = self.chunked.document
        where = f", {counted(document.page_count, 'page')}" if document.page_count else ""
        lines = [
            f"{document.path}: {counted(len(self.chunked.sections), 'section')}, {counted(len(self.chunked.chunks), 'chunk')}{where}",
            f"title: {self.paper_title or document.title or '(none found)'}",
        ]
        # The database names the paper by its metadata's title; the heading path keeps the title
        # heading, which can be a journal's name printed larger: both are shown where they differ.
        if self.paper_title and document.title and " ".join(document.title.split()) != " ".join(self.paper_title.split()):
            lines.append(f"title heading: {document.title} (the chunks' heading path; the title above is the metadata's)")
        if document.layout:
            lines.append(f"layout read by: {document.layout} ({document.layout_reason})")
        if document.ocr_pages:
            read = [PageSource(page.page, page.reason) for page in document.ocr_pages]
            lines.append(f"text source: {text_sources(read, range(1, (document.page_count or 0) + 1))}")
        if document.removed_running_lines:
            lines.append(f"page furniture removed: {document.removed_running_lines} running heads/page numbers")
        if self.chunked.references or self.chunked.citations:
            unresolved = sum(1 for citation in self.chunked.citations if citation.ref_id is None)
            lines.append(
                f"bibliography: {counted(len(self.chunked.references), 'entry', 'entries')}; citations: {len(self.chunked.citations)}, "
                f"{unresolved} unresolved (--links lists them)"
            )
        lines.extend(f"read: {note}" for note in document.reading_notes)
        if self.chunked.structure_warning:
            lines.append(f"warning: {self.chunked.structure_warning}")
        return lines + [""]

    def _describe(self, section: Section) -> str:
        heading = section.heading or "(front matter before the first heading)"
        notes = [chunk_note(chunk, self.confidences.get(chunk.chunk_id)) for chunk in self.chunks_by_section.get(section.section_id, [])]
        location = section_where(section)
        return (
            f"{section.section_id:7} {heading}  ({section_labels(section)}; {counted(section.word_count, 'word')}"
            f"{'; ' + location if location else ''})" + (f"  → {', '.join(notes)}" if notes else "")
        )

    def _group(self, section: Section) -> list[str]:
        # Titled by every type its sections carry: the sub-sections of a long meta section are
        # typed on their own (`inherit.meta_max_words`), and a "Meta" title above them misled.
        titles = [TYPE_TITLES.get(kind, kind) for kind in dict.fromkeys(self._types_within(section))]
        group = " and ".join(filter(None, [", ".join(titles[:-1]), titles[-1]]))
        corner = "┌─" if self.children.get(section.section_id) else "└─"
        lines = [f"{group} chunk group" if section.level > 1 else "Front matter", f"{corner} {self._describe(section)}"]
        lines.extend(f"│     · {decision}" for decision in self._decisions(section))
        return lines + self._subtree(section, "")

    def _subtree(self, section: Section, prefix: str) -> list[str]:
        lines = []
        kids = self.children.get(section.section_id, [])
        for index, child in enumerate(kids):
            last = index == len(kids) - 1
            lines.append(f"{prefix}{'└─ ' if last else '├─ '}{self._describe(child)}")
            lines.extend(f"{prefix}{'   ' if last else '│  '}   · {decision}" for decision in self._decisions(child))
            lines.extend(self._subtree(child, prefix + ("   " if last else "│  ")))
        return lines

    def _decisions(self, section: Section) -> list[str]:
        """The chunker's decisions, after what made the extractor take the heading for one."""
        evidence = self.evidence.get(section.char_start)
        return ([f"heading by: {', '.join(evidence)}"] if evidence else []) + section.decisions

    def _types_within(self, section: Section) -> list[str]:
        kids = self.children.get(section.section_id, [])
        return [section.section_type.value] + [kind for child in kids for kind in self._types_within(child)]

    def _captions(self) -> list[str]:
        lines = []
        for split, title in (
            (ChunkSplit.caption, "Captions (figure_caption and table chunks, kept out of the body text)"),
            (ChunkSplit.aside, "Asides (margin notes, side boxes: meta chunks kept out of the body text)"),
        ):
            chunks = [chunk for chunk in self.chunked.chunks if chunk.split is split]
            lines.extend([title] if chunks else [])
            lines.extend(f"└─ chunk {chunk.ordinal} in {chunk.section_id}{_page(chunk)}: {_opening(chunk.text)}" for chunk in chunks)
        return lines


def _page(chunk: Chunk) -> str:
    return f", p. {chunk.page_start}" if chunk.page_start is not None else ""


def _opening(text: str) -> str:
    return text[:70] + ("…" if len(text) > 70 else "")


def render_links(chunked: ChunkedDocument) -> str:
    """Each chunk's citations of the paper's bibliography and its cross-references, resolved or not."""
    references = {reference.ref_id: reference for reference in chunked.references}
    citations: dict[str, list] = defaultdict(list)
    for citation in chunked.citations:
        citations[citation.chunk_id].append(citation)
    links: dict[str, list] = defaultdict(list)
    for link in chunked.links:
        links[link.chunk_id].append(link)
    unresolved = sum(1 for citation in chunked.citations if citation.ref_id is None)
    lines = [
        f"{chunked.document.path}: {counted(len(chunked.references), 'bibliography entry', 'bibliography entries')}, {counted(len(chunked.citations), 'citation')} "
        f"({unresolved} unresolved), {counted(len(chunked.links), 'cross-reference')} ({sum(1 for link in chunked.links if not link.target_chunk_id)} leading nowhere)",
    ]
    for chunk in chunked.chunks:
        if not citations[chunk.chunk_id] and not links[chunk.chunk_id]:
            continue
        lines.append(f"{chunk.chunk_id}  {' › '.join(chunk.heading_path) or '(front matter)'}")
        for citation in citations[chunk.chunk_id]:
            if citation.ref_id:
                entry = references[citation.ref_id].text
                lines.append(f"   cites {citation.marker} → {citation.ref_id}: {entry[:70]}{'…' if len(entry) > 70 else ''}")
            else:
                lines.append(f"   cites {citation.marker} → unresolved ({citation.resolution.value}): {citation.detail}")
        for link in links[chunk.chunk_id]:
            target = link.target_chunk_id or f"nowhere: {link.reason}"
            lines.append(f"   links {link.label!r} ({link.kind.value}) → {target}")
    return "\n".join(lines)
