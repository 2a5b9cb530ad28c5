"""How scripts/score_quotes.py takes the quotes a reader would cite from a paper's JATS body."""

from __future__ import annotations

from xml.etree import ElementTree

from score_quotes import quotes


def _article(body: str) -> ElementTree.Element:
    return ElementTree.fromstring(f"<article><body><sec>{body}</sec></body></article>")


def test_each_item_of_a_list_inside_a_paragraph_is_a_quote_of_its_own():
    """The items end in no full stop; read into their paragraph's text they ran on as one sentence
    whose last and first words were glued (`olderWilling`), which no page prints."""
    article = _article(
        "<p>Patients are eligible when they meet all of the following inclusion criteria:"
        "<list list-type=\"bullet\"><list-item><p>Age of eighteen years at enrolment or older</p></list-item>"
        "<list-item><p>Willing and able to provide their written informed consent</p></list-item></list></p>"
    )
    assert quotes(article) == [
        "Patients are eligible when they meet all of the following inclusion criteria:",
        "Age of eighteen years at enrolment or older",
        "Willing and able to provide their written informed consent",
    ]


def test_a_display_formula_left_out_parts_the_words_on_either_side_of_it():
    article = _article(
        "<p>The expansion rate follows from the Friedmann equation<disp-formula>H^2 = 8 pi G rho / 3</disp-formula>"
        "which gives the Hubble rate in terms of the total energy density.</p>"
    )
    assert quotes(article) == [
        "The expansion rate follows from the Friedmann equation which gives the Hubble rate in terms of the total energy density."
    ]
