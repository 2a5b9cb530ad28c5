"""Shared fixtures: the default rules, a one-call Markdown → chunks helper, and the shared corpus."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from pipeline.chunk import chunk
from pipeline.extract.markdown import extract_markdown_text
from pipeline.index.database import ensure_schema, open_for_writing
from pipeline.models import ChunkedDocument
from pipeline.normalize import normalize
from pipeline.rules import DEFAULT_RULES_PATH, Rules, load_rules

PROJECT = Path(__file__).resolve().parents[1]
SHARED_CORPUS = PROJECT.parent / "shared" / "corpus"


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
    """Run extract → normalize → chunk on Markdown source text."""
    raw = extract_markdown_text(source, f"{doc_id}.md", rules.page_markers)
    return chunk(normalize(raw, doc_id, rules), rules)


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
