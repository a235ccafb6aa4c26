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
    offsets = np.asarray(offsets, dtype=np.int64)
    fold = np.empty(len(y), dtype=np.int64)
    for c in np.unique(y):
        rows = np.flatnonzero(y == c)
        rank = offsets[c] + np.arange(len(rows))  # rank among the dataset's rows of class c
        block, pos = np.divmod(rank, k)
        # the class's rows here span consecutive blocks: one draw of k keys per block; a row's fold is the
        # rank of its own key among its block's k keys
        first = block[0]
        blocks = np.arange(first, block[-1] + 1)
        with np.errstate(over="ignore"):
            keys = _mix(seed, repeat, c, blocks[:, None], np.arange(k)[None, :])  # (blocks, k)
        ranks = np.argsort(np.argsort(keys, axis=1, kind="stable"), axis=1, kind="stable")
        fold[rows] = ranks[block - first, pos]
    return fold
