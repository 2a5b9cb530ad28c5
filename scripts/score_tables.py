"""Print how well PDF tables come out as cells against the publisher's own JATS for the same paper
(../shared/corpus/pdf_jats: every `<table-wrap>` holds its table's cells).

Usage: python scripts/score_tables.py [--corpus PATH] [--rules rules/default.toml]
                                      [--layout rules|model|auto] [--strategy words|lines|text|lines_then_words]
                                      [--rows rules|model] [--explain]

- **Rows**: a JATS body row (a `<tr>` of `<tbody>`, or one without `<th>` where there is no
  `<thead>`) is found when a body row of a stored table's Markdown rendering of the same paper
  holds the same non-empty cells in the same order. Cells are compared after Unicode
  normalization, with spaces, case and the kinds of dash set aside; a cell a span covers is
  empty in both. A bracketed list of reference numbers counts its ranges out (`[43–46]` as
  `[43,44,45,46]`) on both sides: the JATS writes a range as one cross-reference a number, so its
  cell lists every number the PDF prints as a range. Each stored row is found once.
- **Captions**: a JATS table with a label is attached when a stored table carries the same label
  (numbers and letters compared) and a caption that holds the JATS caption's first words.
- **Chunks**: a stored table with a label has its chunk when the chunk stage typed its caption's
  chunk `table` and gave the table that chunk's id (what a `Table 2` cross-reference leads to).

Tables printed as images (a `<graphic>` and no rows in the JATS) count nowhere. `--explain`
lists, per paper, the gold rows missed next to what was stored.
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

sys.path.insert(0, str(Path(__file__).resolve().parent))

from score_pdf_headings import parse_jats  # noqa: E402

from pipeline.ingest.process import process  # noqa: E402
from pipeline.extract.tables import markdown_rows  # noqa: E402
from pipeline.records.extract import Table  # noqa: E402
from pipeline.rules import DEFAULT_RULES_PATH, layout_overrides, load_rules  # noqa: E402
from pipeline.rules.pdf import TableStrategy  # noqa: E402

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
_DASHES = str.maketrans({"−": "-", "–": "-", "—": "-", "‐": "-", "‑": "-", "‒": "-"})
_CITATION_LIST = re.compile(r"\[(\d+(?:[,-]\d+)*)\]")
"""A bracketed list of reference numbers and ranges (`[43-49]`, `[60,185-187]`), dashes already `-`."""
_LONGEST_RANGE = 50
"""Ranges of more numbers than this are left as printed (`[1-1000]` is no list of references)."""
_CAPTION_WORDS = 5
"""Words of the JATS caption a stored caption must hold."""


def cell_key(text: str) -> str:
    """A cell as compared: Unicode compatibility form, dashes as `-`, no spaces, no case, and
    the ranges of a bracketed list of reference numbers counted out."""
    key = "".join(unicodedata.normalize("NFKC", text).translate(_DASHES).casefold().split())
    return _CITATION_LIST.sub(lambda found: f"[{_counted_out(found.group(1))}]", key)


def _counted_out(numbers: str) -> str:
    """`43-46,50` as `43,44,45,46,50`."""
    counted = []
    for part in numbers.split(","):
        first, _, last = part.partition("-")
        if last and 0 < int(last) - int(first) <= _LONGEST_RANGE:
            counted += [str(number) for number in range(int(first), int(last) + 1)]
        else:
            counted.append(part)
    return ",".join(counted)


def row_key(cells: list[str]) -> tuple[str, ...]:
    return tuple(key for text in cells if (key := cell_key(text)))


def label_key(label: str) -> str:
    """`Table 2`, `TABLE 2.`, `Tabela 2 -`: the number and its letters (`2`, `S1`)."""
    found = re.search(r"[A-Z]?\d+[a-z]?", label, re.IGNORECASE)
    return found.group(0).casefold() if found else label.casefold()


def _text(element: ElementTree.Element) -> str:
    return " ".join("".join(element.itertext()).split())


@dataclass
class GoldTable:
    label: str | None
    caption: str
    rows: list[list[str]]


def gold_tables(article: ElementTree.Element) -> list[GoldTable]:
    """Every `<table-wrap>` of the article that holds rows, with its label, caption and body rows."""
    tables = []
    for wrap in article.iter("table-wrap"):
        label = wrap.find("label")
        caption = wrap.find("caption")
        rows = []
        for table in wrap.iter("table"):
            has_head = table.find(".//thead") is not None
            for tr in table.iter("tr"):
                in_body = any(tr in list(body) for body in table.iter("tbody")) if has_head else tr.find("th") is None
                if in_body:
                    rows.append([_text(cell) for cell in tr if cell.tag in ("td", "th")])
        if rows:
            tables.append(GoldTable(_text(label) if label is not None else None, _text(caption) if caption is not None else "", rows))
    return tables


@dataclass
class PaperScore:
    rows: int = 0
    found: int = 0
    labelled: int = 0
    attached: int = 0
    tables: int = 0
    parsed: int = 0
    labelled_ours: int = 0
    chunked: int = 0
    missed: list[tuple[str, ...]] = field(default_factory=list)


def score_paper(ours: list[Table], gold: list[GoldTable]) -> PaperScore:
    score = PaperScore(
        tables=len(ours), parsed=sum(1 for table in ours if table.markdown),
        labelled_ours=sum(1 for table in ours if table.label), chunked=sum(1 for table in ours if table.label and table.chunk_id),
    )
    stored = Counter(row_key(row) for table in ours if table.markdown for row in markdown_rows(table.markdown))
    for table in gold:
        for row in table.rows:
            key = row_key(row)
            if not key:
                continue
            score.rows += 1
            if stored[key] > 0:
                stored[key] -= 1
                score.found += 1
            else:
                score.missed.append(key)
        if table.label:
            score.labelled += 1
            words = cell_key(" ".join(table.caption.split()[:_CAPTION_WORDS]))
            if any(
                t.label and label_key(t.label) == label_key(table.label) and words in cell_key(t.caption or "") for t in ours
            ):
                score.attached += 1
    return score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES_PATH)
    parser.add_argument("--layout", choices=["rules", "model", "auto"], default=None)
    parser.add_argument("--strategy", choices=[strategy.value for strategy in TableStrategy], default=None)
    parser.add_argument("--rows", choices=["rules", "model"], default=None, help="who decides a table line's row ([pdf.tables] rows)")
    parser.add_argument("--explain", action="store_true")
    args = parser.parse_args()
    folder = args.corpus / "pdf_jats"
    if not folder.is_dir():
        sys.exit(f"{folder}: no such folder; pass --corpus with the shared corpus (it holds pdf_jats/)")
    overrides = layout_overrides(args.layout) or {}
    if args.strategy:
        overrides = {**overrides, "pdf": {**overrides.get("pdf", {}), "tables": {"strategy": args.strategy}}}
    if args.rows:
        overrides = {**overrides, "pdf": {**overrides.get("pdf", {}), "tables": {**overrides.get("pdf", {}).get("tables", {}), "rows": args.rows}}}
    rules = load_rules(args.rules, overrides=overrides) if overrides else load_rules(args.rules)
    total = PaperScore()
    print(f"{'paper':45} {'rows':>5} {'found':>5} {'share':>6} {'capt':>5} {'tables':>6} {'chunks':>6}")
    for pdf in sorted(folder.glob("*.pdf")):
        gold = gold_tables(parse_jats(pdf.with_suffix(".xml")))
        raw = process(pdf, pdf.name, pdf.name, rules).chunked
        score = score_paper(raw.tables, gold)
        for name in ("rows", "found", "labelled", "attached", "tables", "parsed", "labelled_ours", "chunked"):
            setattr(total, name, getattr(total, name) + getattr(score, name))
        share = f"{score.found / score.rows:.2f}" if score.rows else "-"
        print(f"{pdf.stem:45} {score.rows:5} {score.found:5} {share:>6} {score.attached:2}/{score.labelled:<2} {score.parsed:2}/{score.tables:<2} {score.chunked:2}/{score.labelled_ours:<2}")
        if args.explain and score.missed:
            for key in score.missed:
                print(f"    missed: {' | '.join(key)}")
            for table in raw.tables:
                print(f"    stored {table.table_id} {table.label!r} {table.parse.value}:")
                for row in markdown_rows(table.markdown) if table.markdown else []:
                    print(f"      {' | '.join(row)}")
    share = total.found / total.rows if total.rows else 0.0
    attached = total.attached / total.labelled if total.labelled else 0.0
    print(
        f"overall: {total.found}/{total.rows} body rows found ({share:.3f}); captions attached "
        f"{total.attached}/{total.labelled} ({attached:.3f}); tables with cells {total.parsed}/{total.tables}; "
        f"labelled tables with their chunk {total.chunked}/{total.labelled_ours}"
    )


if __name__ == "__main__":
    main()
