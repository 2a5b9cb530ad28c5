"""The built-in judge: whether the cited passages hold a claim, say the opposite, or do not
speak to it, read by rules (rules/audit.toml) at the level of sentences and clauses.

For a claim (a page's sentence) and its passages, in order, the first rule that decides:

1. **key term**: a key term of the claim (a noun, a drug, a gene, an acronym) is in none of the
   evidence sentences → not enough evidence;
2. **coverage**: the evidence sentences hold less than `min_coverage` of the claim's words →
   not enough evidence;
3. **negation**, **significance**, **direction**: a clause of the claim and the passage clause
   it aligns with (the one holding most of its words, at least `min_alignment`) differ in
   polarity (`not`, `no`, `failed to`, `unaffected`; `significant` against `not significant`)
   or take opposite poles of one axis (`increased`/`decreased`, `higher`/`lower`, `older`/
   `younger`; a comparison written the other way round, `B lower than A` for `A higher than B`,
   is the same claim) → contradicted;
4. **unit**, **number**: a number of the claim is not in the evidence, which holds the same
   value in another unit of the dimension (`65.1 hours` for `65.1 min`), or another number of
   the same kind → contradicted;
5. **number**: a number of the claim is not in the evidence at all → not enough evidence;
6. otherwise supported (**coverage**).

It reads as far as rules honestly can: a paraphrase whose every noun is a synonym fails rule 1,
and a contradiction that needs world knowledge passes. docs/audit.md has its figures.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pipeline.audit.evidence import Clause, PassageSentence, Reader, Word, cover, evidence_of, found_in, keys_of
from pipeline.audit.numbers import Quantity, read_quantities
from pipeline.audit.records import JudgeDescription, Judgement, Passage
from pipeline.audit.rules import DEFAULT_AUDIT_RULES_PATH, AuditRules

VERSION = "1.2"
"""The rules judge's own version: raised when its procedure changes, so that a report says which
procedure gave its verdicts (the rules file's digest says which rules)."""
# Axes whose poles turn round when a comparison is written the other way round.
_COMPARATIVE_AXES = frozenset({"amount", "age", "duration", "speed"})


@dataclass(frozen=True)
class _Conflict:
    rule: str
    sentence: PassageSentence
    what: tuple[str, ...]


class RulesJudge:
    """The default judge: coverage of the claim's words, key terms, and contradiction rules."""

    def __init__(self, rules: AuditRules, rules_path: Path | None = None) -> None:
        path = rules_path or DEFAULT_AUDIT_RULES_PATH
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
        self.rules = rules
        self.reader = Reader(rules)
        self.description = JudgeDescription(
            name="rules", version=f"{VERSION}, {path.name} {digest}", measures="claim coverage and contradiction rules",
            threshold=rules.thresholds.min_coverage, window="unlimited",
            detail="key terms required; negation, significance, direction, number and unit conflicts read per clause",
        )

    def judge(self, pairs: list) -> list[Judgement]:
        return [self.judge_one(pair.passages, pair.hypothesis) for pair in pairs]

    def judge_one(self, passages: tuple[Passage, ...], claim: str) -> Judgement:
        thresholds = self.rules.thresholds
        words = self.reader.words(claim)
        numbers = [quantity for quantity in read_quantities(claim, self.rules) if not quantity.soft]
        if not words and not numbers:
            return Judgement(score=0.0, supported=False, rule="coverage", note="the sentence has no content word or number to look for")
        sentences = [sentence for passage in passages for sentence in self.reader.sentences(passage)]
        chosen = cover(self.reader.clauses(claim), sentences, thresholds.max_evidence_sentences)
        chosen += self._number_holders(words, numbers, sentences, chosen)
        keys = keys_of([word for sentence in chosen for word in sentence.words])
        missing = [word for word in words if not found_in(word, keys)]
        coverage = round(1 - len(missing) / len(words), 4) if words else 1.0
        # A direction the evidence says nothing of is as missing as a key term (`decreased` is
        # the claim); one whose opposite it says is for the direction rule to read.
        families = {self.reader.direction_family(word) for sentence in chosen for word in sentence.words if self.reader.is_direction(word)}
        missing_keys = _once(word.written for word in missing if self.reader.is_key_term(word)
                             or (self.reader.is_direction(word) and self.reader.direction_family(word) not in families))
        if missing_keys:
            return self._verdict(coverage, "key term", f"key term(s) not in the passages: {', '.join(missing_keys)}", chosen, words, numbers)
        if coverage < thresholds.min_coverage:
            return self._verdict(coverage, "coverage", f"{coverage:.2f} of its words in the passages (not in them: {', '.join(_once(w.written for w in missing))})",
                                 chosen, words, numbers)
        conflict = self._clause_conflict(claim, sentences, chosen) or self._number_conflict(words, numbers, chosen)
        if conflict:
            evidence = [conflict.sentence] + [sentence for sentence in chosen if sentence != conflict.sentence]
            return self._verdict(coverage, conflict.rule, f"{conflict.rule}: {'; '.join(conflict.what)}", evidence, words, numbers,
                                 contradicted=True, conflicting=conflict.what)
        held = [quantity for sentence in chosen for quantity in sentence.quantities]
        absent = _once(q.written for q in numbers if not any(q.same_value(p) and q.same_unit(p) for p in held))
        if absent:
            return self._verdict(coverage, "number", f"number(s) not in the passages: {', '.join(absent)}", chosen, words, numbers)
        note = f"not in the passages: {', '.join(_once(w.written for w in missing))}" if missing else None
        return self._verdict(coverage, "coverage", note, chosen, words, numbers, supported=True)

    def _number_holders(self, words: list[Word], numbers: list[Quantity], sentences: list[PassageSentence],
                        chosen: list[PassageSentence]) -> list[PassageSentence]:
        """Sentences beyond the evidence that hold a claim number the evidence lacks, said of the
        same thing: the content word it counts in the claim is next to it there too (`222
        participants` and `222 study participants`). A claim may take its count from one sentence
        and its share from the next; a number of another sentence about something else, or a
        bibliography marker (never read as a number), lends nothing."""
        held = [p for sentence in chosen for p in sentence.quantities]
        lacking = [q for q in numbers if not any(q.same_value(p) and q.same_unit(p) for p in held)]
        holders = []
        for sentence in sentences:
            if sentence in chosen:
                continue
            for quantity in lacking:
                near = _neighbours(words, quantity)[:1]  # the word it counts, among the holder's two
                if any(quantity.same_value(p) and quantity.same_unit(p) and any(found_in(word, keys_of(_neighbours(list(sentence.words), p))) for word in near)
                       for p in sentence.quantities):
                    holders.append(sentence)
                    break
        return holders

    def _clause_conflict(self, claim: str, sentences: list[PassageSentence], chosen: list[PassageSentence]) -> _Conflict | None:
        """A negation, significance or direction conflict between a claim clause and the passage
        clauses it aligns with best (every one of them, where several align equally)."""
        thresholds = self.rules.thresholds
        for clause in self.reader.clauses(claim):
            if len(clause.words) < thresholds.min_clause_words:
                continue
            aligned = _best_aligned(clause, sentences, chosen, thresholds.min_alignment)
            conflicts = [self._conflict(clause, sentence, other) for sentence, other in aligned]
            if aligned and all(conflicts):
                return conflicts[0]
        return None

    def _conflict(self, claim: Clause, sentence: PassageSentence, passage: Clause) -> _Conflict | None:
        # A negation bears on the words right after it (its scope): it conflicts only with a
        # clause that says those words without one.
        negated, plain = (claim, passage) if claim.negations else (passage, claim)
        keys = keys_of(plain.words)
        if bool(claim.negations) != bool(passage.negations) and any(key & keys for key in negated.negation_scope):
            said = " ".join(claim.negations) or "(no negation)"
            written = " ".join(passage.negations) or "(no negation)"
            significance = self.rules.negation.significance
            rule = "significance" if any(w.written.lower() in significance for w in (*claim.words, *passage.words)) else "negation"
            return _Conflict(rule, sentence, (f"{said} ≠ {written}",))
        swapped = _swapped_comparison(claim, passage)
        for direction in claim.directions:
            pole = direction.pole
            if swapped and direction.axis in _COMPARATIVE_AXES:
                pole = "down" if pole == "up" else "up"
            # The passage's words on the same thing (its anchor) decide; else those of the axis.
            anchored = [other for other in passage.directions if other.family == direction.family and other.anchor & direction.anchor]
            same_axis = anchored or [other for other in passage.directions if other.axis == direction.axis]
            opposite = [other for other in same_axis if other.pole != pole]
            if opposite and len(opposite) == len(same_axis):
                return _Conflict("direction", sentence, (f"{direction.written} ≠ {opposite[0].written}",))
        return None

    def number_conflict(self, claim_words: list[Word], numbers: list[Quantity], sentences: list[PassageSentence]) -> tuple[str, str] | None:
        """The `number` or `unit` rule on sentences another reading chose (the meaning judge's):
        the rule's name and what conflicts, or None."""
        conflict = self._number_conflict(claim_words, numbers, sentences)
        return (conflict.rule, conflict.what[0]) if conflict else None

    def _number_conflict(self, claim_words: list[Word], numbers: list[Quantity], chosen: list[PassageSentence]) -> _Conflict | None:
        for quantity in numbers:
            if any(quantity.same_value(p) and quantity.same_unit(p) for s in chosen for p in s.quantities):
                continue
            for sentence in chosen:
                other_unit = [p for p in sentence.quantities if quantity.same_value(p) and quantity.conflicting_unit(p)]
                if other_unit:
                    return _Conflict("unit", sentence, (f"{quantity.written} ≠ {other_unit[0].written}",))
            near = _surroundings(claim_words, quantity)
            for sentence in chosen:
                # Another number of the same unit, said of the same thing (a word around it is one around the claim's).
                unmatched = [p for p in sentence.quantities
                             if p.unit == quantity.unit and not any(p.same_value(q) for q in numbers)
                             and any(found_in(word, keys_of(_surroundings(list(sentence.words), p))) for word in near)]
                if unmatched:
                    said_of_the_same = _said_of_the_same(quantity, claim_words, sentence, unmatched)
                    return _Conflict("number", sentence, (f"{quantity.written} ≠ {said_of_the_same.written}",))
        return None

    def _verdict(
        self, coverage: float, rule: str, note: str | None, sentences: list[PassageSentence], words: list[Word],
        numbers: list[Quantity], supported: bool = False, contradicted: bool = False, conflicting: tuple[str, ...] = (),
    ) -> Judgement:
        evidence = tuple(
            evidence_of(sentence, words, numbers, conflicting if index == 0 and contradicted else ())
            for index, sentence in enumerate(sentences)
        )
        return Judgement(score=coverage, supported=supported, contradicted=contradicted, rule=rule, note=note, evidence=evidence)


def _best_aligned(clause: Clause, sentences: list[PassageSentence], chosen: list[PassageSentence], least: float) -> list[tuple[PassageSentence, Clause]]:
    """The passage clauses holding the largest share (at least `least`) of the claim clause's
    words; those in the evidence sentences first."""
    scored = []
    for sentence in sentences:
        for other in sentence.clauses:
            keys = keys_of(other.words)
            share = sum(found_in(word, keys) for word in clause.words) / len(clause.words)
            if share >= least:
                scored.append((share, sentence in chosen, sentence, other))
    if not scored:
        return []
    best = max(share for share, *_ in scored)
    return [(sentence, other) for share, _, sentence, other in sorted(scored, key=lambda item: not item[1]) if share == best]


def _swapped_comparison(claim: Clause, passage: Clause) -> bool:
    """`B had lower … than A` against `A had higher … than B`: the first word and the word after
    `than` trade places."""
    def ends(clause: Clause) -> tuple[Word, Word] | None:
        lowered = clause.text.lower()
        at = lowered.find(" than ")
        if at < 0 or not clause.words:
            return None
        after = [word for word in clause.words if word.start > at]
        return (clause.words[0], after[0]) if after else None

    mine, theirs = ends(claim), ends(passage)
    if not mine or not theirs:
        return False
    return bool(mine[0].keys & theirs[1].keys) and bool(mine[1].keys & theirs[0].keys)


def _neighbours(words: list[Word], quantity: Quantity) -> list[Word]:
    """The content words a number is said of: the two after it, else the one before it."""
    after = [word for word in words if word.start >= quantity.end][:2]
    return after or [word for word in words if word.end <= quantity.start][-1:]


def _surroundings(words: list[Word], quantity: Quantity) -> list[Word]:
    """The two content words before a number and the two after it."""
    before = [word for word in words if word.end <= quantity.start][-2:]
    return before + [word for word in words if word.start >= quantity.end][:2]


def _said_of_the_same(quantity: Quantity, claim_words: list[Word], sentence: PassageSentence, candidates: list[Quantity]) -> Quantity:
    """Of the passage's numbers, the one that the claim's words are written beside: each word of
    the sentence goes to the number nearest it, counted in words (to both where two are as near),
    and the number given the most of the claim's words wins (`0.71 for magnetic resonance
    imaging` for `for magnetic resonance imaging, kappa was 0.77`, not `0.78 for FDG-PET/CT`,
    which is nearer in value; `12% in the treated group` for `30% in the treated group`, not the
    nearer `35% in the control group`); of those alike, the nearest in value."""
    given = _words_by_number(sentence)

    def claim_words_given(candidate: Quantity) -> int:
        keys = keys_of(given.get(candidate, []))
        return sum(found_in(word, keys) for word in claim_words)

    return min(candidates, key=lambda candidate: (-claim_words_given(candidate), abs(candidate.value - quantity.value)))


def _words_by_number(sentence: PassageSentence) -> dict[Quantity, list[Word]]:
    """Each number of the sentence with the words nearer it than any other number (counted in
    words and numbers between), a word as near two numbers going to both."""
    order = sorted([*sentence.words, *sentence.quantities], key=lambda item: item.start)
    at = {id(item): index for index, item in enumerate(order)}
    given: dict[Quantity, list[Word]] = {}
    for word in sentence.words:
        distances = {quantity: abs(at[id(quantity)] - at[id(word)]) for quantity in sentence.quantities}
        nearest = min(distances.values(), default=None)
        for quantity, distance in distances.items():
            if distance == nearest:
                given.setdefault(quantity, []).append(word)
    return given


def _once(written: Iterable[str]) -> list[str]:
    """Each word once, as it is first written (`Hookworm` and `hookworm` are one word), where it
    first comes: a note lists what is missing, not how often (a 2,000-word sentence would name
    each of its words as often as it repeats it)."""
    first: dict[str, str] = {}
    for word in written:
        first.setdefault(word.casefold(), word)
    return list(first.values())
