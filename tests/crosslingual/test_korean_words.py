"""Korean words, not strings: with Kiwi (the `korean` extra), a word is looked up without its
particles and endings, a verb by its dictionary form, and a compound the glossary lacks whole by
its parts, so that one entry serves every inflected form."""

from __future__ import annotations

import pytest

from pipeline.crosslingual.glossary import load_glossary, map_query

kiwipiepy = pytest.importorskip("kiwipiepy", reason="the korean extra (kiwipiepy) is not installed: pip install -e '.[korean]'")

from pipeline.crosslingual.korean import KoreanAnalyser  # noqa: E402

GLOSSARY = """
query_language = "ko"
evidence_language = "en"
suffixes = ["은", "는"]
ignore = ["무엇", "있다"]
[terms]
"환자" = ["patients"]
"사망률" = ["mortality"]
"감소" = ["decrease"]
"낮추다" = ["lower"]
"사구체" = ["glomerular"]
"여과율" = ["filtration rate"]
"유의" = ["significant"]
"비열등성" = ["non-inferiority"]
"시험" = ["trial"]
"경동맥" = ["carotid"]
"경동맥 내중막 두께" = ["carotid intima-media thickness"]
"""


@pytest.fixture(scope="module")
def glossary(tmp_path_factory):
    path = tmp_path_factory.mktemp("korean") / "glossary.toml"
    path.write_text(GLOSSARY)
    return load_glossary(path)


@pytest.fixture(scope="module")
def analyser():
    return KoreanAnalyser()


@pytest.mark.parametrize(
    ("query", "search_query"),
    [
        ("환자의", "patients"),
        ("환자에서", "patients"),
        ("환자들에게", "patients"),
        ("사망률을", "mortality"),
        ("감소했다", "decrease"),
        ("감소시켰는가", "decrease"),
        ("유의하게", "significant"),
        ("비열등성을", "non-inferiority"),
        ("시험에서도", "trial"),
    ],
)
def test_one_entry_serves_every_inflected_form(glossary, analyser, query, search_query):
    assert map_query(query, glossary, analyser).search_query == search_query


def test_a_verb_is_looked_up_by_its_dictionary_form(glossary, analyser):
    mapping = map_query("사망률을 낮췄는가", glossary, analyser)
    assert (mapping.search_query, [m.typed for m in mapping.mapped]) == ("mortality lower", ["사망률을", "낮췄는가"])


def test_a_compound_the_glossary_lacks_whole_maps_by_its_parts(glossary, analyser):
    assert map_query("사구체여과율을", glossary, analyser).search_query == "glomerular filtration rate"


def test_a_word_with_no_entry_is_searched_without_its_particle_and_named_as_typed(glossary, analyser):
    mapping = map_query("환자의 놀이터를", glossary, analyser)
    assert (mapping.search_query, mapping.unmapped) == ("patients 놀이터", ("놀이터를",))


def test_a_verb_that_carries_no_content_is_left_out(glossary, analyser):
    mapping = map_query("시험이 있는가", glossary, analyser)
    assert (mapping.search_query, mapping.ignored) == ("trial", ("있는가",))


def test_without_the_analyser_an_ending_outside_the_suffix_list_leaves_the_word_unmapped(glossary):
    assert map_query("감소했다", glossary).unmapped == ("감소했다",)


def test_an_entry_the_typed_words_reach_further_than_their_stems_wins(glossary, analyser):
    # Kiwi reads `내중막` (intima-media) as a verb, `나` + `중` + `막`; the typed words with the
    # suffix list are the three-word entry.
    assert map_query("경동맥 내중막 두께는", glossary, analyser).search_query == "carotid intima-media thickness"
