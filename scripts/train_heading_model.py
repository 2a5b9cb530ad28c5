"""Train the PDF heading model (pipeline/rules/models/headings.txt) on the even half of pdf_jats.

Usage: python scripts/train_heading_model.py [--corpus PATH] [--features-cache FILE] [--dry-run]

Every PDF of ../shared/corpus/pdf_jats is read twice, by the rules alone and with PyMuPDF's layout
model's labels, through the passes up to the one that asks the model (`classify_headings`); each
candidate block (`heading_features.heading_candidates`) is labelled by its publisher's JATS: a
heading where its text, numbering, case, punctuation and ligatures aside, is the title of a `<sec>`
in the body, or a title of the front or back matter (`Abstract`, `References`: headings in print
that JATS keeps outside the body), as scripts/score_pdf_headings.py matches them. A block that is
only part of such a title (a heading cut in two), a title with text run on after it, or a label of
a front or back matter section that the rules name (`Competing interests`, which the model leaves
to the rules) teaches nothing either way and is left out.

The model learns from the even half only (papers whose name does not end in an odd digit); the
check half is only scored. The even half's names are written beside the model
(`headings_training_papers.txt`). The seed, one thread and LightGBM's deterministic mode make a
second run give the same model, byte for byte, and the same scores.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import unicodedata
from collections import Counter
from pathlib import Path

import lightgbm
import numpy
import pymupdf

from pipeline.extract.pdf.heading_features import FEATURES, candidate_features, document_context, heading_candidates
from pipeline.rules.heading_model import MODEL_PATH, TRAINING_LIST
from pipeline.extract.pdf.heading_styles import HeadingRules
from pipeline.extract.pdf.layout_model import label_pieces, shared_model
from pipeline.extract.pdf.document import read_pages
from pipeline.extract.pdf.passes import PASSES, Reading
from pipeline.extract.pdf.run_in import RunInRules
from pipeline.rules import load_rules
from model_training import SEED, parameters, write_model
from score_pdf_headings import _NUMBERING, _text, gold_headings, key, parse_jats
from score_pdf_jats_halves import DEFAULT_CORPUS, is_check_half

PARAMETERS = parameters(objective="binary", learning_rate=0.05, num_leaves=15, min_data_in_leaf=20)
ROUNDS = 200
_PARTIAL_MIN_CHARS = 3
"""A block's key this long or longer that only begins a title (or that a title only begins) is left out."""


def read_document(pdf: Path, labelled: bool) -> Reading:
    """The PDF's lines as extract_pdf reads them (`read_pages`), labelled by the layout model where asked."""
    rules = load_rules()
    with pymupdf.open(pdf) as doc:
        pages, heights, _, _ = read_pages(doc, pdf.name, rules.pdf.tables)
        if labelled:
            pages = [label_pieces(pieces, shared_model().regions(page)) for pieces, page in zip(pages, doc)]
        try:
            toc = doc.get_toc(simple=True)
        except RuntimeError:
            toc = []
    return Reading(pages, heights, toc, rules, labelled)


def before_the_model(reading: Reading) -> Reading:
    """`reading` through the passes that run before the heading model's."""
    for step in PASSES:
        if step.name == "classify_headings":
            return reading
        reading = step.run(reading)
    raise SystemExit("no pass named classify_headings in passes.PASSES")


def label(text: str, gold: set[str], neutral: set[str], heads_meta) -> int | None:
    """1 where the block is a heading of the paper, 0 where it is not; None where it teaches
    nothing: only part of a title, a title with text run on after it, or a label of front or back
    matter that JATS keeps outside the body without a title (`Competing interests`), which the
    model leaves to the rules."""
    k = key(unicodedata.normalize("NFKC", text))
    if k in gold or k in neutral:
        return 1
    if any(k.startswith(n) for n in neutral if len(n) >= 8) or heads_meta(text):
        return None
    if len(k) >= _PARTIAL_MIN_CHARS and any(g != k and (g.startswith(k) or k.startswith(g)) for g in gold):
        return None
    return 0


def paper_rows(pdf: Path, labelled: bool) -> list[dict]:
    """Every candidate of one reading of one paper: its text and features."""
    reading = before_the_model(read_document(pdf, labelled))
    blocks = reading.blocks
    context = document_context(blocks, reading.layout, reading.heights)
    rules = HeadingRules.from_rules(reading.rules)
    return [
        {"paper": pdf.stem, "labelled": labelled, "text": blocks[index].text, "x": candidate_features(blocks, index, context, rules)}
        for index in heading_candidates(blocks)
    ]


def all_rows(corpus: Path, cache: Path | None) -> list[dict]:
    if cache is not None and cache.exists():
        return json.loads(cache.read_text())
    pdfs = sorted((corpus / "pdf_jats").glob("*.pdf"))
    if not pdfs:
        raise SystemExit(f"no pdf_jats folder with PDFs under {corpus}; pass --corpus PATH to ../shared/corpus")
    rows = []
    for pdf in pdfs:
        for labelled in (False, True):
            rows.extend(paper_rows(pdf, labelled))
        print(f"read {pdf.stem}", file=sys.stderr)
    if cache is not None:
        cache.write_text(json.dumps(rows))
    return rows


def numbering(text: str) -> str:
    """The number a heading opens with, as compared: `2.8.` and `2.8` alike, `` where none."""
    found = _NUMBERING.match(unicodedata.normalize("NFKC", text))
    return re.sub(r"[\W_]+", "", found.group(0)).casefold() if found else ""


def section_numbers(article) -> dict[str, Counter]:
    """Each body section title's key, with how many sections bear it under each number (`2.8`
    from its `<label>` or the title's own opening number; `` where none)."""
    numbers: dict[str, Counter] = {}
    body = article.find("body")
    for sec in body.iter("sec") if body is not None else []:
        title = sec.find("title")
        if title is not None and key(_text(title)):
            label_element = sec.find("label")
            number = numbering(_text(label_element) + " ") if label_element is not None else numbering(_text(title))
            numbers.setdefault(key(unicodedata.normalize("NFKC", _text(title))), Counter())[number] += 1
    return numbers


def one_to_one(reading: list[dict], numbers: dict[str, Counter]) -> list[dict]:
    """The reading's rows, where more blocks than sections share a title's key, with those not
    numbered as any such section is labelled 0, where one of them is; and, in a paper that prints
    its sections' numbers, a block that bears a numbered section's title without its number."""
    by_key: dict[str, list[dict]] = {}
    for row in reading:
        if row["y"] == 1 and key(unicodedata.normalize("NFKC", row["text"])) in numbers:
            by_key.setdefault(key(unicodedata.normalize("NFKC", row["text"])), []).append(row)
    printed = {numbering(row["text"]) for row in reading} & {number for counts in numbers.values() for number in counts if number}
    wrong = set()
    for found_key, rows in by_key.items():
        sections = numbers[found_key]
        numbered = [row for row in rows if numbering(row["text"]) and sections[numbering(row["text"])]]
        if len(rows) > sum(sections.values()) and numbered:
            wrong |= {id(row) for row in rows if row not in numbered}
        elif printed and not sections[""]:
            # The paper prints its sections' numbers and this one has a number: a block that
            # bears its title without it is another thing (a table's row label), not its heading.
            wrong |= {id(row) for row in rows if not numbering(row["text"])}
    return [{**row, "y": 0} if id(row) in wrong else row for row in reading]


def labelled_rows(rows: list[dict], corpus: Path) -> list[dict]:
    """The rows that teach something, each with its label `y` from its paper's JATS."""
    heads_meta = RunInRules.from_rules(load_rules()).heads_meta
    golds, readings = {}, {}
    for row in rows:
        if row["paper"] not in golds:
            article = parse_jats(corpus / "pdf_jats" / f"{row['paper']}.xml")
            titles, neutral = gold_headings(article)
            golds[row["paper"]] = ({key(unicodedata.normalize("NFKC", title)) for title in titles}, neutral, section_numbers(article))
        gold, neutral, numbers = golds[row["paper"]]
        target = label(row["text"], gold, neutral, heads_meta)
        if target is not None:
            readings.setdefault((row["paper"], row["labelled"]), []).append({**row, "y": target})
    return [row for (paper, _), reading in readings.items() for row in one_to_one(reading, golds[paper][2])]


def scores(booster: lightgbm.Booster, rows: list[dict]) -> str:
    """Candidate-level recall and precision of the model, and of the rules' own verdict, on `rows`."""
    x = numpy.asarray([row["x"] for row in rows], dtype=numpy.float64)
    y = numpy.asarray([row["y"] for row in rows])
    predicted = booster.predict(x, num_threads=1) >= 0.5
    by_rules = x[:, FEATURES.index("rules_heading")] > 0.5

    def figures(guess: numpy.ndarray) -> str:
        hits = int((guess & (y == 1)).sum())
        return f"recall {hits / max(1, (y == 1).sum()):.3f} precision {hits / max(1, guess.sum()):.3f}"

    return f"model {figures(predicted)}; rules {figures(by_rules)} ({len(rows)} candidates, {int(y.sum())} headings)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--features-cache", type=Path, help="keep the candidates' features in FILE and read them from it when it exists")
    parser.add_argument("--dry-run", action="store_true", help="print the scores, write no model")
    arguments = parser.parse_args()
    started = time.perf_counter()
    rows = labelled_rows(all_rows(arguments.corpus, arguments.features_cache), arguments.corpus)
    train = [row for row in rows if not is_check_half(row["paper"])]
    check = [row for row in rows if is_check_half(row["paper"])]
    data = lightgbm.Dataset(
        numpy.asarray([row["x"] for row in train], dtype=numpy.float64),
        label=numpy.asarray([row["y"] for row in train]),
        feature_name=list(FEATURES),
        free_raw_data=False,
    )
    booster = lightgbm.train(PARAMETERS, data, num_boost_round=ROUNDS)
    print(f"seed {SEED}, {ROUNDS} rounds, trained in {time.perf_counter() - started:.0f} s (reading the papers included)")
    print(f"training (even half, {len({row['paper'] for row in train})} papers): {scores(booster, train)}")
    print(f"check half ({len({row['paper'] for row in check})} papers, never trained on): {scores(booster, check)}")
    if not arguments.dry_run:
        write_model(booster, MODEL_PATH, TRAINING_LIST, (row["paper"] for row in train))


if __name__ == "__main__":
    main()
