"""Scientific papers to heading-aware, provenance-carrying chunks in DuckDB.

The five stages, each a plain function from one record to the next:
`extract(path) -> RawDocument`, `normalize(raw, rules) -> Document`,
`chunk(doc, rules) -> ChunkedDocument` (sections, paragraphs, chunks),
`link(chunked, rules) -> ChunkedDocument` (bibliography, citations, cross-references),
and `index` into DuckDB.
"""

__version__ = "0.8.0"
