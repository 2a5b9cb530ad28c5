"""Loanwords by sound: a Hangul word the glossary lacks (`인슐린`, `말라리아`, `메트포르민`) is
compared, by how it sounds, with the words the database's own index holds, and searched as the
closest one where that one is close.

Korean writes a loanword as it hears it, so both sides are written in one coarse alphabet of
sounds Korean tells apart: b, p, f and v are one labial (`ㅂ`, `ㅍ`); l and r one liquid (`ㄹ`);
c, k, q and hard g one velar; s, z, soft c and sh one sibilant; j, soft g and ch one affricate.
The vowel `ㅡ` that Korean puts between consonants English runs together (`메트포르민`,
`me-t(eu)-po-r(eu)-min`) is dropped, and a doubled consonant is one (`말라리아`, `mal-la-ri-a`).
Consonants then decide: the distance between two spellings counts a consonant changed, added or
dropped as 1 and a vowel as 0.3, since Korean's vowels for English ones vary (`백신`, vaccine).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

# Hangul syllables are composed arithmetically (Unicode 3.12): initial × 588 + medial × 28 + final.
_FIRST_SYLLABLE, _LAST_SYLLABLE = 0xAC00, 0xD7A3
_INITIALS = ["K", "K", "N", "T", "T", "L", "M", "P", "P", "S", "S", "", "J", "J", "J", "K", "T", "P", "H"]
_MEDIALS = ["a", "e", "a", "e", "o", "e", "o", "e", "o", "wa", "we", "we", "o", "u", "wo", "we", "wi", "u", "", "i", "i"]
_FINALS = ["", "K", "K", "KS", "N", "NJ", "NH", "T", "L", "LK", "LM", "LP", "LS", "LT", "LP", "LH", "M", "P", "PS", "S", "S", "N", "J", "J", "K", "T", "P", "H"]
# `슈`, `쥬`, `츄` are how Korean writes `shu`, `ju`, `chu` (`인슐린`, insulin): the glide goes.
_PALATAL_U = {"yu"}

VOWEL_COST = 0.4
"""What adding, dropping or changing a vowel costs; a consonant costs 1."""
NEAR_VOWEL_COST = 0.15
"""What changing a vowel for one Korean often writes for it costs (`NEAR_VOWELS`)."""
NEAR_VOWELS = frozenset({frozenset("ae"), frozenset("ei"), frozenset("ou"), frozenset("eo")})
"""English a is often `ㅐ` (graph, `그래프`), i `ㅔ`, u `ㅓ` (bus, `버스`) or `ㅗ`."""
SOFT_R_COST = 0.15
"""What adding or dropping an English r after a vowel costs: Korean mostly leaves it unwritten."""
MIN_SIMILARITY = 0.85
"""The least similarity (1 - distance / the longer consonant skeleton) of a match."""
MIN_SHORT_SIMILARITY = 0.9
"""The least similarity of a match for a word of MIN_CONSONANTS consonants, where one vowel decides."""
ENGLISH_ENDINGS = ("링", "닝", "이션", "에이션", "션", "리티", "티")
"""How Korean writes English endings the index's stems have lost (`모니터링`, monitoring: `monitor`)."""
MIN_CONSONANTS = 3
"""Words with fewer consonants than this (`바나`, two) are too short to match by sound."""
MIN_SYLLABLES = 3
"""Words of fewer Hangul syllables than this are not matched by sound. A two-syllable word the
glossary lacks is mostly Sino-Korean (`고전`, classical; `사막`, desert), not a loanword, and its
three or four consonants fit some rare English name or fragment in any index (`gougeon`, `samek`)
as closely as a loanword fits its source; the short loanwords worth having (`백신`, `필터`) are
glossary entries."""
LETTERS_A_SYLLABLE = 3
"""The most English letters one Hangul syllable stands for (`스트` two syllables, `str` three letters)."""
MAX_CANDIDATES = 200_000
"""The most index terms one word is compared with."""

_SOFT_R = "r"
# English letters before which c and g are soft.
_FRONT_VOWELS = frozenset("eiy")
_VOWELS = frozenset("aeiou")
# The first letters an English word may have for each first sound of a Korean one.
_ENGLISH_INITIALS = {
    "K": "ckqg", "N": "nk", "T": "td", "L": "lr", "M": "m", "P": "pbfv", "S": "sczx", "J": "jgcz", "H": "hw", "": "aeiouyhw",
}


@dataclass(frozen=True)
class SoundMatch:
    """A Hangul word matched to an index term by sound."""

    korean: str
    term: str
    similarity: float


def hangul_sounds(word: str) -> str:
    """A Hangul word in the coarse sound alphabet (consonants upper case, vowels lower)."""
    sounds: list[str] = []
    for character in word:
        code = ord(character)
        if not _FIRST_SYLLABLE <= code <= _LAST_SYLLABLE:
            continue
        offset = code - _FIRST_SYLLABLE
        initial, medial, final = offset // 588, offset % 588 // 28, offset % 28
        sounds.append(_INITIALS[initial])
        sounds.append(_MEDIALS[medial])
        sounds.append(_FINALS[final])
    return _collapsed("".join(sounds))


def english_sounds(word: str) -> str:
    """An English word (lowered letters) in the same coarse alphabet."""
    letters = "".join(character for character in word.lower() if character.isalpha())
    sounds: list[str] = []
    index = 0
    while index < len(letters):
        letter, following = letters[index], letters[index + 1 : index + 2]
        pair = letters[index : index + 2]
        if pair in ("ph", "th", "sh", "ch", "gh", "rh", "kh", "wh", "ck", "qu"):
            sounds.append({"ph": "P", "th": "T", "sh": "S", "ch": "K", "gh": "K", "rh": "L", "kh": "K", "wh": "", "ck": "K", "qu": "K"}[pair])
            index += 2
            continue
        if letter == "c":
            sounds.append("S" if following in _FRONT_VOWELS else "K")
        elif letter == "g":
            sounds.append("J" if following in _FRONT_VOWELS else "K")
        elif letter == "x":
            sounds.append("KS")
        elif letter == "y":
            sounds.append("i" if not following or following not in _VOWELS else "")
        elif letter == "w":
            sounds.append("" if following in _VOWELS else "u")
        elif letter == "r" and index > 0 and letters[index - 1] in _VOWELS and following not in _VOWELS:
            # Korean writes an r after a vowel as nothing (`텔로미어`, telomere) or as `르`
            # (`메트포르민`, metformin): a soft r, as cheap as a vowel to drop, free as an l.
            sounds.append(_SOFT_R)
        elif letter == "e" and index == len(letters) - 1 and index > 0:
            pass  # a silent final e (`vaccine`, `morphine`)
        elif letter in _VOWELS:
            sounds.append(letter)
        else:
            sounds.append({"b": "P", "f": "P", "v": "P", "p": "P", "d": "T", "t": "T", "k": "K", "q": "K", "z": "S", "s": "S", "j": "J", "r": "L", "l": "L", "m": "M", "n": "N", "h": "H"}[letter])
        index += 1
    return _collapsed("".join(sounds))


def _collapsed(sounds: str) -> str:
    """Runs of one consonant as one (`LL` of `말라리아`, `mall`); a run of vowels as its last, since
    Korean writes an English vowel as two (`사이토카인`, cytokine: `ai` for y)."""
    kept: list[str] = []
    for sound in sounds:
        if kept and sound == kept[-1] and sound.isupper():
            continue
        if kept and _is_vowel(sound) and _is_vowel(kept[-1]):
            kept[-1] = sound
            continue
        kept.append(sound)
    return "".join(kept)


def _is_vowel(sound: str) -> bool:
    return sound.islower() and sound != _SOFT_R


def _consonants(sounds: str) -> int:
    return sum(1 for sound in sounds if sound.isupper())


def sound_distance(first: str, second: str) -> float:
    """Edit distance between two sound spellings: a consonant costs 1, a vowel VOWEL_COST."""
    def cost(sound: str) -> float:
        return 1.0 if sound.isupper() else SOFT_R_COST if sound == _SOFT_R else VOWEL_COST

    previous = [0.0]
    for sound in second:
        previous.append(previous[-1] + cost(sound))
    for one in first:
        current = [previous[0] + cost(one)]
        for column, other in enumerate(second, 1):
            if one == other or {one, other} == {_SOFT_R, "L"}:
                substitution = 0.0
            elif one.islower() and other.islower():
                substitution = NEAR_VOWEL_COST if frozenset((one, other)) in NEAR_VOWELS else VOWEL_COST
            else:
                substitution = max(cost(one), cost(other))
            current.append(min(previous[column] + cost(one), current[column - 1] + cost(other), previous[column - 1] + substitution))
        previous = current
    return previous[-1]


def similarity(korean: str, english: str) -> float:
    """How close a Hangul word sounds to an English one: 1 the same, 0 nothing alike."""
    heard, written = hangul_sounds(korean), english_sounds(english)
    longest = max(_consonants(heard), _consonants(written), 1)
    return max(0.0, 1.0 - sound_distance(heard, written) / longest)


def match_by_sound(words: Iterable[str], terms_starting: Callable[[str, int, int], list[tuple[str, int]]]) -> dict[str, SoundMatch]:
    """Each Hangul word's closest index term where it is close: `terms_starting(letter, shortest,
    longest)` gives the index's terms that start with a letter and are so many characters long,
    each with the chunks it is in, which decides between terms that sound alike. Words too short
    to tell are left out."""
    found: dict[str, SoundMatch] = {}
    for word in words:
        forms = [hangul_sounds(word)] + [hangul_sounds(word[: -len(ending)]) for ending in ENGLISH_ENDINGS if word.endswith(ending) and len(word) > len(ending) + 1]
        forms = [heard for heard in forms if _consonants(heard) >= MIN_CONSONANTS]
        syllables = sum(1 for character in word if _FIRST_SYLLABLE <= ord(character) <= _LAST_SYLLABLE)
        if not forms or syllables < MIN_SYLLABLES:
            continue
        first = forms[0][0] if forms[0][0].isupper() else ""
        best: tuple[float, int, str] | None = None
        for letter in _ENGLISH_INITIALS[first]:
            for term, chunks in terms_starting(letter, syllables, LETTERS_A_SYLLABLE * syllables + 3)[:MAX_CANDIDATES]:
                if not term.isalpha() or not term.isascii():
                    continue
                written = english_sounds(term)
                for heard in forms:
                    score = _similarity(heard, written)
                    if score is not None and (best is None or (score, chunks) > best[:2]):
                        best = (score, chunks, term)
        if best is not None:
            found[word] = SoundMatch(word, best[2], round(best[0], 3))
    return found


def _similarity(heard: str, written: str) -> float | None:
    """The similarity of two sound spellings where it is close enough for a match, else None."""
    longest = max(_consonants(heard), _consonants(written))
    # A consonant count that differs by more than a match allows is no match: skip the distance.
    if abs(_consonants(heard) - _consonants(written)) > (1 - MIN_SIMILARITY) * longest + written.count(_SOFT_R):
        return None
    score = 1.0 - sound_distance(heard, written) / longest
    least = MIN_SHORT_SIMILARITY if longest <= MIN_CONSONANTS else MIN_SIMILARITY
    return score if score >= least else None
