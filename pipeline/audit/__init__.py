"""Auditing a generated page against the stored chunks it cites: each sentence, its cited
passages, whether they support it, and ALCE's citation recall and precision.

`audit_page` reads as its passes: read the sentences and their citations → read the cited
passages → judge each sentence → find the evidence sentences a judge did not give → score the page.
"""

from __future__ import annotations

import duckdb

from pipeline.audit.evidence import Reader, locate_evidence
from pipeline.audit.judges import Judge
from pipeline.audit.passages import CitedPassages, read_passages
from pipeline.audit.records import AuditReport, JudgedSentence
from pipeline.audit.rules import AuditRules
from pipeline.audit.scores import alce_scores
from pipeline.audit.sentences import read_sentences
from pipeline.audit.verdicts import judge_sentences


def audit_page(page: str, page_name: str, connection: duckdb.DuckDBPyConnection, judge: Judge, rules: AuditRules) -> AuditReport:
    """The audit of one Markdown page's text (`page_name` is how the report names it); `rules`
    are the audit rules the evidence sentences are found by, the rules judge's own."""
    sentences = read_sentences(page)
    cited = read_passages(connection, [citation.chunk_id for sentence in sentences for citation in sentence.citations])
    judged = judge_sentences(sentences, cited, judge)
    reader = Reader(rules)
    judged = [_with_evidence(sentence, cited, reader) for sentence in judged]
    return AuditReport(page=page_name, judge=judge.description, scores=alce_scores(judged), sentences=tuple(judged))


def _with_evidence(judged: JudgedSentence, cited: CitedPassages, reader: Reader) -> JudgedSentence:
    """The sentence with evidence sentences located in its passages, where its judge gave none."""
    if judged.joint is None or judged.joint.evidence:
        return judged
    passages = tuple(cited.found[citation.chunk_id] for citation in judged.sentence.citations)
    evidence = locate_evidence(reader, passages, judged.sentence.text)
    return judged.model_copy(update={"joint": judged.joint.model_copy(update={"evidence": evidence})})
