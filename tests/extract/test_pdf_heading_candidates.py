"""Which blocks the heading model is asked about, what it reads of a table around one, how sure
it must be to overrule the rules, and how its training labels a title that a paper prints twice:
small blocks whose truth is plain."""

from __future__ import annotations

from collections import Counter

from conftest import project_script
from pipeline.extract.pdf.heading_model import classify_headings
from pipeline.extract.pdf.heading_features import FEATURES, candidate_features, document_context, heading_candidates
from pipeline.extract.pdf.heading_styles import HeadingRules
from pipeline.extract.pdf.records import Layout, PdfBlock, Row
from pipeline.records.base import BlockKind
from pipeline.rules import load_rules
from pipeline.rules.trained_model import TrainedModel


def _row(text: str, y: float, size: float = 10.0, bold: bool = False, cells: int = 0) -> Row:
    return Row(
        page=1, group=0, x0=72.0, y0=y, x1=72.0 + 5 * len(text), y1=y + size, text=text, size=size,
        font="Helvetica-Bold" if bold else "Helvetica", bold=bold, small_caps=False, chars=len(text), cells=cells, rotated=False,
    )


def _block(kind: BlockKind, text: str, y: float, level: int | None = None, cells: int = 0, bold: bool = False) -> PdfBlock:
    return PdfBlock(kind=kind, rows=(_row(text, y, cells=cells, bold=bold),), level=level)


def test_a_journal_label_above_the_title_is_no_candidate():
    """`Case Report`, set over the title as the article's type, heads no section; the paper's own
    `2. Case Report` below does, and so may any short block after the title."""
    blocks = [
        _block(BlockKind.paragraph, "Case Report", 40, bold=True),
        _block(BlockKind.heading, "An Unusual Case of a Tumour of the Heart", 80, level=1),
        _block(BlockKind.heading, "1. Introduction", 140, level=2),
        _block(BlockKind.paragraph, "A woman of thirty came to us with a cough.", 160),
        _block(BlockKind.paragraph, "2. Case Report", 200, bold=True),
    ]

    assert heading_candidates(blocks) == [2, 3, 4]


def test_a_row_label_between_table_rows_says_how_many_cells_its_neighbours_have():
    """A table the reader left as text: `Primary outcome` stands between rows of four and five cells."""
    blocks = [
        _block(BlockKind.heading, "A Trial of Exercise", 40, level=1),
        _block(BlockKind.paragraph, "Variable Assessment T0 T1 T2", 100, cells=4),
        _block(BlockKind.paragraph, "Primary outcome", 112),
        _block(BlockKind.paragraph, "Muscle fibre size Biopsy x x x", 124, cells=5),
    ]
    layout = Layout(body_size=10.0, pitch=1.2)
    context = document_context(blocks, layout, [842.0])

    features = dict(zip(FEATURES, candidate_features(blocks, 2, context, HeadingRules.from_rules(load_rules()))))

    assert (features["previous_cells"], features["next_cells"]) == (4.0, 5.0)


def test_training_labels_only_the_block_numbered_as_the_section_where_a_title_is_printed_twice():
    """The JATS has one section `2.8 Primary outcome`; the PDF prints the words as a table's row
    label and as the numbered heading: only the heading is one."""
    one_to_one = project_script("scripts/train_heading_model.py").one_to_one
    reading = [{"text": "Primary outcome", "y": 1}, {"text": "2.8. Primary outcome", "y": 1}]

    labelled = one_to_one(reading, {"primaryoutcome": Counter({"28": 1})})

    assert [row["y"] for row in labelled] == [0, 1]


def test_training_keeps_every_block_of_a_title_no_number_tells_apart():
    one_to_one = project_script("scripts/train_heading_model.py").one_to_one
    reading = [{"text": "Sample size", "y": 1}, {"text": "Sample size", "y": 1}]

    assert [row["y"] for row in one_to_one(reading, {"samplesize": Counter({"": 1})})] == [1, 1]


def test_training_labels_no_unnumbered_block_the_heading_of_a_numbered_section_where_the_paper_prints_numbers():
    """`Muscle strength` in a table's row, where the heading itself (`2.9.4. Muscle strength.`) is
    cut off its paragraph later, by the run-in pass, and never offered: the paper prints `2.8`."""
    one_to_one = project_script("scripts/train_heading_model.py").one_to_one
    reading = [{"text": "2.8. Primary outcome", "y": 1}, {"text": "Muscle strength", "y": 1}]
    numbers = {"primaryoutcome": Counter({"28": 1}), "musclestrength": Counter({"294": 1})}

    assert [row["y"] for row in one_to_one(reading, numbers)] == [1, 0]


class _Sayer:
    """A booster that gives each candidate the probability it is told to."""

    def __init__(self, probabilities: list[float]) -> None:
        self.probabilities = probabilities

    def predict(self, rows, num_threads: int = 1) -> list[float]:
        return self.probabilities[: len(rows)]


def _classified(probabilities: list[float]) -> list[BlockKind]:
    """The kinds after the model: a paragraph the rules left as text, then a heading they made."""
    blocks = [
        _block(BlockKind.heading, "A Trial of Exercise", 40, level=1),
        _block(BlockKind.paragraph, "The plots were sampled twice.", 100),
        _block(BlockKind.paragraph, "Soil Sampling", 130, bold=True),
        _block(BlockKind.paragraph, "Cores were taken from each plot in the spring and again in autumn.", 150),
        _block(BlockKind.heading, "Results", 190, level=2, bold=True),
        _block(BlockKind.paragraph, "Nitrogen doubled where the soil was left untilled.", 210),
    ]
    model = TrainedModel(_Sayer(probabilities), "", FEATURES)
    rules = load_rules()
    marked = classify_headings(blocks, Layout(body_size=10.0, pitch=1.2), [842.0], model, HeadingRules.from_rules(rules), lambda text: False)
    return [marked[2].kind, marked[4].kind]


def test_the_model_adds_a_heading_only_where_it_is_sure():
    """Candidates in order: the first sentence, `Soil Sampling`, the next sentence, `Results`, the last."""
    assert _classified([0.0, 0.6, 0.0, 0.9, 0.0]) == [BlockKind.paragraph, BlockKind.heading]
    assert _classified([0.0, 0.95, 0.0, 0.9, 0.0]) == [BlockKind.heading, BlockKind.heading]


def test_the_model_drops_a_heading_of_the_rules_only_where_it_is_sure():
    assert _classified([0.0, 0.0, 0.0, 0.45, 0.0]) == [BlockKind.paragraph, BlockKind.heading]
    assert _classified([0.0, 0.0, 0.0, 0.1, 0.0]) == [BlockKind.paragraph, BlockKind.paragraph]
