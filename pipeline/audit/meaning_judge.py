"""The `meaning` judge: the rules judge's contradiction rules, then a sentence encoder's reading
of what the rules could only count as words.

For a claim and its passages, in order:

1. the rules judge decides (pipeline/audit/rules_judge.py); its support and its negation,
   significance and unit contradictions stand. A number or direction contradiction stands unless
   the sentences the claim agrees with best (2) are others that hold its numbers and say its
   directions alike: then the rules read a sentence the claim is not about, and it goes on to 3;
2. where it found not enough evidence, the claim is compared in meaning with every passage
   sentence, every two neighbouring sentences of a passage, and every two sentences of two
   different passages (a claim that combines two chunks): the cosine between the encoder's
   vector of the claim and that of the sentence, or the normalised sum of the two sentences'
   vectors, which stands for them read together, each passage sentence read with the
   abbreviations its paper defines spelled out. The best is the **agreement**;
3. where the agreement reaches `min_agreement` (rules/audit.toml, `[meaning]`), the sentences it
   rests on are read once more by the rules: a claim that is negated where each of them is not
   (or the other way round) is contradicted (**negation**), as is one whose direction word takes
   the opposite pole of each one's on the same family (**direction**); a number written in
   digits that the passages do not hold is contradicted where those sentences say another of the
   same kind (**number**, **unit**), and otherwise leaves the rules' verdict; else the claim is
   supported (**meaning**), the verdict naming those sentences and the agreement.

An encoder reads topic as much as claim, so it overrules a rule only where the sentence it
agrees with affirms what the rule read as a conflict: it reads the paraphrases the rules miss (a
synonym for a key term, a claim spread over two chunks).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeline.audit.evidence import PassageSentence, evidence_of
from pipeline.audit.glossary import spelled_out
from pipeline.audit.numbers import read_quantities
from pipeline.audit.records import JudgeDescription, Judgement, Passage
from pipeline.audit.rules import AuditRules
from pipeline.audit.rules_judge import RulesJudge
from pipeline.errors import AuditError
from pipeline.meaning.encoder import SentenceEncoder

VERSION = "1.1"
"""Raised when the procedure changes (the rules file's digest and the encoder's version say the rest)."""
READ_AGAIN = frozenset({"key term", "coverage", "number"})
"""The rules judge's reasons for not enough evidence that a paraphrase can cause."""
CHECK_AGAIN = frozenset({"number", "direction"})
"""The rules judge's contradictions that rest on which passage sentence it read: checked against
the sentence the claim agrees with best (a negation or a unit is the claim's own word)."""


@dataclass(frozen=True)
class Agreement:
    score: float
    """Cosine between the claim's vector and the sentences' (or their normalised sum), -1 to 1."""
    sentences: tuple[PassageSentence, ...]
    """The passage sentence, or the two read together, that agree best."""


class MeaningJudge:
    """The rules judge, and where it finds not enough evidence, the encoder's agreement."""

    def __init__(self, rules: AuditRules, encoder: SentenceEncoder, rules_path: Path | None = None, threshold: float | None = None) -> None:
        if rules.meaning is None:
            raise AuditError(f"audit rules {rules_path or 'rules/audit.toml'} have no [meaning] section with min_agreement; copy it from rules/audit.toml")
        self.rules_judge = RulesJudge(rules, rules_path)
        self.encoder = encoder
        self.threshold = rules.meaning.min_agreement if threshold is None else threshold
        self._vectors: dict[str, np.ndarray] = {}
        self.description = JudgeDescription(
            name="meaning", version=f"{VERSION} (rules judge {self.rules_judge.description.version}; {encoder.identity.label})",
            measures="contradiction rules, then agreement in meaning", threshold=self.threshold, window="unlimited",
            detail="the rules judge's verdict; where it finds not enough evidence, the sentence encoder's cosine between the "
                   "claim and its best passage sentence or pair of sentences decides support, contradiction rules read again",
        )

    def judge(self, pairs: list) -> list[Judgement]:
        verdicts = [self.rules_judge.judge_one(pair.passages, pair.hypothesis) for pair in pairs]
        reread = [index for index, verdict in enumerate(verdicts) if _to_read_again(verdict) or _to_check_again(verdict)]
        sentences = {index: self._sentences(pairs[index].passages) for index in reread}
        self._encode([pairs[index].hypothesis for index in reread] + [_read(s) for index in reread for s in sentences[index]])
        for index in reread:
            if verdicts[index].contradicted:
                verdicts[index] = self._check_again(pairs[index].hypothesis, sentences[index], verdicts[index])
            else:
                verdicts[index] = self._read_again(pairs[index].hypothesis, sentences[index], verdicts[index])
        return verdicts

    def _check_again(self, claim: str, sentences: list[PassageSentence], verdict: Judgement) -> Judgement:
        """A number or direction conflict the rules found in a sentence the claim is not about.

        The rules take their evidence by shared words, so `Death was the outcome for 1,392 (15%)`
        can be set against the sentence about all 9,153 patients. Where the sentences the claim
        agrees with best are others, which hold every number the claim writes and say each of its
        directions the same way, the conflict was the rules' choice of sentence: the claim is read
        as one the rules found not enough evidence for, and is supported only where it agrees
        enough in meaning and nothing read again conflicts. Otherwise the contradiction stands."""
        agreement = self.agreement(claim, sentences)
        conflicting = verdict.evidence[0].text if verdict.evidence else None
        if agreement is None or any(sentence.text == conflicting for sentence in agreement.sentences):
            return verdict
        if not self._says_the_same(claim, agreement.sentences):
            return verdict
        read_again = self._read_again(claim, sentences, verdict.model_copy(update={"contradicted": False}))
        return read_again if read_again.supported else verdict

    def agreement(self, claim: str, sentences: list[PassageSentence]) -> Agreement | None:
        """The passage sentence, two neighbours or two sentences of two passages that agree best
        with the claim; None where the passages have no sentence."""
        if not sentences:
            return None
        self._encode([claim] + [_read(sentence) for sentence in sentences])
        claim_vector = self._vectors[claim]
        vectors = np.stack([self._vectors[_read(sentence)] for sentence in sentences])
        candidates = [((index,), float(vectors[index] @ claim_vector)) for index in range(len(sentences))]
        for first in range(len(sentences)):
            for second in range(first + 1, len(sentences)):
                # Two neighbours of one passage, or two sentences of two passages.
                if second == first + 1 or sentences[first].passage.chunk_id != sentences[second].passage.chunk_id:
                    joined = vectors[first] + vectors[second]
                    norm = float(np.linalg.norm(joined))
                    candidates.append(((first, second), float(joined @ claim_vector) / norm if norm else 0.0))
        best, score = max(candidates, key=lambda candidate: candidate[1])
        return Agreement(round(score, 4), tuple(sentences[index] for index in best))

    def _sentences(self, passages: tuple[Passage, ...]) -> list[PassageSentence]:
        return [sentence for passage in passages for sentence in self.rules_judge.reader.sentences(passage)]

    def _encode(self, texts: list[str]) -> None:
        missing = list(dict.fromkeys(text for text in texts if text not in self._vectors))
        if missing:
            self._vectors.update(zip(missing, self.encoder.encode(missing)))

    def _read_again(self, claim: str, sentences: list[PassageSentence], verdict: Judgement) -> Judgement:
        agreement = self.agreement(claim, sentences)
        if agreement is None:
            return verdict
        said = _named(agreement.sentences)
        if agreement.score < self.threshold:
            note = f"{verdict.note}; best agreement in meaning {agreement.score:.2f} < {self.threshold:g}, with {said}"
            return verdict.model_copy(update={"note": note})
        words = self.rules_judge.reader.words(claim)
        numbers = [quantity for quantity in read_quantities(claim, self.rules_judge.rules) if not quantity.soft]
        held = [quantity for sentence in sentences for quantity in sentence.quantities]
        # A count a paraphrase spells out where the paper leaves it implicit (`the two doses`,
        # `every one of`) is no claim of a figure; a number written in digits is.
        absent = [q for q in numbers if any(c.isdigit() for c in q.written) and not any(q.same_value(p) and q.same_unit(p) for p in held)]
        # Only a number the passages do not hold can conflict: one they hold elsewhere than in the
        # sentences the encoder chose is the encoder's choice, not the claim's error.
        conflict = self._conflict(claim, agreement.sentences) or (self.rules_judge.number_conflict(words, absent, list(agreement.sentences)) if absent else None)
        if conflict is not None:
            rule, what = conflict
            evidence = tuple(evidence_of(s, words, numbers, (what,) if index == 0 else ()) for index, s in enumerate(agreement.sentences))
            return Judgement(score=agreement.score, supported=False, contradicted=True, rule=rule, evidence=evidence,
                             note=f"{rule}: {what} (agreement in meaning {agreement.score:.2f} with {said})")
        if absent:
            note = f"{verdict.note}; agreement in meaning {agreement.score:.2f} with {said}, but number(s) not in the passages: {', '.join(q.written for q in absent)}"
            return verdict.model_copy(update={"note": note})
        evidence = tuple(evidence_of(sentence, words, numbers, ()) for sentence in agreement.sentences)
        return Judgement(score=agreement.score, supported=True, rule="meaning", evidence=evidence,
                         note=f"agreement in meaning {agreement.score:.2f} ≥ {self.threshold:g} with {said} (the rules: {verdict.note})")

    def _says_the_same(self, claim: str, reading: tuple[PassageSentence, ...]) -> bool:
        """Whether the sentences hold every number of the claim and, for each of its direction
        words, one of the same family and pole: they affirm what the rules read as conflicting."""
        numbers = [quantity for quantity in read_quantities(claim, self.rules_judge.rules) if not quantity.soft]
        held = [quantity for sentence in reading for quantity in sentence.quantities]
        if any(not any(q.same_value(p) and q.same_unit(p) for p in held) for q in numbers):
            return False
        theirs = {(d.family, d.pole) for sentence in reading for clause in sentence.clauses for d in clause.directions}
        return all((d.family, d.pole) in theirs for clause in self.rules_judge.reader.clauses(claim) for d in clause.directions)

    def _conflict(self, claim: str, reading: tuple[PassageSentence, ...]) -> tuple[str, str] | None:
        """A negation or direction that every sentence of the reading takes otherwise than the
        claim: read over whole sentences, since their words need not align clause by clause, and
        over each sentence of two, since a claim joining two may take its negation from one."""
        claimed = self.rules_judge.reader.clauses(claim)
        claim_cues = [cue for clause in claimed for cue in clause.negations]
        conflicts = [self._sentence_conflict(claimed, claim_cues, sentence) for sentence in reading]
        return conflicts[0] if all(conflicts) else None

    @staticmethod
    def _sentence_conflict(claimed: list, claim_cues: list[str], sentence: PassageSentence) -> tuple[str, str] | None:
        cues = [cue for clause in sentence.clauses for cue in clause.negations]
        if bool(claim_cues) != bool(cues):
            return "negation", f"{' '.join(claim_cues) or '(no negation)'} ≠ {' '.join(cues) or '(no negation)'}"
        theirs = [direction for clause in sentence.clauses for direction in clause.directions]
        for direction in (d for clause in claimed for d in clause.directions):
            same = [other for other in theirs if other.family == direction.family]
            if same and all(other.pole != direction.pole for other in same):
                return "direction", f"{direction.written} ≠ {same[0].written}"
        return None


def _read(sentence: PassageSentence) -> str:
    """A passage sentence as the encoder reads it: with the long form of each abbreviation its
    paper defines (`plasma T4 (thyroxine)`), which the encoder cannot know."""
    return spelled_out(sentence.text, sentence.passage.abbreviations)


def _to_read_again(verdict: Judgement) -> bool:
    return not verdict.supported and not verdict.contradicted and verdict.rule in READ_AGAIN


def _to_check_again(verdict: Judgement) -> bool:
    return verdict.contradicted and verdict.rule in CHECK_AGAIN


def _named(sentences: tuple[PassageSentence, ...]) -> str:
    """The agreeing sentences, each with its chunk, shortened: `a.md:3 “Deaths fell by half…”`."""
    return " and ".join(f"{sentence.passage.chunk_id} “{_short(sentence.text)}”" for sentence in sentences)


def _short(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[: most - 1].rstrip() + "…"
