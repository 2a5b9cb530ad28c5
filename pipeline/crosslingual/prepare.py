"""From the query as typed to the search query run: as typed, through the glossary, or through
the user's translator, and what was done, for the results to say beside the evidence."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field, replace

from pipeline.crosslingual.command import DEFAULT_TIMEOUT_SECONDS, Translation, translate
from pipeline.crosslingual.glossary import Glossary, GlossaryMapping, Mapped, map_query
from pipeline.crosslingual.korean import KoreanAnalyser
from pipeline.crosslingual.sound import SoundMatch
from pipeline.crosslingual.script import LATIN_SCRIPT_LANGUAGES, Script, detector_installed, letter_script, query_language, query_script


@dataclass(frozen=True)
class PreparedQuery:
    """The query as typed, the search query run, and how the one became the other."""

    query: str
    search_query: str
    searched_with: str
    """`typed`, `glossary` or `translator`."""
    language: str | None
    """The query's language where its script (or the optional detector) tells it."""
    glossary: str | None = None
    """The glossary file applied, if any."""
    mapping: GlossaryMapping | None = None
    translation: Translation | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    """What the one who asked should know: a translator that failed, a glossary for another language."""

    @property
    def untranslated(self) -> tuple[str, ...]:
        """The query's words that reach the search untranslated, in the query's own script: those
        the glossary has no entry for (nor found by sound), or those the translator's line still
        holds. Empty where no glossary or translator was asked for."""
        if self.searched_with == "translator" and self.translation and self.translation.output:
            return tuple(word for word in self.translation.output.split() if _foreign(word))
        return self.mapping.unmapped if self.mapping is not None else ()

    @property
    def translator_failed(self) -> bool:
        """A translator was asked for and its line was not searched."""
        return self.translation is not None and not self.translation.accepted

    def as_json(self) -> dict:
        mapping = self.mapping
        return {
            "query": self.query,
            "search_query": self.search_query,
            "searched_with": self.searched_with,
            "language": self.language,
            "glossary": self.glossary,
            "mapped": [
                {"typed": m.typed, "entries": list(m.entries), "terms": list(m.terms), "by_sound": m.by_sound} for m in mapping.mapped
            ]
            if mapping
            else [],
            "unmapped": list(mapping.unmapped) if mapping else [],
            "kept": list(mapping.kept) if mapping else [],
            "ignored": list(mapping.ignored) if mapping else [],
            "untranslated": list(self.untranslated),
            "translator": self.translation.as_json() if self.translation else None,
            "translator_failed": self.translator_failed,
            "notes": list(self.notes),
        }


def prepare_query(
    query: str,
    glossary: Glossary | None = None,
    translate_command: str | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    analyser: KoreanAnalyser | None = None,
) -> PreparedQuery:
    """The search query for `query`: the translator's line where one is given and its line
    passes the checks, else the glossary's mapping where a glossary is given, else as typed.
    `analyser` splits Korean words into morphemes for the glossary (`korean.load_korean_analyser`)."""
    language = query_language(query)
    notes: list[str] = []
    if glossary is not None and language is not None and language != glossary.query_language:
        notes.append(f"the query looks {language}, and the glossary {glossary.source} maps {glossary.query_language}")
    if translate_command is not None:
        if _already_in_evidence_language(query, language, glossary):
            notes.append("the translator was not run: the query is written in the evidence's script" + _detector_advice(query))
        else:
            translation = translate(query, translate_command, timeout)
            if translation.accepted and translation.output:
                return PreparedQuery(query, translation.output, "translator", language, translation=translation, notes=tuple(notes))
            fallback = f"the glossary {glossary.source}" if glossary is not None else "the query as typed"
            notes.append(f"the translator failed ({translation.reason}): searched with {fallback} instead")
            return _without_translator(query, language, glossary, translation, notes, analyser)
    return _without_translator(query, language, glossary, None, notes, analyser)


def _without_translator(
    query: str,
    language: str | None,
    glossary: Glossary | None,
    translation: Translation | None,
    notes: list[str],
    analyser: KoreanAnalyser | None,
) -> PreparedQuery:
    if glossary is None:
        return PreparedQuery(query, query, "typed", language, translation=translation, notes=tuple(notes))
    mapping = map_query(query, glossary, analyser)
    return PreparedQuery(query, mapping.search_query, "glossary", language, glossary.source, mapping, translation, tuple(notes))


def _foreign(word: str) -> bool:
    """Whether a word holds a letter of a script other than Latin (Greek letters are science's)."""
    return any(
        letter_script(character) is not Script.latin and not unicodedata.name(character, "").startswith("GREEK")
        for character in word
        if character.isalpha()
    )


def _already_in_evidence_language(query: str, language: str | None, glossary: Glossary | None) -> bool:
    """Whether the query needs no translating: Latin script over English evidence, unless the
    detector says it is another Latin-script language."""
    evidence = glossary.evidence_language if glossary else "en"
    if query_script(query) is not Script.latin or evidence not in LATIN_SCRIPT_LANGUAGES:
        return False
    return language is None or language == evidence


def _detector_advice(query: str) -> str:
    if query_script(query) is Script.latin and not detector_installed():
        return " (to tell French or German from English, install the language extra: pip install -e '.[language]')"
    return ""


def with_sound_matches(prepared: PreparedQuery, matches: dict[str, SoundMatch]) -> PreparedQuery:
    """`prepared` with each unmapped word that `matches` holds (by the word as searched) searched
    as the index term it sounds like, and recorded as mapped by sound."""
    mapping = prepared.mapping
    if mapping is None or not matches:
        return prepared
    mapped = list(mapping.mapped)
    unmapped: list[str] = []
    searched: list[str] = []
    replaced: dict[str, str] = {}
    for typed, stem in zip(mapping.unmapped, mapping.unmapped_searched):
        match = matches.get(stem)
        if match is None:
            unmapped.append(typed)
            searched.append(stem)
        else:
            mapped.append(Mapped(typed, (), (match.term,), match.similarity))
            replaced[stem] = match.term
    search_query = " ".join(replaced.get(piece, piece) for piece in mapping.search_query.split(" "))
    changed = replace(mapping, search_query=search_query, mapped=tuple(mapped), unmapped=tuple(unmapped), unmapped_searched=tuple(searched))
    return replace(prepared, search_query=search_query, mapping=changed)
