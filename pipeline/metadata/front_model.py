"""Where the page-1 line model (`[metadata] front_lines = "model"`) has a say in the metadata: it
labels each line of page 1 (`front_lines.LABELS`), and its byline and DOI stand in where the
rules of `pdf_front` find none. Taking its byline over the rules' where the two name other first
authors lost papers on both halves of pdf_jats, so the rules keep the last word where they read one.
"""

from __future__ import annotations

import re

from pipeline.errors import RulesError
from pipeline.metadata.front_lines import FEATURES, LABELS, line_features, ordered
from pipeline.metadata.names import split_names, without_superscripts
from pipeline.metadata.pdf_front import rows
from pipeline.metadata.text_fields import clean_doi
from pipeline.records.extract import FrontLine
from pipeline.rules.metadata import MetadataRules

_BARE_DOI = re.compile(r"\b(?P<doi>10\.\d{4,9}/[^\s\"<>]+)")
_GAP_ROWS = 1
"""Rows of another label that may stand inside a byline (a name's marks set as a row of their own)."""


def line_labels(lines: list[FrontLine], rules: MetadataRules) -> list[tuple[FrontLine, str]]:
    """Each of `ordered(lines)` with the label the model gives it most probability."""
    model = rules.front_model
    if model.features != FEATURES:
        raise RulesError("the page-1 line model was trained on other features than front_lines.FEATURES: retrain it (scripts/train_front_model.py)")
    lines = ordered(lines)
    found = model.label_probabilities(line_features(lines, rules))
    return [(line, LABELS[max(range(len(LABELS)), key=scores.__getitem__)]) for line, scores in zip(lines, found)]


def model_byline(labelled: list[tuple[FrontLine, str]], rules: MetadataRules) -> list[str]:
    """The names of the first run of rows whose lines the model labels an author's, read as one
    byline as `pdf_front` reads one: a row's pieces parted by a comma, rows run on (a name cut by
    a row's end); a row of another label inside the run (a row of marks) is passed over. Where the
    whole run reads as no names, its first rows that do."""
    label_of = {id(line): label for line, label in labelled}
    found, gap = [], 0
    for row in rows([line for line, _ in labelled]):
        authored = [line for line in row if label_of[id(line)] == "author"]
        if authored:
            found.append(" , ".join(_bare(line) for line in authored))
            gap = 0
        elif found:
            gap += 1
            if gap > _GAP_ROWS:
                break
    while found:
        if (names := split_names(" ".join(found), rules)) is not None:
            return names
        found.pop()
    return []


def _bare(line: FrontLine) -> str:
    return without_superscripts(line.text, line.superscripts)


def model_doi(labelled: list[tuple[FrontLine, str]]) -> str | None:
    """The DOI printed on the first line the model labels the DOI's, a DOI cut at the row's end
    read on into the next line."""
    for index, (line, label) in enumerate(labelled):
        if label != "doi" or (match := _BARE_DOI.search(line.text)) is None:
            continue
        doi = match["doi"]
        under = [other for other, _ in labelled if other.y0 > line.y0]
        following = min(under, key=lambda other: (other.y0, abs(other.x0 - line.x0))).text.split()[:1] if under else []
        # A DOI cut at a row's end goes on in the first word of the row under, which has a digit
        # where the cut falls after a dot (`journal.` / `pone.0229314`): a word without one opens a sentence.
        if following and (doi.endswith(("-", "/", "_")) or (doi.endswith(".") and any(ch.isdigit() for ch in following[0]))):
            doi += following[0]
        return clean_doi(doi)
    return None
