"""Sibling absorption: only strict methods/results anchors absorb flat H2s, within caps."""

from __future__ import annotations

from pathlib import Path

from conftest import PROJECT, chunk_markdown, words
from pipeline.chunk import chunk
from pipeline.extract.markdown.document import extract_markdown
from pipeline.normalize.stage import normalize


def _sections_of(relative: str, rules):
    file = PROJECT / "corpus" / relative
    raw = extract_markdown(file, relative, rules.page_markers)
    return {s.heading: s for s in chunk(normalize(raw, Path(relative).stem, rules), rules).sections}


def test_flat_methods_anchor_absorbs_exactly_its_four_siblings_and_stops_at_results(rules):
    sections = _sections_of("flat/lee-2022.md", rules)
    anchor = sections["Materials and methods"]
    absorbed = [s.heading for s in sections.values() if s.absorbed_into == anchor.section_id]
    assert absorbed == ["Patient cohort", "MRI scanning", "FDG-PET/CT reading", "Statistical analysis"]
    assert sections["Results"].absorbed_into is None
    assert "stopped at 'Results' (strict anchor: results)" in anchor.decisions[0]


def test_absorbed_siblings_take_the_anchor_type_and_keep_their_heading_under_it(rules):
    sections = _sections_of("flat/lee-2022.md", rules)
    cohort = sections["Patient cohort"]
    assert cohort.section_type.value == "methods"
    assert cohort.heading_path == ["Materials and methods", "Patient cohort"]
    assert cohort.section_id == f"{sections['Materials and methods'].section_id}.1"


def test_results_never_swallows_discussion(rules):
    sections = _sections_of("flat/lee-2022.md", rules)
    results = sections["Results"]
    absorbed = [s.heading for s in sections.values() if s.absorbed_into == results.section_id]
    assert absorbed == ["Diagnostic accuracy", "Interobserver agreement"]
    assert sections["Discussion"].absorbed_into is None


def test_review_paper_absorbs_nothing_and_stays_mostly_other(rules):
    sections = _sections_of("reviews/berek-2021.md", rules)
    assert all(s.absorbed_into is None for s in sections.values())
    for heading in ("Pathology", "FIGO staging", "Treatment principles", "Follow-up and surveillance"):
        assert sections[heading].section_type.value == "other"


def test_mri_scanning_is_methods_by_the_broad_pattern_but_not_an_anchor(rules):
    result = chunk_markdown(f"# T\n\n## MRI scanning\n\n{words(50)}\n", rules)
    section = next(s for s in result.sections if s.heading == "MRI scanning")
    assert section.section_type.value == "methods"
    assert section.anchor is None
    assert (section.type_source, section.type_rule) == ("classified", "methods")


def test_discussion_anchor_never_absorbs(rules):
    source = f"# T\n\n## Discussion\n\n{words(50)}\n\n## Strengths of the study\n\n{words(50)}\n"
    sections = chunk_markdown(source, rules).sections
    assert all(s.absorbed_into is None for s in sections)


def test_absorption_stops_at_a_sibling_classified_as_another_major_type(rules):
    source = f"# T\n\n## Results\n\n{words(50)}\n\n## Cohort outcome\n\n{words(50)}\n\n## Clinical implications\n\n{words(50)}\n"
    sections = {s.heading: s for s in chunk_markdown(source, rules).sections}
    assert sections["Cohort outcome"].absorbed_into == sections["Results"].section_id
    assert sections["Clinical implications"].absorbed_into is None
    assert sections["Clinical implications"].section_type.value == "discussion"


def test_results_absorbs_a_sibling_whose_heading_says_analysis(rules):
    # Measured on the flat JATS set: every such stop cut a real Results group short.
    source = f"# T\n\n## Results\n\n{words(50)}\n\n## Sequence analysis of the isolates\n\n{words(50)}\n"
    sections = {s.heading: s for s in chunk_markdown(source, rules).sections}
    assert sections["Sequence analysis of the isolates"].absorbed_into == sections["Results"].section_id


def _field_notes_caps(rules):
    absorb = rules.absorb.model_copy(update={"max_siblings": 8, "max_words": 2500})
    return rules.model_copy(update={"absorb": absorb})


def test_sibling_cap_stops_absorption(rules):
    siblings = "".join(f"## Experiment {index}\n\n{words(30)}\n\n" for index in range(1, 11))
    sections = {s.heading: s for s in chunk_markdown(f"# T\n\n## Methods\n\n{words(30)}\n\n{siblings}", _field_notes_caps(rules)).sections}
    absorbed = [s.heading for s in sections.values() if s.absorbed_into == sections["Methods"].section_id]
    assert absorbed == [f"Experiment {index}" for index in range(1, 9)]
    assert "cap: max_siblings = 8" in sections["Methods"].decisions[0]


def test_word_cap_stops_absorption(rules):
    siblings = "".join(f"## Experiment {index}\n\n{words(700)}\n\n" for index in range(1, 6))
    sections = {s.heading: s for s in chunk_markdown(f"# T\n\n## Methods\n\n{words(100)}\n\n{siblings}", _field_notes_caps(rules)).sections}
    absorbed = [s.heading for s in sections.values() if s.absorbed_into == sections["Methods"].section_id]
    assert absorbed == ["Experiment 1", "Experiment 2", "Experiment 3"]  # 100 + 3 × 700 = 2200 ≤ 2500
    assert "cap: max_words = 2500" in sections["Methods"].decisions[0]


def test_an_anchor_with_sub_headings_of_its_own_absorbs_nothing(rules):
    source = f"# T\n\n## Methods\n\n### Design\n\n{words(40)}\n\n## Ethics\n\n{words(40)}\n"
    sections = {s.heading: s for s in chunk_markdown(source, rules).sections}
    assert sections["Ethics"].absorbed_into is None


def test_anchor_with_absorbed_siblings_at_or_under_800_words_is_one_chunk(rules):
    source = f"# T\n\n## Methods\n\n{words(100)}\n\n## Cohort\n\n{words(300)}\n\n## Imaging\n\n{words(300)}\n"
    result = chunk_markdown(source, rules)
    methods = [c for c in result.chunks if c.section_type.value == "methods"]
    assert len(methods) == 1
    assert methods[0].absorbed_into is None and methods[0].section_id == "S2"


def test_a_results_sibling_about_a_contribution_is_not_back_matter(rules):
    source = f"# T\n\n## Results\n\n{words(50)}\n\n## Estimating the relative contribution of DOC\n\n{words(50)}\n"
    sections = {s.heading: s for s in chunk_markdown(source, rules).sections}
    assert sections["Estimating the relative contribution of DOC"].absorbed_into == sections["Results"].section_id


NUMBERED = (
    "# A paper\n\n## 3 Results\n\nWe found it.\n\n## Cohort outcome\n\nThe cohort held 40 adults.\n\n"
    "## 4 Ablation of the encoder\n\nRemoving it lowered accuracy.\n\n## 5 Related Work\n\nOthers did it before.\n"
)


def test_a_numbered_anchor_absorbs_unnumbered_siblings_but_not_one_numbered_beside_it(rules):
    sections = {s.heading: s for s in chunk_markdown(NUMBERED, rules).sections}
    results = sections["3 Results"]
    assert [s.heading for s in sections.values() if s.absorbed_into == results.section_id] == ["Cohort outcome"]
    assert sections["5 Related Work"].section_type.value == "other"
    assert "stopped at '4 Ablation of the encoder' (numbered 4, a section beside 3)" in results.decisions[0]


def test_roman_numbered_sections_stop_absorption_the_same_way(rules):
    source = "# A paper\n\n## III. Results\n\nWe found it.\n\n## IV. Related Work\n\nOthers did it before.\n"
    sections = {s.heading: s for s in chunk_markdown(source, rules).sections}
    assert sections["IV. Related Work"].absorbed_into is None
