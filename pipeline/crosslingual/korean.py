"""Korean words, not strings: a Korean word (`사망률을`, `감소했다`, `환자들에서`) is split into
morphemes by Kiwi (`kiwipiepy`, the optional `korean` extra) so that its particles and endings are
dropped and one glossary entry serves every inflected form of the word.

Kiwi was chosen over the other Korean analysers on PyPI because it ships its model as a package
and runs offline without Java (KoNLPy's analysers need a JVM, or MeCab and mecab-ko-dic built
from source), is maintained, and tags a query's morphemes in well under a millisecond; soynlp
learns its words from a corpus, which a query is not.
"""

from __future__ import annotations

from dataclasses import dataclass

# Kiwi's tags (the Sejong tag set) of the morphemes that carry a word's meaning. Particles (J*),
# endings (E*), the copula (VCP), auxiliary verbs (VX: `줄어들다`'s `들다`) and the verb-making
# suffixes `하`, `되`, `시키`, `받` (XSV, XSA) are what an inflected form adds, and are dropped.
_CONTENT_TAGS = frozenset({"NNG", "NNP", "NNB", "NR", "NP", "XR", "XPN", "XSN", "VV", "VA", "MM", "MAG", "SH"})
_NOUN_SUFFIX = "XSN"
_PREFIX = "XPN"
_VERB_TAGS = frozenset({"VV", "VA"})
# The plural suffix adds nothing English search needs (`환자들` finds what `환자` finds).
_PLURAL = ("들", "XSN")


@dataclass(frozen=True)
class KoreanWord:
    """One Korean word of a query, as typed and without what inflection added."""

    typed: str
    stem: str
    """Its content morphemes joined (`사망률` of `사망률을`, `감소` of `감소했다`); empty where it
    has none (a particle written alone)."""
    lemma: str | None
    """Where it ends in a verb or adjective, that one's dictionary form (`낮추다` of `낮췄는가`)."""
    parts: tuple[str, ...]
    """Its content morphemes, a prefix joined to what follows and a suffix to what precedes
    (`사구체`, `여과율` of `사구체여과율을`): the pieces of a compound the glossary lacks whole."""


class KoreanAnalyser:
    """Kiwi, loaded once for a search (its model takes most of a second to load)."""

    def __init__(self) -> None:
        from kiwipiepy import Kiwi

        # Kiwi's web-collected noun list and its typo model are left out: they double the load
        # time, and a query's words are either in our glossary or loanwords matched by sound.
        self._kiwi = Kiwi(load_default_dict=False, load_typo_dict=False, load_multi_dict=False)

    def word(self, typed: str) -> KoreanWord:
        """`typed` (one word, Hangul only) without its particles and endings."""
        morphemes = [(token.form, token.tag) for token in self._kiwi.tokenize(typed)]
        content = [(form, tag) for form, tag in morphemes if tag in _CONTENT_TAGS and (form, tag) != _PLURAL]
        if not content:
            return KoreanWord(typed, "", None, ())
        parts: list[str] = []
        pending_prefix = ""
        for form, tag in content:
            if tag == _PREFIX:
                pending_prefix += form
            elif tag == _NOUN_SUFFIX and parts:
                parts[-1] += form
            else:
                parts.append(pending_prefix + form)
                pending_prefix = ""
        if pending_prefix:
            parts.append(pending_prefix)
        last_tag = content[-1][1]
        lemma = "".join(form for form, _ in content) + "다" if last_tag in _VERB_TAGS else None
        return KoreanWord(typed, "".join(parts), lemma, tuple(parts))


def load_korean_analyser() -> KoreanAnalyser | None:
    """Kiwi where the `korean` extra is installed; None where it is not."""
    try:
        return KoreanAnalyser()
    except ImportError:
        return None


KOREAN_EXTRA_NOTICE = (
    "Korean particles and endings are stripped by the glossary's suffix list only: "
    "install the korean extra for Kiwi's analysis (pip install -e '.[korean]')"
)
