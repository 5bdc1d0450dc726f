"""How far two memories' embeddings rise above what each scores against all the others, in
standard deviations: the subject test of the supersession linker (e5 scores unrelated
statements high, so only the rise says much).

Each memory's mean and spread over all the others come from the sum of every vector and their
Gram matrix (sum_j (v.v_j)^2 = v^T (V^T V) v): RiseStats gathers those in one pass over the
vectors, in memory independent of their number. Only the pairs asked for are then computed
(RiseRows), so linking holds the vectors of the statements it weighs, not of every one."""

from __future__ import annotations

import numpy as np

__all__ = ["RiseRows", "RiseStats", "relative_similarity"]


def relative_similarity(vectors: np.ndarray) -> np.ndarray:
    """Each pair's cosine in standard deviations above the mean of both rows (the diagonal
    left out): the rise over what each memory scores against everything else."""
    vectors = np.asarray(vectors, dtype=np.float32)
    stats = RiseStats(vectors.shape[1])
    stats.add(vectors)
    rise = RiseRows(vectors, *stats.of(vectors))
    return rise.rows_at(np.arange(len(vectors)), len(vectors))


class RiseStats:
    """The sum and Gram matrix of every vector, added a part at a time (float64, in parts of
    BLOCK rows: a float64 copy of every vector would be 1.4 GB at 100k sessions); then any
    vector's mean and spread against all the others."""

    BLOCK = 512

    def __init__(self, dim: int) -> None:
        self.count = 0
        self.total = np.zeros(dim)
        self.gram = np.zeros((dim, dim))

    def add(self, vectors: np.ndarray) -> None:
        for start in range(0, len(vectors), self.BLOCK):
            part = vectors[start:start + self.BLOCK].astype(np.float64)
            self.total += part.sum(axis=0)
            self.gram += part.T @ part
        self.count += len(vectors)

    def of(self, vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The mean and spread of these vectors' cosines with all the others."""
        n = len(vectors)
        total, squares, self_sims = np.zeros(n), np.zeros(n), np.zeros(n)
        for start in range(0, n, self.BLOCK):
            part = vectors[start:start + self.BLOCK].astype(np.float64)
            total[start:start + len(part)] = part @ self.total
            squares[start:start + len(part)] = ((part @ self.gram) * part).sum(axis=1)
            self_sims[start:start + len(part)] = (part ** 2).sum(axis=1)
        others = max(1, self.count - 1)
        mean = (total - self_sims) / others
        variance = (squares - self_sims ** 2) / others - mean ** 2
        return mean, np.sqrt(np.maximum(variance, 1e-12))


class RiseRows:
    """The rise between memories whose vectors, means and spreads it holds (row i of each is
    memory i), a block of rows at a time against any columns."""

    BLOCK = 512
    # a block's rows x columns: the one float64 array it returns, ~128 MB; the work is done a
    # part of the columns at a time. Converting those parts to float64 is what a block costs
    # beyond its rows, so the more rows it has, the less each pays (3x at 100k sessions).
    CELLS = 16_000_000
    COLUMNS = 32_768  # memories converted to float64 at a time for a block's products (~100 MB)

    def __init__(self, vectors: np.ndarray, mean: np.ndarray, spread: np.ndarray) -> None:
        self.vectors = np.asarray(vectors, dtype=np.float32)
        self.mean, self.spread = mean, spread

    def block_for(self, columns: int) -> int:
        """Rows per block against this many columns: fewer as there are more, so a block's
        memory stays bounded."""
        return max(1, min(self.BLOCK, self.CELLS // max(1, columns)))

    def rows_at(self, rows: np.ndarray | list[int], columns: int | np.ndarray) -> np.ndarray:
        """These rows of the rise, each against the first `columns` memories, or against the
        memories numbered in `columns` (an array). The products are taken in float64, as the
        means and spreads are: with few memories the spread is small, and float32 products
        would decide ties (a row with two others is exactly ±1)."""
        rows = np.asarray(rows, dtype=np.intp)
        return self.against(self.vectors[rows], self.mean[rows], self.spread[rows], columns)

    def against(self, left: np.ndarray, mean: np.ndarray, spread: np.ndarray,
                columns: int | np.ndarray) -> np.ndarray:
        """The rise of memories held elsewhere (their vectors, means and spreads) against these
        columns."""
        picked = None if isinstance(columns, int) else np.asarray(columns, dtype=np.intp)
        width = len(picked) if picked is not None else int(columns)
        left = left.astype(np.float64)
        row_mean, row_spread = mean[:, None], spread[:, None]
        out = np.empty((len(left), width))
        for start in range(0, width, self.COLUMNS):  # a float64 copy of the columns, in parts
            stop = min(width, start + self.COLUMNS)
            at = slice(start, stop) if picked is None else picked[start:stop]
            sims = left @ self.vectors[at].T.astype(np.float64)
            z_rows = (sims - row_mean) / row_spread
            sims -= self.mean[None, at]
            sims /= self.spread[None, at]
            z_rows += sims
            z_rows /= 2
            np.round(z_rows, 6, out=out[:, start:stop])  # float64 error left decides nothing
        return out
