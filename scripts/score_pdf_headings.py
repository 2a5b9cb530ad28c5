"""Print how well PDF headings come out against the publisher's own JATS for the same paper
(../shared/corpus/pdf_jats: every `<sec><title>` in `<body>`, at any depth).

Usage: python scripts/score_pdf_headings.py [--corpus PATH] [--rules rules/default.toml]
                                            [--layout rules|model|auto] [--explain]

Headings are compared after dropping numbering, case and punctuation, one to one. A heading we
find that names a part of the paper outside `<body>` (the abstract, acknowledgements, the
reference list, appendices, notes) is neither a hit nor a false one: JATS keeps those out of the
body, a PDF prints them as headings. That holds too for the labels of parts JATS keeps outside the
body with no title of their own (`UNTITLED_OUTSIDE_BODY`: a Publisher's note, Author details,
Competing interests as `<fn>` or `<notes>`, keywords as `<kwd-group>`); the summary also gives the
strict precision that counts those as false, the figure this script printed before it knew them.
A paper *collapses* where fewer than half its gold headings
are found. `--explain` lists, per paper, the gold headings missed and the headings found that
are not gold.
"""

from __future__ import annotations

import argparse
import html
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from pipeline.extract import extract
from pipeline.records.base import BlockKind
from pipeline.rules import DEFAULT_RULES_PATH, layout_overrides, load_rules

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
_XML_ENTITIES = {"amp", "lt", "gt", "quot", "apos"}
_NUMBERING = re.compile(r"^\s*(?:(?:\d+|[IVXivx]+|[A-Za-z])(?:\.\d+)*[.)]?\s+)")


_LETTER_SPACED = re.compile(r"(?:\w )+\w")
"""A word set letter by letter (`K E Y W O R D S`), whose first letter is no numbering."""


def key(text: str) -> str:
    """A heading as compared: numbering, case, punctuation and spaces dropped."""
    text = text.strip()
    if _LETTER_SPACED.fullmatch(text):
        text = text.replace(" ", "")
    return re.sub(r"[\W_]+", "", _NUMBERING.sub("", text).casefold())


def parse_jats(file: Path) -> ElementTree.Element:
    """The article, its HTML entities (`&ast;`, `&ndash;`) read as the characters they name."""
    text = file.read_text(encoding="utf-8")
    text = re.sub(r"<!DOCTYPE[^>]*>", "", text, count=1)
    text = re.sub(
        r"&([A-Za-z][A-Za-z0-9]*);",
        lambda m: m.group(0) if m.group(1) in _XML_ENTITIES else html.escape(html.unescape(m.group(0)), quote=False),
        text,
    )
    return ElementTree.fromstring(text)


def _text(element: ElementTree.Element) -> str:
    return " ".join("".join(element.itertext()).split())


# The labels of front- and back-matter parts that JATS keeps outside <body> and, often, without a
# <title> (the text sits in <fn>, <notes>, <kwd-group>, <contrib-group>, <funding-group>): a PDF
# prints them as headings. Listed by what the part is, never by journal; a label that is a body
# section's title in a paper's JATS is a hit there before this list is read.
UNTITLED_OUTSIDE_BODY = frozenset(key(label) for label in (
    "Publisher's note", "Author details", "Authors' details", "Author information", "Authors",
    "Author contributions", "Authors' contributions", "Contributors", "Competing interests",
    "Conflict of interest", "Conflicts of interest", "Declaration of interest", "Declaration of interests",
    "Declaration of competing interest", "Disclosure", "Disclosures", "Funding", "Funding statement",
    "Financial support", "Keywords", "Key words", "Abbreviations", "Data availability",
    "Data availability statement", "Availability of data and materials", "Ethics approval and consent to participate",
    "Ethics statement", "Consent for publication", "Supplementary material", "Supplementary materials",
    "Supplementary information", "Additional information", "Additional file", "Additional files",
    "Open access", "Copyright", "How to cite this article", "Correspondence", "Corresponding author",
    "Address for correspondence", "Author for correspondence", "Peer review", "Provenance and peer review",
    "Patient consent", "Patient consent for publication", "Notes", "Footnotes",
))


def gold_headings(article: ElementTree.Element) -> tuple[list[str], set[str]]:
    """The body's section titles in order, and the keys of titles outside the body (neutral)."""
    body = article.find("body")
    headings = [_text(title) for sec in (body.iter("sec") if body is not None else []) if (title := sec.find("title")) is not None]
    neutral = {"abstract", "references", "acknowledgements", "acknowledgments", "acknowledgement", "acknowledgment"}
    for part in ("front", "back"):
        element = article.find(part)
        if element is not None:
            neutral |= {key(_text(title)) for title in element.iter("title")}
    return [heading for heading in headings if key(heading)], neutral


@dataclass
class PaperScore:
    gold: int = 0
    found: int = 0
    predicted: int = 0
    untitled: int = 0  # headings found that UNTITLED_OUTSIDE_BODY leaves neutral
    missed: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.found / self.gold if self.gold else 1.0


def score_paper(ours: list[str], gold: list[str], neutral: set[str]) -> PaperScore:
    score = PaperScore(gold=len(gold))
    wanted = Counter(key(heading) for heading in gold)
    for heading in ours:
        k = key(heading)
        if not k:
            continue
        if wanted[k] > 0:
            wanted[k] -= 1
            score.found += 1
            score.predicted += 1
        elif k in neutral or any(k.startswith(n) for n in neutral if len(n) >= 8):
            continue
        elif k in UNTITLED_OUTSIDE_BODY:
            score.untitled += 1
        else:
            score.predicted += 1
            score.extra.append(heading)
    remaining = wanted.copy()
    for heading in gold:
        if remaining[key(heading)] > 0 and key(heading) not in {key(h) for h in ours}:
            score.missed.append(heading)
    return score


def our_headings(pdf: Path, rules) -> tuple[list[str], str]:
    """The headings below the title, and which reading made them and why."""
    raw = extract(pdf, pdf.name, rules)
    return [
        " ".join("".join(segment.text for segment in block.segments).split())
        for block in raw.blocks
        if block.kind is BlockKind.heading and (block.level or 0) >= 2
    ], f"{raw.layout} ({raw.layout_reason})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES_PATH)
    parser.add_argument("--layout", choices=["rules", "model", "auto"], help="override [pdf.layout] mode")
    parser.add_argument("--explain", action="store_true")
    arguments = parser.parse_args()
    rules = load_rules(arguments.rules, layout_overrides(arguments.layout))
    folder = arguments.corpus / "pdf_jats"
    total = PaperScore()
    collapsed = 0
    readings: Counter[str] = Counter()
    for pdf in sorted(folder.glob("*.pdf")):
        gold, neutral = gold_headings(parse_jats(pdf.with_suffix(".xml")))
        ours, reading = our_headings(pdf, rules)
        score = score_paper(ours, gold, neutral)
        readings[reading.split()[0]] += 1
        total.gold += score.gold
        total.found += score.found
        total.predicted += score.predicted
        total.untitled += score.untitled
        flag = ""
        if score.gold and score.recall < 0.5:
            collapsed += 1
            flag = "  COLLAPSED"
        precision = score.found / score.predicted if score.predicted else 1.0
        print(f"{pdf.stem:28} gold {score.gold:3}  found {score.found:3}  ours {score.predicted:3}  "
              f"recall {score.recall:.3f}  precision {precision:.3f}{flag}")
        if arguments.explain:
            print(f"    read by {reading}")
        if arguments.explain:
            for heading in score.missed:
                print(f"    missed: {heading[:90]}")
            for heading in score.extra:
                print(f"    extra:  {heading[:90]}")
    precision = total.found / total.predicted if total.predicted else 1.0
    strict = total.found / (total.predicted + total.untitled) if total.predicted + total.untitled else 1.0
    print(f"\nall {total.gold} gold headings: recall {total.recall:.3f}, precision {precision:.3f}, {collapsed} collapsed; "
          f"strict precision {strict:.3f} ({total.untitled} untitled front- and back-matter labels counted false); "
          f"read by {dict(readings)}")


if __name__ == "__main__":
    main()
