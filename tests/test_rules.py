"""Rules files: validated on load, and a bad one names the file, the rule and the problem; and the
default anchors on back-matter labels of real papers."""

from __future__ import annotations

import pytest

from pipeline.errors import RulesError
from pipeline.normalize import heading_key
from pipeline.rules import DEFAULT_RULES_PATH, load_rules


def _rules_file(tmp_path, old, new):
    text = DEFAULT_RULES_PATH.read_text()
    assert old in text
    path = tmp_path / "custom.toml"
    path.write_text(text.replace(old, new, 1))
    return path


def test_an_invalid_regex_names_the_file_and_the_rule(tmp_path):
    path = _rules_file(tmp_path, 'name = "results"\ntype = "results"\npattern = "', 'name = "results"\ntype = "results"\npattern = "(unclosed|')
    with pytest.raises(RulesError, match=r"custom\.toml: anchors\['results'\]\.pattern: invalid regular expression"):
        load_rules(path)


def test_an_unknown_key_names_the_file_and_the_key(tmp_path):
    path = _rules_file(tmp_path, "hard_max_words = 1200", "hard_max_words = 1200\nhard_max_wrds = 9")
    with pytest.raises(RulesError, match=r"custom\.toml: chunk\.hard_max_wrds: unknown key"):
        load_rules(path)


def test_an_unknown_section_type_is_refused(tmp_path):
    path = _rules_file(tmp_path, 'absorbing_types = ["methods", "results"]', 'absorbing_types = ["methods", "resluts"]')
    with pytest.raises(RulesError, match=r"absorb\.absorbing_types\.1"):
        load_rules(path)


def test_sizes_out_of_order_are_refused(tmp_path):
    path = _rules_file(tmp_path, "hard_max_words = 1200", "hard_max_words = 700")
    with pytest.raises(RulesError, match="target_max_words <= hard_max_words"):
        load_rules(path)


def test_a_missing_rules_file_says_what_to_do(tmp_path):
    with pytest.raises(RulesError, match="cannot read rules file .*nope.toml.*pass --rules"):
        load_rules(tmp_path / "nope.toml")


def test_the_rules_hash_follows_what_the_rules_say_to_an_ingest(tmp_path):
    path = _rules_file(tmp_path, "target_min_words = 500", "target_min_words = 400")
    assert load_rules(path).sha256 != load_rules().sha256


@pytest.mark.parametrize(
    ("old", "new"),
    [("[chunk]", "# a comment of the user's\n[chunk]"), ("spelling_min_stem = 3", "spelling_min_stem = 4")],
)
def test_comments_and_search_rules_leave_the_rules_hash_as_it_is_so_nothing_is_ingested_again(tmp_path, old, new):
    assert load_rules(_rules_file(tmp_path, old, new)).sha256 == load_rules().sha256


def test_a_spelling_pair_must_be_lower_case_letters(tmp_path):
    path = _rules_file(tmp_path, '{ british = "ise", american = "ize", at = "end" }', '{ british = "is e", american = "ize", at = "end" }')
    with pytest.raises(RulesError, match="search.spelling.0.british"):
        load_rules(path)


@pytest.mark.parametrize(
    "heading",
    ["Availability of data and materials", "Ethics approval and consent to participate", "Consent for publication",
     "Author details", "Authors’ information", "Pre-publication history", "Authors' contributions"],
)
def test_the_declarations_of_biomedical_back_matter_are_meta_anchors(rules, heading):
    anchor = rules.anchor_for(heading_key(heading, rules))
    assert anchor is not None and (anchor.name, anchor.type.value) == ("back_matter", "meta")
