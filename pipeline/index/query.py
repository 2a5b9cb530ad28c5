"""A search query as the index reads it: its terms, each with the spellings that count as it,
and its quoted phrases."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.index.stopwords import STOPWORDS
from pipeline.index.terms import TermCounter, index_words, strip_accents
from pipeline.rules import SpellingPair

_PHRASE = re.compile(r'"([^"]*)"')
_WORD = re.compile(r"[\w/-]+")
# A word the spelling pairs may change: letters alone (not `il-6`, not `p53`).
_PLAIN_WORD = re.compile(r"[a-z]+")
# At most this many pairs are applied to one word in turn (`anaesthetised`: two).
_SPELLING_STEPS = 2


@dataclass(frozen=True)
class QueryTerm:
    """One term of a query and the stems that count as it: its own first, then those of its
    other spellings."""

    stems: tuple[str, ...]


@dataclass(frozen=True)
class Phrase:
    """A quoted phrase: the stems each of its words may take, in order."""

    words: tuple[frozenset[str], ...]
    required: frozenset[str]
    """The stems a chunk must be indexed under to hold the phrase at all: its words' own, less
    the stopwords, which the index leaves out."""

    def found_in(self, stems: list[str]) -> bool:
        """Whether the phrase's words follow one another in `stems` (a text's words, stemmed)."""
        width = len(self.words)
        return any(
            all(stems[start + offset] in allowed for offset, allowed in enumerate(self.words))
            for start in range(len(stems) - width + 1)
        )


@dataclass(frozen=True)
class ParsedQuery:
    terms: tuple[QueryTerm, ...]
    phrases: tuple[Phrase, ...]
    words: tuple[str, ...]
    """The query's words as the index reads them, stopwords included."""

    @property
    def all_stopwords(self) -> bool:
        return bool(self.words) and all(word in STOPWORDS for word in self.words)


def parse_query(query: str, counter: TermCounter, spelling: Sequence[SpellingPair] = (), min_stem: int = 3) -> ParsedQuery:
    """The terms of `query` stemmed as the index stems them (stopwords kept, as fts keeps them:
    they match nothing), each with its other spellings where `spelling` gives any, and its
    quoted phrases."""
    words = index_words(query)
    stems = counter.stem_words(words)
    alternatives: dict[str, set[str]] = {}
    for word, stem in zip(words, stems):
        alternatives.setdefault(stem, set()).update(counter.stem_words(sorted(spellings(word, spelling, min_stem))))
    terms = tuple(QueryTerm((stem, *sorted(alternatives[stem] - {stem}))) for stem in sorted(alternatives))
    phrases = tuple(_phrase(text, counter, spelling, min_stem) for text in _PHRASE.findall(query))
    # A phrase of one word is that word: its term already asks for it.
    return ParsedQuery(terms, tuple(phrase for phrase in phrases if len(phrase.words) > 1), tuple(words))


def _phrase(text: str, counter: TermCounter, spelling: Sequence[SpellingPair], min_stem: int) -> Phrase:
    words = phrase_words(text)
    allowed = tuple(frozenset(counter.stem_words([word, *sorted(spellings(word, spelling, min_stem))])) for word in words)
    required = frozenset(stem for word, stem in zip(words, counter.stem_words(words)) if word not in STOPWORDS)
    return Phrase(allowed, required)


def phrase_words(text: str) -> list[str]:
    """A text's words in order as the index splits and folds them (`terms._TOKEN`), compound parts
    and bigrams left out: what a phrase is matched against."""
    return [strip_accents(word) for word in _WORD.findall(text.lower().replace("_", " "))]


def spellings(word: str, pairs: Sequence[SpellingPair], min_stem: int) -> set[str]:
    """The other ways `pairs` say `word` is spelt (`randomised` → `randomized`)."""
    found: set[str] = set()
    current = {word} if _PLAIN_WORD.fullmatch(word) else set()
    for _ in range(_SPELLING_STEPS):
        current = {other for written in current for other in _respelt(written, pairs, min_stem)} - found - {word}
        found |= current
    return found


def _respelt(word: str, pairs: Sequence[SpellingPair], min_stem: int) -> list[str]:
    respelt = []
    for pair in pairs:
        for written, other in ((pair.british, pair.american), (pair.american, pair.british)):
            if pair.at == "end" and word.endswith(written) and len(word) - len(written) >= min_stem:
                respelt.append(word[: len(word) - len(written)] + other)
            elif pair.at == "start" and word.startswith(written) and len(word) - len(written) >= min_stem:
                respelt.append(other + word[len(written) :])
    return respelt
