"""Judging each sentence against its cited passages, as ALCE does.

A sentence is supported when its cited passages, together, support it; contradicted when the
judge reads them as saying otherwise, and otherwise not enough evidence. For a supported sentence
with several citations, each citation is asked alone; one that does not support the sentence
alone is irrelevant when the others still support it without it. A sentence that cites an id no
chunk has, or a marker that names none, is an error and counts as not supported, as ALCE counts a
citation of a document that is not there. The judge is asked in three batches (together, alone,
without), each pair once.
"""

from __future__ import annotations

from pipeline.audit.judges import Judge, Pair
from pipeline.audit.passages import CitedPassages
from pipeline.audit.records import CitationVerdict, JudgedCitation, JudgedSentence, Judgement, Passage, Sentence, SentenceVerdict


def judge_sentences(sentences: list[Sentence], cited: CitedPassages, judge: Judge) -> list[JudgedSentence]:
    judgeable = [sentence for sentence in sentences if _judgeable(sentence, cited)]
    together = _ask(judge, [_pair(sentence, _passages(sentence, cited)) for sentence in judgeable])
    joint = {sentence.number: together[_pair(sentence, _passages(sentence, cited))] for sentence in judgeable}
    checked = [sentence for sentence in judgeable if joint[sentence.number].supported and len(sentence.citations) > 1]
    alone_pairs = {(sentence.number, citation.chunk_id): _pair(sentence, [cited.found[citation.chunk_id]])
                   for sentence in checked for citation in sentence.citations}
    alone_answers = _ask(judge, list(alone_pairs.values()))
    alone = {key: alone_answers[pair] for key, pair in alone_pairs.items()}
    without_pairs = {
        (sentence.number, citation.chunk_id): _pair(sentence, [cited.found[other.chunk_id] for other in sentence.citations if other != citation])
        for sentence in checked for citation in sentence.citations if not alone[(sentence.number, citation.chunk_id)].supported
    }
    without_answers = _ask(judge, list(without_pairs.values()))
    without = {key: without_answers[pair] for key, pair in without_pairs.items()}
    return [_judged(sentence, cited, joint.get(sentence.number), alone, without) for sentence in sentences]


def _judgeable(sentence: Sentence, cited: CitedPassages) -> bool:
    return bool(sentence.citations) and not sentence.marker_errors and all(c.chunk_id in cited.found for c in sentence.citations)


def _passages(sentence: Sentence, cited: CitedPassages) -> list[Passage]:
    return [cited.found[citation.chunk_id] for citation in sentence.citations]


def _pair(sentence: Sentence, passages: list[Passage]) -> Pair:
    return Pair(tuple(passages), sentence.text)


def _ask(judge: Judge, pairs: list[Pair]) -> dict[Pair, Judgement]:
    distinct = list(dict.fromkeys(pairs))
    return dict(zip(distinct, judge.judge(distinct))) if distinct else {}


def _judged(
    sentence: Sentence, cited: CitedPassages, joint: Judgement | None,
    alone: dict[tuple[int, str], Judgement], without: dict[tuple[int, str], Judgement],
) -> JudgedSentence:
    errors = sentence.marker_errors + tuple(cited.unknown[c.chunk_id] for c in sentence.citations if c.chunk_id in cited.unknown)
    citations = []
    for citation in sentence.citations:
        key = (sentence.number, citation.chunk_id)
        if citation.chunk_id in cited.unknown:
            verdict = CitationVerdict.unknown
        elif joint is None or not joint.supported:
            verdict = CitationVerdict.unsupported_sentence
        elif key in without and without[key].supported:
            verdict = CitationVerdict.irrelevant
        else:
            verdict = CitationVerdict.relevant
        citations.append(JudgedCitation(
            citation=citation, verdict=verdict, passage=cited.found.get(citation.chunk_id),
            alone=alone.get(key), without=without.get(key), unknown_reason=cited.unknown.get(citation.chunk_id),
        ))
    if errors:
        verdict = SentenceVerdict.error
    elif not sentence.citations:
        verdict = SentenceVerdict.no_citation
    else:
        verdict = (SentenceVerdict.supported if joint.supported
                   else SentenceVerdict.contradicted if joint.contradicted else SentenceVerdict.not_enough_evidence)
    return JudgedSentence(sentence=sentence, verdict=verdict, joint=joint, citations=tuple(citations), errors=errors)
