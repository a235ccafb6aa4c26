"""Bench-only helpers: Weka 3.6's cross-validation folds and its supervised MDL discretization.

Stand-ins until the project's own ``dbayes.data`` discretization and ``dbayes.evaluate`` folds
are merged; written from the behaviour of Weka 3.6 so that the accuracies can be compared
with Weka's fold by fold:

* ``java.util.Random`` (48-bit LCG; ``nextInt(bound)`` as documented in the JDK);
* ``Instances.randomize(random)`` (swap ``j`` with ``nextInt(j + 1)`` for ``j = n-1..1``),
  ``Instances.stratify(folds)`` (group classes in order of first appearance, then take every
  ``folds``-th row) and ``testCV``/``trainCV``, as ``Evaluation.crossValidateModel`` uses them;
* ``weka.filters.supervised.attribute.Discretize`` defaults: Fayyad & Irani (1993) MDL,
  recursive, cut points at midpoints between distinct values, ``numCutPoints = n - 1``
  (not the "better encoding"), values ``<= cut`` go left.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

_MULT = 0x5DEECE66D
_MASK = (1 << 48) - 1


class JavaRandom:
    def __init__(self, seed):
        self.seed = (seed ^ _MULT) & _MASK

    def _next(self, bits):
        self.seed = (self.seed * _MULT + 0xB) & _MASK
        r = self.seed >> (48 - bits)
        if r >= 1 << 31:  # Java's (int) cast
            r -= 1 << 32
        return r

    def next_int(self, bound):
        if bound & (-bound) == bound:
            return (bound * self._next(31)) >> 31
        while True:
            bits = self._next(31)
            val = bits % bound
            if bits - val + (bound - 1) < (1 << 31):
                return val


def weka_cv_folds(y, folds=10, seed=1):
    """Test-row indices (into the original order) of each fold, as Weka 3.6's CLI makes them."""
    n = len(y)
    order = list(range(n))
    rnd = JavaRandom(seed)
    for j in range(n - 1, 0, -1):
        k = rnd.next_int(j + 1)
        order[j], order[k] = order[k], order[j]
    # stratify: bring rows of the same class together, in order of first appearance
    order = list(order)
    index = 1
    while index < n:
        c1 = y[order[index - 1]]
        for j in range(index, n):
            if y[order[j]] == c1:
                order[index], order[j] = order[j], order[index]
                index += 1
        index += 1
    strat = []
    for start in range(folds):
        strat.extend(order[start::folds])
    out = []
    for f in range(folds):
        size = n // folds
        if f < n % folds:
            size += 1
            offset = f
        else:
            offset = n % folds
        first = f * (n // folds) + offset
        out.append(np.array(strat[first : first + size]))
    return out


_LN2 = math.log(2.0)


def _lnf(x):
    return x * math.log(x) if x > 0 else 0.0


def _entropy_java(counts):
    """Weka's ContingencyTables.entropy, same order of floating-point operations."""
    ret, total = 0.0, 0.0
    for x in counts:
        ret -= _lnf(float(x))
        total += float(x)
    return 0.0 if total == 0 else (ret + _lnf(total)) / (total * _LN2)


def _log2(x):
    return math.log(x) / _LN2


def _cond_entropy_candidates(left, right):
    """Weka's ContingencyTables.entropyConditionedOnRows for each candidate split.

    The sums are accumulated in Weka's order (row 0's cells, minus lnFunc(row sum), then row
    1's) with a cumulative sum, so ties between candidates break as they do in Weka.
    """

    def lnf(a):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(a > 0, a * np.log(np.where(a > 0, a, 1.0)), 0.0)

    nl = np.cumsum(left, axis=1)[:, -1]
    nr = np.cumsum(right, axis=1)[:, -1]
    terms = np.concatenate([lnf(left), -lnf(nl)[:, None], lnf(right), -lnf(nr)[:, None]], axis=1)
    ret = np.cumsum(terms, axis=1)[:, -1]
    return -ret / ((nl + nr) * _LN2)


def _cuts(values, classes, C):
    """Fayyad-Irani MDL cut points of sorted ``values`` (no missing), Weka's arithmetic."""
    n = len(values)
    if n < 2:
        return []
    onehot = np.zeros((n, C))
    onehot[np.arange(n), classes] = 1
    left = np.cumsum(onehot, axis=0)[:-1]  # left counts after row i
    total = onehot.sum(axis=0)
    right = total[None, :] - left
    boundary = values[:-1] < values[1:]
    if not boundary.any():
        return []
    prior_ent = _entropy_java(total)
    cond = np.where(boundary, _cond_entropy_candidates(left, right), np.inf)
    best = int(np.argmin(cond))  # first minimum, as Weka's strict '<'
    if not cond[best] < prior_ent:
        return []
    gain = prior_ent - cond[best]
    k = int((total > 0).sum())
    k1 = int((left[best] > 0).sum())
    k2 = int((right[best] > 0).sum())
    ent_l, ent_r = _entropy_java(left[best]), _entropy_java(right[best])
    delta = _log2(math.pow(3, k) - 2) - ((k * prior_ent) - (k2 * ent_r) - (k1 * ent_l))
    if not gain > (_log2(n - 1) + delta) / n:
        return []
    cut = (values[best] + values[best + 1]) / 2.0
    lo = _cuts(values[: best + 1], classes[: best + 1], C)
    return lo + [cut] + _cuts(values[best + 1 :], classes[best + 1 :], C)


def mdl_cut_points(x, y, C):
    ok = ~np.isnan(x)
    order = np.argsort(x[ok], kind="stable")
    return np.array(_cuts(x[ok][order], y[ok][order], C))


def code_fold(df, y, train_idx, test_idx, C):
    """Coded (X_train, X_test, cards) with MDL cut points learnt on the training rows."""
    cols_tr, cols_te, cards = [], [], []
    for name in df.columns:
        col = df[name]
        if isinstance(col.dtype, pd.CategoricalDtype):
            V = len(col.cat.categories)
            codes = col.cat.codes.to_numpy().astype(np.int64)
            codes[codes < 0] = V
        else:
            x = col.to_numpy(dtype=float)
            cuts = mdl_cut_points(x[train_idx], y[train_idx], C)
            V = len(cuts) + 1
            codes = np.searchsorted(cuts, x, side="left").astype(np.int64) if len(cuts) else np.zeros(len(x), np.int64)
            codes[np.isnan(x)] = V
        cols_tr.append(codes[train_idx])
        cols_te.append(codes[test_idx])
        cards.append(V)
    return (
        np.asfortranarray(np.column_stack(cols_tr)),
        np.asfortranarray(np.column_stack(cols_te)),
        np.array(cards),
    )


def load(name):
    from dbayes.data.bundled import bundled_path

    df = pd.read_parquet(bundled_path(name))
    cls = df.pop("class")
    keep = cls.notna().to_numpy()
    df, cls = df[keep].reset_index(drop=True), cls[keep].reset_index(drop=True)
    y = cls.cat.codes.to_numpy().astype(np.int64)
    return df, y, len(cls.cat.categories)
