"""Score section typing against gold labels (the JATS-derived `jats_md` set in ../shared/corpus).

Word-weighted, as the corpus README says: every chunk counts with its word count, judged by the
gold type of the heading span its first line falls in. Chunks whose span has no trustworthy
gold label (`null`), and figure_caption and table chunks (typed by what they are, not by their heading),
are left out.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.ingest.scan import doc_id_for
from pipeline.rules import Rules
from pipeline.ingest.process import process


@dataclass
class TypingScore:
    """Words typed like the gold, out of all words that have a gold type."""

    matched_words: int = 0
    scored_words: int = 0
    per_paper: dict[str, float] = field(default_factory=dict)
    confusions: dict[tuple[str, str], int] = field(default_factory=dict)
    """(gold, predicted) → words, for the mistakes."""

    @property
    def score(self) -> float:
        return self.matched_words / self.scored_words if self.scored_words else 0.0


def score_shape(jats_md: Path, shape: str, rules: Rules) -> TypingScore:
    """Score every paper of one shape (`nested` or `flat`) under `jats_md`."""
    result = TypingScore()
    for paper in sorted((jats_md / shape).glob("*.md")):
        gold_file = jats_md / "gold" / f"{paper.stem}.{shape}.json"
        gold = {int(line): label for line, label in json.loads(gold_file.read_text()).items()}
        heading_lines = sorted(gold)
        chunked = process(paper, paper.name, doc_id_for(paper.name), rules).chunked
        matched = scored = 0
        for chunk in chunked.chunks:
            if chunk.section_type.value in ("figure_caption", "table") or chunk.line_start is None:
                continue
            position = bisect.bisect_right(heading_lines, chunk.line_start) - 1
            label = gold[heading_lines[position]] if position >= 0 else None
            if label is None:
                continue
            scored += chunk.word_count
            if chunk.section_type.value == label:
                matched += chunk.word_count
            else:
                key = (label, chunk.section_type.value)
                result.confusions[key] = result.confusions.get(key, 0) + chunk.word_count
        result.matched_words += matched
        result.scored_words += scored
        if scored:
            result.per_paper[paper.stem] = matched / scored
    return result
