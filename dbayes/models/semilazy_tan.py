"""Semi-lazy TAN: Friedman's tree at training time, the parent re-chosen per instance (seed 000 sec. 3.3).

Training builds exactly the tree of :class:`dbayes.models.tan.TAN` (CMI eq. 7, maximum spanning tree, rooted
at attribute 0). At classification time each attribute ``A_k`` of the test instance takes as parent the
ancestor (in that tree) whose *value* has the largest value-level conditional mutual information with the
value ``a_k`` (eq. 10-11):

    P(a_k | a_1, ..., a_{k-1}, c) ≈ P(a_k | MAX{Ancestors(a_k)}, c)                                   (eq. 10)
    I(a_k, a_j | C) = Σ_c P(a_k, a_j, c) · log [ P(a_k, a_j | c) / (P(a_k | c) P(a_j | c)) ]     (eq. 11)

Reading of eq. 11: the transcription shows the leading factor as "P(a_k, a_j c)"; we read it as the joint
P(a_k, a_j, c), the same weighting as eq. 7 (whose leading factor is printed the same way and is the joint in
Friedman et al. 1997 and in ``TAN``). Eq. 11 is then the pointwise term of eq. 7: summed over all value pairs
it gives I(A_k; A_j | C). Probabilities are maximum-likelihood estimates from the rows where both values are
known; a (value, value, class) cell never seen contributes 0.

Decisions (all tested):
- ties go to the nearest ancestor (the tree parent first);
- an ancestor whose value is missing in the test instance is not a candidate; with no candidate left the
  estimate is P(a_k | c); a missing ``a_k`` contributes nothing (sec. 2.2);
- the estimates are TAN's: eq. 8 with ``N0`` and the Laplace prior on the attribute's marginal;
- "When a TAN structure is a single chain, we always use naive Bayes directly": when the undirected tree is a
  path (every attribute has at most two neighbours, so always for d <= 3) every attribute is scored by
  θ_s(a_k | c), naive Bayes with the same eq. 8 estimates.

Fitting precomputes, for every attribute and every ancestor, the eq. 8 table P(a_k | c, a_j) and the table of
eq. 11 over all value pairs, so scoring a block of rows is lookups and one argmax over ancestors per
attribute.

Reference
---------
Z. Wang, G. I. Webb, F. Zheng, "Adjusting dependence relations for semi-lazy TAN classifiers", AI 2003,
LNAI 2903, sec. 3.3.
"""

from __future__ import annotations

import numpy as np

from dbayes.counts import CountTables
from dbayes.models._tree import ancestors, friedman_log_cpt, is_chain, value_cmi_terms
from dbayes.models.base import Model, TrainingRows
from dbayes.models.nb import laplace_log_prior
from dbayes.models.tan import TAN

__all__ = ["SemiLazyTAN", "value_level_cmi"]


def value_level_cmi(tables: CountTables, k: int, j: int) -> np.ndarray:
    """``(V_k + 1, V_j + 1)`` table of eq. 11's I(a_k, a_j | C) for every value pair; missing slots are -inf.

    Built from ``tables.pair(k, j)`` restricted to known values (see
    :func:`dbayes.models._tree.value_cmi_terms`).
    """
    out = np.full((tables.cards[k] + 1, tables.cards[j] + 1), -np.inf)
    out[:-1, :-1] = value_cmi_terms(tables.pair(k, j)[:, :-1, :-1]).sum(axis=0)
    return out


class SemiLazyTAN(Model):
    """Semi-lazy TAN (Wang, Webb, Zheng 2003): TAN's tree, per-instance parent among the ancestors.

    Parameters
    ----------
    n0 : float, default 5
        Confidence N0 of the prior in eq. 8 (as ``TAN``).

    Attributes
    ----------
    parents_ : ndarray of int
        TAN's tree (-1: class only).
    ancestors_ : list of list of int
        Ancestors of each attribute, nearest first.
    chain_ : bool
        True when the tree is a single chain and the model is naive Bayes.

    Examples
    --------
    >>> import numpy as np
    >>> from dbayes.counts import TableLayout, count_tables
    >>> from dbayes.models.semilazy_tan import SemiLazyTAN
    >>> rng = np.random.default_rng(0)
    >>> X = np.asfortranarray(rng.integers(0, 2, (200, 4))); y = rng.integers(0, 2, 200)
    >>> m = SemiLazyTAN().fit(count_tables(X, y, TableLayout(2, (2, 2, 2, 2))))
    >>> m.chosen_parents(X[:2]).shape
    (2, 4)
    """

    name = "semilazy-tan"
    needs_pairs = True

    def __init__(self, *, n0: float = 5.0):
        self.n0 = n0

    def fit(self, tables: CountTables, train: TrainingRows | None = None) -> SemiLazyTAN:
        d = len(tables.cards)
        tan = TAN(smoothing="friedman", n0=self.n0).fit(tables)
        self.parents_ = tan.parents_
        self.ancestors_ = ancestors(self.parents_)
        self.chain_ = is_chain(self.parents_)
        self.class_log_prior_ = laplace_log_prior(tables.class_counts, 1.0)
        # per attribute k, one (cells, C) table stacking log θ_s(x_k | c, x_j) for every ancestor j (cells
        # (x_j, x_k)) and then log θ_s(x_k | c) (cells x_k); rows are gathered per test row in one step
        self.anc_cmi_ = [[value_level_cmi(tables, k, j) for j in self.ancestors_[k]] for k in range(d)]
        self.stacked_cpt_, self.offsets_ = [], []
        for k in range(d):
            blocks = [friedman_log_cpt(tables, k, j, self.n0) for j in self.ancestors_[k]]
            blocks.append(friedman_log_cpt(tables, k, -1, self.n0))  # (C, 1, V_k + 1): class only
            flat = [b.reshape(tables.n_classes, -1).T for b in blocks]
            self.offsets_.append(np.concatenate([[0], np.cumsum([len(b) for b in flat])[:-1]]).astype(np.int64))
            self.stacked_cpt_.append(np.ascontiguousarray(np.concatenate(flat, axis=0)))
        self._set_fitted(tables)
        return self

    def _chosen_positions(self, X: np.ndarray, k: int) -> np.ndarray:
        """Position in ``ancestors_[k]`` of each row's chosen ancestor; ``len(ancestors_[k])``: class only."""
        anc = self.ancestors_[k]
        n = X.shape[0]
        if self.chain_ or not anc:
            return np.full(n, len(anc), dtype=np.int64)
        xk = X[:, k]
        xk = xk.astype(np.int64)
        score = np.column_stack(
            [
                np.take(t, xk * t.shape[1] + X[:, j], axis=None)  # t[xk, x_j], flat (np.take is fast)
                for t, j in zip(self.anc_cmi_[k], anc, strict=True)
            ]
        )
        best = np.argmax(score, axis=1)  # first (nearest) ancestor on ties
        usable = np.isfinite(score[np.arange(n), best])
        return np.where(usable, best, len(anc))

    def chosen_parents(self, X: np.ndarray) -> np.ndarray:
        """``(n, d)``: the ancestor each attribute of each row is conditioned on (eq. 10), -1 for the class
        only."""
        X = self._check_X(X)
        out = np.full(X.shape, -1, dtype=np.int64)
        for k in range(X.shape[1]):
            anc = np.asarray([*self.ancestors_[k], -1], dtype=np.int64)
            out[:, k] = anc[self._chosen_positions(X, k)]
        return out

    def joint_log_likelihood(self, X: np.ndarray) -> np.ndarray:
        X = self._check_X(X)
        n, d = X.shape
        out = np.tile(self.class_log_prior_, (n, 1))
        rows = np.arange(n)
        for k in range(d):
            pos = self._chosen_positions(X, k)
            anc = np.asarray([*self.ancestors_[k], 0], dtype=np.int64)  # class only: any column, value unused
            xj = np.where(pos < len(self.ancestors_[k]), X[rows, anc[pos]], 0).astype(np.int64)
            cell = self.offsets_[k][pos] + xj * (self.cards_[k] + 1) + X[:, k]
            out += np.take(self.stacked_cpt_[k], cell, axis=0)
        return out
