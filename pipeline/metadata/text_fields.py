"""Fields read from text alike in PDFs and Markdown: the DOI, the year, keywords, the abstract."""

from __future__ import annotations

import re
import unicodedata

from pipeline.records.base import BlockKind
from pipeline.records.document import Document
from pipeline.rules.metadata import MetadataRules

_DOI_TAIL = ".,;:)]}>'\"’”"
_DASHES = "\u00ad\u2010\u2011\u2012\u2013\u2014\u2015\u2212"
"""Dashes a typesetter prints for a DOI's hyphen (a non-breaking hyphen, an en dash, a soft
hyphen): a DOI has only the ASCII one, and resolves with no other."""


def clean_doi(doi: str) -> str:
    """A DOI in lower case, its dashes as hyphens and its ligatures as letters, without the punctuation a sentence or a bracket
    left after it."""
    # A ligature the font set (`ﬁmmu` in `10.3389/fimmu.…`) is its letters.
    doi = unicodedata.normalize("NFKC", "".join(doi.split()).translate({ord(dash): "-" for dash in _DASHES})).rstrip(_DOI_TAIL)
    if doi.count("(") < doi.count(")"):
        doi = doi[: doi.rfind(")")]
    return doi.lower()


_CUT_DOI = re.compile(
    rf"(10\.\d{{4,9}}/(?:[^\s\"<>]*(?:[-/_{_DASHES}]|\.(?=\n[\w.()-]*\d)))?)\n([\w.(){_DASHES}-]+)(?=\s|$)"
)
"""A DOI cut at a row's end after its prefix's slash, a hyphen (or a dash printed for one), a
slash or an underscore, or after a dot where the next row's first word has a digit (`journal.` /
`pone.0229314`; a word without one opens a sentence); the word carries it on only if it is of a
DOI's letters (no link, no label)."""


_CUT_PREFIX = re.compile(r"(\b(?:doi\s*:?\s*|doi\.\s?org/\s*)10\.)\n(\d{4,9}/[^\s\"<>]+)(?=\s|$)", re.IGNORECASE)
"""A labelled DOI cut right after its `10.`, the rest of its prefix opening the row under: no
sentence opens with four digits and a slash."""


def rejoined_dois(text: str) -> str:
    """`text`, rows parted by newlines, with each DOI cut at a row's end carried on by the first
    word of the row under, moved up onto its row."""
    text = _CUT_PREFIX.sub(lambda match: f"{match[1]}{match[2]}\n", text)
    return _CUT_DOI.sub(lambda match: f"{match[1]}{match[2]}\n", text)


def labelled_dois(text: str, rules: MetadataRules) -> list[str]:
    """The labelled DOIs of `text`, in order, each once."""
    return list(dict.fromkeys(clean_doi(match["doi"]) for match in rules.doi.finditer(text)))


_LAST_PAGE_MAX_WORDS = 2
"""Words beside the DOI in a paragraph of the last page that prints the paper's own (`DOI:`,
`Article`): an entry of the bibliography citing a work by its DOI has many."""


def last_page_doi(document: Document, rules: MetadataRules) -> str | None:
    """The labelled DOI that a paragraph of its own on the paper's last page prints (some journals
    print it there, not on page 1), a few words beside it at most."""
    last = max((span.page for block in document.blocks for span in block.page_spans), default=None)
    for block in reversed(document.blocks):
        if last is None or block.kind not in (BlockKind.paragraph, BlockKind.aside) or {span.page for span in block.page_spans} != {last}:
            continue
        text = document.text[block.char_start : block.char_end]
        match = rules.doi.search(text)
        if match and len(re.findall(r"[^\W\d_]{2,}", text[: match.start()] + " " + text[match.end() :])) <= _LAST_PAGE_MAX_WORDS:
            return clean_doi(match["doi"])
    return None


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
