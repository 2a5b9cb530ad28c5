"""How scripts/score_pdf_headings.py counts a heading the PDF prints and the JATS body has not:
a back-matter label JATS keeps untitled outside the body is neutral, with the strict count beside
it; any other is a false heading."""

from __future__ import annotations

from score_pdf_headings import score_paper

GOLD = ["Introduction", "Methods", "Results"]


def test_a_publishers_note_printed_as_a_heading_is_neither_hit_nor_false():
    score = score_paper(["1. Introduction", "2. Methods", "3. Results", "Publisher's Note"], GOLD, neutral=set())
    assert (score.found, score.predicted, score.untitled, score.extra) == (3, 3, 1, [])


def test_a_body_line_taken_for_a_heading_is_still_false():
    score = score_paper(["Introduction", "Methods", "Garlic was crushed", "Results"], GOLD, neutral=set())
    assert (score.found, score.predicted, score.untitled, score.extra) == (3, 4, 0, ["Garlic was crushed"])


def test_a_label_that_is_a_body_section_in_the_jats_is_a_hit():
    score = score_paper(["Introduction", "Funding"], ["Introduction", "Funding"], neutral=set())
    assert (score.found, score.untitled) == (2, 0)


def test_a_letter_spaced_label_is_read_whole_not_as_numbered():
    """`K E Y W O R D S`: its `K ` is the word's first letter, not a section's number."""
    score = score_paper(["Introduction", "K E Y W O R D S"], ["Introduction"], neutral=set())
    assert (score.found, score.predicted, score.untitled, score.extra) == (1, 1, 1, [])
