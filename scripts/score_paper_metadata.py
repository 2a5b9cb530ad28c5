"""Print how well each paper's metadata comes out against the publisher's JATS `<front>`: the
PDFs of ../shared/corpus/pdf_jats against their own XML, and the Markdown of jats_md/nested
against the JATS in jats/ it was rendered from.

Usage: python scripts/score_paper_metadata.py [--corpus PATH] [--rules rules/default.toml]

Per field (title, first author's surname, year, DOI, journal, volume), over the papers whose JATS
gives it:

- **right**: our value equals the gold. Titles compare by their letters and digits in lower case;
  surnames by their letters (`pipeline.metadata.names.letters`, with the letters that carry no
  accent to strip folded too: `ø` as `o`, `ł` as `l`, `ß` as `ss`), where the particles
  (`[metadata] name_particles`) may stand on either side of the line between given names and
  surname: JATS files `Laura dos` + `Santos` or `Al Khatib` as cataloguers do, and a byline
  alone cannot say which, so `santos`, `dossantos` and `khatib`, `alkhatib` are each right; a
  group's leading `The` is left out. The year is right if it is the
  year of any of the JATS `<pub-date>`s (epub, ppub, collection); DOIs in lower case; the journal
  if it is the JATS journal title or one of its abbreviations; the volume as written.
- **wrong**: we give a value that is not the gold's: the failure the issue forbids.
- **missing**: we give none.
- **printed**: the papers whose text prints the gold value at all (its letters appear, accents
  dropped, in the file's first page for a PDF, in the Markdown before its first section for a
  Markdown paper); accuracy is right over printed, and precision right over what we gave.

Every miss is listed with both values.
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

sys.path.insert(0, str(Path(__file__).resolve().parent))
from score_pdf_headings import parse_jats  # noqa: E402

from pipeline.extract import extract  # noqa: E402
from pipeline.metadata import paper_metadata  # noqa: E402
from pipeline.metadata.names import letters  # noqa: E402
from pipeline.metadata.markdown_front import front_blocks  # noqa: E402
from pipeline.records.metadata import PaperMetadata  # noqa: E402
from pipeline.normalize.stage import normalize  # noqa: E402
from pipeline.rules import DEFAULT_RULES_PATH, load_rules  # noqa: E402

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
FIELDS = ("title", "first_author", "year", "doi", "journal", "volume")


@dataclass(frozen=True)
class Gold:
    title: str | None
    first_author: str | None
    """The first author's surname, or the group's name where a group is the first author."""
    years: frozenset[int]
    doi: str | None
    journals: tuple[str, ...] = ()
    """The journal's title and its abbreviations, as the JATS `<journal-meta>` gives them."""
    volume: str | None = None
    first_author_given: str | None = None


def _text(element: ElementTree.Element | None) -> str | None:
    return " ".join("".join(element.itertext()).split()) if element is not None else None


def _text_outside(element: ElementTree.Element, skipped: str) -> str:
    """`element`'s text less that of its `skipped` children."""
    parts = [element.text or ""]
    for child in element:
        if child.tag != skipped:
            parts.append("".join(child.itertext()))
        parts.append(child.tail or "")
    return " ".join("".join(parts).split())


def gold_front(xml: Path) -> Gold:
    front = parse_jats(xml).find("front")
    article = front.find("article-meta") if front is not None else None
    if article is None:
        return Gold(None, None, frozenset(), None)
    surname = given = None
    for contrib in article.iter("contrib"):
        if contrib.get("contrib-type") == "author":
            name = next((found for found in (contrib.find(".//name"), contrib.find(".//string-name")) if found is not None), None)
            collab = contrib.find(".//collab")
            if collab is not None and (name is None or contrib.find("collab") is not None):
                # A group's members may be listed inside its <collab>: the group is the author printed.
                surname = _text_outside(collab, "contrib-group")
            elif name is not None:
                surname, given = _text(name.find("surname")), _text(name.find("given-names"))
            break
    years = frozenset(int(year.text) for date in article.iter("pub-date") for year in date.iter("year") if (year.text or "").strip().isdigit())
    doi = next((_text(item) for item in article.iter("article-id") if item.get("pub-id-type") == "doi"), None)
    journals = tuple(
        title for element in front.iter() if element.tag in ("journal-title", "abbrev-journal-title") and (title := _text(element))
    )
    return Gold(
        _text(article.find("title-group/article-title")), surname, years, doi.lower() if doi else None, journals,
        _text(article.find("volume")), given,
    )


def title_key(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


def ours(metadata: PaperMetadata, name: str) -> str | int | None:
    if name == "first_author":
        return metadata.author_keys[0] if metadata.author_keys else None
    return getattr(metadata, name)


_UNACCENTED = str.maketrans({"ø": "o", "ł": "l", "đ": "d", "ð": "d", "ı": "i", "ħ": "h", "ŧ": "t", "ß": "ss", "æ": "ae", "œ": "oe", "þ": "th"})


def name_key(text: str) -> str:
    """A surname as compared: its letters, accents dropped, and the letters that carry no accent
    to drop (`ø`, `ł`, `ß`) written as the letters they are filed under."""
    return letters(text).translate(_UNACCENTED)


def gold_author_keys(gold: Gold, particles: frozenset[str]) -> set[str]:
    """The keys the gold's first author is right under: the surname as JATS gives it, without its
    leading particles (`Al Khatib` → `khatib`), with the particles its given names end on
    (`Laura dos` + `Santos` → `dossantos`), and a group's name without a leading `The`."""
    words = gold.first_author.split()
    keys = {name_key(gold.first_author)}
    if words and words[0].casefold() == "the":
        keys.add(name_key(" ".join(words[1:])))
    start = 0
    while start < len(words) - 1 and words[start].casefold() in particles:
        start += 1
        keys.add(name_key(" ".join(words[start:])))
    given = (gold.first_author_given or "").split()
    end = len(given)
    while end > 1 and given[end - 1].casefold() in particles:
        end -= 1
        keys.add(name_key(" ".join([*given[end:], *words])))
    return keys


def right(name: str, value, gold: Gold, particles: frozenset[str] = frozenset()) -> bool:
    if name == "title":
        return title_key(value) == title_key(gold.title)
    if name == "first_author":
        return name_key(value) in gold_author_keys(gold, particles)
    if name == "year":
        return value in gold.years
    if name == "journal":
        return any(title_key(value) == title_key(journal) for journal in gold.journals)
    if name == "volume":
        return value == gold.volume
    return value == gold.doi


def gold_value(name: str, gold: Gold):
    values = {"title": gold.title, "first_author": gold.first_author, "year": sorted(gold.years) or None, "doi": gold.doi}
    return {**values, "journal": list(gold.journals) or None, "volume": gold.volume}[name]


def printed(name: str, gold: Gold, shown: str) -> bool:
    """Whether the paper prints the gold value where we read: its letters and digits appear."""
    value = gold_value(name, gold)
    if value is None:
        return False
    if name == "year":
        return any(str(year) in shown for year in gold.years)
    if name == "journal":
        return any(_unaccented_key(journal) in _unaccented_key(shown) for journal in gold.journals)
    if name == "volume":
        return re.search(rf"(?<!\d){re.escape(gold.volume)}(?!\d)", shown) is not None
    # Accents dropped: a PDF may give an accent as a glyph of its own (`Davidovi´c`), still printed.
    return _unaccented_key(str(value)) in _unaccented_key(shown)


def _unaccented_key(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKD", text.casefold()) if ch.isalnum())


@dataclass
class Tally:
    right: int = 0
    wrong: int = 0
    missing: int = 0
    printed: int = 0
    misses: list[str] = field(default_factory=list)


def score(pairs: list[tuple[Path, Path]], rules, side: str) -> dict[str, Tally]:
    tallies = {name: Tally() for name in FIELDS}
    particles = frozenset(rules.metadata.name_particles)
    for paper, xml in pairs:
        gold = gold_front(xml)
        raw = extract(paper, paper.name, rules)
        document = normalize(raw, paper.name, rules)
        metadata = paper_metadata(raw, document, rules.metadata)
        if side == "pdf":
            shown = " ".join(line.text for line in raw.first_page)
        else:
            shown = "".join(document.text[block.char_start : block.char_end] for block in front_blocks(document))
        for name in FIELDS:
            if gold_value(name, gold) is None or not printed(name, gold, shown):
                continue
            tally = tallies[name]
            tally.printed += 1
            value = ours(metadata, name)
            if value is None:
                tally.missing += 1
                tally.misses.append(f"{paper.name}: missing (gold {gold_value(name, gold)!r})")
            elif right(name, value, gold, particles):
                tally.right += 1
            else:
                tally.wrong += 1
                tally.misses.append(f"{paper.name}: wrong {value!r} (gold {gold_value(name, gold)!r})")
    return tallies


def pdf_pairs(corpus: Path) -> list[tuple[Path, Path]]:
    folder = corpus / "pdf_jats"
    return [(pdf, pdf.with_suffix(".xml")) for pdf in sorted(folder.glob("*.pdf")) if pdf.with_suffix(".xml").exists()]


def markdown_pairs(corpus: Path) -> list[tuple[Path, Path]]:
    xmls = {re.sub(r"\W", "_", xml.name.split(".nxml")[0].removesuffix(".xml")): xml for xml in (corpus / "jats").rglob("*") if xml.suffix in (".xml", ".nxml")}
    return [(md, xmls[md.stem]) for md in sorted((corpus / "jats_md" / "nested").glob("*.md")) if md.stem in xmls]


def report(title: str, tallies: dict[str, Tally], count: int) -> None:
    print(f"{title} ({count} papers)")
    print(f"  {'field':<13} {'printed':>7} {'right':>6} {'wrong':>6} {'missing':>8} {'accuracy':>9} {'precision':>10}")
    for name, tally in tallies.items():
        accuracy = tally.right / tally.printed if tally.printed else float("nan")
        given = tally.right + tally.wrong
        precision = tally.right / given if given else float("nan")
        print(f"  {name:<13} {tally.printed:>7} {tally.right:>6} {tally.wrong:>6} {tally.missing:>8} {accuracy:>9.3f} {precision:>10.3f}")
    for name, tally in tallies.items():
        for miss in tally.misses:
            print(f"    {name}: {miss}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES_PATH)
    parser.add_argument("--side", choices=("pdf", "markdown", "both"), default="both")
    arguments = parser.parse_args()
    if not arguments.corpus.is_dir():
        sys.exit(f"no corpus at {arguments.corpus}; pass --corpus PATH to ../shared/corpus")
    rules = load_rules(arguments.rules)
    if arguments.side in ("pdf", "both"):
        pairs = pdf_pairs(arguments.corpus)
        report("PDF (pdf_jats) against its JATS", score(pairs, rules, "pdf"), len(pairs))
    if arguments.side in ("markdown", "both"):
        pairs = markdown_pairs(arguments.corpus)
        report("Markdown (jats_md/nested) against the JATS it was rendered from", score(pairs, rules, "markdown"), len(pairs))


if __name__ == "__main__":
    main()
