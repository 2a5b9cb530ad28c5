"""The HTML report's plots: matplotlib figures, written as SVG to go inline in the page.

matplotlib is the optional extra `report`: without it the report is written all the same, and
says in `PLOTS_LEFT_OUT` where its plots would be and what adds them.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import TYPE_CHECKING

from pipeline.report.data import RunRow
from pipeline.rules import ChunkRules
from pipeline.wording import counted

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# Text stays text (selectable, small), set in whatever sans-serif the browser has: the page
# loads no font. Each figure's ids are salted with its name, so two inline SVGs never share one.
_SVG_SETTINGS = {"svg.fonttype": "none", "font.family": "sans-serif", "font.size": 9}
_WIDTH_INCHES = 9.0
_PANEL_HEIGHT_INCHES = 1.6
_COLUMNS = 2
_HISTOGRAM_BINS = 30
_TYPE_COLOURS = {
    "intro": "#4e79a7", "methods": "#f28e2b", "results": "#59a14f", "discussion": "#b07aa1",
    "conclusion": "#76b7b2", "meta": "#9c755f", "figure_caption": "#edc948", "table": "#ff9da7", "other": "#bab0ac",
}
# The rules' sizes, as lines on every panel: (field of ChunkRules, colour, line style).
_SIZE_LINES = (
    ("target_min_words", "#2a7f2a", "--"),
    ("target_max_words", "#2a7f2a", "-"),
    ("hard_max_words", "#c0392b", "-"),
)


PLOTS_LEFT_OUT = "plots left out: matplotlib is not installed; pip install -e '.[report]' from the project folder adds them"


def can_plot() -> bool:
    """Whether matplotlib, the optional extra `report`, is installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def type_colour(section_type: str) -> str:
    return _TYPE_COLOURS.get(section_type, "#888888")


def size_figure(word_counts: dict[str, list[int]], sizes: ChunkRules) -> Figure:
    """A histogram of chunk words per section type, a panel each, with the rules' target band
    and hard maximum drawn on every panel."""
    from matplotlib.figure import Figure

    kinds = list(word_counts) or ["(no chunks)"]
    rows = -(-len(kinds) // _COLUMNS)
    figure = Figure(figsize=(_WIDTH_INCHES, _PANEL_HEIGHT_INCHES * rows), layout="constrained")
    grid = figure.subplots(rows, _COLUMNS, sharex=True, squeeze=False)
    largest = max([sizes.hard_max_words] + [count for counts in word_counts.values() for count in counts])
    edges = [largest * 1.05 * step / _HISTOGRAM_BINS for step in range(_HISTOGRAM_BINS + 1)]
    for index, axis in enumerate(grid.flat):
        if index >= len(kinds):
            axis.set_visible(False)
            continue
        kind = kinds[index]
        counts = word_counts.get(kind, [])
        axis.hist(counts, bins=edges, histtype="stepfilled", color=type_colour(kind))
        axis.set_title(f"{kind} ({counted(len(counts), 'chunk')})", fontsize=9, loc="left")
        for field, colour, style in _SIZE_LINES:
            value = getattr(sizes, field)
            axis.axvline(value, color=colour, linestyle=style, linewidth=1.2, label=f"{field} = {value}", gid=f"rule-{field}")
        axis.spines[["top", "right"]].set_visible(False)
        axis.yaxis.get_major_locator().set_params(integer=True)
        axis.tick_params(labelbottom=True)
    figure.legend(*grid.flat[0].get_legend_handles_labels(), loc="outside upper right", ncols=len(_SIZE_LINES), frameon=False, fontsize=8)
    for axis in grid[-1]:
        axis.set_xlabel("words per chunk")
    return figure


def runs_figure(runs: list[RunRow]) -> Figure:
    """Files, failures, pages, chunks and duration of each run, oldest first, a panel each."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    ordered = sorted(runs, key=lambda run: run.run_id)
    run_ids = [run.run_id for run in ordered]
    panels = (
        ("files seen", [run.seen for run in ordered], "#4e79a7"),
        ("files failed", [run.failed for run in ordered], "#c0392b"),
        ("pages read", [run.pages for run in ordered], "#59a14f"),
        ("chunks written", [run.chunks for run in ordered], "#f28e2b"),
        ("seconds", [run.duration_seconds for run in ordered], "#76b7b2"),
    )
    figure = Figure(figsize=(_WIDTH_INCHES, 1.8), layout="constrained")
    axes = figure.subplots(1, len(panels), sharex=True)
    for axis, (label, values, colour) in zip(axes, panels):
        axis.plot(run_ids, values, marker="o", markersize=3, color=colour)
        axis.set_title(label, fontsize=9, loc="left")
        axis.set_ylim(bottom=0, top=max(max(values, default=0) * 1.15, 1))
        axis.spines[["top", "right"]].set_visible(False)
        axis.set_xlabel("run")
        # Runs are whole numbers, and a lone run sits in the middle rather than on a ±0.05 axis.
        axis.set_xlim(run_ids[0] - 0.5, run_ids[-1] + 0.5)
        axis.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
        if label != "seconds":
            axis.yaxis.get_major_locator().set_params(integer=True)
    return figure


def size_svg(word_counts: dict[str, list[int]], sizes: ChunkRules) -> str:
    return _inline_svg(lambda: size_figure(word_counts, sizes), "chunk-sizes")


def runs_svg(runs: list[RunRow]) -> str:
    return _inline_svg(lambda: runs_figure(runs), "runs")


def _inline_svg(make_figure: Callable[[], Figure], name: str) -> str:
    """The figure as an `<svg>` element for an HTML page: no XML prolog, ids salted with `name`,
    no date in its metadata (a report of the same database is the same page)."""
    import matplotlib

    buffer = io.StringIO()
    # Fonts and sizes are fixed when the figure's texts are made, so it is made under the settings too.
    with matplotlib.rc_context({**_SVG_SETTINGS, "svg.hashsalt": name}):
        make_figure().savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    return svg[svg.index("<svg") :].replace("<svg ", f'<svg role="img" aria-label="{name}" ', 1)
