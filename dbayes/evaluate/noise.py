"""Class noise for the training folds (Mantas and Abellan's protocol; Weka's ``AddNoise`` filter).

Each row is picked with probability ``fraction`` from a hash of (seed, repeat, row id), and a picked row's class
is changed to one of the *other* classes, chosen uniformly. The noisy class is a property of the row within a
repeat: it is used whenever the row is in a training part, and the true class whenever the row is tested, so
test instances are never altered. Every training fold thus carries the given fraction of changed classes in
expectation; the draw is reproducible and independent of partitioning.
"""

from __future__ import annotations

import numpy as np

from dbayes.evaluate.folds import hash_uniform

__all__ = ["noisy_classes"]

_SALT_PICK = 0x6E6F697365  # "noise"
_SALT_CLASS = 0x636C617373  # "class"


def noisy_classes(
    y: np.ndarray, row_ids: np.ndarray, fraction: float, n_classes: int, seed: int, repeat: int
) -> np.ndarray:
    """The classes with noise: about ``fraction`` of the rows get another class at random."""
    y = np.asarray(y, dtype=np.int64)
    if fraction <= 0 or n_classes < 2:
        return y.copy()
    pick = hash_uniform(_SALT_PICK, seed, repeat, row_ids) < fraction
    shift = 1 + np.floor(hash_uniform(_SALT_CLASS, seed, repeat, row_ids) * (n_classes - 1)).astype(np.int64)
    return np.where(pick, (y + shift) % n_classes, y)
