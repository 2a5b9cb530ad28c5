"""Front- and back-matter labels are meta, not body sections: the publishers' own labels
(`Additional information`, `Publisher's note`, `How to cite this article`, `Authors`, `Address
for correspondence`), a label spelt out letter by letter (`A B S T R A C T`), those a methods
anchor would otherwise absorb in a flat paper, and those a PDF's heading levels set below the
last body section (`Acknowledgements` under `Methods`)."""

from __future__ import annotations

import pytest

from conftest import chunk_markdown

TEXT = " ".join(["Cells were grown in the usual medium and counted twice a day."] * 8)
LABELS = [
    "Additional information",
    "Publisher's note",
    "Publisher’s Note",
    "How to cite this article",
    "Authors",
    "Author details",
    "Authors' contributions",
    "Author contributions",
    "Competing interests",
    "Conflict of interest",
    "Declaration of interests",
    "Address for correspondence",
    "Author for correspondence",
    "Correspondence and requests for materials",
    "Acknowledgements",
    "Electronic supplementary material",
    "Supplemental information",
    "List of abbreviations",
]


def _types(markdown: str, rules) -> dict[str, tuple[str, str]]:
    """Each section's heading → its type and what typed it."""
    return {
        section.heading: (section.section_type.value, section.type_source.value)
        for section in chunk_markdown(markdown, rules).sections
        if section.heading
    }


@pytest.mark.parametrize("label", LABELS)
def test_a_front_or_back_matter_label_after_the_body_is_meta(rules, label):
    markdown = f"# A paper\n\n## Introduction\n\n{TEXT}\n\n## Discussion\n\n{TEXT}\n\n## {label}\n\n{TEXT}\n"
    assert _types(markdown, rules)[label] == ("meta", "anchor")


@pytest.mark.parametrize("label", LABELS)
def test_a_methods_anchor_at_the_end_of_a_flat_paper_absorbs_no_back_matter_label(rules, label):
    markdown = (
        f"# A paper\n\n## Introduction\n\n{TEXT}\n\n## Discussion\n\n{TEXT}\n\n## Methods\n\n{TEXT}\n\n"
        f"## Cell culture\n\n{TEXT}\n\n## {label}\n\n{TEXT}\n"
    )
    types = _types(markdown, rules)
    assert types["Cell culture"] == ("methods", "absorbed")
    assert types[label] == ("meta", "anchor")


@pytest.mark.parametrize("spelt", ["A B S T R A C T", "K E Y W O R D S", "A R T I C L E I N F O"])
def test_a_label_spelt_out_letter_by_letter_is_matched_whole(rules, spelt):
    markdown = f"# A paper\n\n## {spelt}\n\n{TEXT}\n\n## Introduction\n\n{TEXT}\n"
    assert _types(markdown, rules)[spelt] == ("meta", "anchor")


def test_back_matter_set_below_the_last_body_section_is_meta_and_passes_meta_on(rules):
    markdown = (
        f"# A paper\n\n## Introduction\n\n{TEXT}\n\n## Methods\n\n{TEXT}\n\n### Cell culture\n\n{TEXT}\n\n"
        f"### Acknowledgements\n\n{TEXT}\n\n### Conflict of interest\n\n{TEXT}\n\n"
        f"### Additional information\n\n{TEXT}\n\n#### Ethics\n\n{TEXT}\n"
    )
    types = _types(markdown, rules)
    assert types["Cell culture"] == ("methods", "inherited")
    assert types["Acknowledgements"] == ("meta", "anchor")
    assert types["Conflict of interest"] == ("meta", "anchor")
    assert types["Additional information"] == ("meta", "anchor")
    assert types["Ethics"] == ("meta", "inherited")


def test_a_meta_label_amid_a_body_section_s_own_sub_sections_is_the_body_s(rules):
    markdown = (
        f"# A paper\n\n## Introduction\n\n{TEXT}\n\n## Node types\n\n{TEXT}\n\n### Papers\n\n{TEXT}\n\n"
        f"### Authors\n\n{TEXT}\n\n### Entities\n\n{TEXT}\n"
    )
    types = _types(markdown, rules)
    assert types["Authors"] == types["Papers"] == types["Entities"] == ("other", "inherited")


def test_back_matter_below_the_last_body_section_is_meta_though_a_label_no_rule_names_stands_in_it(rules):
    """`Methods` last, as some journals print it, with the back matter set at its sub-headings'
    level; `Code availability` names no rule, yet Acknowledgements and Conflict of interest before
    it are no methods, and it is back matter too."""
    markdown = (
        f"# A paper\n\n## Introduction\n\n{TEXT}\n\n## Methods\n\n{TEXT}\n\n### Cell culture\n\n{TEXT}\n\n"
        f"### Acknowledgements\n\n{TEXT}\n\n### Conflict of interest\n\n{TEXT}\n\n### Code availability\n\n{TEXT}\n"
    )
    types = _types(markdown, rules)
    assert types["Cell culture"] == ("methods", "inherited")
    assert types["Acknowledgements"] == ("meta", "anchor")
    assert types["Conflict of interest"] == ("meta", "anchor")
    assert types["Code availability"] == ("meta", "inherited")
