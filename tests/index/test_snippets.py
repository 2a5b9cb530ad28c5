"""A hit's snippet: where the query's terms are in its text, as the index counts them, marked."""

from __future__ import annotations

from pipeline.index.snippets import Snippet, TermSpan, find_terms, snippet
from pipeline.index.terms import TermCounter


def _snippet_for(text: str, query: str) -> Snippet:
    counter = TermCounter()
    return snippet(text, set(counter.query_terms(query)), counter)


def test_terms_are_found_where_the_text_writes_them_whole_or_as_a_part():
    text = "Serum IL-6 and FDG-PET/CT of the pets"
    assert find_terms(text, {"il-6", "pet", "the"}, TermCounter()) == [
        TermSpan(6, 10, frozenset({"il-6"})), TermSpan(19, 22, frozenset({"pet"})), TermSpan(33, 37, frozenset({"pet"}))
    ]


def test_a_compound_found_whole_counts_as_its_parts_too_as_the_index_counts_it():
    assert find_terms("Serum IL-6 rose", {"il-6", "il", "6"}, TermCounter()) == [TermSpan(6, 10, frozenset({"il-6", "il", "6"}))]


def test_terms_are_found_at_the_texts_own_offsets_where_lowering_lengthens_it():
    text = "İzmir and Serum IL-6"  # `İ` lowers to two characters
    assert find_terms(text, {"il-6"}, TermCounter()) == [TermSpan(16, 20, frozenset({"il-6"}))]


def test_a_snippet_shows_the_query_word_not_a_word_that_contains_it():
    text = "Patients will be followed. " * 20 + "Serum IL-6 rose sharply after surgery."
    assert "IL-6 rose" in _snippet_for(text, "IL-6").text
    assert "IL-6 rose" in _snippet_for(text, "il").text  # `il` is a word of `IL-6`, and only a part of `will`


def test_a_snippet_shows_the_hyphenated_term_rather_than_one_of_its_parts_written_alone():
    text = "Adenosquamous carcinoma in 6 patients. " + "The nodes were sampled. " * 20 + "Serum IL-6 rose."
    assert "**IL-6** rose" in _snippet_for(text, "IL-6").marked()


def test_a_term_at_the_end_of_a_long_text_is_in_the_snippet_and_marked():
    text = "The nodes were sampled at surgery and read by two pathologists. " * 30 + "Median serum IL-6 was 11.8 pg/mL."
    shown = _snippet_for(text, "IL-6")
    assert shown.marked().endswith("Median serum **IL-6** was 11.8 pg/mL.")
    assert shown.text.startswith("…")


def test_a_snippet_marks_each_query_term_where_it_is_written():
    text = "Sparse   expert\nrouting is cheaper."  # whitespace is collapsed in the snippet
    shown = _snippet_for(text, "routing experts")
    assert shown == Snippet("Sparse expert routing is cheaper.", ((7, 13), (14, 21)))
    assert shown.marked() == "Sparse **expert** **routing** is cheaper."


def test_a_snippet_gives_machines_its_text_unmarked_and_where_the_terms_are():
    assert _snippet_for("Serum IL-6 rose.", "IL-6").as_json() == {"snippet": "Serum IL-6 rose.", "snippet_marks": [[6, 10]]}


def test_a_snippet_marks_nothing_where_the_hit_is_on_its_heading_alone():
    assert _snippet_for("Patients were followed.", "results") == Snippet("Patients were followed.", ())


def test_a_snippet_shows_the_query_terms_not_its_stopwords():
    text = "Most of the designs of the model " * 12 + "send each token to one expert by routing."
    assert "expert by routing" in _snippet_for(text, "routing of tokens").text


def test_a_snippet_finds_the_query_word_in_another_form_as_the_index_does():
    text = "The layers are dense. " * 20 + "Tokens are routed to experts."
    assert "**routed** to **experts**" in _snippet_for(text, "routing expert").marked()


def test_a_snippet_shows_where_most_query_terms_meet():
    text = "An expert was asked. " + "The layers are dense. " * 20 + "Sparse expert routing is cheaper."
    assert "Sparse expert routing" in _snippet_for(text, "expert routing").text


def test_a_snippet_is_cut_between_words():
    text = "Ubiquitous phosphorylation cascades. " * 20 + "Kinase inhibitors block them. " + "Downstream effects follow. " * 20
    shown = _snippet_for(text, "inhibitors").text
    assert shown.startswith("…") and shown.endswith("…")
    assert set(shown.strip("…").split()) <= set(text.split())
