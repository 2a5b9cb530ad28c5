"""What the BM25 index counts of a chunk: its terms, tokenized, stopped and stemmed exactly as
DuckDB's fts extension would with this pipeline's settings, but in Python, so that pool workers
compute them in parallel and the index grows paper by paper instead of being rebuilt in full.

fts' `create_fts_index` lowers, strips accents, replaces every run of characters outside its
`ignore` pattern with a space, splits on whitespace, drops its English stopwords and applies the
Porter stemmer. `count_paper_terms` does the same with the same stopword list and Snowball's own Porter
stemmer (PyStemmer is the C library fts bundles), and `tests/index/test_terms.py` checks the scores
against fts' `match_bm25` where the extension is installed.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING

import Stemmer

from pipeline.index.stopwords import STOPWORDS
from pipeline.index.unmarked import text_to_index

if TYPE_CHECKING:  # only named in hints: the search imports this module, and needs no records
    from pipeline.records.chunked import ChunkedDocument
    from pipeline.records.chunks import Chunk, Paragraph

# Every run of letters and digits of any script, `-` and `/`: fts with `ignore` set to
# `[^\p{L}\p{N}/-]+`, so `IL-6`, `p53`, `CO2`, `FDG-PET/CT` and `정확도` stay whole terms (fts'
# default keeps only a–z). `\w` also holds `_`, which is replaced first: one character class
# scans faster than an alternation.
_TOKEN = re.compile(r"[\w/-]+")
# Tried only where a word starts: from inside one, a long word before `-/` is read again at
# every later letter, which grows with the square of the word's length.
_COMPOUND = re.compile(r"(?<![^\W_])[^\W_]+(?:[-/][^\W_]+)+")
_PART = re.compile(r"[^\W_]+")
# Scripts written without spaces between words and particles (Korean `정확도가`, Chinese,
# Japanese): their words are also indexed as character bigrams, the usual way to make them
# findable without a dictionary.
_UNSPACED = r"[\uac00-\ud7a3\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]"
UNSPACED_SCRIPT = re.compile(_UNSPACED + "{2,}")
_UNSPACED_CHARACTER = re.compile(_UNSPACED)
_ASCII = bytes(range(0x80))


def search_terms(text: str) -> str:
    """The text plus the parts of every compound term (so `PET` also finds `FDG-PET/CT`) and
    the bigrams of unspaced scripts (so `정확도` finds `정확도가`): what the index reads, as text.
    `index_words` gives the same words without building the text."""
    parts = compound_parts(text.split()) + _bigrams(text)
    return f"{text} {' '.join(parts)}" if parts else text


def index_words(text: str) -> list[str]:
    """The words the index counts in a text, before stopping and stemming: fts' tokens of
    `search_terms(text)`, lowered and with accents stripped."""
    return [strip_accents(word) for word in lowered_words(text)]


# A text's words in three lists, as `_word_lists` gives them (or their stems).
WordLists = tuple[list[str], list[str], list[str]]


def lowered_words(text: str) -> list[str]:
    """The words the index counts in a text, lowered, accents kept (`index_words` strips them):
    the tokens, their compounds' parts, the bigrams of unspaced scripts."""
    tokens, parts, bigrams = _word_lists(text)
    return tokens + parts + bigrams


def _word_lists(text: str) -> WordLists:
    """`lowered_words(text)` in its three parts: the tokens, their compounds' parts, the bigrams."""
    lowered, beyond_ascii = _lowered(text)
    spaced = _spaced(lowered, beyond_ascii)  # `_` a separator too, as `_spaced` blanks it
    return spaced.split(), compound_parts(_joined_tokens(spaced)), _bigrams(lowered, beyond_ascii)


_CAPITAL_SIGMA = "\u03a3"


def _lowered(text: str) -> tuple[str, str]:
    """`text.lower()`, and its characters beyond ASCII (`_beyond_ascii`). A text beyond ASCII is
    lowered in its UTF-8 bytes, where only the ASCII letters change, and then each of its distinct
    characters beyond ASCII that has a lower case is replaced by it (lowering is idempotent, so
    no replacement undoes another): `str.lower` looks every character of such a text up in
    Unicode's tables, which costs several times as much. A capital sigma, whose lower case
    depends on its neighbours, leaves the text to `str.lower`."""
    if text.isascii():
        return text.lower(), ""
    encoded = text.encode()
    beyond_ascii = encoded.translate(None, _ASCII).decode()
    if _CAPITAL_SIGMA in beyond_ascii:
        lowered = text.lower()
        return lowered, _beyond_ascii(lowered)
    lowered = encoded.lower().decode()
    capitals = [character for character in set(beyond_ascii) if character.lower() != character]
    for character in capitals:
        lowered = lowered.replace(character, character.lower())
    return lowered, _beyond_ascii(lowered) if capitals else beyond_ascii


def _beyond_ascii(text: str) -> str:
    """The text's characters beyond ASCII, in order, repeats kept: its UTF-8 bytes with the ASCII
    bytes deleted. Both `_spaced` and `_bigrams` look only at these; `bytes.translate` finds them
    many times faster than `re` scans a text for a set of characters."""
    return "" if text.isascii() else text.encode().translate(None, _ASCII).decode()


def _separate_at(text: str, offset: int) -> bool:
    """Whether `text` may be cut at `offset` and each side's words read alone: whitespace on one
    side splits tokens and unspaced runs there, and ends the context that `str.lower` reads to
    write a Greek final sigma (whitespace is neither cased nor case-ignorable)."""
    return offset in (0, len(text)) or text[offset - 1].isspace() or text[offset].isspace()


# Bytes table: ASCII characters outside `_TOKEN` become spaces; letters, digits, `/`, `-` and
# every byte of a non-ASCII character stay.
_ASCII_SEPARATORS = bytes(
    byte if byte >= 0x80 or chr(byte).isalnum() or chr(byte) in "/-" else 0x20 for byte in range(256)
)


def _tokens(text: str) -> list[str]:
    """`_TOKEN.findall(text)` for a text without `_`, in the same order (see `_spaced`)."""
    return _spaced(text).split()


def _spaced(text: str, beyond_ascii: str | None = None) -> str:
    """`text` with every character outside `_TOKEN`, and `_`, a space: the non-ASCII characters
    that are no word characters (`–`, `’`, `×`, most of the non-ASCII characters chunks hold)
    become spaces, then ASCII separators are blanked in the UTF-8 bytes, which costs less than
    running the pattern on each token that holds a non-ASCII character (docs/performance.md).
    `beyond_ascii` is `_beyond_ascii(text)` where the caller has it."""
    # `\w` is what str.isalnum() says, and `_` is gone: these are all of the text's separators.
    for character in set(_beyond_ascii(text) if beyond_ascii is None else beyond_ascii):
        if not character.isalnum():
            text = text.replace(character, " ")
    return text.encode().translate(_ASCII_SEPARATORS).decode()


def _joined_tokens(spaced: str) -> list[str]:
    """The tokens of `_spaced`'s text that hold a `-` or `/`, in order: found from the joiners
    themselves, a few a text, rather than by testing every token, and looked for as one literal
    character (`str.find`), which scans a text many times faster than `re` scans for a set of
    two. The text's only whitespace is the space."""
    marked = spaced.replace("/", "-") if "/" in spaced else spaced
    found = []
    at = marked.find("-")
    while at >= 0:
        start = spaced.rfind(" ", 0, at) + 1
        end = spaced.find(" ", at)
        if end < 0:
            end = len(spaced)
        found.append(spaced[start:end])
        at = marked.find("-", end)
    return found


def compound_parts(tokens: list[str]) -> list[str]:
    """`FDG-PET/CT` → `FDG`, `PET`, `CT`."""
    # Only tokens holding `-` or `/` can hold a compound: looking there alone spares the compound
    # pattern a try at every position of the text.
    return [
        part
        for token in tokens
        if "-" in token or "/" in token
        for compound in _COMPOUND.findall(token)
        for part in _PART.findall(compound)
    ]


def _bigrams(text: str, beyond_ascii: str | None = None) -> list[str]:
    """The character bigrams of the text's runs of unspaced scripts; `beyond_ascii` is
    `_beyond_ascii(text)` where the caller has it."""
    # Looking for one such character among the few beyond ASCII first skips the texts without any
    # sooner than the pattern itself would (most texts hold some non-ASCII character).
    if not _UNSPACED_CHARACTER.search(_beyond_ascii(text) if beyond_ascii is None else beyond_ascii):
        return []
    return [run[index : index + 2] for run in UNSPACED_SCRIPT.findall(text) for index in range(len(run) - 1)]


def strip_accents(word: str) -> str:
    """`Ångström` → `Angstrom`. Stripping a word after splitting equals fts' stripping the text
    before splitting, since a mark is no word character and normalize leaves text in NFC, where
    accented letters are single characters."""
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFD", word)
    return unicodedata.normalize("NFC", "".join(c for c in decomposed if not unicodedata.combining(c)))


@dataclass(frozen=True)
class UnitTerms:
    """One chunk's or paragraph's postings: its distinct terms and how often each occurs."""

    unit_id: str
    """The chunk_id, or the paragraph_key (`{doc_id}:{paragraph_id}`)."""
    terms: tuple[str, ...]
    frequencies: tuple[int, ...]

    @property
    def term_count(self) -> int:
        """The unit's length as BM25 counts it: terms, stopwords excluded."""
        return sum(self.frequencies)


class _Stems(dict[str, "str | None"]):
    """Word → its stem, None for a stopword: a word looked up for the first time is stripped and
    stemmed then. Most of a paper's words were seen in earlier papers, so looking each up as it
    comes costs less than first gathering the paper's vocabulary into a set to learn it in one call."""

    def __init__(self, stemmer: Stemmer.Stemmer) -> None:
        super().__init__()
        self._stem_word = stemmer.stemWord

    def __missing__(self, word: str) -> str | None:
        bare = strip_accents(word)
        # An accented stopword (`à` for `a`) is one too.
        stem = None if word in STOPWORDS or bare in STOPWORDS else self._stem_word(bare)
        self[word] = stem
        return stem


class TermCounter:
    """Counts index terms. It remembers each word's stem, since papers repeat most of their
    words and stemming them one by one was most of the cost. Not for sharing between threads:
    neither is its stemmer."""

    def __init__(self) -> None:
        # PyStemmer's own cache is off: words reach it once each, and keeping it costs more than the stemming.
        self._stemmer = Stemmer.Stemmer("porter", 0)
        self._stems = _Stems(self._stemmer)

    @property
    def remembered(self) -> int:
        return len(self._stems)

    def learn(self, words: set[str]) -> None:
        """Strip and stem the words not seen yet, in one call; a stopword's stem is None."""
        new = list(words.difference(self._stems))
        if not new:
            return
        stripped = [strip_accents(word) for word in new]
        self._stems.update(zip(new, self._stemmer.stemWords(stripped)))
        # Set operations find the stopwords without a test per word: learning a paper's words
        # is a large share of counting its terms.
        for word in STOPWORDS.intersection(new):
            self._stems[word] = None
        for word, bare in zip(new, stripped):
            if word is not bare and bare in STOPWORDS:  # an accented stopword, `à` for `a`
                self._stems[word] = None

    def count_learned(self, words: list[str]) -> Counter[str]:
        """Term frequencies of words that were all learned."""
        counts = Counter(map(self._stems.__getitem__, words))
        counts.pop(None, None)
        return counts

    def stems_of(self, words: list[str]) -> list[str | None]:
        """The stems of words, None for a stopword's; a word not learned yet is learned on the way."""
        return list(map(self._stems.__getitem__, words))

    def count(self, *texts: str) -> Counter[str]:
        """Term frequencies over all `texts` together (a chunk's heading path and its text)."""
        words = [word for text in texts for word in lowered_words(text)]
        self.learn(set(words))
        return self.count_learned(words)

    def query_terms(self, query: str) -> list[str]:
        """The distinct stemmed terms of a query. Stopwords are kept, as fts keeps them: they
        match nothing, since the index never holds them, unless they share a stem with a word
        that is not one (`value`, a stopword, and `values`)."""
        return sorted(set(self._stemmer.stemWords(index_words(query))))

    def stem_words(self, words: list[str]) -> list[str]:
        """The Porter stems of `words` (folded as `index_words` folds them), stopwords stemmed too."""
        return self._stemmer.stemWords(words)

    def forget(self) -> None:
        """Forget every stem learned: they are learned again as the words come."""
        self._stems.clear()


# A caller counts all the papers of a worker (or a run) with one counter, since papers share most
# of their words (docs/performance.md); a counter past this many words forgets them before the
# next paper, so a worker's memory stays flat however many papers it reads.
REMEMBERED_WORDS = 100_000


@dataclass(frozen=True)
class PaperTerms:
    """A paper's postings: one for each chunk and one for each paragraph, in their order."""

    chunks: tuple[UnitTerms, ...]
    paragraphs: tuple[UnitTerms, ...]


def paragraph_key(doc_id: str, paragraph_id: str) -> str:
    """A paragraph's key across papers: a doc_id never holds `:`, which it writes `%3A`."""
    return f"{doc_id}:{paragraph_id}"


def table_cells_text(chunked: ChunkedDocument) -> dict[str, str]:
    """The cells' texts of each table that has a chunk, by chunk id, one line a row: what the
    index counts with the chunk's own text."""
    texts = {}
    for table in chunked.tables:
        if table.chunk_id is not None and table.cells:
            rows: dict[int, list[str]] = {}
            for cell in table.cells:
                if cell.text:
                    rows.setdefault(cell.row, []).append(cell.text)
            texts[table.chunk_id] = "\n".join(" ".join(row) for _, row in sorted(rows.items()))
    return texts


def count_paper_terms(chunked: ChunkedDocument, counter: TermCounter) -> PaperTerms:
    """The postings of every chunk of a paper (terms of its heading path and its text, and a table
    chunk's cells: `table_cells_text`), and of every paragraph (its section's heading path and its
    text), the text as `text_to_index` gives it: without the numbers that only point into the
    bibliography. `counter` is the caller's, one for all the papers it counts."""
    if counter.remembered > REMEMBERED_WORDS:
        counter.forget()
    text = text_to_index(chunked)
    section_paths = {section.section_id: tuple(section.heading_path) for section in chunked.sections}
    paragraphs = {p.paragraph_id: p for p in chunked.paragraphs}
    # A chunk's text is its paragraphs' and the headings between them: each paragraph's words are
    # read and stemmed once, and a chunk's counted from its pieces: reading both would read as many
    # words again for the paragraphs as for the chunks.
    of_paragraph = {p.paragraph_id: _word_lists(text[p.char_start : p.char_end]) for p in chunked.paragraphs}
    cells = table_cells_text(chunked)
    # A table chunk's text is its caption; its cells are counted with it, so that a search for
    # what the table holds finds the table.
    of_chunk = [
        _chunk_pieces(chunk, text, paragraphs, of_paragraph) + ([_word_lists(cells[chunk.chunk_id])] if chunk.chunk_id in cells else [])
        for chunk in chunked.chunks
    ]
    chunk_paths = [tuple(chunk.heading_path) for chunk in chunked.chunks]
    paragraph_paths = [section_paths.get(p.section_id, ()) for p in chunked.paragraphs]
    of_heading = {path: _word_lists(" ".join(path)) for path in {*chunk_paths, *paragraph_paths}}
    # Each text's words once, by identity: a paragraph's are among its chunk's pieces too.
    pieces = {id(piece): piece for piece in (*of_paragraph.values(), *of_heading.values(), *(p for c in of_chunk for p in c))}
    # Stemmed once a text, counted once a unit: a stem is the stemmer's own string, which the
    # counts compare by identity, where each word read is a string of its own.
    stems = {key: tuple(map(counter.stems_of, piece)) for key, piece in pieces.items()}
    doc_id = chunked.document.doc_id
    chunk_postings = [
        _unit_terms(chunk.chunk_id, [stems[id(of_heading[path])]], [stems[id(piece)] for piece in chunk_pieces])
        for chunk, path, chunk_pieces in zip(chunked.chunks, chunk_paths, of_chunk, strict=True)
    ]
    paragraph_postings = [
        _unit_terms(paragraph_key(doc_id, p.paragraph_id), [stems[id(of_heading[path])]], [stems[id(of_paragraph[p.paragraph_id])]])
        for p, path in zip(chunked.paragraphs, paragraph_paths, strict=True)
    ]
    return PaperTerms(tuple(chunk_postings), tuple(paragraph_postings))


def _chunk_pieces(chunk: Chunk, text: str, paragraphs: dict[str, Paragraph], of_paragraph: dict[str, WordLists]) -> list[WordLists]:
    """The words of a chunk's text (its slice of `text`, the paper's as the index reads it) in
    pieces, whose lists `_in_joined_order` puts in the order of `lowered_words` of it whole: its
    paragraphs' and those of the text between them (headings), each read alone; the text in one
    piece where a cut would not separate its words (`_separate_at`), or its paragraphs do not
    tile it in order."""
    pieces = []
    at = chunk.char_start
    chunk_text = text[chunk.char_start : chunk.char_end]
    for paragraph_id in chunk.paragraph_ids:
        paragraph = paragraphs[paragraph_id]
        start, end = paragraph.char_start - chunk.char_start, paragraph.char_end - chunk.char_start
        if paragraph.char_start < at or paragraph.char_end > chunk.char_end or not (
            _separate_at(chunk_text, start) and _separate_at(chunk_text, end)
        ):
            return [_word_lists(chunk_text)]
        if paragraph.char_start > at:
            pieces.append(_word_lists(text[at : paragraph.char_start]))
        pieces.append(of_paragraph[paragraph_id])
        at = paragraph.char_end
    if at < chunk.char_end:
        pieces.append(_word_lists(text[at : chunk.char_end]))
    return pieces


def _unit_terms(unit_id: str, heading: list[WordLists], pieces: list[WordLists]) -> UnitTerms:
    """A unit's postings from the stems of its heading path, then of its text's pieces, counted
    list by list in `lowered_words`' order rather than joined first: a term's place in the
    postings is where it first occurs."""
    counts = Counter(chain(*_in_joined_order(heading), *_in_joined_order(pieces)))
    counts.pop(None, None)  # stopwords
    return UnitTerms(unit_id, tuple(counts), tuple(counts.values()))


def _in_joined_order(pieces: list[WordLists]) -> list[list[str]]:
    """The pieces' lists in the order `lowered_words` gives a text made of them, where no token,
    no run of an unspaced script and no final sigma's context spans two pieces (`_separate_at`):
    every piece's tokens, then their compounds' parts, then the bigrams."""
    return [piece[0] for piece in pieces] + [piece[1] for piece in pieces if piece[1]] + [piece[2] for piece in pieces if piece[2]]
