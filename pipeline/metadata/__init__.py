"""The paper metadata step: who wrote a paper, when and where, as the paper itself says it.

`paper_metadata(raw, document, rules)` runs after normalize, on the extraction (a PDF's own
metadata and its first page as read) and the normalized text (the title, the abstract's span).
Each field comes from the first source that has it, and says which (`MetadataSource`); nothing
is looked up or guessed, and a field no source gives is None. A PDF's own metadata is trusted
only where page 1 confirms it (producers write file names, user names and journal names there),
but for its DOI fields, which name the paper's DOI or nothing.
"""

from __future__ import annotations

import itertools

from pipeline.metadata import front_model, markdown_front, pdf_doi, pdf_front
from pipeline.metadata.embedded_authors import confirmed_authors, keys_as_filed
from pipeline.metadata.journal_line import journal_line
from pipeline.metadata.names import author_keys, letters
from pipeline.metadata.text_fields import abstract_span, keywords_block, labelled_dois, last_page_doi, rejoined_dois, year_in
from pipeline.records.base import SourceFormat
from pipeline.records.document import Document
from pipeline.records.extract import RawDocument
from pipeline.records.metadata import MetadataSource, PaperMetadata
from pipeline.normalize.characters import clean_characters
from pipeline.rules.metadata import MetadataRules

__all__ = ["paper_metadata"]

_FRONT_SHARE = 0.4
"""The share of a paper's text its keywords and abstract are sought in: a `Summary` heading near
the end is a conclusion's."""


def paper_metadata(raw: RawDocument, document: Document, rules: MetadataRules) -> PaperMetadata:
    """The paper's metadata, each field with its source."""
    fields = _pdf_fields(raw, document, rules) if raw.format is SourceFormat.pdf else _markdown_fields(document, rules)
    front_end = max(1, int(len(document.text) * _FRONT_SHARE))
    if "keywords" not in fields and (keywords := keywords_block(document, rules, front_end)):
        fields["keywords"] = (keywords, MetadataSource.heading)
    span = abstract_span(document, rules)
    if span is not None and span[0] < front_end:
        fields["abstract"] = (span, MetadataSource.heading)
    values: dict[str, object] = {}
    for name, (value, source) in fields.items():
        # A PDF's own metadata and its page 1 as read are not normalized text: their ligatures
        # (`ﬁ`) and odd spaces would keep a title from matching the entries that cite it.
        if name in ("title", "journal"):
            value = clean_characters(value)
        elif name == "authors":
            value = [clean_characters(author) for author in value]
        if name == "abstract":
            values.update(abstract_start=value[0], abstract_end=value[1], abstract_source=source)
        else:
            values.update({name: value, f"{name}_source": source})
    if values.get("authors"):
        values["author_keys"] = author_keys(values["authors"], rules)
        if raw.format is SourceFormat.pdf:
            values["author_keys"] = keys_as_filed(values["authors"], values["author_keys"], raw.embedded_metadata)
            values["author_keys"] = pdf_front.first_key_as_cited(values["author_keys"], raw.first_page, rules)
    return PaperMetadata(**values)


Found = dict[str, tuple[object, MetadataSource]]


def _pdf_fields(raw: RawDocument, document: Document, rules: MetadataRules) -> Found:
    embedded, lines = raw.embedded_metadata, raw.first_page
    found: Found = {}
    title = pdf_front.confirmed_title(embedded, lines, rules)
    printed = pdf_front.printed_title(lines, document.title, rules) if document.title else None
    if title is not None and printed and _cut_short(title[0], printed, lines):
        title = None
    if title is not None:
        found["title"] = title
    elif printed:
        found["title"] = (printed, MetadataSource.first_page)
    # The file's own list of several authors, every one printed on page 1, is the whole list in
    # order; a single name there is often only the corresponding author's, so the byline comes first.
    confirmed = confirmed_authors(embedded, lines, rules)
    names = pdf_front.byline(lines, document.title, rules)
    if not names and "title" in found and found["title"][0] != document.title:
        names = pdf_front.byline(lines, found["title"][0], rules)
    # A title the file's own metadata confirms stays; one read from page 1 may be a masthead.
    if not names and title is None:
        if (bylined := pdf_front.title_over_byline(lines, rules)) is not None:
            found["title"] = (bylined[0], MetadataSource.first_page)
            names = bylined[1]
    labelled = front_model.line_labels(lines, rules) if rules.front_model is not None else None
    if labelled is not None and (learned := front_model.model_byline(labelled, rules)):
        # The model's byline stands in only where the rules read none (front_model's docstring says why).
        if not names:
            names = learned
    if confirmed is not None and len(confirmed[0]) > 1 and not _reordered(names, confirmed[0], rules):
        found["authors"] = confirmed
    elif names:
        found["authors"] = (names, MetadataSource.first_page)
    elif confirmed is not None:
        found["authors"] = confirmed
    elif (filed := confirmed_authors(embedded, lines, rules, surname_first=True)) is not None:
        found["authors"] = filed
    if (year := pdf_front.year(lines, rules)) is not None:
        found["year"] = (year, MetadataSource.first_page)
    for name, value in (
        ("doi", pdf_doi.doi(embedded, lines, rules) or _model_doi(labelled)),
        ("journal", pdf_front.journal(embedded, lines)),
        ("volume", pdf_front.volume(embedded, lines)),
    ):
        if value is not None:
            found[name] = value
    if "doi" not in found and (printed := last_page_doi(document, rules)) is not None:
        found["doi"] = (printed, MetadataSource.last_page)
    if "doi" not in found and (running := labelled_dois(rejoined_dois("\n".join(raw.margin_rows)), rules)):
        found["doi"] = (running[0], MetadataSource.running_line)
    if (cited := journal_line(lines, found.get("year", (None, None))[0], rules)) is not None:
        found.setdefault("journal", (cited.journal, MetadataSource.first_page))
        found.setdefault("volume", (cited.volume, MetadataSource.first_page))
    if (keywords := pdf_front.embedded_keywords(embedded, rules)) is not None:
        found["keywords"] = keywords
    return found


def _reordered(names: list[str], confirmed: list[str], rules: MetadataRules) -> bool:
    """Whether the byline puts first another of the file's own authors than its list does (a
    producer may list the corresponding author first): the page's order is the paper's."""
    if not names:
        return False
    first, listed = author_keys(names, rules)[0], author_keys(confirmed, rules)
    return first in listed and first != listed[0]


def _cut_short(embedded: str, printed: str, lines) -> bool:
    """Whether the file's own title stops inside a row of the title page 1 prints (a producer cuts
    it at a glyph it cannot write, `… (LuminoMark` for `… (LuminoMark™) for …`): a title that
    page 1 carries on past a row's end (a subtitle) is not one cut short."""
    whole, cut = letters(printed), letters(embedded)
    found = pdf_front.title_rows(lines, printed)
    if not cut or not whole.startswith(cut) or len(whole) == len(cut) or found is None:
        return False
    ends = itertools.accumulate(len(letters(pdf_front.row_text(row))) for row in pdf_front.rows(lines)[found[0] : found[1] + 1])
    return len(cut) not in set(ends)


def _model_doi(labelled) -> tuple[str, MetadataSource] | None:
    doi = front_model.model_doi(labelled) if labelled is not None else None
    return (doi, MetadataSource.first_page) if doi else None


def _markdown_fields(document: Document, rules: MetadataRules) -> Found:
    yaml = markdown_front.yaml_fields(document)
    front = MetadataSource.front_matter
    from_yaml = MetadataSource.yaml_front_matter
    found: Found = {}
    if title := markdown_front.yaml_title(yaml):
        found["title"] = (title, from_yaml)
    elif document.title:
        found["title"] = (document.title, front)
    if names := markdown_front.yaml_authors(yaml):
        found["authors"] = (names, from_yaml)
    elif names := markdown_front.byline(document, rules):
        found["authors"] = (names, front)
    if (year := markdown_front.yaml_year(yaml)) is not None:
        found["year"] = (year, from_yaml)
    else:
        blocks = markdown_front.front_blocks(document)
        lines = [line for block in blocks for line in document.text[block.char_start : block.char_end].splitlines()]
        if (year := year_in(lines, rules)) is not None:
            found["year"] = (year, front)
    if doi := markdown_front.yaml_doi(yaml):
        found["doi"] = (doi, from_yaml)
    elif doi := markdown_front.doi_line(document):
        found["doi"] = (doi, front)
    if journal := markdown_front.yaml_text(yaml, "journal", "venue", "container-title", "publication", "booktitle"):
        found["journal"] = (journal, from_yaml)
    if volume := markdown_front.yaml_text(yaml, "volume"):
        found["volume"] = (volume, from_yaml)
    if keywords := markdown_front.yaml_keywords(yaml):
        found["keywords"] = (keywords, from_yaml)
    return found
