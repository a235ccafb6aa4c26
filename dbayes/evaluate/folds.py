"""Seeded, stratified fold assignment that every partition computes on its own.

A row's fold depends only on (seed, repeat, its class, its rank among the rows of its class in dataset order),
never on how the rows are partitioned, so 1, 3 or 17 partitions give the same folds. The rows of each class are
cut, in dataset order, into consecutive blocks of k; the k rows of a block go to the k folds in an order drawn
from a hash of (seed, repeat, class, block). Every fold therefore gets the same number of rows of each class,
give or take one, as stratified k-fold cross-validation requires, and the assignment is random.

A partition needs the rank of its first row of each class: the class counts of the partitions before it
(``class_offsets``), which the scan provides.
"""

from __future__ import annotations

import numpy as np

__all__ = ["stratified_folds", "class_offsets", "hash_uniform", "splitmix64"]

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def splitmix64(x: np.ndarray) -> np.ndarray:
    """The SplitMix64 finaliser (Steele, Lea, Flood 2014), vectorised over uint64 arrays."""
    z = np.asarray(x, dtype=np.uint64) + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def _mix(*parts) -> np.ndarray:
    h = np.uint64(0x243F6A8885A308D3)
    with np.errstate(over="ignore"):
        for p in parts:
            h = splitmix64(np.asarray(p, dtype=np.uint64) ^ h)
    return h


def hash_uniform(*parts) -> np.ndarray:
    """Uniform numbers in [0, 1) from a hash of the (broadcast) integer arrays ``parts``."""
    return (_mix(*parts) >> np.uint64(11)).astype(np.float64) / float(2**53)


def class_offsets(partition_class_counts: np.ndarray) -> np.ndarray:
    """``(P, C)`` counts per partition and class -> ``(P, C)`` rank of each partition's first row of each class."""
    counts = np.asarray(partition_class_counts, dtype=np.int64)
    return np.cumsum(counts, axis=0) - counts


def stratified_folds(y: np.ndarray, offsets: np.ndarray, k: int, seed: int, repeat: int) -> np.ndarray:
    """Fold (0..k-1) of each row of one partition.

    Parameters
    ----------
    y : class codes of the partition's rows, in dataset order.
    offsets : ``(C,)`` rank of this partition's first row of each class (see :func:`class_offsets`).
    k : number of folds.
    seed, repeat : the job's seed and the repeat index of R x k cross-validation.
    """
    y = np.asarray(y, dtype=np.int64)
    n = len(y)
    rank = np.empty(n, dtype=np.int64)
    order = np.argsort(y, kind="stable")
    ys = y[order]
    starts = np.searchsorted(ys, np.arange(len(offsets)))
    within = np.arange(n) - starts[ys]
    rank[order] = np.asarray(offsets, dtype=np.int64)[ys] + within
    block, pos = np.divmod(rank, k)
    # one draw of k keys per (class, block), shared by the block's rows; a row's fold is its key's rank
    pair = y * (int(block.max(initial=0)) + 1) + block
    uniq, inverse = np.unique(pair, return_inverse=True)
    u_class, u_block = np.divmod(uniq, int(block.max(initial=0)) + 1)
    with np.errstate(over="ignore"):
        keys = _mix(seed, repeat, u_class[:, None], u_block[:, None], np.arange(k)[None, :])  # (blocks, k)
    ranks = np.argsort(np.argsort(keys, axis=1, kind="stable"), axis=1, kind="stable")
    return ranks[inverse, pos].astype(np.int64)
