"""The loaders: real LangChain Documents and LlamaIndex TextNodes with the database's ids, texts
and metadata, and the relationships LlamaIndex reads."""

from __future__ import annotations

import shutil
import sys

import pytest

from conftest import PROJECT
from pipeline.errors import PipelineError
from pipeline.export import Selection, Unit, read_records, to_langchain_documents, to_llamaindex_nodes
from pipeline.index.database import open_readonly
from pipeline.ingest import IngestOptions, ingest_folder

Document = pytest.importorskip("langchain_core.documents", reason="the test extra installs langchain-core").Document
schema = pytest.importorskip("llama_index.core.schema", reason="the test extra installs llama-index-core")


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory, rules):
    folder = tmp_path_factory.mktemp("loaders")
    shutil.copytree(PROJECT / "corpus", folder / "papers", ignore=shutil.ignore_patterns("*.py", "*.txt"))
    db = folder / "papers.duckdb"
    ingest_folder(folder / "papers", db, rules, IngestOptions(workers=1))
    return db


def _stored(db, selection=Selection()):
    connection = open_readonly(db)
    try:
        return [(record.id, record.text, record.metadata) for record in read_records(connection, selection)]
    finally:
        connection.close()


def _chunks(db):
    connection = open_readonly(db)
    try:
        return connection.execute(
            "SELECT chunk_id, text, heading_path, char_start, char_end FROM chunks WHERE NOT in_bibliography ORDER BY doc_id, ordinal"
        ).fetchall()
    finally:
        connection.close()


def test_langchain_documents_hold_the_chunks_ids_texts_and_metadata(sample_db):
    documents = to_langchain_documents(sample_db)
    assert all(isinstance(document, Document) for document in documents)
    assert [(d.id, d.page_content, d.metadata["heading_path"], d.metadata["char_start"], d.metadata["char_end"]) for d in documents] == [
        tuple(row) for row in _chunks(sample_db)
    ]
    assert [(d.id, d.page_content, d.metadata) for d in documents] == _stored(sample_db)


def test_langchain_paragraph_documents_name_their_parent_chunk(sample_db):
    documents = to_langchain_documents(sample_db, Selection(unit=Unit.paragraph))
    chunk_ids = {row[0] for row in _chunks(sample_db)}
    assert documents and all(d.metadata["chunk_id"] in chunk_ids for d in documents)


def test_llamaindex_nodes_hold_the_chunks_with_their_offsets(sample_db):
    nodes = to_llamaindex_nodes(sample_db)
    assert all(isinstance(node, schema.TextNode) for node in nodes)
    assert [(n.node_id, n.text, n.metadata["heading_path"], n.start_char_idx, n.end_char_idx) for n in nodes] == [
        tuple(row) for row in _chunks(sample_db)
    ]
    assert [(n.node_id, n.text, n.metadata) for n in nodes] == _stored(sample_db)


def test_llamaindex_nodes_link_previous_and_next_within_a_section_only(sample_db):
    nodes = to_llamaindex_nodes(sample_db)
    by_id = {node.node_id: node for node in nodes}
    linked = [node for node in nodes if schema.NodeRelationship.NEXT in node.relationships]
    assert linked
    for node in linked:
        following = by_id[node.relationships[schema.NodeRelationship.NEXT].node_id]
        assert following.relationships[schema.NodeRelationship.PREVIOUS].node_id == node.node_id
        assert (following.metadata["doc_id"], following.metadata["section_id"]) == (node.metadata["doc_id"], node.metadata["section_id"])
    assert all(node.ref_doc_id == node.metadata["doc_id"] for node in nodes)


def test_llamaindex_paragraph_nodes_have_their_chunk_as_parent(sample_db):
    nodes = to_llamaindex_nodes(sample_db, Selection(unit=Unit.paragraph))
    assert nodes and all(node.parent_node.node_id == node.metadata["chunk_id"] for node in nodes)


def test_llamaindex_embeds_the_text_with_title_and_headings_but_not_the_references(sample_db):
    node = next(node for node in to_llamaindex_nodes(sample_db) if node.metadata["references"])
    embedded = node.get_content(metadata_mode=schema.MetadataMode.EMBED)
    assert node.metadata["heading_path"][0] in embedded and node.metadata["references"][0]["text"] not in embedded


@pytest.mark.parametrize(
    ("loader", "module", "extra"),
    [(to_langchain_documents, "langchain_core.documents", "langchain"), (to_llamaindex_nodes, "llama_index.core.schema", "llamaindex")],
)
def test_without_the_library_a_loader_names_the_extra_to_install(sample_db, monkeypatch, loader, module, extra):
    monkeypatch.setitem(sys.modules, module, None)  # what Python does for a module that cannot be imported
    with pytest.raises(PipelineError) as raised:
        loader(sample_db)
    assert str(raised.value) == f"{module} is not installed; install the {extra} extra from the project folder: pip install -e '.[{extra}]'"
