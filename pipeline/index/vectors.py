"""Vectors as data: a sentence vector per chunk and per paragraph, kept in the `vectors` table for
`search --mode vector|hybrid` (`pipeline.index.vector_search`).

Opt-in per database: `ingest --vectors` records the encoder in `vector_settings`, and every later
run on that database embeds what it changed; a database without that row gets no vector, loads no
encoder and pays one small read a run. `ingest --no-vectors` drops them.

What is embedded is what BM25 reads: a unit's heading path and its text. The vectors are made in
the writer's process once the run's rows are written, for the units of the papers the run wrote,
never for the others: a unit whose text (heading path included) is one a vector of this encoder
was made for, before or elsewhere, takes that vector instead (a rules change that leaves most texts
as they were embeds only those it changed); a change of encoder (its name or version) embeds every
unit again; a removed paper's vectors go with it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from pipeline.index.database import Transaction, open_readonly
from pipeline.index.schema import COLUMNS
from pipeline.index.writer import run_over_json_lines

if TYPE_CHECKING:  # the encoder's module brings numpy, which a run without vectors never needs
    from pipeline.meaning.encoder import EncoderIdentity

EMBED_BATCH = 64
"""Units encoded and written at a time: the encoder groups texts by its own token budget, so a
larger batch gains nothing, and a smaller one keeps the progress and memory even."""

# Each unit's text as the encoder reads it, a row per unit of the papers in `scope` (a temporary
# table of doc_ids): heading path and text, as BM25 counts them.
_UNIT_TEXTS = """
CREATE OR REPLACE TEMP TABLE vector_units AS
SELECT 'chunk' AS unit, c.chunk_id AS unit_id, c.doc_id, array_to_string(c.heading_path, ' / ') || '\n' || c.text AS text
FROM chunks c {chunk_scope}
UNION ALL
SELECT 'paragraph', p.paragraph_key, p.doc_id,
       array_to_string(s.heading_path, ' / ') || '\n' || substr(d.text, p.char_start + 1, p.char_end - p.char_start)
FROM paragraphs p JOIN sections s ON s.doc_id = p.doc_id AND s.section_id = p.section_id JOIN documents d ON d.doc_id = p.doc_id
{paragraph_scope}
"""
_HASHED = "CREATE OR REPLACE TEMP TABLE vector_units AS SELECT *, md5(text) AS text_md5 FROM vector_units WHERE list_contains(?, unit)"
# Vectors this encoder already made for a text some unit to embed now has.
_REUSABLE = """
CREATE OR REPLACE TEMP TABLE vector_reused AS
SELECT u.unit, u.unit_id, u.doc_id, u.text_md5, v.vector
FROM vector_units u
JOIN (SELECT DISTINCT ON (text_md5) text_md5, vector FROM vectors
      WHERE encoder = ? AND encoder_version = ? AND text_md5 IN (SELECT text_md5 FROM vector_units)) v
  ON v.text_md5 = u.text_md5
"""


@dataclass(frozen=True)
class VectorEncoding:
    """The encoder a database's vectors are made with, as `vector_settings` records it."""

    encoder: str
    encoder_version: str
    dimensions: int

    @classmethod
    def of(cls, identity: EncoderIdentity) -> VectorEncoding:
        """The encoding a `pipeline.meaning.encoder.EncoderIdentity` makes."""
        return cls(identity.name, identity.version, identity.dimensions)


@dataclass(frozen=True)
class VectorSync:
    """What a run did to the vectors."""

    encoding: VectorEncoding | None
    """The encoder the database's vectors are made with after the run; None: it keeps none."""
    embedded: int = 0
    """Units the encoder read in this run."""
    reused: int = 0
    """Units of papers the run wrote whose text had a vector already."""
    dropped: bool = False
    """The run dropped every vector (`--no-vectors`)."""


def stored_encoding(connection: duckdb.DuckDBPyConnection) -> VectorEncoding | None:
    """The encoder this database keeps vectors of; None where it keeps none (or its schema
    predates vectors)."""
    try:
        row = connection.execute("SELECT encoder, encoder_version, dimensions FROM vector_settings").fetchone()
    except duckdb.CatalogException:
        return None
    return VectorEncoding(*row) if row else None


def published_encoding(db: Path) -> VectorEncoding | None:
    """`stored_encoding` of the published database at `db`; None where there is none yet."""
    if not db.exists():
        return None
    with open_readonly(db) as connection:
        return stored_encoding(connection)


def vectors_due(db: Path, wanted: bool | None) -> bool:
    """Whether a run on the published database `db` has vectors to write or drop even where it
    changes no paper: turned on or off (`wanted`), or made by another encoder than the installed
    one. Refuses at once a run that would have to embed without the encoder."""
    from pipeline.meaning.encoder import INSTALL_HINT, EncoderMissing

    stored = published_encoding(db)
    if wanted is False:
        return stored is not None
    if stored is None:
        return wanted is True
    installed = installed_encoding()
    if installed is None:
        raise EncoderMissing(
            f"{db} keeps vectors (`ingest --vectors`) and the sentence encoder that makes them is not installed: "
            f"{INSTALL_HINT}; or pass --no-vectors to drop them"
        )
    return stored != installed


def sync_vectors(
    connection: duckdb.DuckDBPyConnection,
    touched_doc_ids: Collection[str],
    wanted: bool | None,
    load_encoder: Callable[[], object],
    units: tuple[str, ...] = ("chunk", "paragraph"),
) -> VectorSync:
    """Bring the vectors in line with the units after a run wrote or removed the papers
    `touched_doc_ids`: `wanted` True turns them on, False drops them, None keeps what the database
    does. `load_encoder` gives a `pipeline.meaning.encoder.SentenceEncoder` (loaded only where
    something is to be embedded). `units` leaves paragraphs out where a benchmark asks for chunks alone."""
    stored = stored_encoding(connection)
    if wanted is False or (wanted is None and stored is None):
        if stored is None:
            return VectorSync(None)
        with Transaction(connection):
            connection.execute("DELETE FROM vectors")
            connection.execute("DELETE FROM vector_settings")
        return VectorSync(None, dropped=True)
    encoder = load_encoder()
    encoding = VectorEncoding.of(encoder.identity)
    every_paper = stored != encoding
    reused, missing = _plan_units(connection, None if every_paper else touched_doc_ids, encoding, units)
    embedded = _embed_missing(connection, encoder, encoding, missing)
    with Transaction(connection):
        connection.execute("DELETE FROM vector_settings")
        connection.execute("INSERT INTO vector_settings VALUES (?, ?, ?)", [encoding.encoder, encoding.encoder_version, encoding.dimensions])
    connection.execute("DROP TABLE IF EXISTS vector_units")
    return VectorSync(encoding, embedded, reused)


def _plan_units(
    connection: duckdb.DuckDBPyConnection, doc_ids: Collection[str] | None, encoding: VectorEncoding, units: tuple[str, ...]
) -> tuple[int, list[tuple[str, str, str, str, str]]]:
    """Replace the vectors of the papers `doc_ids` (None: of every paper) by those reused for
    texts already embedded; return how many were reused and the units still to embed (unit,
    unit_id, doc_id, text_md5, text)."""
    if doc_ids is None:
        chunk_scope = paragraph_scope = ""
    else:
        connection.execute("CREATE OR REPLACE TEMP TABLE vector_scope AS SELECT unnest(?::VARCHAR[]) AS doc_id", [sorted(doc_ids)])
        chunk_scope = "WHERE c.doc_id IN (SELECT doc_id FROM vector_scope)"
        paragraph_scope = "WHERE p.doc_id IN (SELECT doc_id FROM vector_scope)"
    connection.execute(_UNIT_TEXTS.replace("{chunk_scope}", chunk_scope).replace("{paragraph_scope}", paragraph_scope))
    connection.execute(_HASHED, [list(units)])
    connection.execute(_REUSABLE, [encoding.encoder, encoding.encoder_version])
    with Transaction(connection):
        if doc_ids is None:
            connection.execute("DELETE FROM vectors")
        else:
            connection.execute("DELETE FROM vectors WHERE doc_id IN (SELECT doc_id FROM vector_scope)")
        connection.execute(
            "INSERT INTO vectors SELECT unit, unit_id, doc_id, text_md5, ?, ?, vector FROM vector_reused",
            [encoding.encoder, encoding.encoder_version],
        )
    reused = connection.execute("SELECT count(*) FROM vector_reused").fetchone()[0]
    missing = connection.execute(
        "SELECT unit, unit_id, doc_id, text_md5, text FROM vector_units ANTI JOIN vector_reused USING (unit, unit_id) "
        "ORDER BY length(text), unit, unit_id"
    ).fetchall()
    connection.execute("DROP TABLE IF EXISTS vector_reused")
    connection.execute("DROP TABLE IF EXISTS vector_scope")
    return reused, missing


def _embed_missing(connection: duckdb.DuckDBPyConnection, encoder, encoding: VectorEncoding, missing: list[tuple]) -> int:
    """Embed the units in batches and write their vectors, a transaction a batch. They come in
    order of length, so that the encoder's batches hold texts of like length."""
    for start in range(0, len(missing), EMBED_BATCH):
        batch = missing[start : start + EMBED_BATCH]
        vectors = encoder.encode([text for *_, text in batch])
        lines = "".join(
            json.dumps({
                "unit": unit, "unit_id": unit_id, "doc_id": doc_id, "text_md5": text_md5, "encoder": encoding.encoder,
                "encoder_version": encoding.encoder_version, "vector": vector.tolist(),
            }) + "\n"
            for (unit, unit_id, doc_id, text_md5, _), vector in zip(batch, vectors, strict=True)
        ).encode()
        longest = max(len(line) for line in lines.splitlines())
        run_over_json_lines(connection, "INSERT INTO vectors {rows}", "vectors", COLUMNS["vectors"], "*", lines, longest)
    return len(missing)


def installed_encoding() -> VectorEncoding | None:
    """The encoding the installed encoder makes, read off its package without loading it; None
    where the `[semantic]` extra is missing."""
    from pipeline.meaning.encoder import installed_identity

    identity = installed_identity()
    return VectorEncoding.of(identity) if identity is not None else None
