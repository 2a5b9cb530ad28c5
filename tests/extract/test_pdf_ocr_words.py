"""What OCR's recognizer is known to misread, mended by rules that hold for any paper (`ocr_words`)."""

from __future__ import annotations

import pytest

from pipeline.extract.pdf.ocr_words import mend_misreadings


@pytest.mark.parametrize(
    ("read", "printed"),
    [
        ("Sciences (AllMS), Ansari Nagar", "Sciences (AIIMS), Ansari Nagar"),
        ("(AlIMS),", "(AIIMS),"),
        ("body mass index (BMl)", "body mass index (BMI)"),
        ("pages el12-el15, 2005", "pages e112-e115, 2005"),
        ("a dose of 1l5 mg", "a dose of 115 mg"),
        ("vol. 22, pp. 652-656,1999.", "vol. 22, pp. 652-656, 1999."),
        ("Authors'contributions", "Authors' contributions"),
        ("©The Author(s) 2021", "© The Author(s) 2021"),
    ],
)
def test_a_misread_letter_or_a_dropped_space_is_mended(read, printed):
    assert mend_misreadings(read) == printed


@pytest.mark.parametrize(
    "printed",
    [
        "All patients gave consent",  # one capital: a word, not an acronym
        "washed in 1 M HCl and KCl",  # chlorides end in Cl
        "AlCl3 and Cl2",  # formulas hold digits
        "10 ml of saline, 5ml",  # a litre after a number is no digit
        "10,000 and 1,234,567 cells",  # thousands are three digits a group
        "authors 1,2 and 3",
        "the patient's own and the patients' own, don't",
        "© 2021 The Authors",
    ],
)
def test_what_is_printed_so_stays(printed):
    assert mend_misreadings(printed) == printed
