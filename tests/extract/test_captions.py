"""Which paragraphs are captions, by the label they open with: the labels papers print in many
languages and styles (`Tabela 1.`, `Table-1:`, `TABLE II`, `Abb. 2`), and the sentences that only
name a table or figure (`Table 1 shows…`), which stay body text."""

from __future__ import annotations

import pytest

from pipeline.rules import Rules


@pytest.mark.parametrize(
    "paragraph",
    [
        "Table 1. Baseline characteristics.",
        "Tabela 1. Características das mulheres.",
        "Tabela 2 – Distribuição dos artigos.",
        "Tabla 3: Pacientes por grupo.",
        "Tableau 2 : Doses par groupe.",
        "Tabelle 4. Dosen je Gruppe.",
        "Tabel 1. Karakteristik responden.",
        "Table-1: The semiquantitative number of expressions.",
        "Table 1 - Doses by arm.",
        "Table 2 | Serum lipids by group.",
        "TABLE II. Fitted parameters.",
        "TABLE IV Fitted parameters",
        "Table S1. Primers used.",
        "Supplemental Table-1: The semiquantitative number of expressions.",
        "Supplementary Table S2 Primers used.",
        "Figura 1. Mapa da área de estudo.",
        "Figure 2 — Study design.",
        "Abbildung 3: Versuchsaufbau.",
        "Abb. 3 Versuchsaufbau.",
        "Gráfico 1 – Número de artigos por ano.",
        "Quadro 1. Categorias de análise.",
        "Cuadro 2. Variables del estudio.",
    ],
)
def test_a_caption_label_as_papers_print_it_opens_a_caption(paragraph: str, rules: Rules) -> None:
    assert rules.normalize.caption_pattern.match(paragraph)


@pytest.mark.parametrize(
    "paragraph",
    [
        "Table 1 shows the baseline characteristics.",
        "Tabela 1 apresenta as características das mulheres.",
        "Figura 2 mostra a área de estudo.",
        "Figs 1-3 show the sites.",
        "Figs 1–3 show the sites.",
        "Table II lists the fitted parameters.",
        "Table-1 gives the counts.",
        "Tables 1 and 2 list the doses.",
    ],
)
def test_a_sentence_that_names_a_table_or_figure_is_no_caption(paragraph: str, rules: Rules) -> None:
    assert not rules.normalize.caption_pattern.match(paragraph)


@pytest.mark.parametrize("line", ["Tabela 1. Características", "Table-1: The number", "TABLE II", "Abb. 3", "Supplemental Table-1:"])
def test_a_pdf_line_that_opens_with_a_caption_label_starts_a_caption(line: str, rules: Rules) -> None:
    assert rules.captions.pdf_start.match(line)


@pytest.mark.parametrize("line", ["Table in the appendix", "Figures of merit", "Tableware was washed"])
def test_a_pdf_line_with_a_label_word_but_no_number_starts_no_caption(line: str, rules: Rules) -> None:
    assert not rules.captions.pdf_start.match(line)
