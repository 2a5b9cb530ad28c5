"""The PDF passes from the lines read off the pages to blocks in reading order, as a named, ordered list.

Every pass takes what is known of the document so far (`Reading`) and returns a copy with its own
part changed. `PASSES` holds them in the order `extract_pdf` runs them (`run_passes`), as
markdown-it-py's `Ruler` holds its rules; `pass_descriptions` names them with their one-line
summaries (`pipeline inspect --passes`). Before them `page_reading.read_page` reads every page
once; beside them `tables.find_pdf_tables` finds the tables' grids.

The thresholds a user may tune come from the rules (`[pdf]`, the caption start of `[captions]`,
the anchors that open a paper's body), and each pass hands on only its part; the others are
named constants beside the code that applies them, each with its reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from pipeline.extract.pdf.back_cover import back_cover_heads_nothing
from pipeline.extract.pdf.blocks import BlockRules, group_blocks, join_continuations, merge_lists
from pipeline.extract.pdf.body_text import body_size, measure_layout
from pipeline.extract.pdf.columns import find_columns
from pipeline.extract.pdf.contents import mark_contents
from pipeline.extract.pdf.bibliography_heading import mark_bibliography_headings
from pipeline.extract.pdf.heading_model import classify_headings
from pipeline.extract.pdf.heading_rule_lines import RulesOnPage, mark_ruled_rows
from pipeline.extract.pdf.headings import HeadingRules, mark_headings
from pipeline.extract.pdf.layout_model import drop_model_furniture
from pipeline.extract.pdf.line_numbers import drop_line_numbers
from pipeline.extract.pdf.margins import drop_heads_naming_the_paper, mark_asides
from pipeline.extract.pdf.reading_order import order_page
from pipeline.extract.pdf.records import Layout, PdfBlock, PrintedLine, Row
from pipeline.extract.pdf.run_in import RunInRules, split_run_in_headings
from pipeline.extract.pdf.running_lines import drop_running_lines
from pipeline.extract.pdf.shared_lines import split_shared_lines
from pipeline.rules import Rules


@dataclass(frozen=True, slots=True)
class Reading:
    """What the passes know of one document so far; each pass returns a copy with its part changed."""

    pages: list[list[PrintedLine]]
    """Every page's printed lines, page furniture dropped as the passes find it."""
    heights: list[float]
    """Every page's height in its reading frame, in points."""
    toc: list[list]
    """The PDF's outline, as `get_toc(simple=True)` gives it."""
    rules: Rules
    labelled: bool
    """Whether the layout model read the pages (`PrintedLine.label`)."""
    dropped: int = 0
    """Lines of page furniture dropped so far."""
    gutters: list[list[tuple[float, float]]] = field(default_factory=list)
    """Every page's column gutters, left to right: (start, end) in points."""
    rows: list[Row] = field(default_factory=list)
    """Every page's rows in reading order."""
    layout: Layout | None = None
    """The body text measured, once the rows are read."""
    blocks: list[PdfBlock] = field(default_factory=list)
    rules_on: RulesOnPage | None = None
    """The rule lines drawn on a page, read when a pass asks (`heading_rule_lines`); None reads none."""


@dataclass(frozen=True, slots=True)
class PdfPass:
    """One named pass: `run` takes the reading so far and returns the next."""

    name: str
    run: Callable[[Reading], Reading]

    @property
    def summary(self) -> str:
        """The first line of the pass's docstring: what it does, in a line."""
        return (self.run.__doc__ or "").strip().splitlines()[0]


def _dropped(reading: Reading, pages: list[list[PrintedLine]], removed: list[PrintedLine]) -> Reading:
    """The reading with a furniture pass's lines dropped, unless that would drop every line left:
    furniture is what recurs around a paper's text, so lines that are all there is (one line at
    the top of every page) are the text, and a paper is never stored empty as all furniture."""
    if removed and not any(pages):
        return reading
    return replace(reading, pages=pages, dropped=reading.dropped + len(removed))


def _drop_running_lines(reading: Reading) -> Reading:
    """Drop the margin lines whose text, digits masked, recurs at the same height on other pages: journal heads, page numbers."""
    return _dropped(reading, *drop_running_lines(reading.pages, reading.heights, reading.rules.pdf.running_lines))


def _drop_heads_naming_the_paper(reading: Reading) -> Reading:
    """Drop the margin lines of later pages that spell page 1's title or byline: a short paper's running heads."""
    return _dropped(reading, *drop_heads_naming_the_paper(reading.pages, reading.heights, reading.rules.pdf.running_lines))


def _drop_model_furniture(reading: Reading) -> Reading:
    """Drop the lines the layout model reads as page heads or feet in the margin bands (only where it read the pages)."""
    if not reading.labelled:
        return reading
    margin = reading.rules.pdf.running_lines.margin
    return _dropped(reading, *drop_model_furniture(reading.pages, reading.heights, margin, body_size(reading.pages)))


def _drop_line_numbers(reading: Reading) -> Reading:
    """Drop a review copy's or preprint's line numbers: a column of numbers rising down the page beside every line, also where they open a line's text."""
    return _dropped(reading, *drop_line_numbers(reading.pages))


def _mark_asides(reading: Reading) -> Reading:
    """Mark the blocks of smaller print set beside the body text (a margin note, a side box) as asides."""
    return replace(reading, pages=mark_asides(reading.pages, body_size(reading.pages), reading.rules.pdf.asides))


def _find_columns(reading: Reading) -> Reading:
    """Find every page's column gutters: strips that lines of column width leave empty, also sought where other pages show one."""
    return replace(reading, gutters=find_columns(reading.pages, body_size(reading.pages), reading.rules.pdf.columns))


def _order_pages(reading: Reading) -> Reading:
    """Read every page column by column between full-width lines, the lines on one baseline joined into a row."""
    band_gap = reading.rules.pdf.columns.band_gap * body_size(reading.pages)
    rows: list[Row] = []
    for pieces, gutters in zip(reading.pages, reading.gutters):
        rows.extend(order_page(pieces, gutters, first_group=(rows[-1].group + 1) if rows else 0, band_gap=band_gap))
    return replace(reading, rows=rows)


def _measure_layout(reading: Reading) -> Reading:
    """Measure the body text: the running text's size and face, the line pitch and every column's edges."""
    return replace(reading, layout=measure_layout(reading.pages, reading.rows))


def _group_blocks(reading: Reading) -> Reading:
    """Group the rows into blocks, cut at a column change, a gap, an indent, a change of size or weight, a bullet or a caption."""
    return replace(reading, blocks=group_blocks(reading.rows, reading.layout, BlockRules.from_rules(reading.rules)))


def _mark_contents(reading: Reading) -> Reading:
    """Mark a table of contents (lines that end in rising page numbers, titles the body goes on to use) as a list."""
    return replace(reading, blocks=mark_contents(reading.blocks))


def _split_shared_lines(reading: Reading) -> Reading:
    """Cut a section's name in bold capitals off the text that shares its line (`METHODS Search strategy We searched…`)."""
    return replace(reading, blocks=split_shared_lines(reading.blocks, reading.layout, RunInRules.from_rules(reading.rules)))


def _mark_ruled_rows(reading: Reading) -> Reading:
    """Mark the lines in the body's print that a rule drawn across their column sets apart from the text above them."""
    rules = HeadingRules.from_rules(reading.rules)
    return replace(reading, blocks=mark_ruled_rows(reading.blocks, reading.layout, reading.rules_on, rules))


def _mark_headings(reading: Reading) -> Reading:
    """Mark the title, the outline's entries, then the headings by typography, with levels by numbering and prominence."""
    rules = HeadingRules.from_rules(reading.rules)
    return replace(reading, blocks=mark_headings(reading.blocks, reading.layout, reading.toc, reading.heights[0], rules))


def _mark_bibliography_headings(reading: Reading) -> Reading:
    """Mark a line that names the bibliography (`References`) over a line that reads as an entry a heading, whatever its print."""
    return replace(reading, blocks=mark_bibliography_headings(reading.blocks, HeadingRules.from_rules(reading.rules)))


def _classify_headings(reading: Reading) -> Reading:
    """Let the heading model decide, where the rules ask for it, which short blocks are headings: it may add some and drop others."""
    model = reading.rules.pdf.headings.model
    if model is None:
        return reading
    rules = HeadingRules.from_rules(reading.rules)
    heads_meta = RunInRules.from_rules(reading.rules).heads_meta
    return replace(reading, blocks=classify_headings(reading.blocks, reading.layout, reading.heights, model, rules, heads_meta))


def _back_cover_heads_nothing(reading: Reading) -> Reading:
    """Make the headings read on a back cover (a last page of few, short lines) paragraphs again: they head no section."""
    return replace(reading, blocks=back_cover_heads_nothing(reading.blocks))


def _join_continuations(reading: Reading) -> Reading:
    """Join a paragraph cut at the end of a column or page with the one that carries it on; what stands between moves after."""
    return replace(reading, blocks=join_continuations(reading.blocks, reading.layout, BlockRules.from_rules(reading.rules)))


def _merge_lists(reading: Reading) -> Reading:
    """Make consecutive list blocks one list."""
    return replace(reading, blocks=merge_lists(reading.blocks))


def _split_run_in_headings(reading: Reading) -> Reading:
    """Cut a paragraph that opens with a numbered or recurring lead in bold or italic into that heading and its text."""
    return replace(reading, blocks=split_run_in_headings(reading.blocks, reading.layout, RunInRules.from_rules(reading.rules)))


PASSES: tuple[PdfPass, ...] = tuple(
    PdfPass(run.__name__.lstrip("_"), run)
    for run in (
        _drop_running_lines,
        _drop_heads_naming_the_paper,
        _drop_model_furniture,
        _drop_line_numbers,
        _mark_asides,
        _find_columns,
        _order_pages,
        _measure_layout,
        _group_blocks,
        _mark_contents,
        _split_shared_lines,
        _mark_ruled_rows,
        _mark_headings,
        _mark_bibliography_headings,
        _classify_headings,
        _back_cover_heads_nothing,
        _join_continuations,
        _merge_lists,
        _split_run_in_headings,
    )
)
"""The PDF passes in the order they run, each named for what it does."""


def run_passes(reading: Reading) -> Reading:
    """`reading` through every pass of `PASSES`, in order."""
    for step in PASSES:
        reading = step.run(reading)
    return reading


def pass_descriptions() -> list[tuple[str, str]]:
    """Every pass's name and one-line summary, in the order they run."""
    return [(step.name, step.summary) for step in PASSES]
