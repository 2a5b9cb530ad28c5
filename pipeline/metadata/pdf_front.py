"""A PDF's metadata: what page 1 prints (the byline under the title, a labelled DOI, the year's
cues), with the file's own metadata (document information, XMP) where page 1 confirms it or
where it is a field no page prints in a form to read (a DOI the XMP names as the paper's: `pdf_doi`)."""

from __future__ import annotations

import re

from pipeline.metadata.names import letters, split_names, without_superscripts
from pipeline.metadata.text_fields import split_keywords, year_in
from pipeline.records.extract import FrontLine
from pipeline.records.metadata import MetadataSource
from pipeline.rules.metadata import MetadataRules

_SAME_ROW = 2.0
"""Points between the tops of two pieces of one printed row (a name beside a name), at least."""
_RAISED_SHARE = 0.25
"""Of the smaller of two pieces' sizes, how far apart their tops may be in one row: PyMuPDF may
set a name whose marks are raised (`Seshadri,‡`) a few points above the names beside it."""
_NEXT_LINE_STEP = 1.8
"""Font sizes from a line's top to the top of the line printed under it, at most."""
_LABEL_MAX_WORDS = 3
"""Words in a label that a value is printed under (`Published online`)."""
_TITLE_LINE_STEP = 1.6
"""Font sizes from one title row's top to the next's, at most: titles are set with a leading of
1.2 to 1.5 sizes."""
_TITLE_SHARE = 0.6
"""Of the extractor's title's letters, the share its own lines must spell to stand for it."""
_CITED_SURNAME = re.compile(r"(?P<surname>[^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*){0,3}?),\s*(?-i:[A-Z])\.")
"""A citation's first author as `Surname, I.`."""
_CITED_INITIALS_AFTER = re.compile(r"(?P<surname>[^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*){0,3}?)\s+(?-i:[A-Z]{1,3})(?=[,;]|\s+(?:and|&)\s)")
"""A citation's first author as `Surname IN,` (`Gutiérrez Macías P, Chen B`)."""
_ET_AL = re.compile(r"\bet\s+al\b", re.IGNORECASE)


def rows(lines: list[FrontLine]) -> list[list[FrontLine]]:
    """Page 1's lines gathered into printed rows, top to bottom, each row left to right."""
    gathered: list[list[FrontLine]] = []
    for line in sorted(lines, key=lambda line: (line.y0, line.x0)):
        if gathered and abs(gathered[-1][0].y0 - line.y0) <= max(_SAME_ROW, _RAISED_SHARE * min(gathered[-1][0].size, line.size)):
            gathered[-1].append(line)
        else:
            gathered.append([line])
    return [sorted(row, key=lambda line: line.x0) for row in gathered]


def row_text(row: list[FrontLine]) -> str:
    return " ".join(line.text for line in row)


def page_text(lines: list[FrontLine]) -> list[str]:
    """Page 1 as rows of text, top to bottom."""
    return [row_text(row) for row in rows(lines)]


def title_rows(lines: list[FrontLine], title: str) -> tuple[int, int] | None:
    """The first and last row index of page 1 that print `title`: a run of rows whose letters
    together spell it."""
    target = letters(title)
    if not target:
        return None
    printed = [letters(row_text(row)) for row in rows(lines)]
    for first, text in enumerate(printed):
        if not text or not target.startswith(text[: max(1, min(len(text), 12))]):
            continue
        spelt = ""
        for last in range(first, len(printed)):
            spelt += printed[last]
            if spelt == target or (len(spelt) >= len(target) and spelt.startswith(target)):
                return first, last
            if not target.startswith(spelt):
                break
    return None


def printed_title(lines: list[FrontLine], title: str, rules: MetadataRules) -> str:
    """The title as page 1 prints it. Where the extractor's title spells no run of rows (a label
    set beside it, `ORIGINAL`, was read into it), it is the lines of one size whose text is all
    part of the title, in order, where they spell most of it (`_TITLE_SHARE`) in one stretch.
    Where it ends on a word no title ends on, the rows that carry it on are added."""
    if (found := title_rows(lines, title)) is not None:
        printed = rows(lines)
        title, last = _carried_on(title, printed, found[1], rules.title_min_size * _usual_size(lines), rules)
        return _without_end_mark(title, printed[last])
    best = _title_lines(lines, title)
    spelt = "".join(letters(line.text) for line in best)
    if best and len(spelt) >= _TITLE_SHARE * len(letters(title)):
        return " ".join(" ".join(line.text.split()) for line in best)
    return title


def _carried_on(title: str, printed: list[list[FrontLine]], last: int, large: float, rules: MetadataRules) -> tuple[str, int]:
    """`title` with the rows under its `last` row that carry it on, and the index of its new last
    row: while it ends on one of `title_unfinished_words`, the row right under (within a title's
    leading) in large print, whatever its face or size (an italic species name, a last row set
    smaller), that is no byline."""
    while last + 1 < len(printed):
        words = re.findall(r"[^\W\d_]+", title.casefold())
        row, under = printed[last], printed[last + 1]
        size = max(line.size for line in row)
        if not words or words[-1] not in rules.title_unfinished_words or max(line.size for line in under) < large:
            break
        if not 0 < under[0].y0 - row[0].y0 <= _TITLE_LINE_STEP * size or split_names(_names_row(under, rules), rules) is not None:
            break
        title = f"{title.rstrip()} {' '.join(' '.join(line.text.split()) for line in under)}"
        last += 1
    return title, last


def _without_end_mark(title: str, last_row: list[FrontLine]) -> str:
    """`title` without the note mark its last row ends in, where the mark is raised (`…trial¹`,
    `…trial*` pointing at a footnote) or a note sign: a title cited elsewhere has none."""
    last = last_row[-1]
    text = last.text.rstrip()
    raised = [(begin, end) for begin, end in last.superscripts if end >= len(text) and begin < len(text)]
    mark = text[raised[0][0] :] if raised else re.search(r"[*∗†‡§¶☆★]*$", text)[0]
    stripped = title.rstrip()
    if mark.strip() and stripped.endswith(mark.strip()) and len(mark.strip()) < len(stripped):
        return stripped[: -len(mark.strip())].rstrip()
    return title


def _title_lines(lines: list[FrontLine], title: str) -> list[FrontLine]:
    """The lines of one size whose text is all part of `title`, in order, that spell the most of
    it in one stretch; none where they spell no part of it."""
    target = letters(title)
    by_size: dict[float, list[FrontLine]] = {}
    for line in sorted(lines, key=lambda line: (line.y0, line.x0)):
        spelt = letters(line.text)
        if len(spelt) >= 3 and spelt in target:
            by_size.setdefault(round(line.size * 2) / 2, []).append(line)
    best = max(by_size.values(), key=lambda found: sum(len(letters(line.text)) for line in found), default=[])
    return best if "".join(letters(line.text) for line in best) in target else []


def byline(lines: list[FrontLine], title: str | None, rules: MetadataRules) -> list[str]:
    """The authors printed in the first rows under the title whose every part is a name: rows
    between (a translated title, a section label) are passed over, up to `byline_search_rows`,
    and so are rows in smaller print than most of the page's (an editor named in a side column).
    A name cut by the end of a row (`…, Maria` / `Okafor3 and Li Wei2`) is read across it. Where
    the page's rows give none, the rows of the title's own column are read: a side column set
    beside the title (editor, dates) shares its rows and pushes the byline out of reach. Where
    neither gives one, the rows right over the title (`_byline_over`)."""
    if not title:
        return []
    return _byline_under(lines, title, rules) or _byline_over(lines, title, rules.byline_min_size * _usual_size(lines), rules)


def _byline_under(lines: list[FrontLine], title: str, rules: MetadataRules) -> list[str]:
    least_size = rules.byline_min_size * _usual_size(lines)
    names = _byline_in(lines, title, least_size, rules)
    if not names and (column := _title_column(lines, title)) and len(column) < len(lines):
        names = _byline_in(column, title, least_size, rules)
    return names


def _byline_over(lines: list[FrontLine], title: str, least_size: float, rules: MetadataRules) -> list[str]:
    """The byline some journals print over the title, where none is under it: the run of rows
    right above the title (within `byline_search_rows`, in a byline's print) whose every part is
    a name and no affiliation or date (`Received 3 May 2020`), several names or one with an
    author's mark glued to it (a label over a title, `Original Article`, reads as one unmarked
    name)."""
    found = title_rows(lines, title)
    if found is None:
        return []
    printed = rows(lines)
    run: list[list[FrontLine]] = []
    for row in reversed(printed[max(0, found[0] - rules.byline_search_rows) : found[0]]):
        text = _names_row(row, rules)
        if max(line.size for line in row) < least_size or rules.affiliation_words.search(text) or split_names(text, rules) is None:
            if run:
                break
            continue
        run.insert(0, row)
    names = split_names(" ".join(_names_row(row, rules) for row in run), rules) if run else None
    if not names or _ET_AL.search(" ".join(row_text(row) for row in run)):
        return []
    marked = any(line.superscripts or re.search(r"[^\W\d_][\d*∗†‡§¶]", line.text) for row in run for line in row)
    return names if len(names) > 1 or marked else []


def title_over_byline(lines: list[FrontLine], rules: MetadataRules) -> tuple[str, list[str]] | None:
    """The title that a byline is printed under, with the byline: of the runs of rows in large
    print (`title_min_size` of page 1's usual size, `title_min_words` words or more), the largest
    that has one. A journal's name set larger than the title in a masthead has none."""
    least_size = rules.title_min_size * _usual_size(lines)
    runs: list[tuple[float, list[str]]] = []
    for row in rows(lines):
        large = [line for line in row if line.size >= least_size]
        if not large:
            runs.append((0.0, []))
            continue
        size = round(max(line.size for line in large) * 2) / 2
        text = " ".join(" ".join(line.text.split()) for line in large if round(line.size * 2) / 2 == size)
        if runs and runs[-1][0] == size:
            runs[-1][1].append(text)
        else:
            runs.append((size, [text]))
    found = None
    for size, texts in runs:
        title = " ".join(texts)
        if len(title.split()) < rules.title_min_words or (found and found[0] >= size):
            continue
        if names := _byline_under(lines, title, rules):
            found = (size, title, names)
    return (found[1], found[2]) if found else None


def _title_column(lines: list[FrontLine], title: str) -> list[FrontLine]:
    """The lines of page 1 that start no further left than the title's lines."""
    printed = _title_lines(lines, title)
    if not printed:
        return []
    left = min(line.x0 for line in printed)
    return [line for line in lines if line.x0 >= left - _SAME_ROW]


def _byline_in(lines: list[FrontLine], title: str, least_size: float, rules: MetadataRules) -> list[str]:
    found = title_rows(lines, title)
    if found is None:
        return []
    # The byline starts within byline_search_rows of the title and may run on past them.
    following = rows(lines)[found[1] + 1 : found[1] + 1 + rules.byline_search_rows + rules.byline_max_lines]
    placed = [(position, row) for position, row in enumerate(following) if max(line.size for line in row) >= least_size]
    # A row in a title's print that smaller print sets apart from `title` is a title of its own,
    # and the byline under it is its: `title` is then a masthead (a journal's name set larger,
    # then its address and a DOI). A translated title follows its title directly. A row of names
    # is a byline, whatever its print (`Yunxia Chen, MB, …` in 10.5 points on a 9-point page,
    # under a mark set apart in smaller print).
    title_size = rules.title_min_size * _usual_size(lines)
    for index, (position, row) in enumerate(placed):
        if (
            position > index
            and max(line.size for line in row) >= title_size
            and len(row_text(row).split()) >= rules.title_min_words
            and split_names(_names_row(row, rules), rules) is None
        ):
            placed = placed[:index]
            break
    under = [row for _, row in placed]
    # A row that ends on an author's mark ends a name: the row under opens the next (one name a row).
    candidates = [_names_row(row, rules) + ("," if _ends_on_mark(row) else "") for row in under]
    names: list[str] = []
    texts: list[str] = []
    index = 0
    while index < len(candidates):
        if not names and placed[index][0] >= rules.byline_search_rows:
            break
        text = candidates[index]
        if _ET_AL.search(text):
            return []  # a list of related articles' authors: a byline names every author
        if rules.affiliation_words.search(text):
            break
        taken = 1
        parsed = split_names(" ".join([*texts, text]), rules)
        if parsed is None and index + 1 < len(candidates) and not rules.affiliation_words.search(candidates[index + 1]):
            parsed = split_names(" ".join([*texts, text, candidates[index + 1]]), rules)
            taken = 2
        if parsed is not None and not names and len(parsed) == 1 and not _marked(under[index]) and not _affiliation_follows(following, placed[index][0] + 1, rules):
            parsed = None  # one name with no affiliation mark reads as well as a short heading, unless an affiliation follows it
        if parsed is None:
            if names:
                break
            index += 1
            continue
        texts.extend(candidates[index : index + taken])
        names = parsed
        index += taken
        if len(texts) >= rules.byline_max_lines:
            break
    return names


def _affiliation_follows(rows_under: list[list[FrontLine]], index: int, rules: MetadataRules) -> bool:
    """Whether the row at `index`, in any print, is an affiliation: a lone author's, set under the
    name with no mark."""
    return index < len(rows_under) and bool(rules.affiliation_words.search(row_text(rows_under[index])))


def _marked(row: list[FrontLine]) -> bool:
    """Whether a row carries an author's marks: superscripts, or digits or note signs after a word."""
    return any(line.superscripts or re.search(r"\w[\d*∗†‡]", line.text) for line in row)


def _ends_on_mark(row: list[FrontLine]) -> bool:
    """Whether a row's last piece ends on an affiliation mark: a superscript, or digits or a note
    sign glued to its last word."""
    last = row[-1]
    text = last.text.rstrip()
    return any(end >= len(text) > begin for begin, end in last.superscripts) or bool(re.search(r"[^\W\d_][\d,*∗†‡§¶]*[\d*∗†‡§¶]$", text))


def _usual_size(lines: list[FrontLine]) -> float:
    """The size that carries the most of page 1's characters."""
    weights: dict[float, int] = {}
    for line in lines:
        weights[round(line.size * 2) / 2] = weights.get(round(line.size * 2) / 2, 0) + len(line.text)
    return max(weights, key=weights.__getitem__) if weights else 0.0


def _names_row(row: list[FrontLine], rules: MetadataRules) -> str:
    """A row's text with its superscripts out. PyMuPDF reads a byline row as one line; pieces of
    one row are names set side by side in columns, parted by a comma. A label beside them
    (`Abstract` opening a side column) is left out."""
    pieces = [without_superscripts(line.text, line.superscripts) for line in row]
    return " , ".join(piece for piece in pieces if not rules.abstract_heading.fullmatch(piece.strip().casefold()))


def first_key_as_cited(keys: list[str], lines: list[FrontLine], rules: MetadataRules) -> list[str]:
    """`keys` with the first one as page 1's citation of the paper cites it, where either ends the
    other: the particles a byline sets before a surname (`dos Santos`, `Al Khatib`) belong to it in
    some languages and not in others, and a surname may be two words (`Gutiérrez Macías`); the
    paper's own citation (`Santos, L. L. S.; …`, `Gutiérrez Macías P, …`) says which."""
    for text in page_text(lines):
        label = rules.cite_as_label.search(text)
        if label is None:
            continue
        cited = _CITED_SURNAME.match(text[label.end() :]) or _CITED_INITIALS_AFTER.match(text[label.end() :])
        key = letters(cited["surname"]) if cited else ""
        if key and keys and keys[0] != key and (keys[0].endswith(key) or key.endswith(keys[0])):
            return [key, *keys[1:]]
        return keys
    return keys


def confirmed_title(embedded: dict[str, str], lines: list[FrontLine], rules: MetadataRules) -> tuple[str, MetadataSource] | None:
    """The file's own title where it has enough words and page 1 prints it."""
    printed = letters(" ".join(page_text(lines)))
    for key, source in (("xmp:dc:title", MetadataSource.xmp), ("info:title", MetadataSource.pdf_metadata)):
        title = embedded.get(key, "")
        if len(title.split()) >= rules.title_min_words and letters(title) and letters(title) in printed:
            return title, source
    return None


def year(lines: list[FrontLine], rules: MetadataRules) -> int | None:
    """The year of the first cue that matches a row of page 1, or a label with the date printed
    under it (`Published` / `3 March 2021` in a side column)."""
    return year_in([*page_text(lines), *labels_over_values(lines)], rules)


def labels_over_values(lines: list[FrontLine]) -> list[str]:
    """Each short label of page 1 without digits joined with the line set right under it at the
    same left edge: a side column prints `Received`, then the date, on rows of their own."""
    joined = []
    for label in lines:
        if len(label.text.split()) > _LABEL_MAX_WORDS or any(ch.isdigit() for ch in label.text):
            continue
        under = [
            line for line in lines
            if abs(line.x0 - label.x0) <= _SAME_ROW and 0 < line.y0 - label.y0 <= _NEXT_LINE_STEP * label.size
        ]
        if under:
            joined.append(f"{label.text.strip()} {min(under, key=lambda line: line.y0).text.strip()}")
    return joined


def journal(embedded: dict[str, str], lines: list[FrontLine]) -> tuple[str, MetadataSource] | None:
    """The XMP's publication name, or the journal a document information's subject opens
    (`Nanoscale Research Letters, 2017, doi:…`), where page 1 prints it."""
    printed = letters(" ".join(page_text(lines)))
    name = embedded.get("xmp:prism:publicationName", "")
    if len(letters(name)) >= 4 and letters(name) in printed:
        return name, MetadataSource.xmp
    subject = re.match(r"^([^\d,;:]{4,}?)[,;]?\s+(?:(?:19|20)\d{2}\b|doi\b)", embedded.get("info:subject", ""), re.IGNORECASE)
    if subject and letters(subject.group(1)) in printed:
        return subject.group(1).strip(" ,"), MetadataSource.pdf_metadata
    return None


def volume(embedded: dict[str, str], lines: list[FrontLine]) -> tuple[str, MetadataSource] | None:
    """The volume page 1 prints after `Vol.` or `Volume`; else the XMP's, where page 1 prints it so."""
    for text in page_text(lines):
        match = re.search(r"\bvol(?:ume)?\.?\s*(\d{1,4})\b", text, re.IGNORECASE)
        if match:
            return match.group(1), MetadataSource.first_page
    return None


def embedded_keywords(embedded: dict[str, str], rules: MetadataRules) -> tuple[list[str], MetadataSource] | None:
    """The document information's keywords, unless they are a DOI or a URL (producers put those there)."""
    value = embedded.get("info:keywords", "")
    if value and not rules.doi.search(value) and "http" not in value:
        return split_keywords(value), MetadataSource.pdf_metadata
    return None
