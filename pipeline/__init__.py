"""Scientific papers to heading-aware, provenance-carrying chunks in DuckDB.

The five stages, each a plain function from one record to the next (the records in
`pipeline.records`, one module a stage):

1. `extract(file, path, rules) -> RawDocument` (`pipeline.extract`: `markdown/`, `pdf/`);
2. `normalize(raw, doc_id, rules) -> Document` (`pipeline.normalize`);
3. `chunk(document, rules) -> ChunkedDocument`: sections, paragraphs, chunks (`pipeline.chunk`);
4. `link(chunked, rules) -> ChunkedDocument`: the bibliography, citations and cross-references
   (`pipeline.link`; where the entries are, and what an entry reads as, is `pipeline.bibliography`,
   which chunk and link both use);
5. index: a paper's rows (`pipeline.index.rows.paper_rows`) loaded by the run's one writer
   (`pipeline.index.writer`), and searched (`pipeline.index.search`).

`pipeline.ingest.process.process` runs stages 1 to 4 (and the paper's metadata) on one file;
`pipeline.ingest` runs them over a folder and writes the database. The ways out are `export`,
`report`, `audit` and `cli`.
"""

from pathlib import Path

__version__ = "0.13.0"

DEFAULT_RULES_PATH = Path(__file__).resolve().parents[1] / "rules" / "default.toml"
"""The rules every command reads unless given `--rules` (`pipeline.rules.load_rules`'s default):
named here, where the command line's options can offer it without loading the rules' models."""
