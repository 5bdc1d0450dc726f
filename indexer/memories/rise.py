"""How far two memories' embeddings rise above what each scores against all the others, in
standard deviations: the subject test of the supersession linker (e5 scores unrelated
statements high, so only the rise says much). Computed a block of rows at a time."""

from __future__ import annotations

import numpy as np

__all__ = ["RiseRows", "relative_similarity"]


def relative_similarity(vectors: np.ndarray) -> np.ndarray:
    """Each pair's cosine in standard deviations above the mean of both rows (the diagonal
    left out): the rise over what each memory scores against everything else."""
    return RiseRows(vectors).rows(0, len(vectors))


class RiseRows:
    """relative_similarity a block of rows at a time, in memory linear in the number of
    memories. Each row's mean and spread over all the others come from the sum of the vectors
    and their Gram matrix (sum_j (v.v_j)^2 = v^T (V^T V) v), so they cost time linear in the
    number of memories too; only the rows asked for are quadratic."""

    BLOCK = 512
    # a block's rows x columns: the one float64 array it returns, ~128 MB; the work is done a
    # part of the columns at a time. Converting those parts to float64 is what a block costs
    # beyond its rows, so the more rows it has, the less each pays (3x at 100k sessions).
    CELLS = 16_000_000
    COLUMNS = 32_768  # memories converted to float64 at a time for a block's products (~100 MB)

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = np.asarray(vectors, dtype=np.float32)
        n, dim = self.vectors.shape
        total_vector, gram = np.zeros(dim), np.zeros((dim, dim))
        for start in range(0, n, self.BLOCK):
            part = self.vectors[start:start + self.BLOCK].astype(np.float64)
            total_vector += part.sum(axis=0)
            gram += part.T @ part
        # a block at a time: a float64 copy of every vector would be 1.4 GB at 100k sessions
        total, squares, self_sims = np.zeros(n), np.zeros(n), np.zeros(n)
        for start in range(0, n, self.BLOCK):
            part = self.vectors[start:start + self.BLOCK].astype(np.float64)
            total[start:start + len(part)] = part @ total_vector
            squares[start:start + len(part)] = ((part @ gram) * part).sum(axis=1)
            self_sims[start:start + len(part)] = (part ** 2).sum(axis=1)
        self.mean = (total - self_sims) / max(1, n - 1)
        variance = (squares - self_sims ** 2) / max(1, n - 1) - self.mean ** 2
        self.spread = np.sqrt(np.maximum(variance, 1e-12))

    @property
    def block(self) -> int:
        """Rows per block: fewer as there are more memories, so a block's memory stays bounded."""
        return max(1, min(self.BLOCK, self.CELLS // max(1, len(self.vectors))))

    def rows(self, start: int, stop: int) -> np.ndarray:
        """Rows start..stop-1 of the rise, each against every memory."""
        return self.rows_at(np.arange(start, min(stop, len(self.vectors))), len(self.vectors))

    def rows_at(self, rows: np.ndarray | list[int], columns: int) -> np.ndarray:
        """These rows of the rise, each against the first `columns` memories. The products are
        taken in float64, as the means and spreads are: with few memories the spread is small,
        and float32 products would decide ties (a row with two others is exactly ±1)."""
        rows = np.asarray(rows, dtype=np.intp)
        left = self.vectors[rows].astype(np.float64)
        row_mean, row_spread = self.mean[rows, None], self.spread[rows, None]
        out = np.empty((len(rows), columns))
        for start in range(0, columns, self.COLUMNS):  # a float64 copy of the columns, in parts
            stop = min(columns, start + self.COLUMNS)
            sims = left @ self.vectors[start:stop].T.astype(np.float64)
            z_rows = (sims - row_mean) / row_spread
            sims -= self.mean[None, start:stop]
            sims /= self.spread[None, start:stop]
            z_rows += sims
            z_rows /= 2
            np.round(z_rows, 6, out=out[:, start:stop])  # float64 error left decides nothing
        return out
