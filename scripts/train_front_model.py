"""Train the page-1 line model (pipeline/rules/models/front_lines.txt) on the even half of pdf_jats.

Usage: python scripts/train_front_model.py [--corpus PATH] [--pages-cache FILE] [--dry-run]

Every PDF of ../shared/corpus/pdf_jats is extracted as the pipeline does (`extract`), and each line
of its page 1 (`RawDocument.first_page`) is labelled from the publisher's JATS `<front>`
(`front_lines.LABELS`), as scripts/score_paper_metadata.py matches the fields: a line is the
**DOI**'s where it prints the `<article-id pub-id-type="doi">` or a piece of it of 8 characters or
more; the **title**'s where its letters are part of `<article-title>`'s, of the lines of one size
that spell the most of it; an **author**'s where most of its words are parts of the
`<contrib contrib-type="author">` names and one is a surname; an **affiliation**'s where its letters
are part of an `<aff>`'s or most of its words are; the **journal** line's where it prints the
`<journal-title>` or an abbreviation of it; else **other**. The features are
`pipeline.metadata.front_lines.FEATURES`.

The model learns from the even half only (papers whose name does not end in an odd digit); the
check half is only scored. It prints the line-level recall and precision of each label by
leave-some-out on the even half (five folds by paper) and on the check half, and writes the even
half's names beside the model (`front_lines_training_papers.txt`). The seed, one thread and
LightGBM's deterministic mode make a second run give the same model, byte for byte.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import lightgbm
import numpy

from pipeline.extract import extract
from pipeline.metadata.front_lines import FEATURES, LABELS, line_features, ordered
from pipeline.metadata.names import letters, split_names, without_superscripts
from pipeline.records.extract import FrontLine
from pipeline.rules import load_rules
from pipeline.rules.front_model import MODEL_PATH, TRAINING_LIST
from model_training import SEED, parameters, write_model
from score_pdf_headings import parse_jats
from score_pdf_jats_halves import DEFAULT_CORPUS, is_check_half

PARAMETERS = parameters(objective="multiclass", num_class=len(LABELS), learning_rate=0.05, num_leaves=7, min_data_in_leaf=10)
ROUNDS = 100
FOLDS = 5
_DOI_PIECE = 8
"""Characters of the DOI a line must print to be the DOI's line (a DOI cut across two rows)."""
_NAME_SHARE = 0.7
"""Of a line's words, the share that must be parts of the authors' names (or of an affiliation)."""
_AFFILIATION_PIECE = 10
"""Letters of a line that, all part of an `<aff>`, make it an affiliation's line."""
_TITLE_PIECE = 4


def _text(element) -> str:
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


def gold_front(xml: Path) -> dict:
    """The JATS front's title, author names (their words), affiliations, journal names and DOI."""
    front = parse_jats(xml).find("front")
    article = front.find("article-meta") if front is not None else None
    if article is None:
        return {"title": "", "name_words": set(), "surnames": set(), "affiliations": [], "journals": [], "doi": ""}
    name_words, surnames = set(), set()
    for contrib in article.iter("contrib"):
        if contrib.get("contrib-type") != "author":
            continue
        for part in ("surname", "given-names", "collab"):
            for element in contrib.iter(part):
                words = [letters(word) for word in _text(element).split()]
                name_words.update(word for word in words if word)
                if part != "given-names":
                    surnames.add(letters(_text(element)))
    doi = next((_text(item).lower() for item in article.iter("article-id") if item.get("pub-id-type") == "doi"), "")
    return {
        "title": letters(_text(article.find("title-group/article-title"))),
        "name_words": name_words,
        "surnames": surnames,
        "affiliations": [letters(_text(aff)) for aff in front.iter("aff")],
        "affiliation_words": {letters(word) for aff in front.iter("aff") for word in _text(aff).split()} - {""},
        "journals": [key for element in front.iter() if element.tag in ("journal-title", "abbrev-journal-title") if len(key := letters(_text(element))) >= 4],
        "doi": doi,
    }


def _words(line: FrontLine) -> list[str]:
    text = without_superscripts(line.text, line.superscripts)
    return [word for word in (letters(piece) for piece in re.split(r"[\s,;·•|]+", text)) if len(word) >= 2 and word not in ("and", "und")]


def _prints_doi(text: str, doi: str) -> bool:
    """Whether `text` prints the DOI, or the piece of it one row of a DOI cut in two holds."""
    if not doi:
        return False
    tokens = re.findall(r"\S{%d,}" % _DOI_PIECE, text.lower())
    return any(doi in token or ("10." in token and doi.startswith(token[token.find("10."):])) or doi.endswith(token) for token in tokens)


def _title_lines(lines: list[FrontLine], title: str) -> set[int]:
    """The lines whose letters are part of the title, of the one size whose lines spell the most of it."""
    by_size: dict[float, list[int]] = {}
    for index, line in enumerate(lines):
        spelt = letters(line.text)
        if len(spelt) >= _TITLE_PIECE and spelt in title:
            by_size.setdefault(round(line.size * 2) / 2, []).append(index)
    best = max(by_size.values(), key=lambda found: sum(len(letters(lines[i].text)) for i in found), default=[])
    return set(best)


def _names_authors(line: FrontLine, words: list[str], gold: dict, rules) -> bool:
    """Whether most of the line's words are parts of the authors' names and one is a surname, or
    the line reads as names (degrees and marks aside) most of whose surnames are the authors'."""
    if words and sum(word in gold["name_words"] for word in words) >= _NAME_SHARE * len(words) and any(word in gold["surnames"] for word in words):
        return True
    names = split_names(without_superscripts(line.text, line.superscripts), rules) or []
    return bool(names) and sum(letters(name.split()[-1]) in gold["surnames"] for name in names) * 2 >= len(names)


def labels(lines: list[FrontLine], gold: dict, rules) -> list[int]:
    """Each of `lines`' label (an index into LABELS), in the lines' order."""
    titled = _title_lines(lines, gold["title"]) if gold["title"] else set()
    found = []
    for index, line in enumerate(lines):
        words, spelt = _words(line), letters(line.text)
        if _prints_doi(line.text, gold["doi"]):
            found.append("doi")
        elif index in titled:
            found.append("title")
        elif _names_authors(line, words, gold, rules):
            found.append("author")
        elif (len(spelt) >= _AFFILIATION_PIECE and any(spelt in aff for aff in gold["affiliations"])) or (
            len(words) >= 3 and sum(word in gold["affiliation_words"] for word in words) >= _NAME_SHARE * len(words)
        ):
            found.append("affiliation")
        elif any(journal in spelt for journal in gold["journals"]):
            found.append("journal")
        else:
            found.append("other")
    return [LABELS.index(label) for label in found]


def read_pages(corpus: Path, cache: Path | None) -> dict[str, list[dict]]:
    """Each paper's page-1 lines as extract reads them (as dicts), by paper name."""
    if cache is not None and cache.exists():
        return json.loads(cache.read_text())
    pdfs = sorted((corpus / "pdf_jats").glob("*.pdf"))
    if not pdfs:
        raise SystemExit(f"no pdf_jats folder with PDFs under {corpus}; pass --corpus PATH to ../shared/corpus")
    rules = load_rules()
    pages = {pdf.stem: [line.model_dump() for line in extract(pdf, pdf.name, rules).first_page] for pdf in pdfs}
    if cache is not None:
        cache.write_text(json.dumps(pages))
    return pages


def rows_of(pages: dict[str, list[dict]], corpus: Path) -> list[dict]:
    """Every line of every paper: its paper, features and label."""
    rules = load_rules().metadata
    found = []
    for paper, dumped in pages.items():
        lines = ordered([FrontLine(**line) for line in dumped])
        gold = gold_front(corpus / "pdf_jats" / f"{paper}.xml")
        for x, y in zip(line_features(lines, rules), labels(lines, gold, rules)):
            found.append({"paper": paper, "x": x, "y": y})
    return found


def train(rows: list[dict]) -> lightgbm.Booster:
    data = lightgbm.Dataset(
        numpy.asarray([row["x"] for row in rows], dtype=numpy.float64),
        label=numpy.asarray([row["y"] for row in rows]),
        feature_name=list(FEATURES),
        free_raw_data=False,
    )
    return lightgbm.train(PARAMETERS, data, num_boost_round=ROUNDS)


def predicted(booster: lightgbm.Booster, rows: list[dict]) -> numpy.ndarray:
    return booster.predict(numpy.asarray([row["x"] for row in rows], dtype=numpy.float64), num_threads=1).argmax(axis=1)


def figures(y: numpy.ndarray, guess: numpy.ndarray) -> str:
    """Recall and precision of each label but `other`, over lines."""
    shown = []
    for index, name in enumerate(LABELS[1:], start=1):
        hits = int(((guess == index) & (y == index)).sum())
        shown.append(f"{name} {hits / max(1, (y == index).sum()):.3f}/{hits / max(1, (guess == index).sum()):.3f} (n={int((y == index).sum())})")
    return "recall/precision: " + ", ".join(shown)


def leave_some_out(rows: list[dict]) -> str:
    """The figures of models each trained without a fifth of the papers, on that fifth."""
    papers = sorted({row["paper"] for row in rows})
    guesses, truths = [], []
    for fold in range(FOLDS):
        held = set(papers[fold::FOLDS])
        booster = train([row for row in rows if row["paper"] not in held])
        test = [row for row in rows if row["paper"] in held]
        guesses.append(predicted(booster, test))
        truths.append(numpy.asarray([row["y"] for row in test]))
    return figures(numpy.concatenate(truths), numpy.concatenate(guesses))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--pages-cache", type=Path, help="keep the papers' page-1 lines in FILE and read them from it when it exists")
    parser.add_argument("--dry-run", action="store_true", help="print the scores, write no model")
    arguments = parser.parse_args()
    rows = rows_of(read_pages(arguments.corpus, arguments.pages_cache), arguments.corpus)
    even = [row for row in rows if not is_check_half(row["paper"])]
    check = [row for row in rows if is_check_half(row["paper"])]
    print(f"seed {SEED}, {ROUNDS} rounds, {len(FEATURES)} features, {len(even)} lines of {len({row['paper'] for row in even})} even papers")
    print(f"even half, {FOLDS} folds by paper: {leave_some_out(even)}")
    booster = train(even)
    print(f"check half ({len({row['paper'] for row in check})} papers, never trained on): {figures(numpy.asarray([row['y'] for row in check]), predicted(booster, check))}")
    if not arguments.dry_run:
        write_model(booster, MODEL_PATH, TRAINING_LIST, (row["paper"] for row in even))


if __name__ == "__main__":
    main()
