"""Score citation resolution against gold links: the JATS articles' `<xref ref-type="bibr">`
(for their Markdown renderings in `jats_md/`), and for a PDF a GROBID TEI's `<ref type="bibr">`
or a CERMINE NLM's `<xref ref-type="bibr">` (`pdf/groundtruth/`).

As the shared corpus's README says: per paper, how often each entry of the bibliography (by its
position) is cited. A gold numeric range is two xrefs joined by a dash, and every member counts.
Precision is the citations resolved to the entry the gold says, over all the paper's resolved
citations; recall, over all the gold's. The Markdown renderings leave some paragraphs of the
articles out (those directly under `<body>`, outside any `<sec>`): their xrefs are not counted,
since no reader of the Markdown could find them.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.ingest.process import process
from pipeline.records.chunked import ChunkedDocument
from pipeline.rules import Rules

_DASHES = {"-", "–", "—"}
_TEI = "{http://www.tei-c.org/ns/1.0}"


@dataclass
class CitationScore:
    found: int = 0
    """Citations resolved to an entry."""
    gold: int = 0
    agreed: int = 0
    """Citations resolved to the entry the gold says (counted per entry position)."""
    per_paper: dict[str, tuple[float, float, int, int]] = field(default_factory=dict)
    """Paper → (precision, recall, our entries, the gold's entries)."""

    @property
    def precision(self) -> float:
        return self.agreed / self.found if self.found else 0.0

    @property
    def recall(self) -> float:
        return self.agreed / self.gold if self.gold else 0.0

    def add(self, paper: str, ours: Counter[int], gold: Counter[int], entries: tuple[int, int]) -> None:
        agreed = sum(min(count, gold[position]) for position, count in ours.items())
        found, expected = sum(ours.values()), sum(gold.values())
        self.found, self.gold, self.agreed = self.found + found, self.gold + expected, self.agreed + agreed
        # A paper that cites nothing, and where nothing is found, is right on both counts.
        self.per_paper[paper] = (agreed / found if found else float(not expected), agreed / expected if expected else float(not found), *entries)


def cited_positions(chunked: ChunkedDocument) -> Counter[int]:
    """How often the paper's chunks cite each entry, by its 1-based position."""
    ordinal = {reference.ref_id: reference.ordinal for reference in chunked.references}
    return Counter(ordinal[citation.ref_id] for citation in chunked.citations if citation.ref_id)


def jats_gold(article: Path, rendered: str | None = None) -> tuple[Counter[int], int]:
    """How often the article's abstract and body cite each entry of its ref-list (by position), ranges
    expanded, and how many entries the ref-list has; with `rendered` (the Markdown made from
    it), only in the paragraphs that made it into that text."""
    root = ElementTree.parse(article).getroot()
    positions = {ref.get("id"): index for index, ref in enumerate(root.iter("ref"), start=1)}
    shown = "".join(rendered.split()) if rendered is not None else None
    gold: Counter[int] = Counter()
    for part in [*root.iter("abstract"), *root.iter("body")]:
        for paragraph in part.iter("p"):
            if shown is None or _opening(paragraph) in shown:
                count_xrefs(paragraph, positions, gold)
    return gold, len(positions)


def _opening(paragraph: ElementTree.Element) -> str:
    """The first characters of a paragraph's text, spaces left out (a rendering spaces inline
    markup its own way), to find it again in a rendering of the article."""
    return "".join("".join(paragraph.itertext()).split())[:40]


def count_xrefs(element: ElementTree.Element, positions: dict[str, int], gold: Counter[int]) -> None:
    """Add to `gold` every entry (by its position) the element's bibliography xrefs cite, a range of
    two xrefs joined by a dash with every member, paragraphs nested inside it excepted."""
    children = list(element)
    for index, child in enumerate(children):
        if child.tag == "xref" and child.get("ref-type") == "bibr":
            cited = [positions[rid] for rid in (child.get("rid") or "").split() if rid in positions]
            gold.update(cited)
            following = children[index + 1] if index + 1 < len(children) else None
            joined = (child.tail or "").strip() in _DASHES
            if joined and following is not None and following.tag == "xref" and cited:
                later = [positions[rid] for rid in (following.get("rid") or "").split() if rid in positions]
                if later:
                    gold.update(range(cited[-1] + 1, later[0]))  # the members between the two ends
        if child.tag != "p":  # a paragraph inside this one is counted on its own
            count_xrefs(child, positions, gold)


def tei_gold(tei: Path) -> tuple[Counter[int], int]:
    """How often a GROBID TEI's body cites each bibliography entry (by position)."""
    root = ElementTree.parse(tei).getroot()
    entries = [entry.get("{http://www.w3.org/XML/1998/namespace}id") for entry in root.iter(f"{_TEI}biblStruct")]
    entries = [entry for entry in entries if entry]
    positions = {entry: index for index, entry in enumerate(entries, start=1)}
    gold: Counter[int] = Counter()
    for body in root.iter(f"{_TEI}body"):
        for ref in body.iter(f"{_TEI}ref"):
            target = (ref.get("target") or "").lstrip("#")
            if ref.get("type") == "bibr" and target in positions:
                gold[positions[target]] += 1
    return gold, len(positions)


def score_jats_md(corpus: Path, rules: Rules, shape: str = "nested") -> CitationScore:
    """Every jats_md paper of `shape` that has its JATS article, against that article's xrefs."""
    articles = {re.sub(r"\.", "_", path.stem): path for path in (corpus / "jats").rglob("*") if path.suffix in (".xml", ".nxml")}
    score = CitationScore()
    for paper in sorted((corpus / "jats_md" / shape).glob("*.md")):
        article = articles.get(paper.stem)
        if article is None:
            continue
        gold, entries = jats_gold(article, paper.read_text(encoding="utf-8"))
        chunked = process(paper, paper.name, paper.name, rules).chunked
        score.add(paper.stem, cited_positions(chunked), gold, (len(chunked.references), entries))
    return score


PDF_GOLD_SUFFIXES = (".grobid.tei.xml", ".cermine-nlm.xml")
"""The ground truths of `pdf/groundtruth/` that link citations to entries, by how their names end."""


def pdf_golds(corpus: Path) -> list[tuple[Path, Path]]:
    """(PDF, its gold) for every shared PDF with a ground truth that links citations to entries."""
    found = []
    for gold in sorted((corpus / "pdf" / "groundtruth").iterdir()):
        suffix = next((suffix for suffix in PDF_GOLD_SUFFIXES if gold.name.endswith(suffix)), None)
        pdf = corpus / "pdf" / (gold.name[: -len(suffix)] + ".pdf") if suffix else None
        if pdf is not None and pdf.exists():
            found.append((pdf, gold))
    return found


def pdf_gold(gold: Path) -> tuple[Counter[int], int]:
    """How often a PDF's gold cites each entry (by position), and how many entries it has."""
    return tei_gold(gold) if gold.name.endswith(".tei.xml") else jats_gold(gold)


def score_pdfs(corpus: Path, rules: Rules) -> CitationScore:
    """Every shared PDF with a gold that links citations, against it."""
    score = CitationScore()
    for pdf, gold_file in pdf_golds(corpus):
        gold, entries = pdf_gold(gold_file)
        chunked = process(pdf, pdf.name, pdf.name, rules).chunked
        score.add(pdf.stem, cited_positions(chunked), gold, (len(chunked.references), entries))
    return score


def disagreements(chunked: ChunkedDocument, gold: Counter[int]) -> list[tuple[int, int, int, list[str]]]:
    """Where a paper's citations and its gold disagree: (entry position, ours, the gold's, the
    markers we read for it, with the words before each), for reading the losses one by one."""
    ours = cited_positions(chunked)
    ordinal = {reference.ref_id: reference.ordinal for reference in chunked.references}
    text = {chunk.chunk_id: chunk.text for chunk in chunked.chunks}
    markers: dict[int, list[str]] = {}
    for citation in chunked.citations:
        if citation.ref_id:
            before = " ".join(text[citation.chunk_id][max(0, citation.char_start - 40) : citation.char_start].split())
            markers.setdefault(ordinal[citation.ref_id], []).append(f"…{before} ⟨{citation.marker}⟩")
    return [
        (position, ours[position], gold[position], markers.get(position, []))
        for position in sorted(set(ours) | set(gold))
        if ours[position] != gold[position]
    ]
