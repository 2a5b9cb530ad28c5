"""The DOI a PDF gives as its own: labelled on page 1, else named by the file's own metadata (XMP,
document information), else a bare DOI alone on a row of page 1."""

from __future__ import annotations

import re

from pipeline.metadata.pdf_front import labels_over_values, page_text
from pipeline.metadata.text_fields import clean_doi, labelled_dois, rejoined_dois
from pipeline.records.extract import FrontLine
from pipeline.records.metadata import MetadataSource
from pipeline.rules.metadata import MetadataRules

_DOI_ROW_MAX_WORDS = 2
"""Words beside a DOI on a row that is about it (`Open Access`, a page number, `Article`)."""
_CUT_ENDS = ("-", "/", "_", ".")
"""What a DOI cut short at a row's end ends on: no DOI does."""
_BARE_DOI_ROW = re.compile(r"(?:[^\W\d_]+\s+){0,2}(10\.\d{4,9}/[^\s\"<>]+)(?:\s+[^\W\d_]+){0,2}")
"""A bare DOI alone on a row, a couple of words beside it at most (`Article 10.1234/…`)."""


def doi(embedded: dict[str, str], lines: list[FrontLine], rules: MetadataRules) -> tuple[str, MetadataSource] | None:
    """The labelled DOI page 1 prints (the one the XMP names, where page 1 prints several; a
    label over its value in a side column counts); one cut short at a row's end (`…/jtr-`) only
    where no whole one is printed; else the DOI the XMP or the document information names as the
    paper's; else a bare DOI alone on a row of page 1."""
    declared = _declared_doi(embedded, rules)
    texts = [*rejoined_dois("\n".join(page_text(lines))).split("\n"), *labels_over_values(lines)]
    printed = labelled_dois("\n".join(texts), rules)
    if declared and declared[0] in printed:
        return declared[0], MetadataSource.first_page
    whole = [found for found in printed if not found.endswith(_CUT_ENDS)]
    if whole:
        return _own_row_doi(texts, rules, whole) or whole[0], MetadataSource.first_page
    if declared or printed:
        return declared or (printed[0], MetadataSource.first_page)
    bare = next((match[1] for text in texts if (match := _BARE_DOI_ROW.fullmatch(text.strip()))), None)
    return (clean_doi(bare), MetadataSource.first_page) if bare else None


def _own_row_doi(texts: list[str], rules: MetadataRules, whole: list[str]) -> str | None:
    """The first labelled DOI printed on a row of its own (`https://doi.org/…`, `DOI: …`, a few
    words beside it at most): a DOI inside a sentence may be another work's (`OSF Registration
    number: DOI 10.17605/…`), and the paper's own is set apart."""
    for text in texts:
        for match in rules.doi.finditer(text):
            rest = text[: match.start()] + " " + text[match.end() :]
            if len(re.findall(r"[^\W\d_]{2,}", rest)) <= _DOI_ROW_MAX_WORDS and clean_doi(match["doi"]) in whole:
                return clean_doi(match["doi"])
    return None


def _declared_doi(embedded: dict[str, str], rules: MetadataRules) -> tuple[str, MetadataSource] | None:
    for key in ("xmp:prism:doi", "xmp:pdfx:doi"):
        if re.fullmatch(r"10\.\d{4,9}/\S+", embedded.get(key, "").strip()):
            return clean_doi(embedded[key]), MetadataSource.xmp
    identifier = re.fullmatch(r"(?:info:doi/|doi:|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/\S+)", embedded.get("xmp:dc:identifier", "").strip())
    if identifier:
        return clean_doi(identifier.group(1)), MetadataSource.xmp
    for key in ("info:subject", "info:keywords"):
        found = labelled_dois(embedded.get(key, ""), rules)
        if len(found) == 1:
            return found[0], MetadataSource.pdf_metadata
    return None
