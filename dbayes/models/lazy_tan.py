"""Totally-lazy TAN: a tree per test instance from value-level CMI (seed 000 sec. 3.4).

For a test instance ``x`` the edge weight between attributes ``A_i`` and ``A_j`` is the value-level
conditional mutual information of the instance's two values (eq. 11, read as in
:mod:`dbayes.models.semilazy_tan`):

    I_c(x_i, x_j) = P(x_i, x_j, c) · log [ P(x_i, x_j | c) / (P(x_i | c) P(x_j | c)) ]

* ``variant="class"`` ("based on a given class value"): one tree per class value ``c`` from the weights
  ``I_c``; the instance is scored under class ``c`` with the tree of ``c``;
* ``variant="all"`` ("based on all class values"): one tree from ``Σ_c I_c`` (eq. 11), used for every class.

Each tree is the maximum weighted spanning tree (Prim from attribute 0, edges directed away from it, as TAN),
and the estimates are TAN's eq. 8 (``N0`` = 5, Laplace prior on the marginal) with the class prior of TAN.
An edge touching a missing value of the instance has weight -inf: it is used only when nothing else connects
that attribute, and a missing parent value falls back to the class alone (a missing ``x_k`` adds nothing).

The trees of a block of rows are built at once by a batched Prim over ``(rows x classes, d, d)`` weight
matrices; the model needs only the pair tables (``needs_pairs``), no training rows. The seed reports that
neither variant reduces error; the model is kept to reproduce that finding.

Reference
---------
Z. Wang, G. I. Webb, F. Zheng, "Adjusting dependence relations for semi-lazy TAN classifiers", AI 2003,
sec. 3.4.
"""

from __future__ import annotations

import numpy as np

from dbayes.counts import CountTables
from dbayes.errors import JobError
from dbayes.models._tree import batched_prim_parents, marginal_prior, value_cmi_terms
from dbayes.models.base import Model, TrainingRows
from dbayes.models.nb import laplace_log_prior

__all__ = ["LazyTAN"]

VARIANTS = ("class", "all")
#: weight-matrix entries built at once (trees x d x d); bounds the batch to 64 MiB of float64
BLOCK_ENTRIES = 2**23


class LazyTAN(Model):
    """Totally-lazy TAN (Wang, Webb, Zheng 2003, sec. 3.4): one spanning tree per test instance.

    Parameters
    ----------
    variant : {"class", "all"}, default "class"
        ``"class"``: a tree per class value from that class's value-level CMI; ``"all"``: one tree from the
        value-level CMI summed over the classes.
    n0 : float, default 5
        Confidence N0 of the prior in eq. 8.

    Examples
    --------
    >>> import numpy as np
    >>> from dbayes.counts import TableLayout, count_tables
    >>> from dbayes.models.lazy_tan import LazyTAN
    >>> rng = np.random.default_rng(0)
    >>> X = np.asfortranarray(rng.integers(0, 2, (200, 4))); y = rng.integers(0, 2, 200)
    >>> m = LazyTAN(variant="all").fit(count_tables(X, y, TableLayout(2, (2, 2, 2, 2))))
    >>> m.instance_parents(X[:3]).shape    # (rows, classes, attributes)
    (3, 2, 4)
    """

    name = "lazy-tan"
    needs_pairs = True

    def __init__(self, *, variant: str = "class", n0: float = 5.0):
        self.variant = variant
        self.n0 = n0

    def fit(self, tables: CountTables, train: TrainingRows | None = None) -> LazyTAN:
        if self.variant not in VARIANTS:
            raise JobError(f"lazy-tan: variant must be one of {', '.join(VARIANTS)}, got {self.variant!r}")
        d, C = len(tables.cards), tables.n_classes
        self.class_log_prior_ = laplace_log_prior(tables.class_counts, 1.0)
        # value-level CMI per class for every pair i < j: (C, V_i + 1, V_j + 1), -inf on missing slots
        self.terms_ = {}
        for i in range(d):
            for j in range(i + 1, d):
                t = np.full((C, tables.cards[i] + 1, tables.cards[j] + 1), -np.inf)
                t[:, :-1, :-1] = value_cmi_terms(tables.pair(i, j)[:, :-1, :-1])
                self.terms_[i, j] = t
        # eq. 8: log θ_s(x_k | c, x_p) = log(N(c, x_p, x_k) + N0 θ0) - log(N(c, x_p) + N0)
        self.prior_ = [marginal_prior(tables.attr(k)) for k in range(d)]
        self.class_cpt_ = []
        self.pair_cpt_ = {}
        for k in range(d):
            n = tables.attr(k)[:, :-1].astype(np.float64)
            t = np.zeros((C, tables.cards[k] + 1))
            t[:, :-1] = np.log(n + self.n0 * self.prior_[k]) - np.log(n.sum(axis=1, keepdims=True) + self.n0)
            self.class_cpt_.append(t)
            for p in range(d):
                if p == k:
                    continue
                n = tables.pair(p, k)[:, :-1, :-1].astype(np.float64)
                t = np.zeros((C, tables.cards[p] + 1, tables.cards[k] + 1))
                t[:, :-1, :-1] = np.log(n + self.n0 * self.prior_[k]) - np.log(n.sum(axis=2, keepdims=True) + self.n0)
                t[:, -1, :] = self.class_cpt_[k]  # missing parent value: the class alone
                self.pair_cpt_[p, k] = t
        self._set_fitted(tables)
        return self

    def _weights(self, X: np.ndarray) -> np.ndarray:
        """``(n, C', d, d)`` edge weights; C' = C for ``"class"``, 1 for ``"all"``."""
        n, d = X.shape
        C = self.n_classes_ if self.variant == "class" else 1
        W = np.zeros((n, C, d, d))
        for (i, j), t in self.terms_.items():
            w = t[:, X[:, i], X[:, j]].T  # (n, C)
            if self.variant == "all":
                w = w.sum(axis=1, keepdims=True)
            W[:, :, i, j] = w
            W[:, :, j, i] = w
        return W

    def instance_parents(self, X: np.ndarray) -> np.ndarray:
        """``(n, C, d)``: the parent of each attribute in the tree of each row and class (-1: class only).

        With ``variant="all"`` the C trees of a row are the same tree.
        """
        X = self._check_X(X)
        n, d = X.shape
        C = self.n_classes_
        out = np.empty((n, C, d), dtype=np.int64)
        trees_per_row = C if self.variant == "class" else 1
        step = max(1, BLOCK_ENTRIES // (trees_per_row * max(d * d, 1)))
        for start in range(0, n, step):
            Xb = X[start : start + step]
            W = self._weights(Xb)
            par = batched_prim_parents(W.reshape(-1, d, d)).reshape(len(Xb), W.shape[1], d)
            out[start : start + len(Xb)] = np.broadcast_to(par, (len(Xb), C, d))
        return out

    def joint_log_likelihood(self, X: np.ndarray) -> np.ndarray:
        X = self._check_X(X)
        n, d = X.shape
        C = self.n_classes_
        par = self.instance_parents(X)
        out = np.tile(self.class_log_prior_, (n, 1))
        rows = np.arange(n)
        for k in range(d):
            xk = X[:, k]
            for c in range(C):
                p_of = par[:, c, k]
                col = self.class_cpt_[k][c, xk]
                for p in np.unique(p_of[p_of >= 0]):
                    r = rows[p_of == p]
                    col[r] = self.pair_cpt_[int(p), k][c, X[r, p], xk[r]]
                out[:, c] += col
        return out
