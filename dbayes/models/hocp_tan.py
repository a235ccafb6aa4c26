"""Higher-order conditional probabilities on TAN's tree (HOCP, seed 000 sec. 3.2, eq. 9).

Each attribute is conditioned on the class and on *all* its ancestors in Friedman's TAN tree:

    P(a_k | a_1, ..., a_{k-1}, c) ≈ P(a_k | Ancestors(a_k), c)                                        (eq. 9)

estimated with eq. 8 (``N0`` = 5, Laplace prior on the marginal of ``A_k``):

    θ_s(a_k | π) = (N(π, a_k) + N0 · θ_0(a_k)) / (N(π) + N0),     π = (c, values of the ancestors).

The paper keeps this model to show over-fitting (its Table 2: much lower error than TAN on the training data,
higher under 10-fold CV). Higher-order counts are not in the count tables, so the model needs the training
rows (``needs_rows``): at fit time it groups the training rows by (class, ancestor values) once per
attribute, by mixed-radix keys compressed to dense ids after each ancestor (``np.unique``), and keeps the
sorted keys of every step; a block of test rows is looked up with ``np.searchsorted`` along the same steps,
so scoring is vectorised and a configuration absent from the training data gets N(π) = 0 (the estimate is
then the prior θ_0).

Missing values: a missing ancestor value is matched as a value of its own (training rows with that ancestor
missing share the configuration); N(π) and N(π, a_k) count only rows whose ``A_k`` is known (sec. 2.2); a
missing ``a_k`` in the test row contributes nothing.

Reference
---------
Z. Wang, G. I. Webb, F. Zheng, "Adjusting dependence relations for semi-lazy TAN classifiers", AI 2003, eq. 9,
Table 2.
"""

from __future__ import annotations

import numpy as np

from dbayes.counts import CountTables
from dbayes.errors import JobError
from dbayes.models._tree import ancestors, marginal_prior
from dbayes.models.base import Model, TrainingRows
from dbayes.models.nb import laplace_log_prior
from dbayes.models.tan import TAN

__all__ = ["HOCPTAN", "ConfigurationCounts"]


class ConfigurationCounts:
    """Counts of ``A_k``'s values per (class, ancestor values) configuration of a set of training rows.

    Parameters
    ----------
    X, y : the coded training rows.
    k : the child attribute.
    conditioning : attributes whose values (missing included, as a value of its own) define a configuration,
        together with the class.
    slots : ``V_i + 1`` of every attribute.
    n_classes : C.

    Attributes
    ----------
    steps_ : list of sorted int64 arrays: the distinct keys after each conditioning attribute.
    counts_ : int64 array ``(G + 1, V_k + 1)``: rows per (configuration id, value of ``A_k``); last column
        missing; last row zeros (configurations absent from the training rows).
    """

    def __init__(self, X, y, k: int, conditioning: list[int], slots: np.ndarray, n_classes: int):
        self.k = k
        self.conditioning = list(conditioning)
        self.slots = np.asarray(slots, dtype=np.int64)
        self.n_classes = n_classes
        g = np.asarray(y, dtype=np.int64)
        n_groups = n_classes
        self.steps_ = []
        for j in self.conditioning:
            key = g * self.slots[j] + np.asarray(X[:, j], dtype=np.int64)
            uniq, g = np.unique(key, return_inverse=True)
            self.steps_.append(uniq)
            n_groups = len(uniq)
        sk = int(self.slots[k])
        flat = g * sk + np.asarray(X[:, k], dtype=np.int64)
        counts = np.bincount(flat, minlength=n_groups * sk).reshape(n_groups, sk)
        # a last row of zeros stands for every configuration absent from the training rows
        self.counts_ = np.vstack([counts, np.zeros((1, sk), dtype=np.int64)])

    def lookup(self, X: np.ndarray, c: int) -> np.ndarray:
        """Configuration id of every row of ``X`` under class ``c`` (-1 when no training row has it)."""
        g = np.full(X.shape[0], c, dtype=np.int64)
        for j, uniq in zip(self.conditioning, self.steps_, strict=True):
            key = g * self.slots[j] + np.asarray(X[:, j], dtype=np.int64)
            if len(uniq) == 0:
                return np.full(X.shape[0], -1, dtype=np.int64)
            pos = np.minimum(np.searchsorted(uniq, key), len(uniq) - 1)
            g = np.where((g >= 0) & (uniq[pos] == key), pos, -1)
        return g

    def match_counts(self, X: np.ndarray, c: int) -> tuple[np.ndarray, np.ndarray]:
        """``(N(π), N(π, a_k))`` for every row of ``X`` under class ``c`` (rows with ``A_k`` known only)."""
        g = self.lookup(X, c)
        xk = np.asarray(X[:, self.k], dtype=np.int64)
        Vk = int(self.slots[self.k]) - 1
        g = np.where(g >= 0, g, len(self.counts_) - 1)
        n_pi = self.counts_[g, :Vk].sum(axis=1)
        n_pi_x = np.where(xk < Vk, self.counts_[g, np.minimum(xk, Vk)], 0)
        return n_pi, n_pi_x


class HOCPTAN(Model):
    """Every attribute conditioned on the class and all its TAN ancestors (eq. 9), eq. 8 estimates.

    Parameters
    ----------
    n0 : float, default 5
        Confidence N0 of the prior in eq. 8.

    Examples
    --------
    >>> import numpy as np
    >>> from dbayes.counts import TableLayout, count_tables
    >>> from dbayes.models.base import TrainingRows
    >>> from dbayes.models.hocp_tan import HOCPTAN
    >>> rng = np.random.default_rng(0)
    >>> X = np.asfortranarray(rng.integers(0, 2, (100, 3))); y = rng.integers(0, 2, 100)
    >>> t = count_tables(X, y, TableLayout(2, (2, 2, 2)))
    >>> HOCPTAN().fit(t, TrainingRows(X, y, (2, 2, 2), 2)).predict_proba(X[:1]).sum().round(6)
    np.float64(1.0)
    """

    name = "hocp-tan"
    needs_pairs = True
    needs_rows = True

    def __init__(self, *, n0: float = 5.0):
        self.n0 = n0

    def fit(self, tables: CountTables, train: TrainingRows | None = None) -> HOCPTAN:
        if train is None:
            raise JobError("hocp-tan needs the training rows: fit(tables, train)")
        d = len(tables.cards)
        self.parents_ = TAN(smoothing="friedman", n0=self.n0).fit(tables).parents_
        self.ancestors_ = ancestors(self.parents_)
        self.class_log_prior_ = laplace_log_prior(tables.class_counts, 1.0)
        slots = np.asarray(tables.cards, dtype=np.int64) + 1
        X = np.asarray(train.X)
        self.configs_ = [
            ConfigurationCounts(X, train.y, k, sorted(self.ancestors_[k]), slots, tables.n_classes) for k in range(d)
        ]
        self.prior_ = [marginal_prior(tables.attr(k)) for k in range(d)]
        self._set_fitted(tables)
        return self

    def joint_log_likelihood(self, X: np.ndarray) -> np.ndarray:
        X = self._check_X(X)
        n, d = X.shape
        out = np.tile(self.class_log_prior_, (n, 1))
        for k in range(d):
            xk = X[:, k].astype(np.int64)
            Vk = self.cards_[k]
            known = xk < Vk
            theta0 = np.where(known, self.prior_[k][np.minimum(xk, Vk - 1)] if Vk else 1.0, 1.0)
            for c in range(self.n_classes_):
                n_pi, n_pi_x = self.configs_[k].match_counts(X, c)
                term = np.log(n_pi_x + self.n0 * theta0) - np.log(n_pi + self.n0)
                out[:, c] += np.where(known, term, 0.0)
        return out
