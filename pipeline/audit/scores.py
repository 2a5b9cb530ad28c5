"""ALCE's citation recall and precision over a page's judged sentences (Gao et al., 2023,
"Enabling Large Language Models to Generate Text with Citations", section 2.2)."""

from __future__ import annotations

from pipeline.audit.records import AuditScores, CitationVerdict, JudgedSentence, SentenceVerdict


def alce_scores(judged: list[JudgedSentence]) -> AuditScores:
    """Recall: supported sentences over all sentences. Precision: relevant citations over all
    citations, a citation of an unsupported sentence or an unknown id counting as not relevant.
    None where there is nothing to divide by (no sentences, no citations): ALCE gives such a page
    0, which reads as a page that failed, not one with nothing to score."""
    citations = [citation for sentence in judged for citation in sentence.citations]
    supported = sum(sentence.verdict == SentenceVerdict.supported for sentence in judged)
    relevant = sum(citation.verdict == CitationVerdict.relevant for citation in citations)
    judgements = [sentence.joint for sentence in judged] + [
        judgement for citation in citations for judgement in (citation.alone, citation.without)
    ]
    return AuditScores(
        citation_recall=round(supported / len(judged), 4) if judged else None,
        citation_precision=round(relevant / len(citations), 4) if citations else None,
        sentences=len(judged),
        supported=supported,
        citations=len(citations),
        relevant_citations=relevant,
        without_citation=sum(sentence.verdict == SentenceVerdict.no_citation for sentence in judged),
        unknown_ids=sum(citation.verdict == CitationVerdict.unknown for citation in citations),
        truncated_premises=sum(1 for judgement in judgements if judgement is not None and judgement.truncated),
    )
