"""Exports for a downstream wiki or RAG layer: JSONL and Parquet files (`export_database`), and
the records as LangChain `Document`s and LlamaIndex `TextNode`s; see docs/export.md.

The names below are loaded on first use, from the module that defines them: the command line
imports `pipeline.export.formats` for its options, and must not pay for DuckDB and the index.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pipeline.export.files import ExportSummary, export_database
    from pipeline.export.formats import ExportFormat
    from pipeline.export.loaders import to_langchain_documents, to_llamaindex_nodes
    from pipeline.export.records import ExportRecord, Selection, Unit, read_records

_HOMES = {
    "ExportFormat": "pipeline.export.formats", "ExportSummary": "pipeline.export.files", "export_database": "pipeline.export.files",
    "to_langchain_documents": "pipeline.export.loaders", "to_llamaindex_nodes": "pipeline.export.loaders",
    "ExportRecord": "pipeline.export.records", "Selection": "pipeline.export.records", "Unit": "pipeline.export.records",
    "read_records": "pipeline.export.records",
}

__all__ = [
    "ExportFormat", "ExportRecord", "ExportSummary", "Selection", "Unit", "export_database", "read_records",
    "to_langchain_documents", "to_llamaindex_nodes",
]


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'pipeline.export' has no attribute {name!r}")
