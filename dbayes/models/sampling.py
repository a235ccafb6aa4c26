"""Ancestral sampling from a fitted TAN: class first, then each attribute after its parent.

    c ~ P(c),   x_k ~ P(x_k | c, x_π(k))   in topological order of the tree,

using the fitted model's own (smoothed) conditional tables, so sampled data has the dependence structure the
model learned. A value is missing with the probability the training data had for it given the class.
"""

from __future__ import annotations

import numpy as np

from dbayes.counts import CountTables
from dbayes.models.tan import TAN

__all__ = ["sample_tan", "topological_order"]


def topological_order(parents: np.ndarray) -> list[int]:
    """Attributes ordered so that every parent comes before its children."""
    d = len(parents)
    order, placed = [], np.zeros(d, dtype=bool)
    while len(order) < d:
        progressed = False
        for k in range(d):
            if not placed[k] and (parents[k] < 0 or placed[parents[k]]):
                order.append(k)
                placed[k] = True
                progressed = True
        if not progressed:
            raise ValueError("parents do not form a forest")
    return order


def _draw(prob: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per row from the categorical distributions in the rows of ``prob``."""
    cdf = np.cumsum(prob, axis=1)
    cdf /= cdf[:, -1:]
    u = rng.random((prob.shape[0], 1))
    return np.minimum((u > cdf).sum(axis=1), prob.shape[1] - 1)


def sample_tan(model: TAN, tables: CountTables, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n`` rows ``(X, y)`` of codes (missing = ``V_k``) drawn from a fitted TAN."""
    model._check_fitted()
    y = _draw(np.tile(np.exp(model.class_log_prior_), (n, 1)), rng)
    d = len(model.cards_)
    X = np.empty((n, d), dtype=np.int64, order="F")
    for k in topological_order(model.parents_):
        Vk = model.cards_[k]
        table = np.exp(model.log_cpt_[k][:, :, :Vk])  # (C, Vp + 1, Vk)
        p = int(model.parents_[k])
        xp = X[:, p] if p >= 0 else np.full(n, table.shape[1] - 1)
        X[:, k] = _draw(table[y, xp], rng)
        counts = tables.attr(k)
        p_missing = counts[:, -1] / np.maximum(counts.sum(axis=1), 1)
        X[rng.random(n) < p_missing[y], k] = Vk
    return X, y
