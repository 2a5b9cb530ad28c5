"""Auditing a generated page against the stored chunks it cites: each sentence, its cited
passages, whether they support it, and ALCE's citation recall and precision.

`audit_page` reads as its passes: read the sentences and their citations → read the cited
passages → judge each sentence → score the page.
"""

from __future__ import annotations

import duckdb

from pipeline.audit.judges import Judge
from pipeline.audit.passages import read_passages
from pipeline.audit.records import AuditReport
from pipeline.audit.scores import alce_scores
from pipeline.audit.sentences import read_sentences
from pipeline.audit.verdicts import judge_sentences


def audit_page(page: str, page_name: str, connection: duckdb.DuckDBPyConnection, judge: Judge) -> AuditReport:
    """The audit of one Markdown page's text (`page_name` is how the report names it)."""
    sentences = read_sentences(page)
    cited = read_passages(connection, [citation.chunk_id for sentence in sentences for citation in sentence.citations])
    judged = judge_sentences(sentences, cited, judge)
    return AuditReport(page=page_name, judge=judge.description, scores=alce_scores(judged), sentences=tuple(judged))
