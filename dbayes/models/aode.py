"""Averaged one-dependence estimators (AODE) and weightily averaged ones (WAODE), as Weka 3.6 computes them.

Both average, over the attributes taken in turn as *super parent* ``A_p``, the one-dependence estimates

    P(c, x) ≈ P̂(c, x_p) · Π_{a ≠ p} P̂(x_a | c, x_p),

from the (class, value_i, value_j) count tables, i.e. with one pass over the data (Webb, Boughton, Wang 2005,
eq. 4-6). Every estimate is made in log space and averaged with log-sum-exp, so long products do not underflow
as Weka's do on data sets with hundreds of attributes (where Weka's ``Utils.normalize`` fails); otherwise the
estimates are Weka's, term for term.

AODE (``weka.classifiers.bayes.AODE -F 1``)
    * a super parent is used only when its value is known and occurs at least ``frequency_limit`` times in
      the training data (all classes, m = 1 by default as in Weka 3.6; Webb 2005 used m = 30);
    * P̂(c, x_p) = (N(c, x_p) + 1) / (N - N(p missing) + C·V_p);
    * P̂(x_a | c, x_p) = (N(c, x_p, x_a) + 1) / (N(c, x_p, a known) + V_a); a missing ``x_a`` is skipped;
    * with ``m_estimate=True`` (Weka ``-M -W w``) the Laplace terms become m-estimates:
      (N(c, x_p) + w/(C·V_p)) / (N - N(p missing) + w) and
      (N(c, x_p, x_a) + w/V_a) / (N(c, x_p, a known) + w);
    * when no attribute qualifies as super parent, naive Bayes: (N_c + 1)/(N + C) · Π_a (N(c, x_a) + 1) /
      (N(c, a known) + V_a) (m-estimates likewise).

WAODE (``weka.classifiers.bayes.WAODE`` after ``Discretize`` and ``ReplaceMissingValues``; Jiang and Zhang
2006, eq. 5-7)
    * missing values are replaced by the training mode of the attribute (on the tables, before anything else);
    * super parent ``p`` is weighted by its mutual information with the class,
      W_p = Σ_{c, v} P(c, v) log2 [P(c, v) / (P(c) P(v))], maximum-likelihood probabilities over the N rows,
      a term counting 0 when P(c, v) or P(c)·P(v) is below 1e-6 (Weka's ``Utils.SMALL``);
    * P̂(c, x_p) = (N(c, x_p) + 1/(C·V_p)) / (N + 1),
      P̂(x_a | c, x_p) = (N(c, x_p, x_a) + 1/V_a) / (N(c, x_p) + 1);
    * P(c, x) ∝ Σ_p W_p P̂(c, x_p) Π_{a≠p} P̂(x_a | c, x_p). When every W_p is 0 (e.g. every attribute was
      discretized into one interval) Weka divides 0 by 0 and predicts the first class; we average with equal
      weights instead (plain AODE without frequency limit).

References
----------
G. I. Webb, J. R. Boughton, Z. Wang, "Not so naive Bayes: aggregating one-dependence estimators",
Machine Learning 58(1):5-24, 2005.
L. Jiang, H. Zhang, "Weightily averaged one-dependence estimators", PRICAI 2006, LNAI 4099, pp. 970-974.
Weka 3.6 sources: ``weka/classifiers/bayes/AODE.java``, ``weka/classifiers/bayes/WAODE.java``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from dbayes.counts import CountTables
from dbayes.errors import JobError
from dbayes.models.base import Model, TrainingRows
from dbayes.models.nb import laplace_log_prior
from dbayes.models.tan import mode_replaced

__all__ = ["AODE", "WAODE", "class_mutual_information"]

#: Weka's ``Utils.SMALL``: WAODE's mutual information ignores probabilities below it
WEKA_SMALL = 1e-6
#: rows scored at once; bounds the (d, rows, C) work array
BLOCK_ROWS = 2048


def class_mutual_information(tables: CountTables) -> np.ndarray:
    """WAODE's weights: I(A_p; C) in bits for every attribute, as Weka's ``WAODE.mutualInfo`` computes it.

    The tables must hold no missing values (WAODE works on mode-replaced tables); probabilities are
    counts over the number of rows.
    """
    N = float(tables.n)
    d = len(tables.cards)
    out = np.zeros(d)
    if N == 0:
        return out
    p_c = tables.class_counts / N
    for p in range(d):
        p_cv = tables.attr(p)[:, :-1] / N
        p_v = tables.attr(p)[:, :-1].sum(axis=0) / N
        denom = p_c[:, None] * p_v[None, :]
        ok = (p_cv >= WEKA_SMALL) & (denom >= WEKA_SMALL)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = p_cv * np.log2(np.where(ok, p_cv, 1.0) / np.where(ok, denom, 1.0))
        out[p] = float(np.where(ok, terms, 0.0).sum())
    return out


class _SuperParentModel(Model):
    """Shared scoring: per super parent ``p`` a prior table and one stacked table of child terms.

    Subclasses fill ``prior_[p]`` (C, V_p + 1) = log P̂(c, x_p) and ``child_[p]`` (S_p, C) = the
    concatenation over children ``a`` of the (V_p + 1) x (V_a + 1) tables log P̂(x_a | c, x_p) (zero for a
    missing child and for ``a = p``), with ``offsets_[p][a]`` the start of child ``a``.
    """

    needs_pairs = True

    def _stack_children(self, tables: CountTables, p: int, child_table) -> None:
        d = len(tables.cards)
        slots = np.asarray(tables.cards) + 1
        sizes = slots[p] * slots
        sizes[p] = 0
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        # one trailing zero column: the index of the parent's own (empty) slot
        stacked = np.zeros((tables.n_classes, int(sizes.sum()) + 1))
        offsets[p] = int(sizes.sum())
        for a in range(d):
            if a != p:
                stacked[:, offsets[a] : offsets[a] + sizes[a]] = child_table(p, a).reshape(tables.n_classes, -1)
        self.child_.append(np.ascontiguousarray(stacked.T))  # (cells, C): one row gather per term
        self.offsets_.append(offsets)

    def _spode_log_joint(self, X: np.ndarray, p: int) -> np.ndarray:
        """``(n, C)``: log P̂(c, x_p) + Σ_{a≠p} log P̂(x_a | c, x_p) for every row."""
        slots = np.asarray(self.cards_, dtype=np.int64) + 1
        xp = X[:, p].astype(np.int64)
        idx = self.offsets_[p][None, :] + xp[:, None] * slots[None, :] + X.astype(np.int64)
        idx[:, p] = self.offsets_[p][p]  # the zero column: a parent is not its own child
        terms = np.take(self.child_[p], idx, axis=0)  # (n, d, C); np.take is much faster than fancy indexing
        return np.take(self.prior_[p], xp, axis=1).T + terms.sum(axis=1)

    def joint_log_likelihood(self, X: np.ndarray) -> np.ndarray:
        X = self._check_X(X)
        out = np.empty((X.shape[0], self.n_classes_))
        for start in range(0, X.shape[0], BLOCK_ROWS):
            block = X[start : start + BLOCK_ROWS]
            out[start : start + len(block)] = self._block_jll(block)
        return out


class AODE(_SuperParentModel):
    """Averaged one-dependence estimators (Webb, Boughton, Wang 2005) with Weka 3.6's estimates.

    Parameters
    ----------
    frequency_limit : int, default 1
        A value occurring fewer times than this in the training data is not used as super parent (Weka
        ``-F``; Webb 2005 used 30).
    m_estimate : bool, default False
        m-estimates instead of Laplace estimates (Weka ``-M``).
    m_weight : float, default 1
        The m of the m-estimates (Weka ``-W``); ignored without ``m_estimate``.

    Examples
    --------
    >>> import numpy as np
    >>> from dbayes.counts import TableLayout, count_tables
    >>> from dbayes.models.aode import AODE
    >>> X = np.asfortranarray([[0, 0], [0, 1], [1, 1], [1, 1]]); y = np.array([0, 0, 1, 1])
    >>> m = AODE().fit(count_tables(X, y, TableLayout(2, (2, 2))))
    >>> m.predict(np.asfortranarray([[0, 0], [1, 2]])).tolist()
    [0, 1]
    """

    name = "aode"

    def __init__(self, *, frequency_limit: int = 1, m_estimate: bool = False, m_weight: float = 1.0):
        self.frequency_limit = frequency_limit
        self.m_estimate = m_estimate
        self.m_weight = m_weight

    def _estimate(self, count: np.ndarray, total: np.ndarray, V: int) -> np.ndarray:
        """log of (count + 1)/(total + V), or the m-estimate (count + w/V)/(total + w)."""
        count = count.astype(np.float64)
        total = np.asarray(total, dtype=np.float64)
        if self.m_estimate:
            w = float(self.m_weight)
            return np.log(count + w / V) - np.log(total + w)
        return np.log(count + 1.0) - np.log(total + V)

    def fit(self, tables: CountTables, train: TrainingRows | None = None) -> AODE:
        if self.m_estimate and not self.m_weight > 0:
            raise JobError(f"aode: m_weight must be positive, got {self.m_weight!r}")
        d, C = len(tables.cards), tables.n_classes
        N = tables.n
        self.frequency_ = [tables.attr(i).sum(axis=0) for i in range(d)]  # (V_i + 1,), last slot missing
        self.prior_, self.child_, self.offsets_ = [], [], []
        for p in range(d):
            Vp = tables.cards[p]
            n_cp = tables.attr(p)  # (C, V_p + 1)
            prior = np.zeros((C, Vp + 1))
            prior[:, :Vp] = self._estimate(n_cp[:, :Vp], N - self.frequency_[p][Vp], C * Vp)
            self.prior_.append(prior)

            def child_table(p, a):
                Va = tables.cards[a]
                n = tables.pair(p, a)  # (C, V_p + 1, V_a + 1)
                known = n[:, :, :Va].sum(axis=2, keepdims=True)
                out = np.zeros(n.shape)
                out[:, :, :Va] = self._estimate(n[:, :, :Va], known, Va)
                return out

            self._stack_children(tables, p, child_table)
        # naive Bayes fallback (no qualifying super parent)
        self.nb_prior_ = self._estimate(tables.class_counts, N, C)
        self.nb_cpt_ = []
        for a in range(d):
            n = tables.attr(a)
            t = np.zeros(n.shape)
            t[:, :-1] = self._estimate(n[:, :-1], n[:, :-1].sum(axis=1, keepdims=True), n.shape[1] - 1)
            self.nb_cpt_.append(t)
        self._set_fitted(tables)
        return self

    def _block_jll(self, X: np.ndarray) -> np.ndarray:
        n, d = X.shape
        C = self.n_classes_
        spode = np.full((d, n, C), -np.inf)
        active = np.zeros((d, n), dtype=bool)
        for p in range(d):
            xp = X[:, p].astype(np.int64)
            active[p] = (xp < self.cards_[p]) & (
                self.frequency_[p][np.minimum(xp, self.cards_[p])] >= self.frequency_limit
            )
            if active[p].any():
                rows = np.flatnonzero(active[p])
                spode[p, rows] = self._spode_log_joint(X[rows], p)
        out = np.empty((n, C))
        has_parent = active.any(axis=0)
        if has_parent.any():
            # mean over the active super parents: log Σ_p exp(spode_p) - log(#parents)
            out[has_parent] = (
                logsumexp(spode[:, has_parent], axis=0) - np.log(active[:, has_parent].sum(axis=0))[:, None]
            )
        if (~has_parent).any():
            Xn = X[~has_parent]
            jll = np.tile(self.nb_prior_, (len(Xn), 1))
            for a, t in enumerate(self.nb_cpt_):
                jll += np.take(t, Xn[:, a], axis=1).T
            out[~has_parent] = jll
        return out


class WAODE(_SuperParentModel):
    """Weightily averaged one-dependence estimators (Jiang and Zhang 2006) with Weka 3.6's estimates.

    Missing values are replaced by the training mode, in training (on the tables) and in test rows, as Weka's
    ``ReplaceMissingValues`` filter does in the reference command. No parameters.

    Attributes
    ----------
    weights_ : ndarray, shape (d,)
        Mutual information (bits) of each attribute with the class.
    modes_ : ndarray of int, shape (d,)
        Training mode of each attribute, the code a missing value is replaced by.
    """

    name = "waode"

    def __init__(self):
        pass

    def fit(self, tables: CountTables, train: TrainingRows | None = None) -> WAODE:
        tables, self.modes_ = mode_replaced(tables)
        d, C = len(tables.cards), tables.n_classes
        N = float(tables.n)
        self.weights_ = class_mutual_information(tables)
        self.class_log_prior_ = laplace_log_prior(tables.class_counts, 1.0)
        self.prior_, self.child_, self.offsets_ = [], [], []
        for p in range(d):
            Vp = tables.cards[p]
            n_cp = tables.attr(p).astype(np.float64)  # missing slot is 0 after the replacement
            self.prior_.append(np.log(n_cp + 1.0 / (C * Vp)) - np.log(N + 1.0))

            def child_table(p, a):
                Va = tables.cards[a]
                n = tables.pair(p, a).astype(np.float64)
                n_par = tables.attr(p).astype(np.float64)[:, :, None]
                return np.log(n + 1.0 / Va) - np.log(n_par + 1.0)

            self._stack_children(tables, p, child_table)
        w = self.weights_ if self.weights_.sum() > 0 else np.ones(max(d, 1))
        with np.errstate(divide="ignore"):
            self.log_weights_ = np.log(w / w.sum())
        self._set_fitted(tables)
        return self

    def _block_jll(self, X: np.ndarray) -> np.ndarray:
        n, d = X.shape
        if d == 0:  # no attribute: the class prior, (N_c + 1) / (N + C) as Weka's ZeroR fallback
            return np.tile(self.class_log_prior_, (n, 1))
        cards = np.asarray(self.cards_)
        X = np.where(X >= cards[None, :], self.modes_[None, :], X).astype(np.int64)
        spode = np.full((d, n, self.n_classes_), -np.inf)
        for p in range(d):
            if np.isfinite(self.log_weights_[p]):
                spode[p] = self.log_weights_[p] + self._spode_log_joint(X, p)
        return logsumexp(spode, axis=0)
