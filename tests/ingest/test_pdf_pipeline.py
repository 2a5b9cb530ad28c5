"""PDFs through the whole pipeline: section types, chunk pages and provenance, on papers
rendered from a known source and on the real papers in ../shared/corpus/pdf."""

from __future__ import annotations

import re
from collections import Counter

import pymupdf
import pytest

from conftest import project_script
from pdf_helpers import CORPUS_PDF, ground_truth_paragraphs, page_words, words
from pipeline.index.search import search
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.ingest.scan import doc_id_for
from pipeline.ingest.process import process
from pipeline.index.database import open_readonly

make_pdfs = project_script("corpus/make_pdfs.py")

REAL_PDFS = sorted(CORPUS_PDF.glob("*.pdf")) if CORPUS_PDF.is_dir() else []
needs_corpus = pytest.mark.skipif(not REAL_PDFS, reason=f"the shared corpus is absent: {CORPUS_PDF} does not exist")


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    return make_pdfs.make_pdfs(tmp_path_factory.mktemp("pdfs"))


@pytest.fixture(scope="module")
def chunked_generated(generated, rules):
    return {name: process(path, path.name, doc_id_for(path.name), rules).chunked for name, path in generated.items()}


@pytest.mark.parametrize("variant", ["single_column", "two_column", "running_heads", "bold_headings"])
def test_known_headings_get_their_section_types(chunked_generated, variant):
    sections = chunked_generated[variant].sections
    types = {re.sub(r"^[\d.]+\s+", "", s.heading or ""): s.section_type.value for s in sections}
    assert types["Abstract"] == "meta"
    assert types["Introduction"] == "intro"
    assert types["Methods"] == "methods"
    assert types["Cohort and setting"] == "methods" and types["Measurements"] == "methods"
    assert types["Results"] == "results"
    assert types["Discussion"] == "discussion"
    assert types["References"] == "meta"


@pytest.mark.parametrize("variant", ["single_column", "two_column", "running_heads", "bold_headings"])
def test_the_paragraph_across_a_page_break_is_in_one_chunk_on_both_pages(chunked_generated, variant):
    chunk = next(c for c in chunked_generated[variant].chunks if "The crossing paragraph begins" in c.text)
    assert "The crossing paragraph ends here" in chunk.text
    assert len(chunk.pages) >= 2 and chunk.pages == list(range(chunk.page_start, chunk.page_end + 1))


def test_pdf_chunks_have_pages_and_no_lines(chunked_generated):
    assert chunked_generated
    for chunked in chunked_generated.values():
        assert chunked.chunks and all(c.line_start is None and c.page_start is not None for c in chunked.chunks)
        assert chunked.document.page_count >= 2


def test_the_caption_is_a_figure_caption_chunk_on_its_page(chunked_generated, generated):
    caption = next(c for c in chunked_generated["two_column"].chunks if c.section_type.value == "figure_caption")
    assert caption.text.startswith("Figure 1.")
    with pymupdf.open(generated["two_column"]) as document:
        assert "Figure 1." in document[caption.page_start - 1].get_text()


def test_running_heads_stay_out_of_the_text_and_are_counted(chunked_generated):
    document = chunked_generated["running_heads"].document
    assert make_pdfs.RUNNING_HEAD not in document.text
    assert document.removed_running_lines > 0


def test_ingested_pdf_rows_carry_pages_and_the_chunk_pages_view_lists_them(generated, tmp_path, rules):
    db = tmp_path / "papers.duckdb"
    ingest_folder(next(iter(generated.values())).parent, db, rules, IngestOptions(workers=1))
    connection = open_readonly(db)
    assert connection.execute("SELECT count(*) FROM documents WHERE format = 'pdf' AND page_count >= 2").fetchone()[0] == 4
    assert connection.execute("SELECT count(*) FROM chunks WHERE line_start IS NOT NULL OR page_start IS NULL").fetchone()[0] == 0
    spanning = connection.execute(
        "SELECT count(DISTINCT chunk_id) FROM chunk_pages WHERE chunk_id IN (SELECT chunk_id FROM chunks WHERE page_end > page_start)"
    ).fetchone()[0]
    assert spanning >= 4
    hit = search(connection, "calibrated device")[0]
    assert hit.page_start is not None


# ---------------------------------------------------------------- the real papers


@pytest.fixture(scope="module")
def real(rules):
    return {pdf.name: process(pdf, pdf.name, doc_id_for(pdf.name), rules).chunked for pdf in REAL_PDFS}


def _on_page(token: str, page: Counter) -> bool:
    """On the page as PyMuPDF's plain text has it, allowing for what the pipeline does better:
    a de-hyphenated word is on the page as its two halves (`diag-`/`nosis`), a word set after a
    ligature with no space is inside a longer page token (`staﬀimproved`), and a lone symbol
    from a math font may differ between PyMuPDF's text modes."""
    if token in page or len(token) == 1:
        return True
    if any(page[token[:cut]] and page[token[cut:]] for cut in range(2, len(token) - 1)):
        return True
    return any(token in longer for longer in page if len(longer) > len(token))


@pytest.mark.slow
@needs_corpus
@pytest.mark.parametrize("pdf", REAL_PDFS, ids=lambda pdf: pdf.stem)
def test_real_pdf_is_ingested_without_a_chunk_over_the_hard_max(real, pdf, rules):
    chunked = real[pdf.name]
    assert chunked.chunks
    assert all(0 < c.word_count <= rules.chunk.hard_max_words for c in chunked.chunks)
    assert all(chunked.document.text[c.char_start : c.char_end] == c.text for c in chunked.chunks)


@pytest.mark.slow
@needs_corpus
@pytest.mark.parametrize("pdf", REAL_PDFS, ids=lambda pdf: pdf.stem)
def test_real_pdf_chunk_text_is_on_the_pages_it_claims(real, pdf):
    pages = page_words(pdf)
    assert real[pdf.name].chunks
    for chunk in real[pdf.name].chunks:
        on_pages = Counter()
        for page in chunk.pages:
            on_pages.update(pages[page])
        missing = [token for token in words(chunk.text) if not _on_page(token, on_pages)]
        assert not missing, (chunk.chunk_id, chunk.pages, missing[:10])


@pytest.mark.slow
@needs_corpus
@pytest.mark.parametrize("pdf", REAL_PDFS, ids=lambda pdf: pdf.stem)
def test_nearly_all_page_text_reaches_some_chunk(real, pdf):
    chunked = real[pdf.name]
    in_chunks = Counter()
    for chunk in chunked.chunks:
        in_chunks.update(words(chunk.text))
    on_pages = Counter()
    for counts in page_words(pdf).values():
        on_pages.update(counts)
    reached = sum(min(count, in_chunks[token]) for token, count in on_pages.items())
    # Running heads and page numbers are dropped on purpose; measured >= 92% per file with them.
    assert reached / sum(on_pages.values()) >= 0.90


@pytest.mark.slow
@needs_corpus
def test_evidence_paragraphs_sit_whole_inside_one_chunk_whose_pages_hold_them(real):
    pdf = CORPUS_PDF / "s2orc_N18-3011.pdf"
    chunks = real[pdf.name].chunks

    def unhyphenated(text: str) -> str:
        """Words of 3+ letters with hyphens closed up, as GROBID writes `ques-tions` and `mention–
        mention`; numbers and symbols are left out, since GROBID spaces subscripts (`m 1`)."""
        joined = re.sub(r"(\w)[-–—]\s*(\w)", r"\1\2", text)
        return " " + " ".join(token for token in words(joined) if token.isalpha() and len(token) >= 3) + " "

    streams = [(unhyphenated(c.text), c) for c in chunks]
    with pymupdf.open(pdf) as document:
        pages = {number: Counter(unhyphenated(page.get_text()).split()) for number, page in enumerate(document, start=1)}
    checked = 0
    for paragraph in ground_truth_paragraphs(pdf):
        if re.search(r"\b(?:Table|Figure|Fig\.) \d+:", paragraph):
            continue  # GROBID glued a caption onto this paragraph; captions are chunks of their own here
        tokens = unhyphenated(paragraph).split()
        if len(tokens) < 30:
            continue
        head, tail = " " + " ".join(tokens[1:7]) + " ", " " + " ".join(tokens[-7:-1]) + " "
        holders = [c for stream, c in streams if head in stream]
        if not holders:
            continue  # GROBID's paragraph is not in our text verbatim (footnote, hyphenation)
        checked += 1
        whole = [c for c in holders if tail in unhyphenated(c.text)]  # the opening words may recur
        assert whole, f"paragraph starting {tokens[:6]} is split across chunks"
        chunk = whole[0]
        # The pages where the passage starts and ends (its words may recur elsewhere) are the chunk's.
        for probe in (tokens[1:7], tokens[-7:-1]):
            holding = {page for page, counts in pages.items() if all(counts[token] for token in probe)}
            assert holding & set(chunk.pages), (probe, holding, chunk.pages)
    assert checked >= 30  # 36 of GROBID's 64 paragraphs are long enough and caption-free
