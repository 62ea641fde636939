"""Vectors as every encoder hands them on: rows of length 1, so that a dot product is the
cosine (the built-in encoders, a sentence-transformers model and an embeddings server alike)."""

from __future__ import annotations

import numpy as np


def unit_vectors(vectors: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1 (a zero row kept as it is)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)
