"""The file formats an export writes, apart from the writing: the command line offers them as
`--format` without loading DuckDB."""

from __future__ import annotations

from enum import Enum


class ExportFormat(str, Enum):
    jsonl = "jsonl"
    parquet = "parquet"
