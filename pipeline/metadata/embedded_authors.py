"""The authors a PDF's own metadata names (document information, XMP), where page 1 confirms
them: producers write their own name, a user name or `{et al.}` there, and some write each name
surname first (`De Souza, Ana; Chen, Bo`), which says where the surname starts as no byline does."""

from __future__ import annotations

from pipeline.metadata.names import letters, split_names
from pipeline.metadata.pdf_front import page_text
from pipeline.records.extract import FrontLine
from pipeline.records.metadata import MetadataSource
from pipeline.rules.metadata import MetadataRules

_KEYS = (("xmp:dc:creator", MetadataSource.xmp), ("info:author", MetadataSource.pdf_metadata))


def confirmed_authors(
    embedded: dict[str, str], lines: list[FrontLine], rules: MetadataRules, *, surname_first: bool = False
) -> tuple[list[str], MetadataSource] | None:
    """The file's own author list where every name's surname is printed on page 1; with
    `surname_first`, a list that writes each surname first (`Silva, Ana; Chen, Bo`), given as
    `Ana Silva`: a byline, where page 1 has one, names the authors as printed."""
    printed = letters(" ".join(page_text(lines)))
    for key, source in _KEYS:
        value = embedded.get(key, "")
        if not value or "et al" in value:
            continue
        filed = surnames_first(value) if surname_first else None
        names = [f"{given} {surname}" for given, surname in filed] if filed else None if surname_first else split_names(value, rules)
        surnames = [surname for _, surname in filed] if filed else [name.split()[-1] for name in names or ()]
        if names and all(letters(surname) in printed for surname in surnames):
            return names, source
    return None


def surnames_first(value: str) -> list[tuple[str, str]] | None:
    """A list of names written surname first, parted by semicolons (`De Souza, Ana; Chen, Bo`), as
    (given names, surname) pairs; None where any part is not one surname, a comma and given names."""
    pairs = []
    for part in value.split(";"):
        pieces = [" ".join(piece.split()) for piece in part.split(",")]
        if len(pieces) != 2 or not all(pieces) or any(ch.isdigit() or ch in "&<>" for ch in part):
            return None
        pairs.append((pieces[1], pieces[0]))
    return pairs or None


def keys_as_filed(names: list[str], keys: list[str], embedded: dict[str, str]) -> list[str]:
    """`keys` with each name's key taken from the file's own list where that writes the same name
    surname first: `Ana De Souza` is keyed `desouza` where the file files her as `De Souza, Ana`,
    which the byline's capitals alone cannot say."""
    filed = {}
    for key, _ in _KEYS:
        for given, surname in surnames_first(embedded.get(key, "")) or ():
            filed.setdefault(letters(f"{given} {surname}"), letters(surname))
    return [filed.get(letters(name), key) for name, key in zip(names, keys)]
