"""A learned decision whether a short block is a section heading, over the rules' own evidence.

The model is a small set of gradient-boosted trees (LightGBM) trained by
`scripts/train_heading_model.py` on the even half of `../shared/corpus/pdf_jats`, each candidate
labelled by whether its text is one of the publisher's `<sec><title>`s. It ships inside the package
(`models/headings.txt`) and is loaded once with the rules (`[pdf.headings] classifier = "model"`),
never fetched. `classify_headings` asks it about every candidate (`heading_features`): a block it
is sure is a heading (`_ADD_FROM`) becomes one, at the level of its numbering or of the headings
that share its style; a heading the rules made that it is sure is none (`_DROP_BELOW`) becomes a
paragraph again. The title and
the rules' levels of the headings it keeps stay as they are, and so do the headings of front and
back matter sections (JATS keeps most outside the body, so the labels say nothing against them);
a block inside a sentence is never made a heading.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from pipeline.errors import RulesError
from pipeline.extract.pdf.heading_features import FEATURES, candidate_features, document_context, heading_candidates, row_style
from pipeline.extract.pdf.heading_styles import HeadingRules, inside_a_sentence, numbering_depth
from pipeline.extract.pdf.headings import DEEPEST_LEVEL, TOP_LEVEL
from pipeline.extract.pdf.records import Layout, PdfBlock
from pipeline.records.base import BlockKind
from pipeline.rules.trained_model import TrainedModel

_ADD_FROM = 0.8
"""The model's probability from which a block the rules left as text becomes a heading: the rules
miss few headings, and the model's less sure additions (a table's row label, a subtitle) are
mostly wrong when it is tried on papers it did not learn from."""
_DROP_BELOW = 0.4
"""The model's probability under which a heading the rules made becomes text again: it overrules
the rules' evidence only where it is sure."""

def _level(blocks: list[PdfBlock], index: int, style_levels: dict[tuple, Counter]) -> int:
    """A new heading's level: its numbering's depth, else the level most headings of its style
    have, else one below the heading before it."""
    block = blocks[index]
    depth = numbering_depth(block.text, False)
    if depth is not None:
        level = depth + 1
    elif style_levels.get(row_style(block.rows[0])):
        level = style_levels[row_style(block.rows[0])].most_common(1)[0][0]
    else:
        above = next((b.level for b in reversed(blocks[:index]) if b.kind is BlockKind.heading and (b.level or 0) >= TOP_LEVEL), None)
        level = above + 1 if above is not None else TOP_LEVEL
    return min(DEEPEST_LEVEL, max(TOP_LEVEL, level))


def classify_headings(
    blocks: list[PdfBlock], layout: Layout, heights: list[float], model: TrainedModel, rules: HeadingRules,
    heads_meta: Callable[[str], bool],
) -> list[PdfBlock]:
    """The blocks with every candidate made a heading or a paragraph as the model believes. A
    heading that `heads_meta` (a front or back matter section: `Competing interests`, `References`)
    stays one: JATS keeps most such sections outside the body without a title, so the model was
    taught nothing against them; the model may only add them where the rules missed them."""
    if model.features != FEATURES:
        raise RulesError("the heading model was trained on other features than heading_features.FEATURES: retrain it (scripts/train_heading_model.py)")
    indexes = heading_candidates(blocks)
    if not indexes:
        return blocks
    context = document_context(blocks, layout, heights)
    scores = model.probabilities([candidate_features(blocks, index, context, rules) for index in indexes])
    style_levels: dict[tuple, Counter] = {}
    for block in blocks:
        if block.kind is BlockKind.heading and (block.level or 0) >= TOP_LEVEL:
            style_levels.setdefault(row_style(block.rows[0]), Counter())[block.level] += 1
    marked = list(blocks)
    for index, score in zip(indexes, scores):
        block = blocks[index]
        threshold = _DROP_BELOW if block.kind is BlockKind.heading else _ADD_FROM
        heading = score >= threshold and not inside_a_sentence(blocks, index)
        if block.kind is BlockKind.heading and not heading and heads_meta(block.text):
            continue
        evidence = (f"the heading model's score {score:.2f}",)
        if block.kind is BlockKind.heading and not heading:
            marked[index] = replace(block, kind=BlockKind.paragraph, level=None, evidence=())
        elif block.kind is BlockKind.heading:
            marked[index] = replace(block, evidence=block.evidence + evidence)
        elif heading:
            marked[index] = replace(block, kind=BlockKind.heading, level=_level(marked, index, style_levels), evidence=evidence)
    return marked
