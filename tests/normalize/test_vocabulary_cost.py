"""The de-hyphenation vocabulary's compounds (`well-known`), sought where they can be: in the
words of a block that hold a hyphen, not at every letter of every paragraph that holds one."""

from __future__ import annotations

from pipeline.normalize import hyphens


class _Searched:
    """The compound pattern, keeping the texts it is asked to search."""

    def __init__(self, pattern) -> None:
        self.pattern, self.texts = pattern, []

    def findall(self, text: str) -> list[str]:
        self.texts.append(text)
        return self.pattern.findall(text)


def test_compounds_are_sought_in_the_words_that_hold_a_hyphen_only(monkeypatch) -> None:
    searched = _Searched(hyphens._COMPOUND)
    monkeypatch.setattr(hyphens, "_COMPOUND", searched)
    texts = ["A well-known fact, twice-\nread by non-small-cell experts (IL-6) and a well-\nknown one.", "No hyphen here."]

    vocabulary = hyphens.paper_vocabulary(texts)

    assert vocabulary.compounds == {"well-known", "non-small"}
    assert searched.texts == ["well-known twice- non-small-cell (il-6) well-"]


def test_a_compound_chained_to_a_third_word_gives_its_first_pair_as_before() -> None:
    """`a-b-c` yields `a-b` (the search goes on after `b`), `a-b-c-d` also `c-d`."""
    vocabulary = hyphens.paper_vocabulary(["x-\ny state-of-the-art and long-term, see: dose-response.", ""])

    assert vocabulary.compounds == {"state-of", "the-art", "long-term", "dose-response"}
