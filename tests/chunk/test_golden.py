"""Golden chunkings of the sample corpus: the expected chunks of every paper, as JSON.

After an intended change to the rules or the chunker, regenerate them with

    PIPELINE_UPDATE_GOLDEN=1 python -m pytest tests/chunk/test_golden.py

read the diff (`git diff tests/chunk/golden`), and commit it. The tests fail while the flag is set,
so a regenerated run can never pass for a checked one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import PROJECT
from pipeline.ingest.scan import doc_id_for, find_papers
from pipeline.ingest.process import process

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("PIPELINE_UPDATE_GOLDEN") == "1"
PAPERS = [file.relative_to(PROJECT / "corpus").as_posix() for file in find_papers(PROJECT / "corpus")]


def _expected_view(relative: str, rules) -> dict:
    doc_id = doc_id_for(relative)
    chunked = process(PROJECT / "corpus" / relative, relative, doc_id, rules).chunked
    return {
        "sections": [
            {key: section[key] for key in ("section_id", "heading", "section_type", "anchor", "absorbed_into", "decisions")}
            for section in chunked.model_dump(mode="json")["sections"]
        ],
        "chunks": [
            {key: chunk[key] for key in ("chunk_id", "section_id", "section_type", "heading_path", "split", "word_count",
                                         "char_start", "char_end", "line_start", "line_end", "paragraph_ids")}
            for chunk in chunked.model_dump(mode="json")["chunks"]
        ],
    }


@pytest.mark.parametrize("relative", PAPERS)
def test_sample_paper_chunks_as_in_its_golden_file(relative, rules):
    golden = GOLDEN / (relative.replace("/", "__").rsplit(".", 1)[0] + ".json")
    actual = _expected_view(relative, rules)
    if UPDATE:
        golden.write_text(json.dumps(actual, indent=1, ensure_ascii=False) + "\n")
        pytest.fail(f"regenerated {golden.name}; unset PIPELINE_UPDATE_GOLDEN and run again to check it")
    assert golden.exists(), f"no golden file {golden}; generate it with PIPELINE_UPDATE_GOLDEN=1"
    assert actual == json.loads(golden.read_text())
