"""Export files: JSONL (a header line, then a record a line) and Parquet (a record a row, the
header as the file's key-value metadata), written through `write_out`: a file is replaced whole,
a device, a pipe or `-` written through.

Parquet is written by DuckDB's own `COPY … (FORMAT parquet)`, from the records staged as JSONL,
on an in-memory connection of its own: the database itself is only ever opened to be read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import duckdb

from pipeline import __version__
from pipeline.errors import PipelineError
from pipeline.export.destination import remove_staged, write_out
from pipeline.export.formats import ExportFormat
from pipeline.export.records import ExportRecord, Selection, bibliography_left_out, metadata_only_ids, metadata_type, read_records, removed_ids
from pipeline.index.database import open_readonly, readable_schema
from pipeline.index.unit import Unit
from pipeline.wording import counted

EXPORT_SCHEMA = "paper-pipeline.export"
EXPORT_VERSION = 1
"""Raised whenever a record's or the header's fields change meaning or go."""


@dataclass(frozen=True)
class ExportSummary:
    """What an export wrote."""

    path: str
    records: int
    removed: int
    """Ids of records removed since `--since`'s run, listed in the header."""
    run_id: int
    """The database's last run: what the next `--since` takes."""
    bibliography_left_out: int = 0
    """Records of the papers' bibliographies left out, as search leaves them out (`--all` keeps them)."""

    def line(self) -> str:
        removed = f", {counted(self.removed, 'removed id')}" if self.removed else ""
        left_out = f"; {counted(self.bibliography_left_out, 'bibliography record')} left out: --all exports them too" if self.bibliography_left_out else ""
        return f"{counted(self.records, 'record')}{removed} → {self.path} (run {self.run_id}: pass --since {self.run_id} next time){left_out}"


def export_database(db: Path, out: Path, export_format: ExportFormat, selection: Selection) -> ExportSummary:
    """Write the selected records of the database at `db` to `out`."""
    connection = open_readonly(db)
    try:
        header = export_header(connection, selection)
        records = read_records(connection, selection)
        if selection.vectors:
            header["vectors"], records = with_vectors(connection, selection.unit, records)
        left_out = bibliography_left_out(connection, selection)
        if selection.since_run_id is not None:
            unchanged_texts = metadata_only_ids(connection, selection.unit, selection.since_run_id)
            header["metadata_only_ids"] = [record.id for record in records if record.id in unchanged_texts]
        struct = metadata_type(connection, selection) if export_format is ExportFormat.parquet else ""
    finally:
        connection.close()
    header["records"] = len(records)
    if export_format is ExportFormat.jsonl:
        write_out(out, lambda staged: _write_jsonl(staged, header, records), db)
    else:
        write_out(out, lambda staged: _write_parquet(staged, header, records, struct, out), db)
    return ExportSummary(str(out), len(records), len(header["removed_ids"]), header["run_id"], left_out)


def export_header(connection: duckdb.DuckDBPyConnection, selection: Selection) -> dict:
    """What an export says of itself: the pipeline and rules that made the records, the run they
    are as of, what was selected, and the ids removed since `selection.since_run_id`."""
    if not readable_schema(connection):
        raise PipelineError("the database was written by an older pipeline; run `pipeline ingest`, which rebuilds it, then export")
    last = connection.execute("SELECT run_id, pipeline_version, rules_sha256 FROM runs ORDER BY run_id DESC LIMIT 1").fetchone()
    if last is None:
        raise PipelineError("the database records no ingest run; run `pipeline ingest` first, then export")
    run_id, pipeline_version, rules_sha256 = last
    if selection.since_run_id is not None:
        _check_since(connection, selection.since_run_id, run_id)
    return {
        "schema": EXPORT_SCHEMA, "version": EXPORT_VERSION, "unit": selection.unit.value,
        "pipeline_version": pipeline_version, "exported_by": __version__, "rules_sha256": rules_sha256, "run_id": run_id,
        "since_run_id": selection.since_run_id, "section_types": list(selection.section_types),
        "include_bibliography": selection.bibliography_included, "window": selection.window, "records": None,
        "removed_ids": removed_ids(connection, selection.unit, selection.since_run_id) if selection.since_run_id is not None else [],
        "metadata_only_ids": [],
    }


def with_vectors(connection: duckdb.DuckDBPyConnection, unit: Unit, records: list[ExportRecord]) -> tuple[dict, list[ExportRecord]]:
    """The encoder the database's vectors are made with, and the records each with its vector."""
    from pipeline.index.vectors import stored_encoding

    encoding = stored_encoding(connection)
    if encoding is None:
        raise PipelineError(
            "--vectors: the database keeps no vectors; run `pipeline ingest FOLDER --db DB --vectors` once "
            "(it needs pip install -e '.[semantic]'), or export without --vectors"
        )
    vectors = dict(connection.execute("SELECT unit_id, vector FROM vectors WHERE unit = ?", [unit.value]).fetchall())
    return encoding.__dict__, [replace(record, vector=vectors.get(record.id)) for record in records]


def _check_since(connection: duckdb.DuckDBPyConnection, since: int, last: int) -> None:
    first = connection.execute("SELECT min(run_id) FROM runs").fetchone()[0]
    known = connection.execute("SELECT count(*) FROM runs WHERE run_id = ?", [since]).fetchone()[0]
    if not known:
        raise PipelineError(
            f"--since {since}: the database holds runs {first} to {last} only (it was rebuilt, or the run is "
            "yet to come); export without --since and rebuild your index from that"
        )


def _write_jsonl(staged: Path, header: dict, records: list[ExportRecord]) -> None:
    with open(staged, "w", encoding="utf-8") as file:
        file.write(json.dumps(header, ensure_ascii=False) + "\n")
        for record in records:
            file.write(record.as_json() + "\n")


def _write_parquet(staged: Path, header: dict, records: list[ExportRecord], struct: str, out: Path) -> None:
    lines = staged.with_name(staged.name + ".jsonl")
    try:
        with open(lines, "w", encoding="utf-8") as file:
            for record in records:
                file.write(record.as_json() + "\n")
        longest = max((len(record.text) + len(record.metadata_json) + 20 * len(record.vector or ()) for record in records), default=0)
        # Every value a string: Parquet's key-value metadata holds nothing else.
        pairs = ", ".join(
            f'"{key}": {_literal(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))}'
            for key, value in header.items()
        )
        vector = f", vector: 'FLOAT[{header['vectors']['dimensions']}]'" if "vectors" in header else ""
        columns = f"{{id: 'VARCHAR', text: 'VARCHAR', metadata: {_literal(struct)}{vector}}}"
        converter = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
        try:
            converter.execute(
                f"COPY (SELECT * FROM read_json({_literal(str(lines))}, format = 'newline_delimited', columns = {columns}, "
                f"maximum_object_size = {max(16 * 2**20, 8 * longest)})) "
                f"TO {_literal(str(staged))} (FORMAT parquet, KV_METADATA {{{pairs}}})"
            )
        except duckdb.Error as error:
            raise PipelineError(f"cannot write the Parquet file {out}: {error}") from None
        finally:
            converter.close()
    finally:
        remove_staged(lines)


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"
