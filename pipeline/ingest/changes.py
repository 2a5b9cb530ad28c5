"""What a run changed in the exported records, recorded in `run_changes` as the run writes, so
that `pipeline export --since RUN` is a query and not a diff of two exports.

A record is fingerprinted by its text and by its metadata as exported (`pipeline.export.records`)
in the state before the run (the published database) and in the one it built: a paper re-chunked
under new rules into the same chunks changes nothing, while a paragraph edited early in a paper
changes the offsets, and so the metadata, of every record after it. Only papers whose rows
changed are fingerprinted: each paper's `documents.records_digest` covers every row its records
are read from (`pipeline.index.rows.records_digest`), so a rules change that leaves most papers'
rows as they were costs their fingerprints nothing. The records of a paper new to the database are
all added, and are listed by DuckDB as they are written (`record_changes`): a first run has
hundreds of thousands, which as Python objects held the writer's process hundreds of MiB over
DuckDB's memory limit.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection
from dataclasses import dataclass
from enum import Enum

import duckdb

from pipeline.export.records import Selection, Unit, read_records, record_ids, record_ids_statement
from pipeline.index.writer import run_over_json_lines

Fingerprints = dict[tuple[str, str], tuple[str, str]]
"""(unit, record id) → (digest of the text, digest of the metadata)."""


class Change(str, Enum):
    added = "added"
    changed = "changed"
    """Its text or its metadata differs."""
    removed = "removed"


@dataclass(frozen=True)
class RecordChange:
    """One row of `run_changes`, less the run."""

    unit: Unit
    record_id: str
    change: Change
    text_changed: bool
    """False where only its metadata changed: an index keeps its embedding and updates the rest."""

    @property
    def doc_id(self) -> str:
        return _paper_of(self.record_id)


def _paper_of(record_id: str) -> str:
    # Both units' ids are `{doc_id}:{suffix}`, and no suffix holds a colon.
    return record_id.rsplit(":", 1)[0]


_PAPER_OF_RECORD_ID = "left(record_id, length(record_id) - strpos(reverse(record_id), ':'))"
"""`_paper_of` in SQL."""


@dataclass(frozen=True)
class RunChanges:
    """What a run changed in the exported records."""

    records: list[RecordChange]
    """The records of the papers compared in both states, and those of the papers removed."""
    new_papers: tuple[str, ...] = ()
    """Papers the state before the run did not hold: every record of theirs is added. Listed by
    `record_changes` in DuckDB, not here."""


def fingerprints(connection: duckdb.DuckDBPyConnection, doc_ids: Collection[str]) -> Fingerprints:
    """The fingerprints of every record (bibliography included) of these papers."""
    if not doc_ids:
        return {}
    found: Fingerprints = {}
    for unit in Unit:
        for record in read_records(connection, Selection(unit=unit, include_bibliography=True, doc_ids=tuple(sorted(doc_ids)))):
            found[unit.value, record.id] = (_digest(record.text), _digest(record.metadata_json))
    return found


def changes_of_run(
    built: duckdb.DuckDBPyConnection,
    published: duckdb.DuckDBPyConnection | None,
    written: Collection[str],
    stale: Collection[str],
    relinked: Collection[str] = (),
) -> RunChanges:
    """The records added, changed and removed by a run that wrote the papers `written` into
    `built` after removing the rows of the papers `stale` (those it rewrote, under their old ids,
    and those it removed), which `published`, the state before the run, holds (None where there
    was none).

    Only a paper rewritten with another records digest is fingerprinted, in both states. One
    with the same digest has the same records in both, and is left out. A removed paper's
    records and a new paper's are listed, not fingerprinted: each is removed, or added, whatever
    its digests (a first run's fingerprints would build every record's metadata only for nothing
    to compare it with). A paper of `relinked`, whose entries now name other papers of the folder
    (`pipeline.index.paper_links`), is fingerprinted in both states though its rows are as they were.
    A new paper's records are left to `record_changes` to list."""
    stale, written = set(stale), set(written)
    relinked = set(relinked) - written - stale
    old = records_digests(published, stale) if published is not None else {}
    new = records_digests(built, written & old.keys())
    same = {doc_id for doc_id, digest in old.items() if digest is not None and new.get(doc_id) == digest}
    rewritten = ((written & old.keys()) - same) | (relinked if published is not None else set())
    # One after the other: each statement already takes every core DuckDB is given.
    before = {**fingerprints(published, rewritten), **_listed(published, stale - written)} if published is not None else {}
    after = fingerprints(built, rewritten)
    return RunChanges(changes_between(before, after), tuple(sorted(written - old.keys())))


def _listed(connection: duckdb.DuckDBPyConnection, doc_ids: Collection[str]) -> Fingerprints:
    """Every record of these papers by its id alone (`_NOT_COMPARED`): each is added, or removed,
    whatever its digests."""
    return {(unit.value, record_id): _NOT_COMPARED for unit in Unit for record_id in record_ids(connection, unit, doc_ids)}


def records_digests(connection: duckdb.DuckDBPyConnection, doc_ids: Collection[str]) -> dict[str, str | None]:
    """doc_id → `documents.records_digest`, for those of these papers the database holds."""
    statement = "SELECT doc_id, records_digest FROM documents WHERE doc_id IN (SELECT unnest(?::VARCHAR[]))"
    return dict(connection.execute(statement, [sorted(doc_ids)]).fetchall()) if doc_ids else {}


_NOT_COMPARED = ("", "")
"""The digests of a record only one state holds: it is added, or removed, whatever they are."""


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def changes_between(before: Fingerprints, after: Fingerprints) -> list[RecordChange]:
    """The records added, changed and removed from `before` to `after`, in id order."""
    changes = []
    for key in sorted(before.keys() | after.keys()):
        unit, record_id = Unit(key[0]), key[1]
        old, new = before.get(key), after.get(key)
        if old is None:
            changes.append(RecordChange(unit, record_id, Change.added, True))
        elif new is None:
            changes.append(RecordChange(unit, record_id, Change.removed, True))
        elif old != new:
            changes.append(RecordChange(unit, record_id, Change.changed, old[0] != new[0]))
    return changes


_CHANGE_TYPES = {"unit": "VARCHAR", "record_id": "VARCHAR", "doc_id": "VARCHAR", "change": "VARCHAR", "text_changed": "BOOLEAN"}


def record_changes(connection: duckdb.DuckDBPyConnection, run_id: int, changes: RunChanges) -> None:
    """Write a run's changes into `run_changes` in one statement, in record id order: the records
    compared over JSON lines (bound as lists of parameters, DuckDB converts the values one at a
    time), and every record of the new papers read where it is stored."""
    added = " UNION ALL ".join(
        f"SELECT '{unit.value}' AS unit, record_id, {_PAPER_OF_RECORD_ID} AS doc_id, 'added' AS change, true AS text_changed "
        f"FROM ({record_ids_statement(unit)}) AS ids(record_id)"
        for unit in Unit
    )
    new_papers = [list(changes.new_papers)] * len(Unit)
    insert = f"INSERT INTO run_changes SELECT {int(run_id)}, * FROM ({{rows}}) ORDER BY unit, record_id"
    if not changes.records:
        if changes.new_papers:
            connection.execute(insert.replace("{rows}", added), new_papers)
        return
    lines = [
        json.dumps(
            {"unit": change.unit.value, "record_id": change.record_id, "doc_id": change.doc_id,
             "change": change.change.value, "text_changed": change.text_changed},
            ensure_ascii=False,
        ).encode()
        for change in changes.records
    ]
    rows = "{rows} UNION ALL " + added if changes.new_papers else "{rows}"
    run_over_json_lines(
        connection, insert.replace("{rows}", rows), "run_changes", _CHANGE_TYPES, ", ".join(_CHANGE_TYPES),
        b"\n".join(lines) + b"\n", max(map(len, lines)), new_papers if changes.new_papers else [],
    )


def chunk_change_counts(connection: duckdb.DuckDBPyConnection, run_id: int) -> dict[str, int]:
    """How many chunks the run `run_id` added, changed and removed, as `run_changes` records them."""
    counted = dict(
        connection.execute("SELECT change, count(*) FROM run_changes WHERE run_id = ? AND unit = 'chunk' GROUP BY change", [run_id]).fetchall()
    )
    return {change.value: counted.get(change.value, 0) for change in Change}
