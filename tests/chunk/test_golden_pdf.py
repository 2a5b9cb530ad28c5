"""Golden chunkings of the PDFs rendered from the sample corpus's scripts: `corpus/make_pdfs.py`
(one synthetic paper in four layouts) and `corpus/make_layout_pdfs.py` (one PDF a layout trap),
with the view of `test_golden.py` plus each chunk's pages.

After an intended change to the PDF reader, the rules or the chunker, regenerate them with

    PIPELINE_UPDATE_GOLDEN=1 python -m pytest tests/chunk/test_golden_pdf.py

read the diff (`git diff tests/chunk/golden/pdf`), and commit it. The tests fail while the flag is
set, so a regenerated run can never pass for a checked one.

The PDFs are drawn by PyMuPDF with the fonts it carries inside itself, not the machine's, so one
version of PyMuPDF draws the same PDF everywhere; another version may set a line a point apart.
The goldens name the version that drew them, and another version skips them, saying so.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pymupdf
import pytest

from conftest import project_script
from pipeline.ingest.scan import doc_id_for
from pipeline.ingest.process import process

GOLDEN = Path(__file__).parent / "golden" / "pdf"
MADE_WITH = GOLDEN / "made_with.json"
UPDATE = os.environ.get("PIPELINE_UPDATE_GOLDEN") == "1"

make_pdfs = project_script("corpus/make_pdfs.py")
make_layout_pdfs = project_script("corpus/make_layout_pdfs.py")
SAMPLE_PDFS = [*make_pdfs._VARIANTS, *(build.__name__ for build in make_layout_pdfs.FIXTURES)]

SECTION_KEYS = ("section_id", "heading", "section_type", "anchor", "absorbed_into", "decisions")
CHUNK_KEYS = ("chunk_id", "section_id", "section_type", "heading_path", "split", "word_count",
              "char_start", "char_end", "line_start", "line_end", "paragraph_ids", "page_start", "page_end")


def _drawn_by_this_pymupdf() -> bool:
    """True where no goldens exist yet: then each test fails, saying how to make them."""
    return UPDATE or not MADE_WITH.exists() or json.loads(MADE_WITH.read_text())["pymupdf"] == pymupdf.VersionBind


pytestmark = pytest.mark.skipif(
    not _drawn_by_this_pymupdf(),
    reason=f"the PDF goldens were drawn by another PyMuPDF than {pymupdf.VersionBind} (see {MADE_WITH.name})",
)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory, layout_pdfs) -> dict[str, Path]:
    made = make_pdfs.make_pdfs(tmp_path_factory.mktemp("sample_pdfs"))
    return made | {name: path for name, (path, _) in layout_pdfs.items()}


def _view(path: Path, rules) -> dict:
    relative = path.name
    chunked = process(path, relative, doc_id_for(relative), rules).chunked.model_dump(mode="json")
    return {
        "sections": [{key: section[key] for key in SECTION_KEYS} for section in chunked["sections"]],
        "chunks": [{key: chunk[key] for key in CHUNK_KEYS} for chunk in chunked["chunks"]],
    }


def test_every_rendered_pdf_has_a_golden_file_and_every_golden_file_a_pdf(rendered):
    assert sorted(rendered) == sorted(SAMPLE_PDFS)
    goldens = sorted(path.stem for path in GOLDEN.glob("*.json") if path != MADE_WITH)
    assert UPDATE or goldens == sorted(SAMPLE_PDFS)


@pytest.mark.parametrize("name", SAMPLE_PDFS)
def test_sample_pdf_chunks_as_in_its_golden_file(rendered, name, rules):
    golden = GOLDEN / f"{name}.json"
    actual = _view(rendered[name], rules)
    if UPDATE:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        MADE_WITH.write_text(json.dumps({"pymupdf": pymupdf.VersionBind}) + "\n")
        golden.write_text(json.dumps(actual, indent=1, ensure_ascii=False) + "\n")
        pytest.fail(f"regenerated {golden.name}; unset PIPELINE_UPDATE_GOLDEN and run again to check it")
    assert golden.exists(), f"no golden file {golden}; generate it with PIPELINE_UPDATE_GOLDEN=1"
    assert actual["chunks"], name
    assert actual == json.loads(golden.read_text())
