"""The exported records as the objects of the libraries that feed a RAG layer: LangChain's
`Document` and LlamaIndex's `TextNode`, with the relationships each library reads.

Both libraries are optional extras, imported only when asked for.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.errors import PipelineError
from pipeline.export.records import ExportRecord, Selection, Unit, read_records
from pipeline.index.database import open_readonly

if TYPE_CHECKING:
    from langchain_core.documents import Document
    from llama_index.core.schema import TextNode

# What LlamaIndex puts before a node's text when it embeds it or hands it to a model: by
# default every metadata field, so the references' text and the paragraph ids would be
# embedded with the paper's words. Only these go in.
_EMBEDDED_METADATA = ("title", "heading_path")
_SHOWN_TO_MODEL = ("title", "heading_path", "path", "section_type", "pages", "page_start", "page_end", "line_start", "line_end")


def to_langchain_documents(db: Path | str, selection: Selection = Selection()) -> list[Document]:
    """LangChain `Document`s of the selected records: `id` the record's id, `page_content` its
    text, `metadata` the export's (a paragraph's parent chunk is `metadata["chunk_id"]`)."""
    documents = _module("langchain_core.documents", "langchain")
    return [
        documents.Document(id=record.id, page_content=record.text, metadata=record.metadata)
        for record in _records(db, selection)
    ]


def to_llamaindex_nodes(db: Path | str, selection: Selection = Selection()) -> list[TextNode]:
    """LlamaIndex `TextNode`s of the selected records, with the char offsets into the paper's
    text, the paper as SOURCE, the records before and after within the same section as
    PREVIOUS and NEXT, and for paragraphs the chunk that holds them as PARENT."""
    schema = _module("llama_index.core.schema", "llamaindex")
    records = _records(db, selection)
    neighbours = _section_neighbours(records)
    nodes = []
    for record in records:
        metadata = record.metadata
        relationships = {schema.NodeRelationship.SOURCE: schema.RelatedNodeInfo(node_id=metadata["doc_id"])}
        previous, following = neighbours[record.id]
        if previous:
            relationships[schema.NodeRelationship.PREVIOUS] = schema.RelatedNodeInfo(node_id=previous)
        if following:
            relationships[schema.NodeRelationship.NEXT] = schema.RelatedNodeInfo(node_id=following)
        if selection.unit is Unit.paragraph:
            relationships[schema.NodeRelationship.PARENT] = schema.RelatedNodeInfo(node_id=metadata["chunk_id"])
        nodes.append(
            schema.TextNode(
                id_=record.id, text=record.text, metadata=metadata, relationships=relationships,
                start_char_idx=metadata["char_start"], end_char_idx=metadata["char_end"],
                excluded_embed_metadata_keys=[key for key in metadata if key not in _EMBEDDED_METADATA],
                excluded_llm_metadata_keys=[key for key in metadata if key not in _SHOWN_TO_MODEL],
            )
        )
    return nodes


def _records(db: Path | str, selection: Selection) -> list[ExportRecord]:
    connection = open_readonly(Path(db))
    try:
        return read_records(connection, selection)
    finally:
        connection.close()


def _section_neighbours(records: list[ExportRecord]) -> dict[str, tuple[str | None, str | None]]:
    """Each record's id → the ids of the records just before and after it in the same section
    of the same paper, among those selected (records come in the papers' order)."""
    neighbours: dict[str, tuple[str | None, str | None]] = {}
    previous: ExportRecord | None = None
    for record in records:
        same_section = previous is not None and _section(previous) == _section(record)
        neighbours[record.id] = (previous.id if same_section else None, None)
        if same_section:
            neighbours[previous.id] = (neighbours[previous.id][0], record.id)
        previous = record
    return neighbours


def _section(record: ExportRecord) -> tuple[str, str]:
    return record.metadata["doc_id"], record.metadata["section_id"]


def _module(name: str, extra: str):
    try:
        return importlib.import_module(name)
    except ImportError:
        raise PipelineError(
            f"{name} is not installed; install the {extra} extra from the project folder: pip install -e '.[{extra}]'"
        ) from None
