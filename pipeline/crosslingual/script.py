"""The script a query is written in, and the language that tells where the script alone does.

Hangul is Korean, kana Japanese, Han characters without kana Chinese: the script says so, and no
library is needed. A Latin-script query could be English or French; only a language detector can
tell, so that is left to the optional `lingua-language-detector` (`pip install -e '.[language]'`),
asked only where the glossary's or translator's language is itself written in Latin script.
"""

from __future__ import annotations

import unicodedata
from enum import Enum


class Script(str, Enum):
    hangul = "hangul"
    kana = "kana"
    han = "han"
    latin = "latin"
    other = "other"
    none = "none"
    """No letters at all (digits, punctuation)."""


# The languages each script tells by itself.
LANGUAGE_OF_SCRIPT = {Script.hangul: "ko", Script.kana: "ja", Script.han: "zh"}
# Languages written in Latin script, which a detector must tell apart.
LATIN_SCRIPT_LANGUAGES = frozenset({"en", "de", "fr", "es", "it", "pt", "nl"})


def letter_script(character: str) -> Script:
    """The script of one letter (a character for which `isalpha()` holds)."""
    code = ord(character)
    if 0xAC00 <= code <= 0xD7A3 or 0x1100 <= code <= 0x11FF or 0x3130 <= code <= 0x318F:
        return Script.hangul
    if 0x3040 <= code <= 0x30FF:
        return Script.kana
    if 0x3400 <= code <= 0x4DBF or 0x4E00 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF:
        return Script.han
    if unicodedata.name(character, "").startswith("LATIN"):
        return Script.latin
    return Script.other


def query_script(text: str) -> Script:
    """The script most of the text's letters are in; kana wins over Han (Japanese mixes both),
    and any Hangul makes a text Korean, whose queries often hold English terms too."""
    counts: dict[Script, int] = {}
    for character in text:
        if character.isalpha():
            script = letter_script(character)
            counts[script] = counts.get(script, 0) + 1
    if not counts:
        return Script.none
    for telling in (Script.hangul, Script.kana):
        if counts.get(telling):
            return telling
    return max(counts, key=counts.__getitem__)


def query_language(text: str) -> str | None:
    """The query's language where its script tells it (`ko`, `ja`, `zh`), or, for Latin script,
    what the optional detector says; None where neither can tell."""
    script = query_script(text)
    if script in LANGUAGE_OF_SCRIPT:
        return LANGUAGE_OF_SCRIPT[script]
    if script is Script.latin:
        return _detected_latin_language(text)
    return None


def _detected_latin_language(text: str) -> str | None:
    try:
        from lingua import IsoCode639_1, Language, LanguageDetectorBuilder
    except ImportError:
        return None
    languages = [Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper())) for code in sorted(LATIN_SCRIPT_LANGUAGES)]
    detected = LanguageDetectorBuilder.from_languages(*languages).build().detect_language_of(text)
    return detected.iso_code_639_1.name.lower() if detected else None


def detector_installed() -> bool:
    """Whether the optional language detector is there to tell Latin-script languages apart."""
    try:
        import lingua  # noqa: F401
    except ImportError:
        return False
    return True
