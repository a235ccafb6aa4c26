"""WANBIA: naive Bayes with attribute weights that maximise the conditional log-likelihood.

Zaidi, Cerquides, Carman and Webb, "Alleviating naive Bayes attribute independence
assumption by attribute weighting", JMLR 14 (2013) 1947-1988 (WANBIA-CLL, sec. 4.1).

The weighted naive Bayes (their eq. 4) scores a class by

    P(c | x; w)  proportional to  P(c) * prod_i P(x_i | c) ** w_i ,

and WANBIA-CLL chooses ``w`` in ``[0, 1]^d`` minimising the negative conditional
log-likelihood of the training data (their eq. 6 and its gradient, eq. 7)

    NCLL(w) = - sum_j [ log P(y_j | x_j; w) ]
    d NCLL / d w_i = - sum_j [ log P(x_ji | y_j) - sum_c P(c | x_j; w) log P(x_ji | c) ],

with L-BFGS-B (Zhu, Byrd, Lu, Nocedal 1997) started from ``w = 1`` (plain naive Bayes).
A missing value ``x_ji`` contributes no factor (its ``log P`` is taken as 0), the rule the
counts follow too (docs/architecture.md: counts for attribute values leave the missing slot
out).

Probability estimates (a reconstruction; the paper's sec. 5 uses m-estimation): the
m-estimate of Cestnik (1990) with ``m = 1`` and uniform priors,
``P(c) = (N_c + m / C) / (N + m)`` and ``P(v | c) = (N_cv + m / V_i) / (N_ci + m)``, where
``N_ci`` counts class-``c`` rows whose attribute ``i`` is not missing.

To scale, the training rows are first compressed to distinct coded rows with their class
counts, so the objective costs one pass over the distinct rows per evaluation.

This module also holds :func:`weighted_nb_ncll`, the objective and gradient shared with
LAWNB (which solves the same problem on each test instance's neighbourhood).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp

from dbayes.errors import NotFittedError
from dbayes.models.base import Model

__all__ = ["WANBIA", "weighted_nb_ncll", "m_estimate_log_tables"]


def weighted_nb_ncll(w, log_prior, L, N):
    """Negative conditional log-likelihood of a weighted naive Bayes, and its gradient.

    Batched over ``P`` independent problems.

    Parameters
    ----------
    w : ndarray of shape (P, d)
        Attribute weights.
    log_prior : ndarray of shape (P, C)
        ``log P(c)``.
    L : ndarray of shape (P, R, C, d)
        ``L[p, r, c, i] = log P(x_ri | c)`` for row ``r`` of problem ``p`` (0 where ``x_ri`` is
        missing or ``r`` is padding).
    N : ndarray of shape (P, R, C)
        How many times row ``r`` occurs with class ``c`` (one-hot of the class for plain rows,
        class counts for compressed rows, 0 for padding).

    Returns
    -------
    f : ndarray of shape (P,)
        ``-sum_r sum_c N[r, c] log P(c | x_r; w)`` (Zaidi et al. 2013, eq. 6, negated).
    g : ndarray of shape (P, d)
        Its gradient (eq. 7, negated).
    """
    scores = log_prior[:, None, :] + np.einsum("prcd,pd->prc", L, w)
    lse = logsumexp(scores, axis=2)
    log_post = scores - lse[:, :, None]
    f = -np.einsum("prc,prc->p", N, log_post)
    post = np.exp(log_post)
    n_r = N.sum(axis=2)
    # sum_c N_rc L_rc  -  n_r * sum_c P(c|x_r) L_rc
    coef = N - n_r[:, :, None] * post
    g = -np.einsum("prc,prcd->pd", coef, L)
    return f, g


def m_estimate_log_tables(X, y, cards, n_classes, m, class_prior, value_priors, weights=None):
    """Log m-estimates of ``P(c)`` and ``P(v | c)`` from coded rows (Cestnik 1990).

    ``P(c) = (n_c + m p_c) / (n + m)`` and ``P(v | c) = (n_cv + m p_iv) / (n_ci + m)``, with
    ``n_ci`` the class-``c`` rows whose attribute ``i`` is not missing.

    Parameters
    ----------
    X : ndarray (n, d); y : ndarray (n,); cards : (d,); n_classes : int
    m : float
    class_prior : ndarray (C,)
        ``p_c``.
    value_priors : list of ndarray (V_i,)
        ``p_iv``.
    weights : ndarray (n,), optional
        Row multiplicities (default 1).

    Returns
    -------
    log_prior : ndarray (C,)
    log_cond : list of ndarray (C, V_i)
    """
    C = n_classes
    wts = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    n_c = np.bincount(y, weights=wts, minlength=C)
    log_prior = np.log((n_c + m * class_prior) / (n_c.sum() + m))
    log_cond = []
    for i, V in enumerate(cards):
        cnt = np.bincount(y * (V + 1) + X[:, i], weights=wts, minlength=C * (V + 1)).reshape(C, V + 1)
        n_cv = cnt[:, :V]
        n_ci = n_cv.sum(axis=1, keepdims=True)
        log_cond.append(np.log((n_cv + m * value_priors[i][None, :]) / (n_ci + m)))
    return log_prior, log_cond


class _ScoringMixin(Model):
    """The shared :class:`~dbayes.models.base.Model` contract, with input checks for coded rows.

    These models are fitted from the training rows themselves (``needs_rows``).
    """

    needs_rows = True

    def _check_fitted(self):
        if not hasattr(self, "n_classes_"):
            raise NotFittedError(f"{type(self).__name__} is not fitted yet; call fit first")

    def _check_X(self, X):
        self._check_fitted()
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != len(self.cards_):
            raise ValueError(f"expected coded rows with {len(self.cards_)} attributes, got {X.shape}")
        if X.size and (X.min() < 0 or np.any(X.max(axis=0) > self.cards_)):
            raise ValueError("codes must lie in 0..V_i (V_i = missing)")
        return X


def _check_train(train):
    """Validated (X Fortran int64, y, cards, C) from an object with X, y, cards, n_classes."""
    if train is None:
        raise ValueError("this model needs the training rows: fit(tables, train) with train.X, .y, .cards, .n_classes")
    X = np.asarray(train.X)
    y = np.asarray(train.y, dtype=np.int64)
    cards = np.asarray(train.cards, dtype=np.int64)
    C = int(train.n_classes)
    if X.ndim != 2 or X.shape[0] != y.shape[0] or X.shape[1] != cards.shape[0]:
        raise ValueError("train.X must be (n, d) with n = len(train.y) and d = len(train.cards)")
    if X.shape[0] == 0:
        raise ValueError("no training rows")
    if y.min() < 0 or y.max() >= C:
        raise ValueError("class codes must lie in 0..n_classes-1")
    if X.min() < 0 or np.any(X.max(axis=0) > cards):
        raise ValueError("codes must lie in 0..V_i (V_i = missing)")
    return np.asfortranarray(X.astype(np.int64, copy=False)), y, cards, C


class WANBIA(_ScoringMixin):
    """Weighted naive Bayes with one global weight vector maximising the CLL (WANBIA-CLL).

    Parameters
    ----------
    m : float, default 1.0
        m of the m-estimate (uniform priors), see the module notes.
    max_iter : int, default 15000
        L-BFGS-B iteration cap (scipy's default).

    Attributes
    ----------
    weights_ : ndarray (d,)
        The attribute weights in ``[0, 1]``.
    log_prior_, log_cond_ : log ``P(c)`` and per-attribute log ``P(v | c)`` tables (C, V_i).
    n_distinct_ : int
        Distinct coded training rows the objective was evaluated on.

    References
    ----------
    Zaidi, N. A., Cerquides, J., Carman, M. J., Webb, G. I. (2013). Alleviating naive Bayes
    attribute independence assumption by attribute weighting. JMLR 14, 1947-1988.
    Cestnik, B. (1990). Estimating probabilities: a crucial task in machine learning. ECAI.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5)
    >>> y = X[:, 0]
    >>> model = WANBIA().fit(None, SimpleNamespace(X=X, y=y, cards=[2, 2], n_classes=2))
    >>> model.predict(np.array([[0, 1], [1, 1]])).tolist()
    [0, 1]
    """

    name = "wanbia"

    def __init__(self, *, m=1.0, max_iter=15000):
        self.m = m
        self.max_iter = max_iter

    def fit(self, tables=None, train=None):
        """Estimate the tables from ``train`` and optimise the weights (``tables`` is ignored)."""
        X, y, cards, C = _check_train(train)
        self.cards_ = cards
        self.n_classes_ = C
        uniform_values = [np.full(V, 1.0 / V) for V in cards]
        self.log_prior_, self.log_cond_ = m_estimate_log_tables(
            X, y, cards, C, self.m, np.full(C, 1.0 / C), uniform_values
        )
        # compress to distinct coded rows with their class counts
        rows, inverse = np.unique(X, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        N = np.zeros((rows.shape[0], C))
        np.add.at(N, (inverse, y), 1.0)
        self.n_distinct_ = rows.shape[0]
        L = self._log_cond_rows(rows)[None]  # (1, U, C, d)
        log_prior = self.log_prior_[None]
        Nb = N[None]

        def fun(w):
            f, g = weighted_nb_ncll(w[None], log_prior, L, Nb)
            return f[0], g[0]

        d = len(cards)
        res = minimize(
            fun,
            np.ones(d),
            jac=True,
            method="L-BFGS-B",
            bounds=[(0.0, 1.0)] * d,
            options={"maxiter": self.max_iter},
        )
        self.weights_ = res.x
        self.ncll_ = float(res.fun)
        self.optimizer_result_ = res
        return self

    def _log_cond_rows(self, X):
        """``L[r, c, i] = log P(x_ri | c)`` (0 for missing)."""
        n, d = X.shape
        L = np.zeros((n, self.n_classes_, d))
        for i, V in enumerate(self.cards_):
            x = X[:, i]
            ok = x < V
            L[ok, :, i] = self.log_cond_[i][:, x[ok]].T
        return L

    def joint_log_likelihood(self, X):
        """``log P(c) + sum_i w_i log P(x_i | c)`` for each row, shape (n, C)."""
        self._check_fitted()
        X = self._check_X(X)
        return self.log_prior_[None, :] + np.einsum("rcd,d->rc", self._log_cond_rows(X), self.weights_)
