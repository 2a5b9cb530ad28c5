"""A glossary maps a query's words to the papers' terms before BM25: `정확도` → `accuracy`.

A glossary file (TOML) names the query's language and the evidence's, and holds entries, each a
term as the query writes it and the terms the papers write for it:

    query_language = "ko"
    evidence_language = "en"
    suffixes = ["은", "는", "에서"]     # particles and endings that may follow an entry (two at most)
    ignore = ["무엇", "어떤"]           # function words, left out of the search query
    [terms]
    "무작위 대조 시험" = ["randomized controlled trial", "RCT"]

Korean writes particles onto words (`신뢰구간은`) and spaces compounds as it likes (`메타 분석`,
`메타분석`), so a word maps where it is a sequence of entries (or ignored words) followed by at
most two of the listed suffixes, and a run of words where, spaces dropped, it is one entry so
followed. With Kiwi (`korean.py`) a word is looked up without its particles and endings, whatever
they are. A word that maps no way is searched as typed and reported unmapped; the search may
still match it by sound (`sound.py`).
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from pipeline.crosslingual.korean import KoreanAnalyser, KoreanWord
from pipeline.crosslingual.script import LANGUAGE_OF_SCRIPT, Script, letter_script
from pipeline.errors import RulesError

DEFAULT_GLOSSARY_PATH = Path(__file__).resolve().parents[2] / "rules" / "glossary-ko-en.toml"
# A query's words as the index splits them (`pipeline.index.query`): `IL-6` and `p53` stay whole;
# then Hangul apart from other letters, so that `IL-6의` is `IL-6` and its particle.
_WORD = re.compile(r"[\w/-]+")
_HANGUL_OR_NOT = re.compile(r"[\uac00-\ud7a3]+|[^\uac00-\ud7a3]+")
# Korean writes a particle onto a closing bracket as onto the word before it: `재발(BCR)을`.
_CLOSING = frozenset(")]}\"'”’")
# The most query words one entry may be spread over (`무작위 대조 시험`: three).
_WORDS_AN_ENTRY_SPANS = 5

NonEmpty = Annotated[str, Field(min_length=1)]


class Glossary(BaseModel):
    """A loaded glossary: entries keyed by the term with its spaces dropped."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    query_language: NonEmpty
    evidence_language: NonEmpty
    suffixes: tuple[NonEmpty, ...] = ()
    ignore: frozenset[NonEmpty] = frozenset()
    terms: dict[NonEmpty, tuple[NonEmpty, ...]]
    source: str = ""
    """The file it came from, for messages and results."""

    @field_validator("terms")
    @classmethod
    def _every_entry_has_a_term(cls, terms: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        empty = [entry for entry, written in terms.items() if not written]
        if empty:
            raise ValueError(f"{', '.join(map(repr, empty))}: give each entry at least one term, as a list")
        return terms

    def lookup(self) -> dict[str, str]:
        """Entries and ignored words by their letters, spaces dropped and lowered, as written."""
        return {**{_spaceless(word): word for word in self.ignore}, **{_spaceless(entry): entry for entry in self.terms}}


def load_glossary(path: Path | str = DEFAULT_GLOSSARY_PATH) -> Glossary:
    """Read and validate a glossary file; raise `RulesError` naming the file and the key."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_bytes().decode("utf-8"))
    except OSError as error:
        raise RulesError(f"cannot read glossary {path}: {error.strerror}; pass --glossary with an existing file") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise RulesError(f"glossary {path} is not valid TOML: {error}") from None
    try:
        return Glossary.model_validate({**data, "source": str(path)})
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(map(str, item['loc']))}: {item['msg'].removeprefix('Value error, ')}" for item in error.errors()
        )
        raise RulesError(f"glossary {path}: {problems}") from None


def layered(base: Glossary, user: Glossary) -> Glossary:
    """`user`'s glossary over `base`: its entries replace `base`'s for the same term (spaces and
    case aside) and add the rest; suffixes and ignored words are both files'. Raise `RulesError`
    where the two map different languages."""
    if (user.query_language, user.evidence_language) != (base.query_language, base.evidence_language):
        raise RulesError(
            f"glossary {user.source} maps {user.query_language} to {user.evidence_language}, but {base.source}, "
            f"which it is layered over, maps {base.query_language} to {base.evidence_language}; give it the same languages"
        )
    replaced = {_spaceless(entry) for entry in user.terms}
    terms = {**{entry: written for entry, written in base.terms.items() if _spaceless(entry) not in replaced}, **user.terms}
    return base.model_copy(
        update={
            "suffixes": tuple(dict.fromkeys(base.suffixes + user.suffixes)),
            "ignore": base.ignore | user.ignore,
            "terms": terms,
            "source": f"{user.source} over {base.source}",
        }
    )


@dataclass(frozen=True)
class Mapped:
    """Words of the query that the glossary mapped: as typed, the entries they are, and the terms searched."""

    typed: str
    entries: tuple[str, ...]
    terms: tuple[str, ...]
    by_sound: float | None = None
    """Where the word had no entry but sounds like a term of the index (`인슐린`, insulin): how
    alike, 0 to 1 (`pipeline.crosslingual.sound`); None for a glossary entry."""


@dataclass(frozen=True)
class GlossaryMapping:
    """What the glossary made of a query."""

    search_query: str
    mapped: tuple[Mapped, ...]
    unmapped: tuple[str, ...]
    """Words in another script than the evidence's with no entry: searched as typed."""
    kept: tuple[str, ...]
    """Words already in the evidence's script (`IL-6`, `2019`): searched as typed."""
    ignored: tuple[str, ...]
    """Function words the glossary leaves out (`무엇`)."""
    unmapped_searched: tuple[str, ...] = ()
    """Each unmapped word as it is searched: without its particles and endings (`인슐린` of
    `인슐린을`) where an analyser split it, else as typed."""


def map_query(query: str, glossary: Glossary, analyser: KoreanAnalyser | None = None) -> GlossaryMapping:
    """The query with its words mapped through the glossary, in their order; the longest run of
    words that maps is taken first.

    With an analyser, a word is looked up without its particles and endings (`사망률을` as
    `사망률`, `낮췄는가` as `낮추다`), and a compound the glossary lacks whole as its parts
    (`사구체여과율` as `사구체` and `여과율`); the glossary's suffix list still applies."""
    words, particles = _query_words(query, glossary)
    analysed = [analyser.word(word) if analyser is not None and _is_hangul(word) else None for word in words]
    stems = [word if found is None or not found.stem else found.stem for word, found in zip(words, analysed)]
    lookup = glossary.lookup()
    endings = _endings(glossary.suffixes)
    pieces: list[str] = []
    mapped: list[Mapped] = []
    unmapped: list[str] = []
    searched: list[str] = []
    kept: list[str] = []
    ignored: list[str] = list(particles)
    position = 0
    while position < len(words):
        found = _further(_longest_mapping(stems, position, lookup, endings), _longest_mapping(words, position, lookup, endings))
        if found is None and analysed[position] is not None:
            found = _mapped_by_parts(analysed[position], lookup, endings)
            if found is not None:
                typed_parts, part_entries = found
                _take(glossary, words[position], typed_parts, part_entries, pieces, mapped, (unmapped, searched), ignored)
                position += 1
                continue
        if found is None:
            word = words[position]
            if analysed[position] is not None and not analysed[position].stem:
                ignored.append(word)
            else:
                if _in_evidence_script(word, glossary):
                    kept.append(word)
                else:
                    unmapped.append(word)
                    searched.append(stems[position])
                pieces.append(stems[position])
            position += 1
            continue
        end, entries = found
        typed = " ".join(words[position:end])
        terms = _terms(glossary, entries)
        if terms:
            mapped.append(Mapped(typed, tuple(entry for entry in entries if entry in glossary.terms), terms))
            pieces.extend(terms)
        else:
            ignored.append(typed)
        position = end
    return GlossaryMapping(" ".join(pieces), tuple(mapped), tuple(unmapped), tuple(kept), tuple(ignored), tuple(searched))


def _further(by_stems: tuple[int, tuple[str, ...]] | None, as_typed: tuple[int, tuple[str, ...]] | None) -> tuple[int, tuple[str, ...]] | None:
    """Of the mappings from the words' stems and from the words as typed, the one reaching over
    more words; the stems' where they reach as far. Kiwi can misread a rare word (`내중막`,
    intima-media, as a verb), while the typed words and the closed suffix list still reach the
    entry it belongs to."""
    if as_typed is not None and (by_stems is None or as_typed[0] > by_stems[0]):
        return as_typed
    return by_stems


def _terms(glossary: Glossary, entries: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(term for entry in entries if entry in glossary.terms for term in glossary.terms[entry]))


def _mapped_by_parts(word: KoreanWord, lookup: dict[str, str], endings: tuple[str, ...]) -> tuple[list[str], list[tuple[str, ...] | None]] | None:
    """A word whose stem maps neither whole nor as a run of entries, by its dictionary form
    (`낮추다`) or part by part (`사구체`, `여과율`): each part's entries, None for a part with
    none; None where no part maps."""
    if word.lemma is not None and _spaceless(word.lemma) in lookup:
        return [word.typed], [(lookup[_spaceless(word.lemma)],)]
    if len(word.parts) < 2:
        return None
    entries: list[tuple[str, ...] | None] = []
    for part in word.parts:
        found = _longest_mapping([part], 0, lookup, endings)
        entries.append(found[1] if found is not None else None)
    if all(found is None for found in entries):
        return None
    return list(word.parts), entries


def _take(
    glossary: Glossary,
    typed: str,
    parts: list[str],
    entries: list[tuple[str, ...] | None],
    pieces: list[str],
    mapped: list[Mapped],
    unmapped: tuple[list[str], list[str]],
    ignored: list[str],
) -> None:
    """Record a word mapped part by part: a part with entries is mapped (typed as the part, or as
    the word where it is the word's dictionary form), a part without is unmapped."""
    for part, part_entries in zip(parts, entries):
        if part_entries is None:
            unmapped[0].append(part)
            unmapped[1].append(part)
            pieces.append(part)
            continue
        terms = _terms(glossary, part_entries)
        shown = part if len(parts) > 1 else typed
        if terms:
            mapped.append(Mapped(shown, tuple(entry for entry in part_entries if entry in glossary.terms), terms))
            pieces.extend(terms)
        else:
            ignored.append(shown)


def _is_hangul(word: str) -> bool:
    return any(letter_script(character) is Script.hangul for character in word if character.isalpha())


def _query_words(query: str, glossary: Glossary) -> tuple[list[str], list[str]]:
    """The query's words, and the particles written onto a word in another script (`의` of
    `IL-6의`) or onto a closing bracket (`을` of `재발(BCR)을`), which are left out."""
    words, particles = [], []
    for match in _WORD.finditer(query):
        runs = [run for run in _HANGUL_OR_NOT.findall(match.group()) if any(character.isalnum() for character in run)]
        after_bracket = query[match.start() - 1 : match.start()] in _CLOSING
        for index, run in enumerate(runs):
            if (index or after_bracket) and run in glossary.suffixes:
                particles.append(run)
            else:
                words.append(run)
    return words, particles


def _endings(suffixes: tuple[str, ...]) -> tuple[str, ...]:
    """What may follow an entry's letters: nothing, a suffix, or two (`환자들에서`: `들`, `에서`),
    shortest first."""
    return tuple(sorted({"", *suffixes, *(first + second for first in suffixes for second in suffixes)}, key=len))


def _longest_mapping(
    words: list[str], start: int, entries: dict[str, str], endings: tuple[str, ...]
) -> tuple[int, tuple[str, ...]] | None:
    """Where the longest run of words from `start` that maps ends, and the entries it is made of."""
    for end in range(min(len(words), start + _WORDS_AN_ENTRY_SPANS), start, -1):
        written = "".join(words[start:end]).lower()
        for _, pieces in _as_entries(written, entries, endings):
            # A run of several words is one entry spaced out (`무작위 대조 시험`), reaching into its
            # last word with the entry, not with a suffix alone; one word may be several
            # (`메타분석연구`). Every ending is tried: `시험인가` is the entry and the ignored word
            # `인가`, which is no spaced-out entry, and also the entry and the suffix `인가`, which is.
            if end - start == 1 or (len(pieces) == 1 and len(pieces[0]) > len("".join(words[start : end - 1]))):
                return end, tuple(entries[piece] for piece in pieces)
    return None


def _as_entries(written: str, entries: dict[str, str], endings: tuple[str, ...]) -> Iterator[tuple[str, tuple[str, ...]]]:
    """`written` as sequences of entries and one of `endings` (perhaps empty), as (ending,
    entries), the shortest ending first; none where it is no such sequence."""
    for suffix in endings:
        if not written.endswith(suffix) or len(written) == len(suffix):
            continue
        pieces = _segment(written[: len(written) - len(suffix)], entries)
        if pieces is not None:
            yield suffix, pieces


def _segment(written: str, entries: dict[str, str]) -> tuple[str, ...] | None:
    """`written` cut into entries, the longest entry first at each point; None where it cannot be."""
    if written in entries:
        return (written,)
    for cut in range(len(written) - 1, 0, -1):
        head = written[:cut]
        if head in entries:
            rest = _segment(written[cut:], entries)
            if rest is not None:
                return (head, *rest)
    return None


def _in_evidence_script(word: str, glossary: Glossary) -> bool:
    """Whether a word is written in the evidence's script (or has no letters: `2019`)."""
    evidence_script = next((script for script, language in LANGUAGE_OF_SCRIPT.items() if language == glossary.evidence_language), Script.latin)
    # Greek letters are symbols in Latin-script science (`IFN-γ`, `NF-κB`, `β-blocker`), not Greek.
    scripts = {
        evidence_script if evidence_script is Script.latin and unicodedata.name(character, "").startswith("GREEK") else letter_script(character)
        for character in word
        if character.isalpha()
    }
    return scripts <= {evidence_script}


def _spaceless(text: str) -> str:
    return "".join(text.split()).lower()
