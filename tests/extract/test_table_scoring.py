"""How scripts/score_tables.py compares a PDF table's cell with the JATS cell of the same paper."""

from __future__ import annotations

from score_tables import cell_key


def test_a_range_of_reference_numbers_matches_the_jats_list_of_every_number_in_it():
    """The PDF prints `[43–49]`; the JATS holds one cross-reference a number, joined by commas."""
    assert cell_key("[43–49]") == cell_key("[43,44,45,46,47,48,49]")


def test_a_list_with_a_range_and_single_numbers_is_counted_out_in_place():
    assert cell_key("[60,185–187]") == cell_key("[60, 185, 186, 187]")


def test_a_bracketed_range_of_measures_is_no_list_of_references():
    """Numbers with decimals are a measured range, compared as printed."""
    assert cell_key("[0.00–0.25]") == "[0.00-0.25]"
