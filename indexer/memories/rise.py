"""How far two memories' embeddings rise above what each scores against all the others, in
standard deviations: the subject test of the supersession linker (e5 scores unrelated
statements high, so only the rise says much). Computed a block of rows at a time."""

from __future__ import annotations

import numpy as np

__all__ = ["RiseRows", "relative_similarity", "rising"]


def relative_similarity(vectors: np.ndarray) -> np.ndarray:
    """Each pair's cosine in standard deviations above the mean of both rows (the diagonal
    left out): the rise over what each memory scores against everything else."""
    return RiseRows(vectors).rows(0, len(vectors))


class RiseRows:
    """relative_similarity a block of rows at a time, in memory linear in the number of
    memories: each row's mean and spread are summed block by block first."""

    BLOCK = 512

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = np.asarray(vectors, dtype=np.float32)
        n = len(self.vectors)
        total, squares = np.zeros(n), np.zeros(n)
        for start in range(0, n, self.BLOCK):
            sims = (self.vectors[start:start + self.BLOCK] @ self.vectors.T).astype(np.float64)
            total[start:start + len(sims)] = sims.sum(axis=1)
            squares[start:start + len(sims)] = (sims ** 2).sum(axis=1)
        self_sims = (self.vectors.astype(np.float64) ** 2).sum(axis=1)
        self.mean = (total - self_sims) / max(1, n - 1)
        variance = (squares - self_sims ** 2) / max(1, n - 1) - self.mean ** 2
        self.spread = np.sqrt(np.maximum(variance, 1e-12))

    def rows(self, start: int, stop: int) -> np.ndarray:
        """Rows start..stop-1 of the rise, each against every memory."""
        sims = (self.vectors[start:stop] @ self.vectors.T).astype(np.float64)
        z_rows = (sims - self.mean[start:stop, None]) / self.spread[start:stop, None]
        z_cols = (sims - self.mean[None, :]) / self.spread[None, :]
        return (z_rows + z_cols) / 2


def rising(rises: np.ndarray, floor: float) -> list[int]:
    """The positions at or above `floor`, nearest (last) first."""
    return [int(a) for a in np.flatnonzero(rises >= floor)[::-1]]
