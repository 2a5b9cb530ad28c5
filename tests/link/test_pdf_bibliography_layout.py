"""A PDF bibliography set with a hanging indent is cut into entries by its layout: an entry
starts where a line starts at its column's margin, whatever paragraphs the PDF reader made of a
bibliography set tight. Each fixture is a PDF written here with PyMuPDF, line by line, so its
truth is known."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from pipeline.bibliography.hanging_indent import lines_at_margin
from pipeline.bibliography.entries import by_hanging_indent
from pipeline.ingest.process import process
from pipeline.records.base import BlockKind
from pipeline.records.document import Block, TextBox
from pipeline.rules.sources import HangingIndentRules

_FONT = pymupdf.Font("helv")
_BOLD = pymupdf.Font("hebo")
_BODY, _LEADING, _LEFT, _INDENT = 10.0, 12.0, 60.0, 14.0

ENTRIES = [
    [
        "Afgan E, Baker D, Blankenberg D. 2016. The Galaxy platform for accessible, reproducible",
        "and collaborative biomedical analyses. Nucleic Acids Research 44:3-10.",
    ],
    # Its second line starts with a capital and no name; a paragraph of its own, it reads as an entry's start to no one.
    ["Altschul SF, Madden TL. 1997.", "Gapped BLAST and PSI-BLAST: a new generation of protein database search", "programs. Nucleic Acids Research 25:3389-3402."],
    # Its second line starts with a name and a year, as an entry would.
    [
        "Kosiol C, Vinar T, Da Fonseca RR, Hubisz MJ, Bustamante CD, Nielsen R,",
        "Siepel A. 2008. Patterns of positive selection in six mammalian genomes. PLOS Genetics 4:1-17.",
    ],
    ["Muller J, Creevey CJ, Bork P. 2010. AQUA: automated quality improvement for multiple", "sequence alignments. Bioinformatics 26:263-265."],
    # Its author's initial is accented: a capital all the same.
    ["Åkesson M, Berg K. 2012. Seasonal selection in northern populations of voles. Mol Ecol", "21:1-12."],
    ["Yang Z. 2007. PAML 4: phylogenetic analysis by maximum likelihood. Mol Biol Evol 24:1586-1591."],
    ["Yang Z, Dos Reis M. 2011. Statistical properties of the branch-site test of positive", "selection. Mol Biol Evol 28:1217-1228."],
]
"""Each entry's lines, the first at the margin and the rest indented, with no space between
the entries."""

_INTRODUCTION = [
    "Positive selection was tested with PAML (Yang, 2007) after each alignment was improved",
    "with AQUA (Muller et al., 2010), and the genomes were compared as before (Kosiol et al., 2008;",
    "Altschul and Madden, 1997). The workflow ran on Galaxy (Afgan et al., 2016) throughout, as in voles",
    "(Åkesson and Berg, 2012).",
]


def _write_line(page: pymupdf.Page, x: float, y: float, text: str, font: pymupdf.Font = _FONT, size: float = _BODY) -> None:
    writer = pymupdf.TextWriter(page.rect)
    writer.append((x, y), text, font=font, fontsize=size)
    writer.write_text(page)


def write_paper(path: Path, entries: list[list[str]], first_line_indented: bool = False) -> Path:
    """A one-page paper: a title, an introduction that cites by author and year, and a
    bibliography of `entries`, each line of an entry but its first indented (or, with
    `first_line_indented`, only its first)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    _write_line(page, _LEFT, 70.0, "Selection Scans Across Mammalian Genomes", _BOLD, 16.0)
    y = 110.0
    _write_line(page, _LEFT, y, "Introduction", _BOLD, 12.0)
    y += 18
    filler = [f"Line {n} of the methods noted the alignment, the tree and the model fitted to each gene family." for n in range(10)]
    for line in [*_INTRODUCTION, *filler]:
        _write_line(page, _LEFT, y, line)
        y += _LEADING
    y += 20
    _write_line(page, _LEFT, y, "References", _BOLD, 12.0)
    y += 18
    for entry in entries:
        for number, line in enumerate(entry):
            indented = (number == 0) if first_line_indented else (number > 0)
            _write_line(page, _LEFT + (_INDENT if indented else 0.0), y, line)
            y += _LEADING
    doc.save(path)
    return path


@pytest.fixture(scope="module")
def paper(tmp_path_factory, rules):
    path = write_paper(tmp_path_factory.mktemp("bibliography_layout") / "hanging.pdf", ENTRIES)
    return process(path, path.name, "hanging", rules).chunked


def test_each_entry_of_a_hanging_indent_bibliography_is_one_entry(paper):
    assert [" ".join(reference.text.split()) for reference in paper.references] == [" ".join(entry) for entry in ENTRIES]


def test_the_reader_made_paragraphs_that_are_not_the_entries(paper):
    """The fixture tests the cut: the PDF reader's paragraphs of the bibliography are not its entries."""
    starts = {reference.char_start for reference in paper.references}
    first, last = paper.references[0].char_start, paper.references[-1].char_end
    paragraphs = [block.char_start for block in paper.document.blocks if first <= block.char_start < last]
    assert set(paragraphs) != starts


def test_citations_resolve_to_the_entries_the_layout_cut(paper):
    cited = {(citation.marker, citation.ref_id) for citation in paper.citations}
    assert cited == {
        ("Yang, 2007", "R6"), ("Muller et al., 2010", "R4"), ("Kosiol et al., 2008", "R3"),
        ("Altschul and Madden, 1997", "R2"), ("Afgan et al., 2016", "R1"), ("Åkesson and Berg, 2012", "R5"),
    }


def test_entries_keep_their_first_author_and_year(paper):
    assert [(reference.first_author, reference.year) for reference in paper.references][1:3] == [("Altschul SF", "1997"), ("Kosiol C", "2008")]


def test_a_bibliography_that_indents_each_entry_s_first_line_is_not_read_by_its_indent(tmp_path, rules):
    path = write_paper(tmp_path / "first_line.pdf", ENTRIES, first_line_indented=True)
    chunked = process(path, path.name, "first-line", rules).chunked
    first, last = chunked.references[0].char_start, chunked.references[-1].char_end
    blocks = [block for block in chunked.document.blocks if first <= block.char_start < last]
    marked = lines_at_margin(blocks, rules.references.hanging_indent)
    assert marked is not None  # the layout has two indents, but the wrong way round for a hanging one
    assert by_hanging_indent(blocks, chunked.document, rules) is None


# ---------------------------------------------------------------- which lines are at the margin


def _block(*lines: tuple[int, float]) -> Block:
    """A paragraph whose printed lines start at these (page, x0), 10 points high each."""
    boxes = [TextBox(page=page, x0=x0, y0=10.0 * n, x1=x0 + 200, y1=10.0 * n + 10, char_start=n, char_end=n + 1) for n, (page, x0) in enumerate(lines)]
    return Block(kind=BlockKind.paragraph, char_start=0, char_end=len(lines), line_boxes=boxes)


def _margins(*blocks: Block) -> list[bool] | None:
    marked = lines_at_margin(list(blocks), HangingIndentRules())
    return None if marked is None else [at_margin for _, at_margin in marked]


def test_lines_at_the_margin_start_entries_and_indented_ones_carry_them_on():
    assert _margins(_block((1, 50), (1, 62), (1, 62), (1, 50), (1, 62), (1, 50), (1, 62))) == [True, False, False, True, False, True, False]


def test_numbers_set_flush_right_are_at_the_margin():
    # `9.` starts a digit's width further in than `10.`; the carried-on lines are indented further.
    assert _margins(_block((1, 54), (1, 68), (1, 50), (1, 68), (1, 50), (1, 68), (1, 68))) == [True, False, True, False, True, False, False]


def test_each_column_has_its_own_margin():
    left = [(1, 50), (1, 62), (1, 50), (1, 62)]
    right = [(1, 300), (1, 312), (1, 312), (1, 300), (1, 312)]
    assert _margins(_block(*left), _block(*right)) == [True, False, True, False, True, False, False, True, False]


def test_a_bibliography_with_every_line_at_the_margin_shows_no_hanging_indent():
    assert _margins(_block(*[(1, 50)] * 8)) is None


def test_a_few_indented_lines_among_many_at_the_margin_show_no_hanging_indent():
    # One entry a line, and a URL or two wrapped: each line would start an entry anyway.
    assert _margins(_block((1, 50), (1, 50), (1, 50), (1, 62), (1, 50), (1, 50), (1, 50), (1, 50))) is None


def test_blocks_without_printed_lines_have_no_layout_to_read():
    markdown = Block(kind=BlockKind.paragraph, char_start=0, char_end=10)
    assert _margins(_block(*[(1, 50), (1, 62)] * 4), markdown) is None


# ---------------------------------------------------------------- a bibliography set flush

_RIGHT = 535.0
FLUSH_ENTRIES = [
    ["Abadal, E. Ciencia abierta: un modelo con piezas por encajar. Arbor, v. 197, n. 799, p. a588,", "2021. Doi: https://doi.org/10.3989/arbor.2021.799003"],
    # Its wrapped line starts with names, after a line that reaches the edge: it carries the entry on.
    [
        "Gingras, Y. The transformation of the scientific paper: from knowledge to accounting unit. In:",
        "Biagioli, M.; Lippman, A. Gaming the metrics: misconduct and manipulation in academic research.",
        "Cambridge: MIT Press, 2020. p. 43-55.",
    ],
    ["He, T.; Wang, W. Library and information science research in China: an international perspective.", "Library Review, v. 38, n. 4, p. 185-191, 2006. Doi: https://doi.org/10.1080/10572317.2006.10762721"],
    ["Koshikawa, N. China passes US as world's top researcher. Nikkei Asia, 2020."],
    ["Larivière, V.; Haustein, S.; Mongeon, P. The oligopoly of academic publishers in the digital era.", "PLoS ONE, v. 10, n. 6, 2015. Doi: https://doi.org/10.1371/journal.pone.0127502"],
]
"""Each entry's lines, all at the margin, every line but an entry's last justified to the right
edge, with no space between the entries. Where an entry ends in a DOI, with no full stop, the
PDF reader runs the next entry into its paragraph."""


def _write_justified(page: pymupdf.Page, y: float, text: str) -> None:
    """A line set word by word from the margin to `_RIGHT`, as a justified line is."""
    words = text.split()
    gap = (_RIGHT - _LEFT - sum(_FONT.text_length(word, _BODY) for word in words)) / (len(words) - 1)
    x = _LEFT
    for word in words:
        _write_line(page, x, y, word)
        x += _FONT.text_length(word, _BODY) + gap


def write_flush_paper(path: Path, entries: list[list[str]]) -> Path:
    """A one-page paper whose bibliography of `entries` is set flush and justified."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    _write_line(page, _LEFT, 70.0, "Brazilian and Chinese Publication in Information Science", _BOLD, 16.0)
    _write_line(page, _LEFT, 110.0, "Introduction", _BOLD, 12.0)
    y = 128.0
    for n in range(12):
        _write_line(page, _LEFT, y, f"Line {n} of the introduction compares the two countries' output (Koshikawa, 2020).")
        y += _LEADING
    _write_line(page, _LEFT, y + 20, "References", _BOLD, 12.0)
    y += 38
    for entry in entries:
        for number, line in enumerate(entry):
            (_write_justified if number < len(entry) - 1 else lambda page, y, text: _write_line(page, _LEFT, y, text))(page, y, line)
            y += _LEADING
    doc.save(path)
    return path


def test_a_flush_bibliography_run_into_one_paragraph_is_cut_after_each_line_that_ends_short(tmp_path, rules):
    path = write_flush_paper(tmp_path / "flush.pdf", FLUSH_ENTRIES)
    chunked = process(path, path.name, "flush", rules).chunked
    assert [" ".join(reference.text.split()) for reference in chunked.references] == [" ".join(entry) for entry in FLUSH_ENTRIES]


# ---------------------------------------------------------------- a mark between the columns

_RIGHT_COLUMN = 310.0


def write_two_column_paper(path: Path, left: list[list[str]], right: list[list[str]], mark_at: float) -> Path:
    """A one-page paper whose hanging-indent bibliography runs in two columns, `left` and `right`,
    with a row of asterisks set alone below them at `mark_at`, in the gutter, as some journals print one."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    _write_line(page, _LEFT, 70.0, "Choline Transport in the Blood-Brain Barrier", _BOLD, 16.0)
    _write_line(page, _LEFT, 110.0, "References", _BOLD, 12.0)
    for x, entries in ((_LEFT, left), (_RIGHT_COLUMN, right)):
        y = 128.0
        for entry in entries:
            for number, line in enumerate(entry):
                _write_line(page, x + (_INDENT if number else 0.0), y, line)
                y += _LEADING
    _write_line(page, mark_at, 128.0 + 6 * _LEADING + 4.0, "********")
    doc.save(path)
    return path


TWO_COLUMNS = (
    [
        ["Park J, Lee H. Choline uptake in the brain. J Neurochem", "12: 1-9 (2001)."],
        ["Kim S. Transporters of the endothelium. Placenta", "26: 735-746 (2005)."],
        ["Cho Y, Han M. The blood-brain barrier in culture.", "Brain Res 5: 1-8 (2010)."],
    ],
    [
        ["Lips KS, Pfeil U. Choline transporter CHT1 in", "arteries. J Histochem 51: 1645 (2016)."],
        ["Armstrong DM. Choline acetyltransferase in", "the forebrain. J Comp Neurol 250: 81 (1986)."],
        ["Kirkpatrick CJ. The cholinergic system in the", "endothelium. Life Sci 72: 2111 (2003)."],
    ],
)


def test_a_row_of_asterisks_between_the_columns_is_no_column_s_margin(tmp_path, rules):
    path = write_two_column_paper(tmp_path / "asterisks.pdf", *TWO_COLUMNS, mark_at=_RIGHT_COLUMN - 38.0)
    chunked = process(path, path.name, "asterisks", rules).chunked
    assert [reference.first_author for reference in chunked.references] == ["Park J", "Kim S", "Cho Y", "Lips KS", "Armstrong DM", "Kirkpatrick CJ"]
