"""Print how well bibliography entries are linked to the papers of the folder (`paper_links`), on a
folder where who cites whom is known: the twenty real PDFs of ../shared/corpus/pdf_jats, and
Markdown papers written here that cite them.

Usage: python scripts/score_paper_links.py [--corpus PATH] [--rules rules/default.toml] [--keep DIR]

The folder (a temporary one, or `--keep DIR`) holds links to the PDFs, used in place, and one
citing paper per PDF. Each citing paper's bibliography, from the PDFs' own JATS `<front>`, in
one of three styles (Vancouver `Okafor M`, APA `Okafor, M. (2019)`, physics `M. Okafor, …
(2019)`), cites:

- one held paper by its DOI, as the JATS gives it (a link by `doi`);
- another by its title, first author and year, with no DOI (a link by `title_year_author`);
- and decoys no link may come from: a held paper's title with another year, a title the held
  paper's first author did not write in that year, and a DOI of a work the folder does not hold
  (an entry of the PDF's own reference list).

The PDFs may cite each other too: a `<ref>` of one's JATS whose text holds another's DOI, or its
title, is a known link, by (citing paper, cited paper), since which entry of ours it is depends on
how the PDF's bibliography was read.

Precision is the links found that are known over the links found; recall the known links found
over the known links, by (citing paper, entry, cited paper). Each miss and each false link is listed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from score_paper_metadata import gold_front  # noqa: E402
from score_pdf_headings import parse_jats  # noqa: E402

from pipeline.index.database import open_readonly  # noqa: E402
from pipeline.ingest import IngestOptions, ingest_folder  # noqa: E402
from pipeline.rules import DEFAULT_RULES_PATH, load_rules  # noqa: E402

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


# The styles a citing paper writes its entries in, by its number: Vancouver, APA, and physics'
# initials before the surname with the year after the volume.
_STYLES = (
    "{number}. {surname} A, Other B. {title}. J Test. {year};1:1-9.{doi}",
    "{number}. {surname}, A., & Other, B. ({year}). {title}. Journal of Tests, 1, 1-9.{doi}",
    "{number}. A. {surname}, B. Other, {title}, J. Test 1, 1 ({year}).{doi}",
)


def _entry(style: int, number: int, surname: str, title: str, year: int, doi: str | None = None) -> str:
    return _STYLES[style % len(_STYLES)].format(number=number, surname=surname, title=title, year=year, doi=f" doi:{doi}" if doi else "")


def _unheld_doi(xml: Path) -> str | None:
    """A DOI the paper's own reference list gives: a real work's, not held in the folder."""
    back = parse_jats(xml).find("back")
    for pub_id in back.iter("pub-id") if back is not None else []:
        if pub_id.get("pub-id-type") == "doi" and pub_id.text:
            return pub_id.text.strip().lower()
    return None


def _letters_digits(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def cited_among(pdfs: list[Path], golds: dict) -> set[tuple[str, str]]:
    """(citing PDF, cited PDF) where a `<ref>` of the citing one's JATS holds the other's DOI or title."""
    pairs = set()
    for pdf in pdfs:
        back = parse_jats(pdf.with_suffix(".xml")).find("back")
        for ref in back.iter("ref") if back is not None else []:
            text = " ".join("".join(ref.itertext()).split())
            for other in pdfs:
                gold = golds[other.name]
                if other != pdf and ((gold.doi and gold.doi in text.lower()) or (gold.title and _letters_digits(gold.title) in _letters_digits(text))):
                    pairs.add((pdf.name, other.name))
    return pairs


def build_folder(corpus: Path, folder: Path) -> set[tuple[str, str, str]]:
    """Link the PDFs into `folder`, write the citing papers, and return the known links."""
    pdfs = sorted((corpus / "pdf_jats").glob("*.pdf"))
    golds = {pdf.name: gold_front(pdf.with_suffix(".xml")) for pdf in pdfs}
    known = set()
    for index, pdf in enumerate(pdfs):
        (folder / pdf.name).symlink_to(pdf)
        by_doi, by_title = pdfs[(index + 1) % len(pdfs)].name, pdfs[(index + 2) % len(pdfs)].name
        cited, titled = golds[by_doi], golds[by_title]
        entries = []
        if cited.doi and cited.first_author and cited.years:
            entries.append(_entry(index, len(entries) + 1, cited.first_author, cited.title, min(cited.years), cited.doi))
            known.add((f"citing-{index:02}.md", f"R{len(entries)}", by_doi))
        if titled.first_author and titled.years:
            entries.append(_entry(index, len(entries) + 1, titled.first_author, titled.title, min(titled.years)))
            known.add((f"citing-{index:02}.md", f"R{len(entries)}", by_title))
            entries.append(_entry(index, len(entries) + 1, titled.first_author, titled.title, min(titled.years) - 3))
            entries.append(_entry(index, len(entries) + 1, titled.first_author, "A survey of something else entirely in the field", min(titled.years)))
        if (unheld := _unheld_doi(pdf.with_suffix(".xml"))) is not None:
            entries.append(_entry(index, len(entries) + 1, "Nobody", "A work the folder does not hold at all", 2001, unheld))
        markers = ", ".join(str(number) for number in range(1, len(entries) + 1))
        (folder / f"citing-{index:02}.md").write_text(
            f"# Citing paper {index}\n\n## Results\n\nAs shown before [{markers}].\n\n## References\n\n" + "\n\n".join(entries) + "\n",
            encoding="utf-8",
        )
    return known | {(citing, "", cited) for citing, cited in cited_among(pdfs, golds)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES_PATH)
    parser.add_argument("--keep", type=Path, help="build the folder and database here, and leave them")
    arguments = parser.parse_args()
    if not (arguments.corpus / "pdf_jats").is_dir():
        sys.exit(f"no pdf_jats at {arguments.corpus}; pass --corpus PATH to ../shared/corpus")
    with tempfile.TemporaryDirectory(prefix="score-links-") as scratch:
        base = arguments.keep or Path(scratch)
        folder = base / "papers"
        folder.mkdir(parents=True)
        known = build_folder(arguments.corpus, folder)
        db = base / "papers.duckdb"
        ingest_folder(folder, db, load_rules(arguments.rules), IngestOptions(workers=1))
        rows = open_readonly(db).execute("SELECT doc_id, ref_id, cited_doc_id, matched_by FROM paper_links").fetchall()
    # Links between the PDFs are known by paper, not by entry.
    found = {(doc_id, "" if doc_id.endswith(".pdf") else ref_id, cited): how for doc_id, ref_id, cited, how in rows}
    right = known & found.keys()
    print(f"links found {len(found)}, known {len(known)}, right {len(right)}")
    print(f"precision {len(right) / len(found) if found else float('nan'):.3f}, recall {len(right) / len(known):.3f}")
    for link in sorted(found.keys() - known):
        print(f"  false: {link} ({found[link]})")
    for link in sorted(known - found.keys()):
        print(f"  missed: {link}")


if __name__ == "__main__":
    main()
