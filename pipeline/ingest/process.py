"""The stages on one file: extract → normalize → chunk → link, and the paper's metadata.

The one place the stages are chained: the pool's workers and Ray's (`pipeline.ingest.task`),
`pipeline inspect`, the golden test, the scripts and the benchmarks all call `process`.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.chunk import chunk
from pipeline.extract import extract_source, read_source
from pipeline.link import link
from pipeline.metadata import paper_metadata
from pipeline.normalize.block_index import BlockIndex
from pipeline.normalize.stage import normalize
from pipeline.records.base import Record
from pipeline.records.chunked import ChunkedDocument
from pipeline.records.extract import RawDocument
from pipeline.records.metadata import PaperMetadata
from pipeline.rules import Rules
from pipeline.rules.heading_matcher import HeadingMatcher


class ProcessedPaper(Record):
    """What the stages made of one file."""

    raw: RawDocument
    """What extraction read, or the stored extraction the paper was re-chunked from."""
    chunked: ChunkedDocument
    """The normalized document, its sections, paragraphs and chunks, and what in it points where."""
    metadata: PaperMetadata
    """The paper's row of `papers`: its title, authors, year and the like, each with its source."""


def process(
    file: Path,
    relative_path: str,
    doc_id: str,
    rules: Rules,
    stored: RawDocument | None = None,
    headings: HeadingMatcher | None = None,
    source: bytes | None = None,
) -> ProcessedPaper:
    """Run the stages on `file` (`relative_path` is how the database names it); `stored` is an
    earlier extraction of the same file to re-chunk instead of reading the file again, and
    `source` the file's bytes where the caller has read them (to hash what is parsed).

    `headings` is the caller's `HeadingMatcher` for `rules`, kept across its papers (they repeat
    their section names); one is made for this paper where none is given. The document's block
    index is built once here, for chunk and link alike."""
    headings = headings if headings is not None else HeadingMatcher(rules)
    if stored is None:
        data = source if source is not None else read_source(file, relative_path)
        raw = extract_source(data, file.suffix.lower(), relative_path, rules)
    else:
        raw = stored
    document = normalize(raw, doc_id, rules, headings)
    index = BlockIndex(document)
    chunked = link(chunk(document, rules, index, headings), rules, index)
    return ProcessedPaper(raw=raw, chunked=chunked, metadata=paper_metadata(raw, document, rules.metadata))
