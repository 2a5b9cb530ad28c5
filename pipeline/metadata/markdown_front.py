"""A Markdown paper's metadata: its YAML front matter where it has one, else what precedes its
first section (the title, a byline under it, a line that is only a DOI)."""

from __future__ import annotations

import datetime
import re

import yaml

from pipeline.metadata.names import split_names
from pipeline.metadata.text_fields import clean_doi, split_keywords
from pipeline.records.base import BlockKind
from pipeline.records.document import Document
from pipeline.rules.metadata import MetadataRules

_DOI_LINE = re.compile(r"^\W*(?:doi\s*:?\s*|https?://(?:dx\.)?doi\.org/)(10\.\d{4,9}/\S+?)\W*$", re.IGNORECASE)
_DOI_VALUE = re.compile(r"(?:doi\s*:?\s*|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/\S+)", re.IGNORECASE)


def yaml_fields(document: Document) -> dict[str, object]:
    """The front matter's keys in lower case, or none where the file has none or it is not YAML
    of keys (a broken one costs only these fields: the text is ingested as written)."""
    block = next((block for block in document.blocks if block.kind is BlockKind.front_matter), None)
    if block is None:
        return {}
    text = document.text[block.char_start : block.char_end]
    body = "\n".join(line for line in text.splitlines() if line.strip() not in ("---", "..."))
    try:
        data = yaml.safe_load(body)
    except yaml.YAMLError:
        return {}
    return {str(key).lower(): value for key, value in data.items()} if isinstance(data, dict) else {}


def yaml_title(fields: dict[str, object]) -> str | None:
    title = fields.get("title")
    return " ".join(title.split()) if isinstance(title, str) and title.strip() else None


def yaml_authors(fields: dict[str, object]) -> list[str]:
    """`author` or `authors`: a string of names, a list of names, or of mappings with a `name`
    (or `given` and `family`)."""
    value = fields.get("authors", fields.get("author"))
    if isinstance(value, str):
        value = re.split(r"\s*;\s*|\s+and\s+", value) if ";" in value or " and " in value else [value]
    if not isinstance(value, list):
        return []
    names = []
    for item in value:
        if isinstance(item, dict):
            item = item.get("name") or " ".join(str(item[key]) for key in ("given", "family") if item.get(key))
        if isinstance(item, str) and item.strip():
            names.append(" ".join(item.split()))
    return names


def yaml_year(fields: dict[str, object]) -> int | None:
    for key in ("year", "date", "published", "issued"):
        value = fields.get(key)
        if isinstance(value, (datetime.date, datetime.datetime)):
            return value.year
        if isinstance(value, int) and 1500 <= value <= 2100:
            return value
        if isinstance(value, str) and (match := re.search(r"\b(1[5-9]|20)\d{2}\b", value)):
            return int(match.group(0))
    return None


def yaml_text(fields: dict[str, object], *keys: str) -> str | None:
    for key in keys:
        value = fields.get(key)
        if isinstance(value, (str, int)) and str(value).strip():
            return " ".join(str(value).split())
    return None


def yaml_doi(fields: dict[str, object]) -> str | None:
    value = yaml_text(fields, "doi")
    match = _DOI_VALUE.fullmatch(value) if value else None
    return clean_doi(match.group(1)) if match else None


def yaml_keywords(fields: dict[str, object]) -> list[str]:
    value = fields.get("keywords", fields.get("tags"))
    if isinstance(value, list):
        return [" ".join(str(item).split()) for item in value if str(item).strip()]
    return split_keywords(value) if isinstance(value, str) else []


def front_blocks(document: Document) -> list:
    """The blocks before the first section heading (level 2 or deeper), the title's heading after."""
    front = []
    for block in document.blocks:
        if block.kind is BlockKind.heading and (block.level or 1) >= 2:
            break
        front.append(block)
    return front


def byline(document: Document, rules: MetadataRules) -> list[str]:
    """The names of the first paragraph right after the title heading, where every part of it is a name."""
    front = front_blocks(document)
    for index, block in enumerate(front):
        if block.kind is BlockKind.heading and block.level == 1:
            following = front[index + 1] if index + 1 < len(front) else None
            if following is None or following.kind is not BlockKind.paragraph:
                return []
            text = document.text[following.char_start : following.char_end]
            if rules.affiliation_words.search(text):
                return []
            return split_names(text, rules) or []
    return []


def doi_line(document: Document) -> str | None:
    """A DOI on a line of its own before the first section (a DOI inside a sentence there may be
    another paper's: the one a correction corrects)."""
    for block in front_blocks(document):
        for line in document.text[block.char_start : block.char_end].splitlines():
            match = _DOI_LINE.match(line.strip())
            if match:
                return clean_doi(match.group(1))
    return None
