"""Papers written in Portuguese, Spanish, French or German head their sections in their own
language; those headings get the same section types and anchors as their English names."""

from __future__ import annotations

import pytest

from conftest import chunk_markdown, words


def _types(headings: list[str], rules) -> dict[str, str]:
    source = "# T\n\n" + "".join(f"## {heading}\n\n{words(40)}\n\n" for heading in headings)
    return {s.heading: s.section_type.value for s in chunk_markdown(source, rules).sections if s.heading != "T"}


@pytest.mark.parametrize(
    ("headings", "expected"),
    [
        (
            ["Resumo", "Introdução", "Materiais e métodos", "Resultados", "Discussão", "Considerações finais", "Agradecimentos", "Referências"],
            ["meta", "intro", "methods", "results", "discussion", "conclusion", "meta", "meta"],
        ),
        (
            ["Resumen", "Introducción", "Materiales y métodos", "Resultados", "Discusión", "Conclusiones", "Agradecimientos", "Referencias"],
            ["meta", "intro", "methods", "results", "discussion", "conclusion", "meta", "meta"],
        ),
        (
            ["Résumé", "Introduction", "Méthodes", "Résultats", "Discussion", "Conclusion", "Remerciements", "Références"],
            ["meta", "intro", "methods", "results", "discussion", "conclusion", "meta", "meta"],
        ),
        (
            ["Zusammenfassung", "Einleitung", "Material und Methoden", "Ergebnisse", "Diskussion", "Schlussfolgerungen", "Danksagung", "Literaturverzeichnis"],
            ["meta", "intro", "methods", "results", "discussion", "conclusion", "meta", "meta"],
        ),
    ],
    ids=["portuguese", "spanish", "french", "german"],
)
def test_a_papers_own_section_names_get_their_types(headings, expected, rules):
    assert list(_types(headings, rules).values()) == expected


def test_a_methods_section_in_portuguese_absorbs_its_flat_siblings_as_the_english_one_does(rules):
    source = (
        f"# T\n\n## Introdução\n\n{words(40)}\n\n## Procedimentos Metodológicos\n\n{words(40)}\n\n"
        f"## Coleta de dados\n\n{words(40)}\n\n## Resultados e Discussão\n\n{words(40)}\n"
    )
    sections = {s.heading: s for s in chunk_markdown(source, rules).sections}
    anchor = sections["Procedimentos Metodológicos"]
    assert anchor.anchor == "methods"
    assert sections["Coleta de dados"].absorbed_into == anchor.section_id
    assert sections["Coleta de dados"].section_type.value == "methods"
    assert sections["Resultados e Discussão"].absorbed_into is None


def test_a_heading_that_only_contains_a_foreign_section_word_is_typed_broadly_not_anchored(rules):
    sections = {s.heading: s for s in chunk_markdown(f"# T\n\n## Análise estatística dos dados\n\n{words(40)}\n", rules).sections}
    section = sections["Análise estatística dos dados"]
    assert section.section_type.value == "methods"
    assert section.anchor is None


def test_a_foreign_name_is_matched_as_a_word_not_inside_an_english_one(rules):
    # `références` is written inside `preferences`.
    assert _types(["Body size preferences"], rules) == {"Body size preferences": "other"}
