"""Shared fixtures: the default rules, a one-call Markdown → chunks helper, and the shared corpus."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import duckdb
import pytest

from pipeline.chunk import chunk
from pipeline.link import link
from pipeline.extract.markdown.document import extract_markdown_text
from pipeline.index.database import ensure_schema, open_for_writing, open_readonly
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.records.chunked import ChunkedDocument
from pipeline.normalize.stage import normalize
from pipeline.rules import DEFAULT_RULES_PATH, Rules, load_rules

PROJECT = Path(__file__).resolve().parents[1]
SHARED_CORPUS = PROJECT.parent / "shared" / "corpus"
# The scoring helpers are evaluation code beside the scripts that use them, not the product's.
sys.path.insert(0, str(PROJECT / "scripts"))


def project_script(relative: str) -> ModuleType:
    """A script of the project (`corpus/make_pdfs.py`, `scripts/score_qa.py`) as a module named by
    its file, loaded once: its folder is no package. It is registered in `sys.modules`, where its
    dataclasses look their module up."""
    name = Path(relative).stem
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, PROJECT / relative)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def rules() -> Rules:
    return load_rules()


def edited_rules_file(folder: Path, old: str, new: str) -> Path:
    """A copy of the default rules file in `folder` with the first `old` replaced by `new`."""
    text = DEFAULT_RULES_PATH.read_text()
    assert old in text
    path = folder / "custom.toml"
    path.write_text(text.replace(old, new, 1))
    return path


def chunk_markdown(source: str, rules: Rules, doc_id: str = "paper") -> ChunkedDocument:
    """Run extract → normalize → chunk → link on Markdown source text."""
    raw = extract_markdown_text(source, f"{doc_id}.md", rules.page_markers)
    return link(chunk(normalize(raw, doc_id, rules), rules), rules)


def ingested_papers(folder: Path, papers: dict[str, str], rules: Rules) -> Path:
    """Write `papers` (file name → Markdown) into `folder`/papers, ingest them with one worker,
    and return the database beside that folder."""
    source = folder / "papers"
    source.mkdir()
    for name, text in papers.items():
        (source / name).write_text(text)
    db = folder / "papers.duckdb"
    ingest_folder(source, db, rules, IngestOptions(workers=1))
    return db


def words(count: int, word: str = "word") -> str:
    """`count` words of filler, as sentences of ten words."""
    tokens = [word] * count
    sentences = [" ".join(tokens[index : index + 10]).capitalize() + "." for index in range(0, count, 10)]
    return " ".join(sentences)


def shared_corpus(*parts: str) -> Path:
    """A folder of the shared corpus, or skip the test where it is absent."""
    folder = SHARED_CORPUS.joinpath(*parts)
    if not folder.exists():
        pytest.skip(f"the shared corpus is absent: {folder} does not exist (it sits beside the project as ../shared)")
    return folder


def writable_database(db: Path) -> duckdb.DuckDBPyConnection:
    """A database opened for writing with this pipeline's schema, as an ingest opens its copy."""
    connection = open_for_writing(db)
    ensure_schema(connection)
    return connection


_TABLE_KEYS = {
    "documents": "path",
    "sections": "doc_id, section_id",
    "paragraphs": "doc_id, paragraph_id",
    "chunks": "chunk_id",
    "chunk_postings": "chunk_id, term",
    "extractions": "doc_id",
}


def table_snapshot(db: Path, doc_ids: set[str] | None = None) -> dict[str, list[tuple]]:
    """Every table a paper has rows in, in key order, without the ingest times: two databases
    hold the same papers alike where their snapshots are equal. `doc_ids` keeps those papers alone."""
    connection = open_readonly(db)
    try:
        snapshot = {}
        for table, key in _TABLE_KEYS.items():
            columns = [row[0] for row in connection.execute(f"DESCRIBE {table}").fetchall() if row[0] != "ingested_at"]
            keep = ""
            if doc_ids is not None:
                owner = "split_part(chunk_id, ':', 1)" if table == "chunk_postings" else "doc_id"
                keep = f"WHERE {owner} IN (SELECT unnest($ids))"
            parameters = {"ids": sorted(doc_ids)} if doc_ids is not None else None
            snapshot[table] = connection.execute(f"SELECT {', '.join(columns)} FROM {table} {keep} ORDER BY {key}", parameters).fetchall()
        return snapshot
    finally:
        connection.close()


@pytest.fixture(scope="session")
def layout_pdfs(tmp_path_factory) -> dict[str, tuple[Path, object]]:
    """The layout traps of `corpus/make_layout_pdfs.py`, (path, truth) by name, drawn once for
    the session: drawing them (the scanned page above all) costs more than reading them, and
    tests only read them."""
    return project_script("corpus/make_layout_pdfs.py").make_layout_pdfs(tmp_path_factory.mktemp("layouts"))
