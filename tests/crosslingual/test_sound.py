"""Loanwords by sound: a Hangul word is compared with English words in one coarse alphabet of the
sounds Korean tells apart, and matched only where it is close."""

from __future__ import annotations

import pytest

from pipeline.crosslingual.sound import MIN_SIMILARITY, english_sounds, hangul_sounds, match_by_sound, similarity


@pytest.mark.parametrize(
    ("korean", "english"),
    [
        ("인슐린", "insulin"),
        ("말라리아", "malaria"),
        ("메트포르민", "metformin"),  # `르` for an r before a consonant, `트` with no vowel of its own
        ("리툭시맙", "rituximab"),
        ("텔로미어", "telomer"),  # no r after a vowel; the index's stem of telomere
        ("사이토카인", "cytokin"),  # `아이` for y
        ("백신", "vaccin"),  # `ㅐ` for a
        ("프로토콜", "protocol"),
    ],
)
def test_a_loanword_sounds_like_the_english_word_it_was_written_from(korean, english):
    assert similarity(korean, english) >= MIN_SIMILARITY


@pytest.mark.parametrize(
    ("korean", "english"),
    [("인슐린", "inulin"), ("말라리아", "maria"), ("메트포르민", "metropolitan"), ("리툭시맙", "rituxan"), ("고양이", "goalie")],
)
def test_a_word_that_only_shares_letters_is_not_close(korean, english):
    assert similarity(korean, english) < MIN_SIMILARITY


def test_b_p_f_and_v_are_one_sound_as_in_korean():
    assert english_sounds("vif") == english_sounds("bip") == hangul_sounds("비프")


def test_the_vowel_korean_puts_between_english_consonants_is_dropped():
    assert hangul_sounds("스트레스") == english_sounds("stress")


def _vocabulary(*terms: tuple[str, int]):
    def starting(letter: str, shortest: int, longest: int) -> list[tuple[str, int]]:
        return [(term, chunks) for term, chunks in terms if term.startswith(letter) and shortest <= len(term) <= longest]

    return starting


def test_a_word_is_matched_to_the_closest_index_term_and_says_how_close():
    found = match_by_sound(["인슐린"], _vocabulary(("insulin", 3), ("inulin", 9), ("instil", 2)))
    assert (found["인슐린"].term, found["인슐린"].similarity) == ("insulin", 1.0)


def test_between_terms_that_sound_alike_the_one_in_more_chunks_wins():
    assert match_by_sound(["스펙트럼"], _vocabulary(("spektrum", 1), ("spectrum", 4)))["스펙트럼"].term == "spectrum"


def test_a_word_nothing_in_the_index_sounds_like_is_not_matched():
    assert match_by_sound(["놀이터"], _vocabulary(("insulin", 3), ("nodule", 2))) == {}


def test_a_word_of_two_consonants_is_too_short_to_match_by_sound():
    assert match_by_sound(["바나"], _vocabulary(("banana", 3), ("bana", 1))) == {}


def test_a_two_syllable_word_is_not_matched_by_sound_however_close():
    # `고전` (classical) is Sino-Korean; its skeleton K-J-N is gougeon's too.
    assert match_by_sound(["고전"], _vocabulary(("gougeon", 1))) == {}
