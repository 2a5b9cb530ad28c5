"""Soft splits, fragment merging, the hard max, front matter and captions."""

from __future__ import annotations

import re

from conftest import chunk_markdown, words
from pipeline.report.inspection import render_tree
from pipeline.normalize.words import LONG_WORD_CHARS, count_words


def test_h2_at_800_words_with_h3_children_stays_one_chunk(rules):
    source = f"# T\n\n## Results\n\n### First\n\n{words(400)}\n\n### Second\n\n{words(396)}\n"
    result = chunk_markdown(source, rules)
    assert [c.split for c in result.chunks if c.section_type.value == "results"] == ["h2"]


def test_h2_over_800_words_is_soft_split_at_its_h3s(rules):
    source = f"# T\n\n## Results\n\n### First\n\n{words(500)}\n\n### Second\n\n{words(500)}\n"
    chunks = [c for c in chunk_markdown(source, rules).chunks if c.section_type.value == "results"]
    assert [(c.split, c.heading) for c in chunks] == [("h2", "Results"), ("h3_soft", "Second")]
    assert chunks[1].heading_path == ["Results", "Second"]


def test_soft_split_children_inherit_the_parent_type(rules):
    source = f"# T\n\n## Methods\n\n### Interim results of the pilot\n\n{words(500)}\n\n### Second\n\n{words(500)}\n"
    sections = {s.heading: s for s in chunk_markdown(source, rules).sections}
    assert sections["Interim results of the pilot"].section_type.value == "methods"
    assert sections["Interim results of the pilot"].type_source == "inherited"


def test_small_children_of_a_split_parent_are_merged_within_the_target(rules):
    children = "".join(f"### Part {index}\n\n{words(200)}\n\n" for index in range(1, 6))
    chunks = [c for c in chunk_markdown(f"# T\n\n## Results\n\n{children}", rules).chunks if c.section_type.value == "results"]
    assert [c.word_count for c in chunks] == [1 + 3 * 202, 2 * 202]  # "Results", then "Part N" + 200 each
    assert all(c.word_count <= 800 for c in chunks)


def test_merging_never_crosses_an_h2_boundary(rules):
    source = f"# T\n\n## Results\n\n{words(50)}\n\n## Discussion\n\n{words(50)}\n"
    chunks = chunk_markdown(source, rules).chunks
    assert [c.heading for c in chunks if c.split == "h2"] == ["Results", "Discussion"]


def test_a_leaf_over_the_hard_max_is_cut_at_paragraphs_into_near_equal_pieces(rules):
    paragraphs = "\n\n".join(words(100) for _ in range(25))
    chunks = [c for c in chunk_markdown(f"# T\n\n## Results\n\n{paragraphs}\n", rules).chunks if c.section_type.value == "results"]
    sizes = [c.word_count for c in chunks]
    assert [c.split for c in chunks] == ["h2", "size", "size", "size"]
    assert max(sizes) <= 1200 and max(sizes) - min(sizes) <= 100


def test_one_huge_paragraph_is_cut_at_sentences_never_mid_word(rules):
    chunks = chunk_markdown(f"# T\n\n## Results\n\n{words(3000, 'alpha')}\n", rules).chunks
    body = [c for c in chunks if c.section_type.value == "results"]
    assert all(c.word_count <= 1200 for c in body)
    assert all(c.text.endswith(".") for c in body)
    assert sum(c.word_count for c in body) == 3000 + 1


def test_pieces_of_one_hard_wrapped_paragraph_cut_at_sentences_have_the_lines_of_their_own_text(rules):
    # line n (from line 5 of the file) is `Line n says …`, two sentences, wrapped as it is written
    wrapped = "\n".join(f"Line {n} says {words(10, 'alpha')} {words(10, 'beta')}" for n in range(1, 121))
    chunks = chunk_markdown(f"# T\n\n## Results\n\n{wrapped}\n", rules).chunks
    body = [c for c in chunks if c.section_type.value == "results"]
    assert len(body) > 1
    for piece in body:
        numbers = [int(number) for number in re.findall(r"Line (\d+) says", piece.text)]
        first_line = 3 if piece.text.startswith("Results") else numbers[0] + 4
        assert (piece.line_start, piece.line_end) == (first_line, numbers[-1] + 4)


def test_a_sentence_longer_than_the_hard_max_is_cut_between_words(rules):
    chunks = chunk_markdown(f"# T\n\n## Results\n\n{' '.join(['beta'] * 2600)}\n", rules).chunks
    body = [c for c in chunks if c.section_type.value == "results"]
    assert all(c.word_count <= 1200 for c in body)
    assert all(set(c.text.replace("Results", "").split()) == {"beta"} for c in body)


def test_title_and_text_before_the_first_h2_become_the_meta_front_chunk(rules):
    result = chunk_markdown(f"# A study\n\nJ. Doe, Example University\n\n## Introduction\n\n{words(20)}\n", rules)
    front = result.chunks[0]
    assert (front.split, front.section_type.value, front.text) == ("front", "meta", "A study\n\nJ. Doe, Example University")


def test_figure_and_table_captions_become_their_own_chunks(rules):
    source = f"# T\n\n## Results\n\n{words(30)}\n\nFigure 2. Survival by stage.\n\nFig. 3: Uptake.\n\nTable 1 shows the cohort.\n"
    chunks = chunk_markdown(source, rules).chunks
    captions = [c.text for c in chunks if c.section_type.value == "figure_caption"]
    assert captions == ["Figure 2. Survival by stage.", "Fig. 3: Uptake."]
    body = next(c for c in chunks if c.heading == "Results" and c.split == "h2")
    assert "Figure 2" not in body.text and "Table 1 shows the cohort." in body.text


def test_caption_chunks_keep_their_own_line_provenance(rules):
    source = f"# T\n\n## Results\n\n{words(30)}\n\nFigure 2. Survival by stage.\n\n{words(30)}\n"
    caption = next(c for c in chunk_markdown(source, rules).chunks if c.split == "caption")
    assert (caption.line_start, caption.line_end, caption.section_id) == (7, 7, "S2")


def test_a_paper_without_headings_is_one_other_section_split_by_size(rules):
    paragraphs = "\n\n".join(words(100) for _ in range(20))
    chunks = chunk_markdown(paragraphs, rules).chunks
    assert {c.section_type.value for c in chunks} == {"other"}
    assert all(c.word_count <= 1200 for c in chunks)


def test_lines_before_the_title_stay_in_the_front_chunk(rules):
    result = chunk_markdown(f"arXiv:2103.15348v2\n\n# A study\n\nJ. Doe\n\n## Introduction\n\n{words(20)}\n", rules)
    assert result.chunks[0].text == "arXiv:2103.15348v2\n\nA study\n\nJ. Doe"


def test_a_structured_abstract_gives_its_parts_its_meta_type(rules):
    parts = "".join(f"### {name}\n\n{words(60)}\n\n" for name in ["Background", "Methods", "Results", "Conclusions"])
    sections = {s.heading: s for s in chunk_markdown(f"# T\n\n## Abstract\n\n{parts}## Introduction\n\n{words(50)}\n", rules).sections}
    assert [(sections[name].section_type.value, sections[name].type_source) for name in ["Methods", "Results"]] == [
        ("meta", "inherited"), ("meta", "inherited"),
    ]


def test_sections_that_came_out_below_the_abstract_are_typed_by_their_own_headings(rules):
    # 3,107 words with the headings: too long for an abstract (inherit.meta_max_words = 3000).
    parts = "".join(f"### {name}\n\n{words(1000)}\n\n" for name in ["Introduction", "Materials and methods", "Heavy mesons"])
    result = chunk_markdown(f"# T\n\n## Abstract\n\n{words(100)}\n\n{parts}", rules)
    sections = {s.heading: s for s in result.sections}
    assert [(sections[name].section_type, sections[name].type_source, sections[name].type_rule) for name in sections if name != "T"] == [
        ("meta", "anchor", "abstract"),
        ("intro", "anchor", "introduction"),
        ("methods", "anchor", "methods"),
        ("other", "unmatched", None),
    ]
    assert "passes no type to its sub-sections: 3107 words" in sections["Abstract"].decisions[0]


def test_inspect_titles_a_group_by_every_type_its_sections_carry(rules):
    parts = "".join(f"### {name}\n\n{words(1000)}\n\n" for name in ["Introduction", "Heavy mesons"])
    tree = render_tree(chunk_markdown(f"# T\n\n## Abstract\n\n{words(1100)}\n\n{parts}", rules))
    assert "Meta, Introduction and Other chunk group" in tree.splitlines()


def test_pieces_of_different_types_are_not_merged_into_one_chunk(rules):
    parts = f"### Introduction\n\n{words(200)}\n\n### Methods\n\n{words(200)}\n\n### Results\n\n{words(3000)}\n\n"
    chunks = chunk_markdown(f"# T\n\n## Abstract\n\n{words(100)}\n\n{parts}", rules).chunks
    assert [(c.heading, c.section_type.value) for c in chunks][0:3] == [
        ("Abstract", "meta"), ("Introduction", "intro"), ("Methods", "methods"),
    ]


def test_a_bare_abstract_heading_joins_the_section_after_it_without_giving_it_its_type(rules):
    parts = f"### Introduction\n\n{words(1600)}\n\n### Methods\n\n{words(1600)}\n\n"
    chunks = chunk_markdown(f"# T\n\n## Abstract\n\n{parts}", rules).chunks
    first = chunks[0]  # the title alone is no chunk
    assert first.text.startswith("Abstract\n\nIntroduction")
    assert (first.heading, first.section_type.value) == ("Introduction", "intro")


def test_a_section_with_no_text_of_its_own_is_no_chunk_but_stays_a_section(rules):
    result = chunk_markdown(f"# T\n\n## Results\n\n{words(50)}\n\n## Supporting Information\n\n## Discussion\n\n{words(50)}\n", rules)
    assert [c.heading for c in result.chunks] == ["Results", "Discussion"]
    supporting = next(s for s in result.sections if s.heading == "Supporting Information")
    assert supporting.decisions == ["no text of its own: no chunk (the heading stays among the sections)"]


def test_display_maths_stays_in_its_sections_chunk_with_its_lines_and_footnotes_count_as_text(rules):
    source = f"# T\n\n## Methods\n\n{words(30)}\n\n$$\nQ = a + b\\Delta P\n$$\n\n[^1]: {words(10)}\n"
    (chunk,) = [c for c in chunk_markdown(source, rules).chunks if c.section_id == "S2"]
    assert "\n\n$$\nQ = a + b\\Delta P\n$$\n\n[^1]: " in chunk.text
    assert (chunk.line_start, chunk.line_end) == (3, 11)


def _within_the_hard_max(chunked, rules) -> bool:
    """Every chunk at or under the hard max and an exact slice of the document's text."""
    text = chunked.document.text
    return all(
        chunk.word_count <= rules.chunk.hard_max_words and chunk.text == text[chunk.char_start : chunk.char_end]
        for chunk in chunked.chunks
    )


def test_a_heading_over_the_hard_max_is_cut_like_a_paragraph(rules):
    chunked = chunk_markdown("# T\n\n## " + words(10_000) + "\n\n" + words(100) + "\n", rules)
    assert len(chunked.chunks) > 1 and _within_the_hard_max(chunked, rules)


def test_a_heading_that_fits_but_not_with_its_paragraph_is_cut_from_it(rules):
    chunked = chunk_markdown("# T\n\n## " + words(900) + "\n\n" + words(900) + "\n", rules)
    assert _within_the_hard_max(chunked, rules)


def test_a_text_counts_at_least_one_word_per_long_word_chars_characters():
    assert count_words("x" * (3 * LONG_WORD_CHARS)) == 3


def test_an_inline_base64_image_of_2_mb_is_cut_to_the_hard_max_in_words_and_characters(rules):
    image = "![x](data:image/png;base64," + "iVBORw0KGgo" * 200_000 + ")"
    chunked = chunk_markdown("# T\n\n## Results\n\nThe figure.\n\n" + image + "\n", rules)
    assert _within_the_hard_max(chunked, rules)
    assert max(len(chunk.text) for chunk in chunked.chunks) <= rules.chunk.hard_max_words * LONG_WORD_CHARS


def test_a_run_of_symbols_that_holds_no_word_is_still_cut_by_its_length(rules):
    chunked = chunk_markdown("# T\n\n## Results\n\n" + "- + " * 500_000 + "end\n", rules)
    assert _within_the_hard_max(chunked, rules)
    assert max(len(chunk.text) for chunk in chunked.chunks) <= rules.chunk.hard_max_words * LONG_WORD_CHARS
