"""Weka 3.6's own fold assignment, to compare with Weka instance for instance.

``weka.classifiers.Evaluation.crossValidateModel(classifier, data, k, new Random(seed))`` shuffles the rows with
``Instances.randomize`` (Fisher-Yates driven by ``java.util.Random``), groups them by class with
``Instances.stratify`` (a swapping pass per class) and ``stratStep``, and then ``testCV(k, f)`` takes
contiguous blocks, the first ``n mod k`` folds one row larger. This module replays those steps exactly.

It needs every row's class in dataset order, so the engine computes it on the client (one byte per row); the
default fold assignment (:mod:`dbayes.evaluate.folds`) is partition-local instead.
"""

from __future__ import annotations

import numpy as np

__all__ = ["JavaRandom", "weka_folds", "weka_cv_orders"]

_MULT = 0x5DEECE66D
_MASK = (1 << 48) - 1


class JavaRandom:
    """``java.util.Random``: the 48-bit linear congruential generator of the Java documentation."""

    def __init__(self, seed: int):
        self.state = (seed ^ _MULT) & _MASK

    def _next(self, bits: int) -> int:
        self.state = (self.state * _MULT + 0xB) & _MASK
        return self.state >> (48 - bits)

    def next_int(self, bound: int) -> int:
        """``nextInt(bound)``, uniform in ``0 .. bound - 1``."""
        if bound & -bound == bound:  # a power of two
            return (bound * self._next(31)) >> 31
        while True:
            bits = self._next(31)
            val = bits % bound
            if bits - val + (bound - 1) < (1 << 31):
                return val


def _shuffle(order: list, rnd: JavaRandom) -> list:
    """``Instances.randomize``: Fisher-Yates from the end with ``nextInt(j + 1)``."""
    order = list(order)
    for j in range(len(order) - 1, 0, -1):
        k = rnd.next_int(j + 1)
        order[j], order[k] = order[k], order[j]
    return order


def _stratified_order(y: np.ndarray, folds: int, rnd: JavaRandom) -> list:
    """Row order after ``randomize`` and ``stratify`` (class grouping by swaps, then ``stratStep``)."""
    order = _shuffle(range(len(y)), rnd)
    n = len(order)
    cls = [int(y[i]) for i in order]
    index = 1
    while index < n:  # one swapping scan per class run
        target = cls[index - 1]
        for j in range(index, n):
            if cls[j] == target:
                order[index], order[j] = order[j], order[index]
                cls[index], cls[j] = cls[j], cls[index]
                index += 1
        index += 1
    return [order[j] for s in range(folds) for j in range(s, n, folds)]


def weka_folds(y: np.ndarray, folds: int = 10, seed: int = 1) -> np.ndarray:
    """Fold (0..k-1) of each row under Weka's ``-x folds -s seed`` cross-validation (nominal class)."""
    n = len(y)
    strat = _stratified_order(np.asarray(y), folds, JavaRandom(seed))
    sizes = [n // folds + (1 if f < n % folds else 0) for f in range(folds)]  # testCV
    out = np.empty(n, dtype=np.int64)
    out[strat] = np.repeat(np.arange(folds), sizes)
    return out


def weka_cv_orders(y: np.ndarray, folds: int = 10, seed: int = 1) -> list[tuple[list, list]]:
    """Per fold, the (training, test) row orders Weka uses: ``testCV`` blocks, and ``trainCV``'s training
    part shuffled again with the same generator (the order a learner sees the training rows in)."""
    rnd = JavaRandom(seed)
    order = _stratified_order(np.asarray(y), folds, rnd)
    n = len(order)
    out = []
    for f in range(folds):
        size = n // folds + (1 if f < n % folds else 0)
        first = f * (n // folds) + min(f, n % folds)
        out.append((_shuffle(order[:first] + order[first + size :], rnd), order[first : first + size]))
    return out
