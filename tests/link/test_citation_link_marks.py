"""Author-year citations whose year a converter follows with a link mark inside the parentheses,
as Markdown made from IUCr journals' HTML has them: `(McPherson, 1990 ▶)`, `(Smith et al., 2001
▶; Jones, 2003 ▶)`. The mark is any arrow or geometric shape (▶, ↗, ⇑, ➚, ⬈): it says a link
stood there, and the citation is read as if it were not."""

from __future__ import annotations

import pytest

from conftest import chunk_markdown

ENTRIES = """\
Jones, A. (2003). Crystal growth in gels. J. Appl. Cryst. 36, 1-9.

McPherson, A. (1990). Current approaches to macromolecular crystallization. Eur. J. Biochem. 189, 1-23.

Smith, B., Lee, C. & Park, D. (2001). Phasing with sulfur. Acta Cryst. D57, 10-19.

Smith, B., Lee, C. & Park, D. (2004a). Phasing with selenium. Acta Cryst. D60, 20-29.

Smith, B. & Kim, E. (2004b). Phasing with xenon. Acta Cryst. D60, 30-39.
"""
MARKS = {"black triangle": "▶", "north-east arrow": "↗", "double up arrow": "⇑", "dingbat arrow": "➚", "black right triangle": "►"}


def _cited(introduction: str, rules) -> list[tuple[str, str | None]]:
    paper = f"# A paper\n\n## Introduction\n\n{introduction}\n\n## References\n\n{ENTRIES}"
    return [(citation.marker, citation.ref_id) for citation in chunk_markdown(paper, rules).citations]


@pytest.mark.parametrize("mark", MARKS.values(), ids=MARKS.keys())
def test_a_citation_whose_year_a_link_mark_follows_is_read(rules, mark):
    cited = _cited(f"Crystals were grown in gels (McPherson, 1990 {mark}).", rules)
    assert cited == [(f"McPherson, 1990 {mark}", "R2")]


def test_each_citation_of_a_parenthesis_with_link_marks_is_read(rules):
    cited = _cited("Phases were found as before (Smith et al., 2001 ▶; Jones, 2003 ▶).", rules)
    assert cited == [("Smith et al., 2001 ▶", "R3"), ("Jones, 2003 ▶", "R1")]


def test_years_with_letters_and_link_marks_name_each_entry(rules):
    cited = _cited("Selenium and xenon were tried (Smith et al., 2004a ▶, 2004b ▶).", rules)
    assert [ref_id for _, ref_id in cited] == ["R4", "R5"]


def test_a_narrative_citation_whose_year_a_link_mark_follows_is_read(rules):
    cited = _cited("As McPherson (1990 ▶) and Smith et al. (2001 ▶) showed, crystals grow slowly.", rules)
    assert [ref_id for _, ref_id in cited] == ["R2", "R3"]


def test_a_mark_without_a_year_before_it_cites_nothing(rules):
    assert _cited("The flask (McPherson ▶) was shaken, as in the figure (Fig. 1 ▶).", rules) == []
