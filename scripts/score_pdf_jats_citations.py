"""Print how well a PDF's bibliography and in-text citations come out against the publisher's
own JATS for the same paper (../shared/corpus/pdf_jats, as its README says to score them).

Usage: python scripts/score_pdf_jats_citations.py [--corpus PATH] [--rules rules/default.toml]
                                                  [--explain]

- **Gold entries**: every `<ref>` of the `<ref-list>`s in `<back>` (some nest them), in order,
  with its `<label>`, its first author's surname (the first `<surname>`, else `<string-name>` or
  `<collab>`) and its year (the first `<year>`, else a year in the `<mixed-citation>` text).
- **Gold citations**: every `<xref ref-type="bibr">` in the paragraphs of `<body>`, each of its
  rids counted once; a range (`8–12`: two xrefs with only a dash between them) counts every
  member. Counted as (paper, entry) pairs.
- **Matching our entries to the gold's**, one to one, each gold entry in order: first an entry of
  ours with the same number (where both number their entries: `[12]`, `12.`), else the first of
  ours not yet matched whose opening (its first 80 characters, letters only) holds the gold
  surname and whose text holds the gold year. Neither position alone nor the title is trusted: a
  bibliography cut at the wrong place shifts every position, and titles come out broken.
- **Entries**: recall is the gold entries matched over the gold's, precision the entries of ours
  matched over ours.
- **Citations**: for each gold entry, ours are the citations resolved to the entry of ours
  matched to it; agreement is the lesser of the two counts. Precision is agreement over all our
  resolved citations (those resolved to an unmatched entry count as found, never as agreed);
  recall is agreement over the gold's. A paper whose gold marks no citation at all
  (`epmc_PMC6093152`, which does cite) cannot judge ours: it is left out of the citation totals.
"""

from __future__ import annotations

import argparse
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from score_pdf_headings import parse_jats

from citation_scoring import count_xrefs
from pipeline.ingest.process import process
from pipeline.records.chunked import ChunkedDocument
from pipeline.records.links import Reference
from pipeline.rules import DEFAULT_RULES_PATH, load_rules

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
_YEAR = re.compile(r"\b(?:1[5-9]|20)\d\d\b")
_OPENING = 80
"""Characters of our entry's text searched for the gold first author's surname."""


@dataclass(frozen=True)
class GoldEntry:
    label: str | None
    surname: str | None
    year: str | None


def letters(text: str) -> str:
    """Text as names are compared: accents and everything but letters dropped, in lower case."""
    return "".join(filter(str.isalpha, unicodedata.normalize("NFKD", text))).casefold()


def _text(element: ElementTree.Element | None) -> str:
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


def gold_entries(article: ElementTree.Element) -> tuple[list[GoldEntry], dict[str, int]]:
    """The back matter's entries in order, and each `<ref>` id's index among them."""
    back = article.find("back")
    refs = list(back.iter("ref")) if back is not None else []
    entries, positions = [], {}
    for index, ref in enumerate(refs):
        label = _text(ref.find("label")).strip("[]().") or None
        author = next((element for name in ("surname", "string-name", "collab") if (element := ref.find(f".//{name}")) is not None), None)
        year = _YEAR.search(_text(ref.find(".//year")) or _text(ref))
        entries.append(GoldEntry(label, _text(author) or None, year.group() if year else None))
        if ref.get("id"):
            positions[ref.get("id")] = index
    return entries, positions


def gold_citations(article: ElementTree.Element, positions: dict[str, int]) -> Counter[int]:
    """How often the body's paragraphs cite each gold entry (by index), ranges expanded."""
    gold: Counter[int] = Counter()
    body = article.find("body")
    for paragraph in body.iter("p") if body is not None else ():
        count_xrefs(paragraph, positions, gold)
    return gold


def match_entries(gold: list[GoldEntry], ours: list[Reference]) -> dict[int, int]:
    """Our entry's index → the gold entry's index it is, one to one (see the module's docstring)."""
    by_label: dict[str, int] = {}
    for index, reference in enumerate(ours):
        label = (reference.label or "").strip("[]().")
        if label.isdigit():
            by_label.setdefault(label, index)
    matched: dict[int, int] = {}
    for gold_index, entry in enumerate(gold):
        ours_index = by_label.get(entry.label) if entry.label and entry.label.isdigit() else None
        if ours_index is None or ours_index in matched:
            ours_index = next((index for index, reference in enumerate(ours) if index not in matched and _same_work(entry, reference)), None)
        if ours_index is not None:
            matched[ours_index] = gold_index
    return matched


def _same_work(entry: GoldEntry, reference: Reference) -> bool:
    """Whether our entry opens with the gold first author's surname and holds its year."""
    if not entry.surname or not entry.year:
        return False
    return letters(entry.surname) in letters(reference.text[:_OPENING]) and entry.year in reference.text


@dataclass
class Score:
    gold_entries: int = 0
    our_entries: int = 0
    matched: int = 0
    gold_citations: int = 0
    our_citations: int = 0
    agreed: int = 0
    lines: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        judged = ("gold_citations", "our_citations", "agreed") if other.gold_citations else ()
        for name in ("gold_entries", "our_entries", "matched", *judged):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def ratio(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


def score_paper(pdf: Path, chunked: ChunkedDocument) -> Score:
    article = parse_jats(pdf.with_suffix(".xml"))
    entries, positions = gold_entries(article)
    gold = gold_citations(article, positions)
    matched = match_entries(entries, chunked.references)
    index_of = {reference.ref_id: index for index, reference in enumerate(chunked.references)}
    cited = Counter(index_of[citation.ref_id] for citation in chunked.citations if citation.ref_id in index_of)
    ours: Counter[int] = Counter()
    for our_index, count in cited.items():
        if our_index in matched:
            ours[matched[our_index]] += count
    score = Score(len(entries), len(chunked.references), len(matched), sum(gold.values()), sum(cited.values()))
    score.agreed = sum(min(count, gold[gold_index]) for gold_index, count in ours.items())
    for gold_index in sorted(set(gold) | set(ours)):
        if ours[gold_index] != gold[gold_index]:
            entry = entries[gold_index]
            score.lines.append(f"    entry {gold_index + 1:3} ({entry.surname} {entry.year}): ours {ours[gold_index]}, gold {gold[gold_index]}")
    unmatched = sum(count for our_index, count in cited.items() if our_index not in matched)
    if unmatched:
        score.lines.append(f"    {unmatched} citations resolved to entries of ours that match no gold entry")
    return score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES_PATH)
    parser.add_argument("--explain", action="store_true", help="list, per paper, each entry cited more or less often than the gold says")
    arguments = parser.parse_args()
    rules = load_rules(arguments.rules)
    total = Score()
    for pdf in sorted((arguments.corpus / "pdf_jats").glob("*.pdf")):
        score = score_paper(pdf, process(pdf, pdf.name, pdf.name, rules).chunked)
        total.add(score)
        print(
            f"{pdf.stem:38} entries {score.matched:3}/{score.gold_entries:3} matched (ours {score.our_entries:3})  "
            f"citations {score.agreed:4} agreed, ours {score.our_citations:4}, gold {score.gold_citations:4}  "
            + (f"P {ratio(score.agreed, score.our_citations):.2f} R {ratio(score.agreed, score.gold_citations):.2f}" if score.gold_citations else "(the gold marks none)")
        )
        if arguments.explain and score.lines:
            print("\n".join(score.lines))
    print(
        f"\nentries: recall {ratio(total.matched, total.gold_entries):.3f}, precision {ratio(total.matched, total.our_entries):.3f} "
        f"({total.matched} matched, {total.our_entries} ours, {total.gold_entries} gold)\n"
        f"citations: recall {ratio(total.agreed, total.gold_citations):.3f}, precision {ratio(total.agreed, total.our_citations):.3f} "
        f"({total.agreed} agreed, {total.our_citations} ours, {total.gold_citations} gold)"
    )


if __name__ == "__main__":
    main()
