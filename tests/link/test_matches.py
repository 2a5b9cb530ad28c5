"""The faster `finditer` of the link patterns finds exactly what `Pattern.finditer` finds."""

from __future__ import annotations

import re

import pytest

from pipeline.link.matches import FOLDS_TO_ASCII, Matches, Pieces, finditer, search
from pipeline.link.pattern_heads import heads_after_opening_looked_for, opening_assertions

TEXT = "See Table 2 and tables 3-4; Atable 5 is no table. Cf. @C03, e@C04, [see S2-P1] and §4."


@pytest.mark.parametrize(
    "pattern",
    [
        r"\b(?:tables?|tab\.)\s*(?P<numbers>\d+(?:-\d+)?)\b",  # a word boundary first
        r"(?<![\w@])@(?P<id>[A-Z]{1,3}\d{1,4})\b|\[see\s+(?P<p>S\d+(?:-P\d+)?)\]",  # a look-behind first
        r"(?:\bsections?|§)\s*\d+",  # a boundary inside an alternative
        r"\b(?!tables)\w+le\b",  # a boundary beside a negative look-ahead: searched as it is
        r"[\b]|\d",  # a backspace in a class is no boundary
    ],
)
def test_the_same_matches_as_finditer(pattern):
    compiled = re.compile(pattern, re.IGNORECASE)
    assert [m.span() for m in finditer(compiled, TEXT)] == [m.span() for m in compiled.finditer(TEXT)]


def test_a_word_boundary_still_forbids_a_match_inside_a_word():
    compiled = re.compile(r"\btables?\s*\d+", re.IGNORECASE)
    assert [m.group() for m in finditer(compiled, TEXT)] == ["Table 2", "tables 3"]


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"\bsupp\w*\s+(?P<n>\d+)|\b(?-i:S)\d+\s+fig", "Supplementary 2, S3 Fig and s4 fig; SUPP 5."),  # heads in any case
        (r"\bs\d+", "ſ1 and s2: a case-blind `s` is also the long s, which lower-casing keeps"),
        (r"\bk\d+", "K1 (the Kelvin sign) and k2"),
        (r"\bi\d+", "İ1 lower-cases to two characters, ı2 is a dotless i, i3"),
        (r"§\s*\d+|@[A-Z]\d", "§ 4, §5 and @C3 beside é, ß and Ω"),
        (r"(?:a|)b\d", "b1 ab2 cb3"),  # an alternative with no head: the others' heads follow it
        (r"(?:tab|ab)\w*\s\d", "tab 1, ab 2, stab 3 and abab 4"),  # heads of two first letters, one inside the other's match
        (r"\d+(?:st|nd)", "the 1st and 22nd"),  # starts with digits: heads of digits
        # The ASCII form has `?` for every character outside it: heads holding one, or a class
        # that matches one (a no-break space for `\s`, an Arabic-Indic three for `\d`), still find it.
        (r"\bsupplementary\s+table\s*\d", "Supplementary\u00a0Table 1 and supplementary table 2"),
        (r"\bs\d+\s+fig", "S\u0663 Fig, s4 fig and S5\u2009fig"),
        (r"§\s*\d+", "§\u00a04 and § 5, with ? and é about"),
        (r"\bsec\s\d", "sec\x1c1 (a separator \\s takes in a text, not in bytes) and sec 2"),
    ],
)
def test_the_same_matches_as_finditer_where_the_head_is_searched_in_lower_case(pattern, text):
    compiled = re.compile(pattern, re.IGNORECASE)
    assert [m.span() for m in Matches(text).finditer(compiled)] == [m.span() for m in compiled.finditer(text)]


def test_one_text_searched_for_several_patterns_gives_each_its_own_matches():
    text = Matches("Table 1 and Fig. 2; table 3")
    tables, figures = re.compile(r"\btables?\s*\d", re.IGNORECASE), re.compile(r"\bfig\.?\s*\d", re.IGNORECASE)
    assert [m.group() for m in text.finditer(tables)] == ["Table 1", "table 3"]
    assert [m.group() for m in text.finditer(figures)] == ["Fig. 2"]


def test_digits_and_spaces_have_no_case_so_lower_casing_keeps_them_in_place():
    """The heads may hold `\\d` and `\\s`, searched in the lower-cased text: that holds only while
    no digit or space changes when lower-cased."""
    characters = "".join(map(chr, range(0x110000)))
    kept = re.findall(r"[\d\s]", characters)
    assert [character for character in kept if character.lower() != character] == []


def test_a_character_with_no_case_is_matched_by_itself_alone_when_case_is_ignored():
    """A head keeps a character outside ASCII that lower-casing leaves as it is (`§`): that holds
    only while `re`, ignoring case, matches no other character for it."""
    import _sre

    uncased = [character for character in map(chr, range(128, 0x110000)) if character.lower() == character == character.upper()]
    assert [character for character in uncased if _sre.unicode_iscased(ord(character))] == []


def test_a_set_of_characters_is_a_head_of_each_of_them():
    text = "cells 1 and 3, rooms 2 and 9"
    compiled = re.compile(r"[13] and \d", re.IGNORECASE)
    assert [m.span() for m in Matches(text).finditer(compiled)] == [m.span() for m in compiled.finditer(text)]


def test_every_match_holds_one_of_the_required_heads_though_not_at_its_start():
    """A citation `Smith et al., 2020` starts with a name no head can fix, but ends on a year:
    its places are where a year starts, and a text with no year has none."""
    citation = re.compile(r"^(?P<first>(?-i:[A-Z])\w+)(?:\s+et\s+al\.?)?,?\s+(?P<years>(?:1[89]|20)\d\d)$", re.IGNORECASE)
    assert Matches("Smith et al., 2020; Lee 1999 and 2121").places(citation) == [14, 24]
    assert Matches("Smith et al., in press").places(citation) == []


def test_a_head_with_no_letter_is_looked_for_where_the_text_has_it_not_at_every_character_outside_ascii():
    """`§` is a `?` in the text's ASCII form, as every accent is: it is looked for in the text as
    it is, where lower-casing has nothing to fold, while `sec` is looked for in the ASCII form."""
    section = re.compile(r"(?:\bsec|§)\s*\d", re.IGNORECASE)
    assert Matches("é Sec 4 ü § 5").places(section) == [2, 10]


def test_heads_whose_matches_cannot_overlap_find_every_place_of_each():
    """`table` cannot start inside another `table`: one scan finds every place."""
    assert Matches("Table1 tabletable").places(re.compile(r"table\d?", re.IGNORECASE)) == [0, 7, 12]


def test_a_pattern_that_every_match_can_avoid_a_head_of_has_no_places():
    """`\\w+` fixes no character, nor does a year that may be missing: every text may hold a match."""
    assert Matches("anything").places(re.compile(r"\w+(?:, (?:19|20)\d\d)?")) is None


def test_required_places_overlap_where_the_heads_do():
    """`2020` starts at 0 and at 2 of `202020`: a match may start its year at either."""
    assert Matches("202020").places(re.compile(r"20\d\d")) == [0, 2]


def test_the_characters_outside_ascii_a_case_blind_letter_matches_are_the_four_looked_for():
    """A text with one of them is searched without heads: `re` matches `ſ` for `s`, but the
    lower-cased text keeps `ſ`, where no head `s` is found."""
    folding = [character for character in map(chr, range(128, 0x110000)) if re.match("(?i:[a-z])", character)]
    assert "".join(folding) == FOLDS_TO_ASCII


def _pieces(text: str, starts: list[int]) -> list[tuple[str, int]]:
    """The text cut at `starts` (each piece runs to the next start)."""
    return [(text[start:end], start) for start, end in zip(starts, [*starts[1:], len(text)])]


def _each_alone(compiled: re.Pattern[str], pieces: list[tuple[str, int]]) -> list[tuple[int, tuple[int, int]]]:
    return [(index, match.span()) for index, (piece, _) in enumerate(pieces) for match in compiled.finditer(piece)]


@pytest.mark.parametrize(
    ("pattern", "text", "starts"),
    [
        # `Table 2` is cut between two pieces: neither holds it, though the text does.
        (r"\btables?\s*\d+", "See Table 1. Then Table 2 and table 3", [0, 21, 30]),
        # A piece that starts inside a word has a word boundary at its start when alone.
        (r"\bfig\.?\s*\d", "Config 1 and fig 2", [0, 3]),
        (r"(?<![\w@])@[A-Z]\d", "x@C1 and @C2", [0, 1]),  # nor does a look-behind see before it
        (r"\bs\d+", "s1 then ſ2 and s3", [0, 8]),  # the long s: a stretch searched without heads
        (r"\w+\d", "ab1 cd2", [0, 4]),  # a pattern with no heads
    ],
)
def test_pieces_of_a_text_find_what_each_piece_finds_alone(pattern, text, starts):
    compiled = re.compile(pattern, re.IGNORECASE)
    pieces = _pieces(text, starts)
    assert [(index, match.span()) for index, match in Pieces(text, pieces).finditer(compiled)] == _each_alone(compiled, pieces)


def test_pieces_that_are_not_slices_of_the_text_in_order_are_each_searched_alone():
    compiled = re.compile(r"\btable\s*\d", re.IGNORECASE)
    text = "table 1 and table 2"
    pieces = [("table 9", 0), ("table 1", 0)]  # the first is no slice of the text, the second comes before it
    assert [(index, match.group()) for index, match in Pieces(text, pieces).finditer(compiled)] == [(0, "table 9"), (1, "table 1")]


@pytest.mark.parametrize(
    "text",
    ["see doi 210.1234/x first, then 10.1234/y", "no identifier here", "10.1234/z at the start"],
)
def test_the_first_match_is_the_one_search_finds(text):
    """`210.1234/x` holds the assertion-free form's match, but the word boundary forbids it there."""
    doi = re.compile(r"\b10\.\d{4,9}/\S+")
    found, expected = search(doi, text), doi.search(text)
    assert (found.span() if found else None) == (expected.span() if expected else None)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        # Digits glued to a word, or after its full stop: tried only at the digits a letter or a
        # letter and a stop come before, where the look-behinds hold.
        (r"(?:(?<=[^\W\d_])|(?<=[^\W\d_][.,;]))\d+(?:,\d+)*", "cited here.12 and there3,4 but not 56 nor (7) nor é8"),
        (r"(?<!\d)\(\d+\)", "(1) and 2(3) and x(45)"),  # a negative look-behind
        (r"(?<=[^\W\d_])\d|(?<=x)y", "a1 xy 2"),  # two alternatives: the look-behind opens only one of them
        (r"(?=\d\d)\d", "1 23 456"),  # a look-ahead opens it
    ],
)
def test_a_pattern_that_opens_with_assertions_is_tried_where_they_hold(pattern, text):
    compiled = re.compile(pattern, re.IGNORECASE)
    assert [m.span() for m in Matches(text).finditer(compiled)] == [m.span() for m in compiled.finditer(text)]


def test_the_assertions_a_pattern_opens_with_are_checked_in_c_before_the_pattern_is_tried():
    """Of the four digits only the one after a letter is a place to try."""
    (head,) = heads_after_opening_looked_for(re.compile(r"(?<=[^\W\d_])\d+", re.IGNORECASE)).in_text
    assert [m.start() for m in head.pattern.finditer("12 a3 45")] == [4]


@pytest.mark.parametrize(
    ("pattern", "opening"),
    [
        (r"(?:(?<=[a-z])|(?<=\)[.,]))\d+", r"(?:(?<=[a-z])|(?<=\)[.,]))"),
        (r"(?<![(\]])\b\(\d\)", r"(?<![(\]])"),  # parentheses inside a class are characters
        (r"(?m)(?<!\d)\d", r"(?m)(?<!\d)"),
        (r"(?<=a)b|c", None),  # the look-behind opens one alternative, not the pattern
        (r"(?:(?<=a)b)", None),  # a group that matches a character
    ],
)
def test_the_assertions_a_pattern_opens_with_are_read_off_its_source(pattern, opening):
    assert opening_assertions(re.compile(pattern)) == opening
