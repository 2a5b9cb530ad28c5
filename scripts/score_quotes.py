"""Whether a sentence a reader quotes from a PDF sits whole in one chunk: the pdf_jats pairs, each
sentence of the publisher's JATS body taken as a quote.

Usage: python scripts/score_quotes.py [--corpus PATH] [--layout rules|model|auto] [--half even|check|all] [--explain N]

A downstream reader cites a chunk and checks the quote against it; a quote split over two chunks,
or whose words the extraction changed, fails that check. The quotes are the sentences of eight
words or more of the JATS `<body>` paragraphs (a list's items each a paragraph of their own;
tables, figures, formulas and footnotes left out,
and sentences that hold an inline formula too: JATS writes it as TeX or MathML, not as the PDF
prints it, so no reader's quote of it is comparable word for word),
compared as runs of words: case, punctuation, accents' forms and spacing set aside, so that what
is counted is whether the same words come in the same order. Each sentence is:

- whole in one chunk: its words are a run of one chunk's words;
- in the paper but split: a run of the words of the chunks in text order, but of no one chunk;
- not found: not a run of the paper's words at all (the extraction changed, dropped or reordered
  a word, or the PDF prints the sentence differently from its JATS).

It prints each paper's counts and the totals; `--explain N` prints up to N sentences of each
class that failed, of the even half only (the check half is scored, never read).
"""

from __future__ import annotations

import argparse
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

from score_pdf_headings import parse_jats
from score_pdf_jats_halves import is_check_half

from pipeline.ingest.process import process
from pipeline.rules import layout_overrides, load_rules

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
MIN_WORDS = 8
"""A quote a reader would cite: shorter sentences are mostly labels and fragments."""
_LEFT_OUT = {"table-wrap", "fig", "disp-formula", "fn", "table", "caption", "supplementary-material", "ref-list"}
_BLOCKS = {"p", "list", "def-list", "disp-quote", "boxed-text", "statement"}
"""Blocks a paragraph may hold: a list's items end no sentence with a full stop (`18 or older` /
`Willing to consent`), and read into their paragraph's text they ran on into one another."""
_FORMULA = "\x00"
"""Stands for an inline formula in a paragraph's text: a sentence holding one is no quote."""
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])")
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """The text's words, compared case and form aside (NFKC, casefolded), punctuation dropped."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def _paragraph_text(element: ElementTree.Element) -> str:
    """A paragraph's text without the tables, figures and formulas set inside it, nor the lists and
    paragraphs nested in it (each its own paragraph: `_paragraphs`); what is left out parts the
    words on either side of it, as a block set between them does on the page."""
    parts = [element.text or ""]
    for child in element:
        if child.tag == "inline-formula":
            parts.append(_FORMULA)
        elif child.tag in _LEFT_OUT or child.tag in _BLOCKS:
            parts.append(" ")
        else:
            parts.append(_paragraph_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def quotes(article: ElementTree.Element) -> list[str]:
    """The body's sentences of `MIN_WORDS` words or more."""
    body = article.find(".//body")
    if body is None:
        return []
    found = []
    for paragraph in _paragraphs(body):
        text = " ".join(_paragraph_text(paragraph).split())
        found += [
            sentence for sentence in _SENTENCE_END.split(text) if _FORMULA not in sentence and len(words(sentence)) >= MIN_WORDS
        ]
    return found


def _paragraphs(element: ElementTree.Element):
    """The paragraphs under `element` in document order, those nested in a paragraph (a list's
    items) after it, each on its own."""
    for child in element:
        if child.tag in _LEFT_OUT:
            continue
        if child.tag == "p":
            yield child
        yield from _paragraphs(child)


def _contains(haystack: str, needle: str) -> bool:
    return f" {needle} " in haystack


@dataclass
class Count:
    whole: int = 0
    split: int = 0
    missing: int = 0

    @property
    def total(self) -> int:
        return self.whole + self.split + self.missing

    def add(self, other: Count) -> None:
        self.whole, self.split, self.missing = self.whole + other.whole, self.split + other.split, self.missing + other.missing

    def share(self) -> str:
        return f"{self.whole / self.total:.3f}" if self.total else "nan"


def score_paper(pdf: Path, rules, explain: int) -> Count:
    chunks = process(pdf, pdf.name, pdf.name, rules).chunked.chunks
    chunk_words = [f" {' '.join(words(chunk.text))} " for chunk in chunks]
    paper_words = f" {' '.join(' '.join(words(chunk.text)) for chunk in chunks)} "
    count = Count()
    failed: dict[str, list[str]] = {"split": [], "missing": []}
    for sentence in quotes(parse_jats(pdf.with_suffix(".xml"))):
        needle = " ".join(words(sentence))
        if any(_contains(haystack, needle) for haystack in chunk_words):
            count.whole += 1
        elif _contains(paper_words, needle):
            count.split += 1
            failed["split"].append(sentence)
        else:
            count.missing += 1
            failed["missing"].append(sentence)
    print(f"{pdf.stem:40} {count.whole:4} whole, {count.split:3} split, {count.missing:3} not found of {count.total:4}  {count.share()}")
    if explain and not is_check_half(pdf.stem):
        for kind, sentences in failed.items():
            for sentence in sentences[:explain]:
                print(f"    {kind}: {sentence[:200]}")
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--layout", choices=("rules", "model", "auto"), default=None)
    parser.add_argument("--half", choices=("even", "check", "all"), default="all")
    parser.add_argument("--explain", type=int, default=0, help="print up to N failed sentences of each class per even-half paper")
    arguments = parser.parse_args()
    rules = load_rules(overrides=layout_overrides(arguments.layout)) if arguments.layout else load_rules()
    halves = {"even": Count(), "check": Count()}
    for pdf in sorted((arguments.corpus / "pdf_jats").glob("*.pdf")):
        half = "check" if is_check_half(pdf.stem) else "even"
        if arguments.half in (half, "all"):
            halves[half].add(score_paper(pdf, rules, arguments.explain))
    for half, count in halves.items():
        if count.total:
            print(
                f"\n{half} half: {count.share()} of {count.total} sentences whole in one chunk "
                f"({count.split} split over chunks, {count.missing} not found in the paper's chunks)"
            )


if __name__ == "__main__":
    main()
