"""An audit report for the terminal: the two figures and the judge on top, then every
sentence with its verdict, the judge's score and its passages."""

from __future__ import annotations

from pipeline.audit.records import AuditReport, JudgedCitation, JudgedSentence, Judgement

_SHOWN_PASSAGE = 160
"""Characters of a passage's text the terminal report shows; --json gives it whole."""


def render_audit(report: AuditReport) -> str:
    scores, judge = report.scores, report.judge
    lines = [
        f"{report.page}: audited by {judge.measures} ({judge.name} judge: {judge.detail}; threshold {judge.threshold:g}; window {judge.window})",
        f"citation recall    {_figure(scores.citation_recall)}  "
        + (f"({scores.supported} of {scores.sentences} sentences supported by {judge.measures})" if scores.sentences else "(no sentences)"),
        f"citation precision {_figure(scores.citation_precision)}  "
        + (f"({scores.relevant_citations} of {scores.citations} citations relevant)" if scores.citations else "(no citations)"),
        f"sentences without a citation: {scores.without_citation}; unknown chunk ids: {scores.unknown_ids}; "
        f"premises cut to the judge's window: {scores.truncated_premises}",
        "",
    ]
    for judged in report.sentences:
        lines += _sentence(judged, judge.measures)
    return "\n".join(lines).rstrip()


def _figure(value: float | None) -> str:
    return "n/a  " if value is None else f"{value:.3f}"


def _sentence(judged: JudgedSentence, measures: str) -> list[str]:
    sentence = judged.sentence
    where = f"line {sentence.line_start}" if sentence.line_start == sentence.line_end else f"lines {sentence.line_start}-{sentence.line_end}"
    rule = {"own": "", "paragraph": ", citations at the paragraph's end", "none": ""}[sentence.rule.value]
    lines = [f"[{sentence.number}] {judged.verdict.value.replace('_', ' ').upper()}{_score(judged.joint, measures)}  ({where}{rule})", f"    {sentence.text}"]
    lines += [f"    ! {error}" for error in judged.errors]
    lines += [line for citation in judged.citations for line in _citation(citation, measures)]
    return lines + [""]


def _score(judgement: Judgement | None, measures: str) -> str:
    if judgement is None:
        return ""
    cut = ", premise cut to the window" if judgement.truncated else ""
    note = f"; {judgement.note}" if judgement.note else ""
    return f"  {measures} {judgement.score:.2f}{cut}{note}"


def _citation(judged: JudgedCitation, measures: str) -> list[str]:
    citation = judged.citation
    via = f" via footnote [^{citation.via_footnote}]" if citation.via_footnote else ""
    head = f"    - {citation.chunk_id}{via}: {judged.verdict.value.replace('_', ' ')}"
    if judged.passage is None:
        return [head]
    passage = judged.passage
    checks = []
    if judged.alone is not None:
        checks.append(f"alone{_score(judged.alone, measures)}")
    if judged.without is not None:
        checks.append(f"without it{_score(judged.without, measures)}")
    text = " ".join(passage.text.split())
    shown = text if len(text) <= _SHOWN_PASSAGE else text[:_SHOWN_PASSAGE] + "…"
    lines = [head + (f" ({'; '.join(checks)})" if checks else "")]
    lines.append(f"      {passage.paper} › {' › '.join(passage.heading_path) or '(front matter)'} [{passage.section_type}], {passage.where}")
    lines.append(f"      \"{shown}\"")
    return lines
