"""`--judge hf:PATH`: a local Hugging Face NLI model through `transformers` (the `nli` extra).

Two kinds of model are read: a sequence classifier with an entailment label (an MNLI
cross-encoder), whose score is that label's probability, and a T5 model that answers `1` for
entailment to `premise: … hypothesis: …` (the TRUE checkpoint ALCE used), whose score is the
probability of `1` against `0` at its first output step. Nothing is downloaded: the folder must
hold the model, and the hub is never asked.
"""

from __future__ import annotations

import os
from pathlib import Path

from pipeline.audit.judges import Pair
from pipeline.audit.records import JudgeDescription, Judgement
from pipeline.errors import AuditError

MODEL_BATCH = 8
"""Pairs through the model at once: eight 512-token pairs fit a laptop's memory."""
FALLBACK_WINDOW = 512
"""Tokens a pair may take where the tokenizer does not say (it answers a huge sentinel)."""


def _transformers():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # belt and braces beside local_files_only
    try:
        import torch
        import transformers
    except ImportError:
        raise AuditError("--judge hf needs transformers and torch: pip install -e '.[nli]'") from None
    return torch, transformers


class NliModelJudge:
    """Entailment by a local NLI model; the premise is cut to the model's window, and said so."""

    def __init__(self, folder: Path, threshold: float) -> None:
        if not (folder / "config.json").is_file():
            raise AuditError(f"{folder}: no Hugging Face model here (no config.json); pass the folder that holds the model's files to --judge hf:")
        self.torch, transformers = _transformers()
        try:
            config = transformers.AutoConfig.from_pretrained(folder, local_files_only=True)
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(folder, local_files_only=True)
            self.seq2seq = bool(config.is_encoder_decoder)
            kind = transformers.AutoModelForSeq2SeqLM if self.seq2seq else transformers.AutoModelForSequenceClassification
            self.model = kind.from_pretrained(folder, local_files_only=True).eval()
        except (OSError, ValueError) as error:
            raise AuditError(f"{folder}: cannot load the model ({' '.join(str(error).split())[:300]}); check that the folder holds a whole model") from None
        self.window = self.tokenizer.model_max_length if self.tokenizer.model_max_length < 100_000 else FALLBACK_WINDOW
        self.entailment_label = None if self.seq2seq else _entailment_label(config, folder)
        self.description = JudgeDescription(
            name="hf", version=str(folder), measures="entailment", threshold=threshold, window=f"{self.window} tokens",
            detail=f"{folder} ({'T5 answering 1 or 0' if self.seq2seq else f'classifier, label {config.id2label[self.entailment_label]!r}'})",
        )

    def judge(self, pairs: list[Pair]) -> list[Judgement]:
        judgements = []
        for start in range(0, len(pairs), MODEL_BATCH):
            batch = pairs[start : start + MODEL_BATCH]
            scores = self._seq2seq_scores(batch) if self.seq2seq else self._classifier_scores(batch)
            threshold = self.description.threshold
            judgements += [
                Judgement(score=round(score, 4), supported=score >= threshold, rule="threshold", truncated=self._too_long(pair))
                for score, pair in zip(scores, batch)
            ]
        return judgements

    def _too_long(self, pair: Pair) -> bool:
        if self.seq2seq:
            return len(self.tokenizer(_t5_input(pair))["input_ids"]) > self.window
        return len(self.tokenizer(pair.premise, pair.hypothesis)["input_ids"]) > self.window

    def _classifier_scores(self, batch: list[Pair]) -> list[float]:
        encoded = self.tokenizer(
            [pair.premise for pair in batch], [pair.hypothesis for pair in batch],
            truncation="only_first", max_length=self.window, padding=True, return_tensors="pt",
        )
        with self.torch.no_grad():
            logits = self.model(**encoded).logits
        return logits.softmax(dim=-1)[:, self.entailment_label].tolist()

    def _seq2seq_scores(self, batch: list[Pair]) -> list[float]:
        encoded = self.tokenizer([_t5_input(pair) for pair in batch], truncation=True, max_length=self.window, padding=True, return_tensors="pt")
        start = self.torch.full((len(batch), 1), self.model.config.decoder_start_token_id, dtype=self.torch.long)
        yes, no = (self.tokenizer.convert_tokens_to_ids(self.tokenizer.tokenize(answer))[-1] for answer in ("1", "0"))
        with self.torch.no_grad():
            logits = self.model(**encoded, decoder_input_ids=start).logits[:, 0, :]
        return logits[:, [yes, no]].softmax(dim=-1)[:, 0].tolist()


def _t5_input(pair: Pair) -> str:
    return f"premise: {pair.premise} hypothesis: {pair.hypothesis}"


def _entailment_label(config, folder: Path) -> int:
    for index, label in config.id2label.items():
        if "entail" in str(label).lower() and "not" not in str(label).lower():
            return int(index)
    raise AuditError(f"{folder}: the model has no entailment label (its labels: {sorted(config.id2label.values())}); pass an NLI model")
