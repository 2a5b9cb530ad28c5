"""From the query as typed to the search query run: as typed, through the glossary, or through
the user's translator, and what was done, for the results to say beside the evidence."""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.crosslingual.command import DEFAULT_TIMEOUT_SECONDS, Translation, translate
from pipeline.crosslingual.glossary import Glossary, GlossaryMapping, map_query
from pipeline.crosslingual.korean import KoreanAnalyser
from pipeline.crosslingual.script import LATIN_SCRIPT_LANGUAGES, Script, detector_installed, query_language, query_script


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

    def as_json(self) -> dict:
        mapping = self.mapping
        return {
            "query": self.query,
            "search_query": self.search_query,
            "searched_with": self.searched_with,
            "language": self.language,
            "glossary": self.glossary,
            "mapped": [{"typed": m.typed, "entries": list(m.entries), "terms": list(m.terms)} for m in mapping.mapped] if mapping else [],
            "unmapped": list(mapping.unmapped) if mapping else [],
            "kept": list(mapping.kept) if mapping else [],
            "ignored": list(mapping.ignored) if mapping else [],
            "translator": self.translation.as_json() if self.translation else None,
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
