"""Fields read from text alike in PDFs and Markdown: the DOI, the year, keywords, the abstract."""

from __future__ import annotations

import re

from pipeline.records.base import BlockKind
from pipeline.records.document import Document
from pipeline.rules.metadata import MetadataRules

_DOI_TAIL = ".,;:)]}>'\"’”"


def clean_doi(doi: str) -> str:
    """A DOI in lower case without the punctuation a sentence or a bracket left after it."""
    doi = doi.strip().rstrip(_DOI_TAIL)
    if doi.count("(") < doi.count(")"):
        doi = doi[: doi.rfind(")")]
    return doi.lower()


_CUT_DOI = re.compile(r"(10\.\d{4,9}/[^\s\"<>]*(?:[-/_]|\.(?=\n[\w.()-]*\d)))\n([\w.()-]+)(?=\s|$)")
"""A DOI cut at a row's end after a hyphen, a slash or an underscore, or after a dot where the
next row's first word has a digit (`journal.` / `pone.0229314`; a word without one opens a
sentence); the word carries it on only if it is of a DOI's letters (no link, no label)."""


def rejoined_dois(text: str) -> str:
    """`text`, rows parted by newlines, with each DOI cut at a row's end carried on by the first
    word of the row under, moved up onto its row."""
    return _CUT_DOI.sub(lambda match: f"{match[1]}{match[2]}\n", text)


def labelled_dois(text: str, rules: MetadataRules) -> list[str]:
    """The labelled DOIs of `text`, in order, each once."""
    return list(dict.fromkeys(clean_doi(match["doi"]) for match in rules.doi.finditer(text)))


def year_in(lines: list[str], rules: MetadataRules) -> int | None:
    """The year of the first cue that matches a line, trying the cues in the rules' order."""
    for cue in rules.year_cues:
        for line in lines:
            match = cue.pattern.search(line)
            if match:
                return int(match["year"])
    return None


def split_keywords(text: str) -> list[str]:
    """Keywords parted by semicolons, else commas, else middle dots or bullets."""
    for separator in (";", ",", "·", "•", "|"):
        if separator in text:
            parts = text.split(separator)
            break
    else:
        parts = [text]
    return [keyword for part in parts if (keyword := " ".join(part.split()).strip(" .")) ]


def keywords_block(document: Document, rules: MetadataRules, before: int) -> list[str]:
    """The keywords of the first paragraph before offset `before` that a keywords label opens."""
    for block in document.blocks:
        if block.char_start >= before:
            break
        if block.kind not in (BlockKind.paragraph, BlockKind.aside, BlockKind.heading):
            continue
        text = document.text[block.char_start : block.char_end]
        label = rules.keywords_label.match(text)
        if label and label.end() < len(text):
            return split_keywords(text[label.end() :])
    return []


def abstract_span(document: Document, rules: MetadataRules) -> tuple[int, int] | None:
    """The abstract's text: the paragraphs under a heading the abstract pattern names, up to the
    next heading or keywords line; or the rest of a paragraph that the label opens (`Abstract: …`)."""
    blocks = document.blocks
    for index, block in enumerate(blocks):
        if block.kind is BlockKind.heading and block.heading_key and rules.abstract_heading.fullmatch(block.heading_key):
            span = None
            for following in blocks[index + 1 :]:
                text = document.text[following.char_start : following.char_end]
                if following.kind is not BlockKind.paragraph or rules.keywords_label.match(text):
                    break
                span = (span[0] if span else following.char_start, following.char_end)
            if span:
                return span
        if block.kind is BlockKind.paragraph:
            text = document.text[block.char_start : block.char_end]
            label = re.match(rf"^\W*(?:{rules.abstract_heading.pattern})\b\s*[:.—–-]?\s*", text, re.IGNORECASE)
            if label and len(text) - label.end() > 0 and label.group(0).strip() and text[label.end() - 1 : label.end()].isspace():
                return block.char_start + label.end(), block.char_end
    return None
