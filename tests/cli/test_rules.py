"""Rules files: validated on load, and a bad one names the file, the rule and the problem; and the
default anchors on back-matter labels of real papers."""

from __future__ import annotations

import re

import pytest

from conftest import edited_rules_file
from pipeline.errors import RulesError
from pipeline.text.heading_key import heading_key
from pipeline.rules import DEFAULT_RULES_PATH, load_chunk_rules, load_rules, load_search_rules


def test_an_invalid_regex_names_the_file_and_the_rule(tmp_path):
    path = edited_rules_file(tmp_path, 'name = "results"\ntype = "results"\npattern = "', 'name = "results"\ntype = "results"\npattern = "(unclosed|')
    with pytest.raises(RulesError, match=r"custom\.toml: anchors\['results'\]\.pattern: invalid regular expression"):
        load_rules(path)


def test_an_unknown_key_names_the_file_and_the_key(tmp_path):
    path = edited_rules_file(tmp_path, "hard_max_words = 1200", "hard_max_words = 1200\nhard_max_wrds = 9")
    with pytest.raises(RulesError, match=r"custom\.toml: chunk\.hard_max_wrds: unknown key"):
        load_rules(path)


def test_an_unknown_section_type_is_refused(tmp_path):
    path = edited_rules_file(tmp_path, 'absorbing_types = ["methods", "results"]', 'absorbing_types = ["methods", "resluts"]')
    with pytest.raises(RulesError, match=r"absorb\.absorbing_types\.1"):
        load_rules(path)


def test_sizes_out_of_order_are_refused(tmp_path):
    path = edited_rules_file(tmp_path, "hard_max_words = 1200", "hard_max_words = 700")
    with pytest.raises(RulesError, match="target_max_words <= hard_max_words"):
        load_rules(path)


def test_a_missing_rules_file_says_what_to_do(tmp_path):
    with pytest.raises(RulesError, match="cannot read rules file .*nope.toml.*pass --rules"):
        load_rules(tmp_path / "nope.toml")


def test_the_rules_hash_follows_what_the_rules_say_to_an_ingest(tmp_path):
    path = edited_rules_file(tmp_path, "target_min_words = 500", "target_min_words = 400")
    assert load_rules(path).sha256 != load_rules().sha256


@pytest.mark.parametrize(
    ("old", "new"),
    [("[chunk]", "# a comment of the user's\n[chunk]"), ("spelling_min_stem = 3", "spelling_min_stem = 4")],
)
def test_comments_and_search_rules_leave_the_rules_hash_as_it_is_so_nothing_is_ingested_again(tmp_path, old, new):
    assert load_rules(edited_rules_file(tmp_path, old, new)).sha256 == load_rules().sha256


def test_a_spelling_pair_must_be_lower_case_letters(tmp_path):
    path = edited_rules_file(tmp_path, '{ british = "ise", american = "ize", at = "end" }', '{ british = "is e", american = "ize", at = "end" }')
    with pytest.raises(RulesError, match="search.spelling.0.british"):
        load_rules(path)


def test_search_s_own_load_reports_a_bad_search_table_as_the_full_load_does(tmp_path):
    path = edited_rules_file(tmp_path, '{ british = "ise", american = "ize", at = "end" }', '{ british = "ise", american = "ize", at = "middle" }')
    with pytest.raises(RulesError) as full:
        load_rules(path)
    with pytest.raises(RulesError) as alone:
        load_search_rules(path)
    assert str(alone.value) == str(full.value) and "custom.toml: search.spelling.0.at" in str(alone.value)


def test_search_s_own_load_reads_the_search_table_as_the_full_load_does(tmp_path):
    path = edited_rules_file(tmp_path, "spelling_min_stem = 3", 'spelling_min_stem = 4\nuser_glossary = "mine.toml"')
    assert load_search_rules(path) == load_rules(path).search
    assert load_search_rules(path).spelling_min_stem == 4


def test_report_s_own_load_reads_and_reports_the_chunk_table_as_the_full_load_does(tmp_path):
    assert load_chunk_rules(edited_rules_file(tmp_path, "target_min_words = 500", "target_min_words = 400")).target_min_words == 400
    path = edited_rules_file(tmp_path, "hard_max_words = 1200", "hard_max_words = 700")
    with pytest.raises(RulesError) as full:
        load_rules(path)
    with pytest.raises(RulesError) as alone:
        load_chunk_rules(path)
    assert str(alone.value) == str(full.value) and "custom.toml: chunk: " in str(alone.value)


def test_search_s_own_load_leaves_the_other_tables_to_their_commands(tmp_path):
    path = edited_rules_file(tmp_path, "hard_max_words = 1200", "hard_max_words = 700")
    assert load_search_rules(path) == load_rules().search


@pytest.mark.parametrize(
    "heading",
    ["Availability of data and materials", "Ethics approval and consent to participate", "Consent for publication",
     "Author details", "Authors’ information", "Pre-publication history", "Authors' contributions"],
)
def test_the_declarations_of_biomedical_back_matter_are_meta_anchors(rules, heading):
    anchor = rules.anchor_for(heading_key(heading))
    assert anchor is not None and (anchor.name, anchor.type.value) == ("back_matter", "meta")


# ---------------------------------------------------------------- [pdf] and [captions]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("gutter_crossing_share = 0.12", "gutter_crossing_share = 1.5", r"pdf\.columns\.gutter_crossing_share: Input should be less than 1"),
        ("min_pages = 3", "min_pages = 1", r"pdf\.running_lines\.min_pages: Input should be greater than or equal to 2"),
        ("line_gap = 1.3", 'line_gap = "wide"', r"pdf\.paragraphs\.line_gap: Input should be a valid number"),
        ("max_top = 0.6", "max_top = 0.6\nmax_bottom = 0.9", r"pdf\.title\.max_bottom: unknown key"),
        ("short_document_min_pages = 2", "short_document_min_pages = 4", r"pdf\.running_lines: short_document_min_pages must not exceed min_pages"),
        ("larger_size = 1.07", "larger_size = 0.9", r"pdf\.headings: min_size must not exceed larger_size"),
    ],
    ids=["share over 1", "too few pages", "not a number", "unknown key", "short documents ask more", "sizes out of order"],
)
def test_a_bad_pdf_value_names_the_file_and_the_key(tmp_path, old, new, message):
    with pytest.raises(RulesError, match=r"custom\.toml: " + message):
        load_rules(edited_rules_file(tmp_path, old, new))


def test_a_rules_file_without_pdf_tables_reads_pdfs_as_the_default_rules_do(tmp_path, rules):
    text = DEFAULT_RULES_PATH.read_text()
    path = tmp_path / "older.toml"
    path.write_text(text[: text.index("[pdf.running_lines]")])
    assert load_rules(path).pdf == rules.pdf


def test_an_opening_anchor_must_name_an_anchor_rule(tmp_path):
    path = edited_rules_file(tmp_path, 'opening_anchors = ["abstract", "introduction"]', 'opening_anchors = ["abstrakt"]')
    with pytest.raises(RulesError, match=r"pdf: front_matter\.opening_anchors: no anchor rule is named 'abstrakt'"):
        load_rules(path)


def test_both_caption_tests_are_built_from_the_one_list_of_labels(tmp_path):
    rules = load_rules(edited_rules_file(tmp_path, 'labels = "fig', 'labels = "photo|fig'))
    assert rules.normalize.caption_pattern.match("Photo 2. The field site in winter.")
    assert rules.captions.pdf_start.match("PHOTO 2")


def test_normalize_reads_the_caption_paragraph_test(rules):
    assert rules.normalize.caption_pattern is rules.captions.paragraph


def test_an_invalid_caption_label_names_its_key(tmp_path):
    with pytest.raises(RulesError, match=r"captions\.labels: invalid regular expression"):
        load_rules(edited_rules_file(tmp_path, 'labels = "fig', 'labels = "(fig'))


def test_a_rules_file_from_before_captions_keeps_its_own_caption_pattern(tmp_path, rules):
    older = r'caption_pattern = "^(?:figure|table)\\s*\\d+[.:]"'
    path = edited_rules_file(tmp_path, "# Which paragraphs are captions: see [captions].", older)
    text = path.read_text()
    path.write_text(text[: text.index("[captions]")] + text[text.index("# Explicit page markers") :])
    loaded = load_rules(path)
    assert loaded.normalize.caption_pattern.pattern == r"^(?:figure|table)\s*\d+[.:]"
    assert loaded.captions == rules.captions


def test_a_caption_pattern_beside_captions_is_refused(tmp_path):
    path = edited_rules_file(tmp_path, "# Which paragraphs are captions: see [captions].", 'caption_pattern = "^figure"')
    with pytest.raises(RulesError, match=re.escape("normalize: caption_pattern: captions are described in [captions]")):
        load_rules(path)


def test_the_first_author_rule_takes_its_capital_from_the_capital_fragment(tmp_path):
    """A user who reads names in another alphabet widens `capital` once, not at each of its
    places in `first_author`."""
    path = edited_rules_file(tmp_path, 'capital = "(?-i:[A-ZÀ-ÖØ-ÞĆČĐŁŃŘŚŠŞŢŽŹŻ])"', 'capital = "(?-i:[A-ZÀ-ÖØ-ÞĆČĐŁŃŘŚŠŞŢŽŹŻА-Я])"')
    assert load_rules(path).references.first_author.match("Иванов, И. (2020) Title.")["author"].strip() == "Иванов, И."
    assert load_rules().references.first_author.match("Иванов, И. (2020) Title.") is None


def test_a_rules_file_from_before_the_fragments_keeps_its_first_author_as_written(tmp_path, rules):
    """An older file writes `first_author` out whole and has no fragments: it loads as it was."""
    text = DEFAULT_RULES_PATH.read_text(encoding="utf-8")
    written_out = rules.references.first_author.pattern.replace("\\", "\\\\")
    start = text.index('first_author = "')
    text = text[:start] + f'first_author = "{written_out}"' + text[text.index("\n", start) :]
    for fragment in ("capital", "letters", "particle"):
        start = text.index(f"\n{fragment} = ")
        text = text[:start] + text[text.index("\n", start + 1) :]
    path = tmp_path / "older.toml"
    path.write_text(text, encoding="utf-8")
    assert load_rules(path).references.first_author.pattern == rules.references.first_author.pattern


def test_an_invalid_fragment_names_its_key(tmp_path):
    path = edited_rules_file(tmp_path, 'particle = "(?:de|', 'particle = "(?:de|(|')
    with pytest.raises(RulesError, match=r"references\.particle: invalid regular expression"):
        load_rules(path)


def test_a_heading_is_matched_by_the_rules_asked_not_by_rules_asked_before(tmp_path):
    default = load_rules()
    tuned = load_rules(edited_rules_file(tmp_path, 'pattern = "conclu|', 'pattern = "conclu|outlook|'))
    assert default.classify_heading("outlook") is None
    assert tuned.classify_heading("outlook").type.value == "conclusion"
    assert default.classify_heading("outlook") is None


def test_rules_that_have_matched_headings_still_equal_rules_loaded_from_the_same_file():
    matched = load_rules()
    matched.anchor_for("methods")
    matched.classify_heading("statistical analysis")
    assert matched == load_rules()
