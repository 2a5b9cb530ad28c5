"""An audit report for the terminal: the two figures and the judge on top, then every
sentence with its verdict, the rule that decided, the passage sentences it rests on (where they
are in the paper, the words that agree and those that conflict), and its citations."""

from __future__ import annotations

from pipeline.audit.records import AuditReport, Evidence, JudgedCitation, JudgedSentence, Judgement

_SHOWN_EVIDENCE = 2
"""Evidence sentences the terminal report shows per sentence; --json gives them all."""


def render_audit(report: AuditReport) -> str:
    scores, judge = report.scores, report.judge
    lines = [
        f"{report.page}: audited by {judge.measures} ({judge.name} judge {judge.version}: {judge.detail}; threshold {judge.threshold:g}; window {judge.window})",
        f"citation recall    {_figure(scores.citation_recall)}  "
        + (f"({scores.supported} of {scores.sentences} sentences supported by {judge.measures})" if scores.sentences else "(no sentences)"),
        f"citation precision {_figure(scores.citation_precision)}  "
        + (f"({scores.relevant_citations} of {scores.citations} citations relevant)" if scores.citations else "(no citations)"),
        f"sentences without a citation: {scores.without_citation}; unknown chunk ids: {scores.unknown_ids}; "
        f"premises cut to the judge's window: {scores.truncated_premises}",
        "",
    ]
    for judged in report.sentences:
        lines += _sentence(judged)
    return "\n".join(lines).rstrip()


def _figure(value: float | None) -> str:
    return "n/a  " if value is None else f"{value:.3f}"


def _sentence(judged: JudgedSentence) -> list[str]:
    sentence = judged.sentence
    where = f"line {sentence.line_start}" if sentence.line_start == sentence.line_end else f"lines {sentence.line_start}-{sentence.line_end}"
    rule = {"own": "", "paragraph": ", citations at the paragraph's end", "none": ""}[sentence.rule.value]
    lines = [f"[{sentence.number}] {judged.verdict.value.replace('_', ' ').upper()}{_score(judged.joint)}  ({where}{rule})", f"    {sentence.text}"]
    lines += [f"    ! {error}" for error in judged.errors]
    if judged.joint is not None:
        lines += [line for evidence in judged.joint.evidence[:_SHOWN_EVIDENCE] for line in _evidence(evidence)]
    lines += [line for citation in judged.citations for line in _citation(citation)]
    return lines + [""]


def _score(judgement: Judgement | None) -> str:
    if judgement is None:
        return ""
    rule = f" by {judgement.rule}" if judgement.rule else ""
    cut = ", premise cut to the window" if judgement.truncated else ""
    note = f"; {judgement.note}" if judgement.note else ""
    return f"{rule}  score {judgement.score:.2f}{cut}{note}"


def _evidence(evidence: Evidence) -> list[str]:
    lines = [f"    evidence {evidence.chunk_id}, characters {evidence.char_start}-{evidence.char_end}, {evidence.where}:",
             f"      \"{' '.join(evidence.text.split())}\""]
    if evidence.conflicting:
        lines.append(f"      conflicts: {'; '.join(evidence.conflicting)}")
    if evidence.agreeing:
        lines.append(f"      agrees: {', '.join(evidence.agreeing)}")
    return lines


def _citation(judged: JudgedCitation) -> list[str]:
    citation = judged.citation
    via = f" via footnote [^{citation.via_footnote}]" if citation.via_footnote else ""
    head = f"    - {citation.chunk_id}{via}: {judged.verdict.value.replace('_', ' ')}"
    if judged.passage is None:
        return [head]
    passage = judged.passage
    checks = []
    if judged.alone is not None:
        checks.append(f"alone {_verdict(judged.alone)}")
    if judged.without is not None:
        checks.append(f"without it {_verdict(judged.without)}")
    lines = [head + (f" ({'; '.join(checks)})" if checks else "")]
    lines.append(f"      {passage.paper} › {' › '.join(passage.heading_path) or '(front matter)'} [{passage.section_type}], {passage.where}")
    return lines


def _verdict(judgement: Judgement) -> str:
    said = "supported" if judgement.supported else "contradicted" if judgement.contradicted else "not enough evidence"
    return f"{said}{f' by {judgement.rule}' if judgement.rule else ''} ({judgement.score:.2f})"
