"""The judges: whether a premise (cited passages) supports a hypothesis (a sentence).

Each judge says what it measures (`JudgeDescription.measures`), and the report uses that word:
the lexical judge's figures are `lexical overlap`, never entailment. `make_judge` reads the
`--judge` option: `rules`, `meaning` (pipeline/audit/meaning_judge.py, the `[semantic]` extra),
`lexical`, `cmd:COMMAND` or `hf:PATH` (pipeline/audit/nli_model.py).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pipeline.audit.records import JudgeDescription, Judgement, Passage
from pipeline.errors import AuditError
from pipeline.meaning.encoder import INSTALL_HINT
from pipeline.index.terms import TermCounter
from pipeline.user_command import OutputTooLarge, TimedOut, run_user_command
from pipeline.wording import counted

if TYPE_CHECKING:
    from pipeline.audit.rules import AuditRules

LEXICAL_THRESHOLD = 0.6
"""Share of a sentence's content words and numbers that the passages must hold: a paraphrase
keeps well over half of its words' stems, a sentence about something else far fewer."""
MODEL_THRESHOLD = 0.5
"""Entailment probability from which a command's or model's score counts as support."""
COMMAND_BATCH = 64
"""Pairs sent to one run of a judge command."""

# Numbers as written (`0.86`, `1,839`, `80.0`), not the digits inside a word (`p53`, `CO2`).
_NUMBER = re.compile(r"(?<![^\W\d_])\d+(?:[.,]\d+)*")
_DIGITS = re.compile(r"[\d.,]+")


@dataclass(frozen=True)
class Pair:
    passages: tuple[Passage, ...]
    hypothesis: str

    @property
    def premise(self) -> str:
        """What a judge that reads text alone gets: the passages' texts in citation order, a blank line apart."""
        return "\n\n".join(passage.text for passage in self.passages)


class Judge(Protocol):
    description: JudgeDescription

    def judge(self, pairs: list[Pair]) -> list[Judgement]:
        """A judgement for each pair, in order."""


def make_judge(
    spec: str, threshold: float | None, window: int | None, timeout: float, audit_rules: AuditRules, audit_rules_path: Path | None = None
) -> Judge:
    """The judge `--judge` names; `threshold` None for the judge's own default; `audit_rules` the
    rules judge's rules, loaded once by the caller from `audit_rules_path` (rules/audit.toml where
    None, the only file another judge accepts)."""
    if window is not None and not spec.startswith("cmd:"):
        raise AuditError(f"--window is for a cmd: judge; the rules and lexical judges read whole passages and an hf: model its own window, not {spec!r}")
    if audit_rules_path is not None and spec not in ("rules", "meaning"):
        raise AuditError(f"--audit-rules is for the rules and meaning judges, not {spec!r}; leave it out or pass --judge rules")
    if spec == "rules":
        from pipeline.audit.rules_judge import RulesJudge

        rules = audit_rules
        if threshold is not None:
            rules = rules.model_copy(update={"thresholds": rules.thresholds.model_copy(update={"min_coverage": threshold})})
        return RulesJudge(rules, audit_rules_path)
    if spec == "meaning":
        from pipeline.audit.meaning_judge import MeaningJudge
        from pipeline.meaning.encoder import EncoderMissing, load_encoder

        try:
            encoder = load_encoder()
        except EncoderMissing as missing:
            raise AuditError(f"--judge meaning reads with the sentence encoder, which is not installed: {INSTALL_HINT}") from missing
        return MeaningJudge(audit_rules, encoder, audit_rules_path, threshold)
    if spec == "lexical":
        return LexicalJudge(LEXICAL_THRESHOLD if threshold is None else threshold)
    if spec.startswith("cmd:") and spec[4:].strip():
        return CommandJudge(spec[4:], MODEL_THRESHOLD if threshold is None else threshold, window, timeout)
    if spec.startswith("hf:") and spec[3:].strip():
        from pipeline.audit.nli_model import NliModelJudge

        return NliModelJudge(Path(spec[3:]), MODEL_THRESHOLD if threshold is None else threshold)
    raise AuditError(f"unknown judge {spec!r}; pass --judge rules, --judge meaning, --judge lexical, --judge cmd:'COMMAND' or --judge hf:PATH/TO/MODEL")


def normalized_number(written: str) -> str:
    """`1,839` → `1839`, `80.0` → `80`, `0.860` → `0.86`: one number, however it is written."""
    number = written.replace(",", "")
    if "." in number:
        number = number.rstrip("0").rstrip(".")
    if number.startswith("0."):
        return number
    return number.lstrip("0") or "0"


class LexicalJudge:
    """How much of a sentence the passages hold: its content words (stemmed as the search index
    stems them, stopwords left out) and its numbers. Supported when the share found reaches the
    threshold and every number of the sentence is in the passages. It reads words, not meaning:
    a negation or a reversed effect keeps the words and passes."""

    def __init__(self, threshold: float) -> None:
        self.description = JudgeDescription(
            name="lexical", version="1.0", measures="lexical overlap", threshold=threshold, window="unlimited",
            detail="share of the sentence's content words (Porter stems, stopwords out) and numbers found in the passages; every number must be found",
        )
        self._counter = TermCounter()

    def judge(self, pairs: list[Pair]) -> list[Judgement]:
        return [self._one(pair) for pair in pairs]

    def _one(self, pair: Pair) -> Judgement:
        words, numbers = self._content(pair.hypothesis)
        premise_words, premise_numbers = self._content(pair.premise)
        if not words and not numbers:
            return Judgement(score=0.0, supported=False, note="the sentence has no content word or number to look for")
        missing_words = sorted(words - premise_words)
        missing_numbers = sorted(numbers - premise_numbers)
        score = 1 - (len(missing_words) + len(missing_numbers)) / (len(words) + len(numbers))
        supported = score >= self.description.threshold and not missing_numbers
        missing = ([f"number(s) {', '.join(missing_numbers)}"] if missing_numbers else []) + (
            [f"word(s) {', '.join(missing_words)}"] if missing_words else []
        )
        return Judgement(score=round(score, 4), supported=supported, rule="overlap", note=f"not in the passages: {'; '.join(missing)}" if missing else None)

    def _content(self, text: str) -> tuple[set[str], set[str]]:
        terms = {term for term in self._counter.count(text) if not _DIGITS.fullmatch(term)}
        return terms, {normalized_number(number) for number in _NUMBER.findall(text)}


class CommandJudge:
    """A command of the user's: JSON lines `{"premise", "hypothesis"}` on its stdin, one
    `{"entailment": float}` line out for each, in order, with `"contradiction": float` beside it
    where the command can tell. Run without a shell (`sh -c '…'` for
    a pipeline), once per batch of pairs, each run within `timeout` seconds."""

    def __init__(self, command: str, threshold: float, window: int | None, timeout: float) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as error:
            raise AuditError(f"judge command {command} cannot be split into arguments ({error}); check its quotes after cmd:") from None
        self.window = window
        self.timeout = timeout
        self.description = JudgeDescription(
            name="cmd", version=command, measures="the command's score", detail=command, threshold=threshold,
            window=f"{window} words" if window else "unlimited",
        )

    def judge(self, pairs: list[Pair]) -> list[Judgement]:
        judgements = []
        for start in range(0, len(pairs), COMMAND_BATCH):
            judgements += self._batch(pairs[start : start + COMMAND_BATCH])
        return judgements

    def _batch(self, pairs: list[Pair]) -> list[Judgement]:
        premises = [_cut(pair.premise, self.window) for pair in pairs]
        lines = "".join(
            json.dumps({"premise": premise, "hypothesis": pair.hypothesis}, ensure_ascii=False) + "\n"
            for (premise, _), pair in zip(premises, pairs)
        )
        shown = shlex.join(self.argv)
        try:
            done = run_user_command(self.argv, lines.encode(), self.timeout)
        except FileNotFoundError:
            raise AuditError(f"judge command {shown}: {self.argv[0]} not found; check the command after cmd:") from None
        except OSError as error:
            cause = "permission denied" if isinstance(error, PermissionError) else error.strerror
            raise AuditError(f"judge command {shown}: {self.argv[0]} cannot be run ({cause}); check the command after cmd:") from None
        except TimedOut:
            raise AuditError(f"judge command {shown} took over {self.timeout:g} s for {counted(len(pairs), 'pair')}; raise --timeout or speed it up") from None
        except OutputTooLarge as stopped:
            raise AuditError(f"judge command {shown} {str(stopped).removeprefix('it ')}; it must write one JSON line per input line") from None
        if done.exit_code != 0:
            tail = " ".join(done.stderr.decode(errors="replace").split()[-30:]) or "nothing on stderr"
            raise AuditError(f"judge command {shown} exited with code {done.exit_code} ({tail})")
        answers = [line for line in done.stdout.decode(errors="replace").splitlines() if line.strip()]
        if len(answers) != len(pairs):
            raise AuditError(f"judge command {shown} wrote {counted(len(answers), 'line')} for {counted(len(pairs), 'pair')}; it must write one JSON line per input line")
        threshold = self.description.threshold
        judgements = []
        for number, (answer, (_, truncated)) in enumerate(zip(answers, premises), 1):
            entailment, contradiction = _scores(answer, number, shown)
            supported = entailment >= threshold
            # A contradiction score is optional; it decides only where it wins and clears the threshold.
            contradicted = not supported and contradiction is not None and contradiction >= threshold and contradiction > entailment
            judgements.append(Judgement(score=entailment, supported=supported, contradicted=contradicted,
                                        rule="contradiction score" if contradicted else "threshold", truncated=truncated))
        return judgements


def _cut(premise: str, window: int | None) -> tuple[str, bool]:
    """The premise cut to `window` words, and whether it had to be."""
    words = premise.split()
    if window is None or len(words) <= window:
        return premise, False
    return " ".join(words[:window]), True


def _scores(line: str, number: int, shown: str) -> tuple[float, float | None]:
    """The `entailment` score of one output line, and its `contradiction` score where it gives one."""
    try:
        answer = json.loads(line)
        value = answer["entailment"]
    except (json.JSONDecodeError, TypeError, KeyError):
        raise AuditError(f"judge command {shown}, output line {number}: {line[:80]!r} is no JSON object with an `entailment` number") from None
    scores = [_probability(value, "entailment", number, shown)]
    if "contradiction" in answer:
        scores.append(_probability(answer["contradiction"], "contradiction", number, shown))
    return scores[0], scores[1] if len(scores) > 1 else None


def _probability(value: object, name: str, number: int, shown: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise AuditError(f"judge command {shown}, output line {number}: {name} {value!r} is no number from 0 to 1")
    return float(value)
