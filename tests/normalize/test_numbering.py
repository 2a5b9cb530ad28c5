"""A heading's section number: the one grammar (`section_number`), the PDF's reading of it, the
heading key's, and the rules key it replaced."""

from __future__ import annotations

import pytest

from conftest import edited_rules_file
from pipeline.errors import RulesError
from pipeline.text.heading_key import heading_key
from pipeline.text.numbering import NumberKind, pdf_section_number, section_number
from pipeline.rules import load_rules

_FORMER_PATTERN = r"^(?:\d+(?:\.\d+)*\.?|[ivxlc]+\.|[a-z]\.|[a-z]\))\s+"
"""The `[normalize] heading_numbering` the default rules held before the grammar was code."""


@pytest.mark.parametrize(
    ("heading", "kind", "parts", "title"),
    [
        ("2.", NumberKind.arabic, ("2",), ""),
        ("2. Methods", NumberKind.arabic, ("2",), "Methods"),
        ("2.3.1 Cohort", NumberKind.arabic, ("2", "3", "1"), "Cohort"),
        ("2.3.1. Cohort", NumberKind.arabic, ("2", "3", "1"), "Cohort"),
        ("II. Results", NumberKind.roman, ("II",), "Results"),
        ("iv. results", NumberKind.roman, ("iv",), "results"),
        ("A. Appendix", NumberKind.letter, ("A",), "Appendix"),
        ("b) Sampling", NumberKind.letter, ("b",), "Sampling"),
        ("I) Sampling", NumberKind.letter, ("I",), "Sampling"),
        ("C.1 Data", NumberKind.letter, ("C", "1"), "Data"),
        ("(b) Sampling", NumberKind.parenthesized, ("b",), "Sampling"),
        ("(12) Sampling", NumberKind.parenthesized, ("12",), "Sampling"),
        ("2 | Methods", NumberKind.arabic, ("2",), "Methods"),
        ("3 — Results", NumberKind.arabic, ("3",), "Results"),
        ("2020 results", NumberKind.arabic, ("2020",), "results"),
        ("**2.** Design", NumberKind.arabic, ("2",), "Design"),
    ],
)
def test_the_grammar_reads_a_heading_s_number_its_parts_and_where_its_title_starts(heading, kind, parts, title):
    number = section_number(heading)
    assert number is not None
    assert (number.kind, number.parts, heading[number.title_start :]) == (kind, parts, title)


@pytest.mark.parametrize(("heading", "depth"), [("2", 1), ("2.3.1 Cohort", 3), ("II. Results", 1), ("C.1 Data", 2)])
def test_a_number_s_depth_is_its_count_of_parts(heading, depth):
    assert section_number(heading).depth == depth


@pytest.mark.parametrize("heading", ["Methods", "2.Methods", "2020s in review", "A Methods", "II) Results", "II.1 Results", "(ab) x"])
def test_the_grammar_reads_no_number_where_none_stands_apart_before_the_title(heading):
    assert section_number(heading) is None


def test_a_separator_glyph_belongs_to_the_number_only_before_a_title():
    number = section_number("2 | ")
    assert number.separator == "" and number.title_start == 2


def test_emphasis_markers_around_the_number_are_kept_apart_from_it():
    number = section_number("  **2.1.** Design")
    assert (number.lead, number.label, number.closer, number.emphasis, number.space) == ("  **", "2.1", ".", "**", " ")


@pytest.mark.parametrize(
    ("heading", "kind", "title"),
    [
        ("2.1 | Plant material", NumberKind.arabic, "Plant material"),
        ("II. Results", NumberKind.roman, "Results"),
        ("C. Appendix", NumberKind.letter, "Appendix"),
        ("C.1. Data", NumberKind.letter, "Data"),
        ("(iv) Sampling", NumberKind.parenthesized, "Sampling"),
    ],
)
def test_a_pdf_reads_numbers_as_papers_print_them(heading, kind, title):
    number = pdf_section_number(heading)
    assert number is not None and (number.kind, heading[number.title_start :]) == (kind, title)


@pytest.mark.parametrize(
    "line",
    ["2020 results", "100 mg were given", "a. an item", "ii. an item", "XL. Results", "(A) x", "(xl) x", "**2.** Design", " 2. Methods", "2."],
)
def test_a_pdf_reads_no_number_in_lines_whose_numbers_number_no_section(line):
    assert pdf_section_number(line) is None


@pytest.mark.parametrize(
    ("heading", "key"),
    [("2020 Results", "results"), ("iv. Results", "results"), ("b) Sampling", "sampling"), ("C.1 Data", "c.1 data"), ("(b) Sampling", "(b) sampling")],
)
def test_a_heading_key_takes_off_numbers_letters_and_roman_numbers_but_not_sub_numbered_letters(heading, key):
    assert heading_key(heading) == key


def test_a_heading_key_keeps_a_separator_glyph_after_the_number():
    assert heading_key("2 | Methods") == "| methods"


def test_a_rules_file_that_still_holds_the_former_heading_numbering_loads(tmp_path):
    toml_value = _FORMER_PATTERN.replace("\\", "\\\\")
    path = edited_rules_file(tmp_path, "[normalize]\n", f'[normalize]\nheading_numbering = "{toml_value}"\n')
    assert load_rules(path).normalize == load_rules().normalize


def test_a_rules_file_that_changed_heading_numbering_is_told_the_key_is_no_longer_read(tmp_path):
    path = edited_rules_file(tmp_path, "[normalize]\n", '[normalize]\nheading_numbering = "^\\\\d+\\\\s+"\n')
    with pytest.raises(RulesError, match=r"custom\.toml: normalize: heading_numbering is no longer read.*delete the key"):
        load_rules(path)
