"""Evidence at the sentence level: the cited passages cut into sentences and clauses, the words
of each as the judge compares them, and the few sentences that together hold most of a claim.

A passage is cut at its blank lines (a heading is a block of its own) and each block into
sentences by sentencex, the splitter the page is read with; a sentence keeps its offsets into
the passage's text, so the report can give them in the paper.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sentencex
import Stemmer
from lemminflect import getAllLemmas

from pipeline.audit.glossary import occurrences
from pipeline.audit.numbers import Quantity, masked, read_quantities
from pipeline.audit.records import Abbreviation, Evidence, Passage
from pipeline.audit.rules import AuditRules
from pipeline.audit.sentences import SPLITTER_LANGUAGE
from pipeline.index.stopwords import STOPWORDS

# A word: letters and digits with inner hyphens or apostrophes (`PBDE-47`, `co-infection`, `n't`).
_TOKEN = re.compile(r"[^\W_](?:[\w'’]|-(?=[^\W_]))*")
_BLOCK = re.compile(r"\n\s*\n")
_NOUN_TAGS = frozenset({"NOUN", "PROPN"})


@dataclass(frozen=True)
class Word:
    written: str
    start: int
    end: int
    keys: frozenset[str]
    """What it matches another text's word by: its stem, its lemmas' stems, and for a direction
    word its axis and pole (`amount:up` makes `higher` match `greater`)."""


@dataclass(frozen=True)
class Direction:
    """A word that says which way something goes (`decreased`, `higher`)."""

    axis: str
    family: str
    """Its axis's family (the axis itself where the rules give none)."""
    pole: str
    """`up` or `down`."""
    written: str
    anchor: frozenset[str]
    """The keys of the content word it bears on: the next one in its clause, else the one before."""


@dataclass(frozen=True)
class Clause:
    text: str
    start: int
    """Offset in its sentence."""
    words: tuple[Word, ...]
    """Content words, negation cues and number words left out."""
    negations: tuple[str, ...]
    negation_scope: tuple[frozenset[str], ...]
    """The keys of the content words each negation bears on: the next two in its clause, else the one before."""
    directions: tuple[Direction, ...]
    quantities: tuple[Quantity, ...] = ()


@dataclass(frozen=True)
class PassageSentence:
    passage: Passage
    start: int
    """Offset in the passage's text."""
    end: int
    text: str
    words: tuple[Word, ...]
    quantities: tuple[Quantity, ...]
    clauses: tuple[Clause, ...]


class Reader:
    """Reads texts into words, clauses and quantities by the audit rules. It remembers stems and
    lemmas for the texts of one audit; not for sharing between threads (neither is its stemmer)."""

    def __init__(self, rules: AuditRules) -> None:
        self.rules = rules
        self._stemmer = Stemmer.Stemmer("porter")
        self._clause_break = rules.clause_break
        self._directions = {
            word: (axis.axis, axis.family or axis.axis, pole)
            for axis in rules.direction
            for pole, words in (("up", axis.up), ("down", axis.down))
            for word in words
        }
        self._number_words = set(rules.numbers.words) | set(rules.numbers.multipliers) | {"one"}
        self._no_direction = rules.idioms.no_direction_pattern
        self._keys: dict[str, frozenset[str]] = {}

    def sentences(self, passage: Passage) -> list[PassageSentence]:
        sentences = []
        for block in _BLOCK.split(passage.text):
            offset = passage.text.find(block, sentences[-1].end if sentences else 0)
            cursor = offset
            for piece in sentencex.segment(SPLITTER_LANGUAGE, block):
                text = piece.strip()
                if text:
                    start = passage.text.find(text, cursor)
                    sentences.append(self.sentence(passage, start, text))
                    cursor = start + len(text)
        return sentences

    def sentence(self, passage: Passage, start: int, text: str) -> PassageSentence:
        abbreviations = passage.abbreviations
        return PassageSentence(
            passage, start, start + len(text), text, tuple(self.words(text, abbreviations)),
            tuple(read_quantities(text, self.rules)), tuple(self.clauses(text, abbreviations)),
        )

    def clauses(self, text: str, abbreviations: tuple[Abbreviation, ...] = ()) -> list[Clause]:
        """The clauses of a sentence, each the scope of its negations and directions."""
        breaks = list(self._clause_break.finditer(text))
        opening = _TOKEN.match(text.lstrip())
        if opening and opening.group().lower() in self.rules.negation.leading_subordinators and "," in text:
            comma = text.index(",")
            breaks = sorted([*breaks, re.compile(",").search(text, comma)], key=lambda found: found.start())
        clauses, start = [], 0
        for found in [*breaks, None]:
            if found and found.start() < start:
                continue
            end = found.start() if found else len(text)
            piece = text[start:end]
            if piece.strip():
                clauses.append(self._clause(piece, start, abbreviations))
            if found:
                start = found.end()
        return clauses

    def _clause(self, text: str, start: int, abbreviations: tuple[Abbreviation, ...]) -> Clause:
        plain = masked(text)
        words = self.words(text, abbreviations)
        negations, scope = [], []
        for found in _TOKEN.finditer(plain):
            lowered = found.group().lower()
            if (lowered in self.rules.negation.cues or lowered.endswith(self.rules.negation.suffix)) and not self.rules.negation.scale_label.match(plain[found.end():]):
                negations.append(found.group())
                after = [word for word in words if word.start >= found.end()][:2]
                before = [word for word in words if word.end <= found.start()][-1:]
                scope += [word.keys for word in (after or before)]
        directions = []
        # `above all` and `at least` say no direction: their words are blanked for this reading.
        undirected = self._no_direction.sub(lambda found: " " * len(found.group()), plain) if self._no_direction else plain
        previous = None
        for found in _TOKEN.finditer(undirected):
            lowered, qualified = found.group().lower(), previous in self._directions
            previous = found.group().lower()
            # A direction word right after another is what that one qualifies, used as an
            # adjective: `more depressed` says more (of depression), not that something fell.
            if lowered in self._directions and not qualified:
                after = [word for word in words if word.start >= found.end()]
                before = [word for word in words if word.end <= found.start()]
                anchor = after[0] if after else before[-1] if before else None
                axis, family, pole = self._directions[lowered]
                directions.append(Direction(axis, family, pole, found.group(), anchor.keys if anchor else frozenset()))
        return Clause(text, start, tuple(words), tuple(negations), tuple(scope), tuple(directions), tuple(read_quantities(text, self.rules)))

    def words(self, text: str, abbreviations: tuple[Abbreviation, ...] = ()) -> list[Word]:
        """The content words: no stopword, negation cue, number or unit. A word of a short form the
        paper defines (`T4`, the `mansoni` of `S. mansoni`) also matches its long form's words
        (`thyroxine`, `Schistosoma`)."""
        words = []
        numbers = [(quantity.start, quantity.end) for quantity in read_quantities(text, self.rules)]
        for found in _TOKEN.finditer(masked(text)):
            written = re.sub(r"['’]s$", "", found.group())
            lowered = written.lower()
            if any(start <= found.start() < end for start, end in numbers):
                continue
            if (
                lowered in STOPWORDS or lowered in self.rules.negation.cues or lowered.endswith(self.rules.negation.suffix)
                or lowered in self._number_words or lowered in self.rules.units or lowered[0].isdigit()
                or lowered.partition("-")[0] in self._number_words
            ):
                continue
            words.append(Word(written, found.start(), found.end(), self._keys_of(lowered)))
        return self._with_long_forms(words, text, abbreviations) if abbreviations else words

    def _with_long_forms(self, words: list[Word], text: str, abbreviations: tuple[Abbreviation, ...]) -> list[Word]:
        spans = [(start, end, abbreviation.long) for abbreviation in abbreviations for start, end in occurrences(abbreviation.short, text)]
        if not spans:
            return words
        long_keys = {long: keys_of(self.words(long)) for _, _, long in spans}
        return [
            Word(word.written, word.start, word.end, word.keys | frozenset(key for start, end, long in spans if start <= word.start < end for key in long_keys[long]))
            for word in words
        ]

    def _keys_of(self, lowered: str) -> frozenset[str]:
        if lowered not in self._keys:
            lemmas = {lemma.lower() for forms in getAllLemmas(lowered).values() for lemma in forms}
            keys = set(self._stemmer.stemWords([lowered, *lemmas]))
            if lowered in self._directions:
                _, family, pole = self._directions[lowered]
                keys.add(f"{family}:{pole}")
            self._keys[lowered] = frozenset(keys)
        return self._keys[lowered]

    def is_direction(self, word: Word) -> bool:
        return word.written.lower() in self._directions

    def direction_family(self, word: Word) -> str:
        return self._directions[word.written.lower()][1]

    def is_key_term(self, word: Word) -> bool:
        """A word a claim cannot do without: a noun and nothing else, a word the lexicon does not
        know (a drug, a gene, an acronym), or one written with a digit or an inner capital."""
        lowered = word.written.lower()
        if lowered in self.rules.key_terms.generic or lowered in self._directions:
            return False
        if any(character.isdigit() for character in word.written) or any(character.isupper() for character in word.written[1:]):
            return True
        readings = set(getAllLemmas(lowered))
        return not readings or readings <= _NOUN_TAGS


def found_in(word: Word, keys: set[str]) -> bool:
    """Whether another text with these keys holds the word (a compound's parts count: `second line`)."""
    if word.keys & keys:
        return True
    parts = word.written.lower().split("-")
    return len(parts) > 1 and all(part in keys or part.isdigit() for part in parts)


def keys_of(words: tuple[Word, ...] | list[Word]) -> set[str]:
    keys = {key for word in words for key in word.keys}
    return keys | {word.written.lower() for word in words}


def cover(clauses: list[Clause], sentences: list[PassageSentence], most: int) -> list[PassageSentence]:
    """The passage sentences that together hold the most of the claim: for each clause of it, at
    most `most`, the best first (by its words, then its numbers), then each that adds a word the
    others lack. A claim that joins two chunks' facts has a clause for each."""
    chosen: list[PassageSentence] = []
    for clause in clauses:
        mine: list[PassageSentence] = []
        missing = list(clause.words)
        numbers = list(clause.quantities)
        while missing and len(mine) < most:
            scored = [
                (sum(found_in(word, keys_of(sentence.words)) for word in missing),
                 sum(any(q.same_value(p) for p in sentence.quantities) for q in numbers) if not mine else 0, -index, sentence)
                for index, sentence in enumerate(sentences) if sentence not in mine
            ]
            if not scored:
                break
            gained, _, _, best = max(scored, key=lambda item: item[:3])
            if gained == 0:
                break
            mine.append(best)
            keys = keys_of(best.words)
            missing = [word for word in missing if not found_in(word, keys)]
        chosen += [sentence for sentence in mine if sentence not in chosen]
    return chosen


def evidence_of(sentence: PassageSentence, words: list[Word], numbers: list[Quantity], conflicting: tuple[str, ...]) -> Evidence:
    """A passage sentence as the report shows it: where it is in the paper, what agrees, what conflicts."""
    passage = sentence.passage
    start = passage.char_start + sentence.start
    paragraph = next((p for p in passage.paragraphs if p.char_start <= start < p.char_end), None)
    keys = keys_of(sentence.words)
    agreeing = [word.written for word in words if found_in(word, keys)]
    agreeing += [q.written for q in numbers if any(q.same_value(p) and q.same_unit(p) for p in sentence.quantities)]
    return Evidence(
        chunk_id=passage.chunk_id, text=sentence.text, char_start=start, char_end=start + len(sentence.text),
        where=paragraph.where if paragraph else passage.where, agreeing=tuple(dict.fromkeys(agreeing)), conflicting=conflicting,
    )


def locate_evidence(reader: Reader, passages: tuple[Passage, ...], claim: str) -> tuple[Evidence, ...]:
    """The evidence sentences for a judge that gives none (a command, a model): those holding
    most of the claim's words and numbers, as the rules judge finds them."""
    sentences = [sentence for passage in passages for sentence in reader.sentences(passage)]
    words, numbers = reader.words(claim), read_quantities(claim, reader.rules)
    chosen = cover(reader.clauses(claim), sentences, reader.rules.thresholds.max_evidence_sentences)
    return tuple(evidence_of(sentence, words, numbers, ()) for sentence in chosen)
