"""Exports for a downstream wiki or RAG layer: JSONL and Parquet files (`export_database`), and
the records as LangChain `Document`s and LlamaIndex `TextNode`s; see docs/export.md."""

from pipeline.export.files import ExportFormat, ExportSummary, export_database
from pipeline.export.loaders import to_langchain_documents, to_llamaindex_nodes
from pipeline.export.records import ExportRecord, Selection, Unit, read_records

__all__ = [
    "ExportFormat", "ExportRecord", "ExportSummary", "Selection", "Unit", "export_database", "read_records",
    "to_langchain_documents", "to_llamaindex_nodes",
]
