"""Naive Bayes on discretized attributes with Laplace estimates (seed 000, eq. 3 and 5).

    P(c | a_1..a_n)  ∝  P(c) · Π_k P(a_k | c)                                   (eq. 3, 5)
    P(c)        = (N_c + α) / (N + α·|C|)
    P(a_k | c)  = (N_{c,a_k} + α) / (N_{c,k} + α·V_k)

with α = 1 (Laplace). Following seed 000 sec. 2.2 (and Weka's NaiveBayes), missing values are left out of the
counts, and N_{c,k} counts the class-c rows whose A_k is *not* missing. A missing test value is skipped.

References
----------
Wang, Webb, Zheng, "Adjusting dependence relations for semi-lazy TAN classifiers", AI 2003, sec. 1-2.
John and Langley, "Estimating continuous distributions in Bayesian classifiers", UAI 1995 (Weka's NaiveBayes).
"""

from __future__ import annotations

import numpy as np

from dbayes.counts import CountTables
from dbayes.errors import JobError
from dbayes.models.base import Model, TrainingRows, attribute_factors

__all__ = ["NaiveBayes", "laplace_log_prior", "laplace_log_cpt"]


def laplace_log_prior(class_counts: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    """log P(c) = log (N_c + α) / (N + α|C|)."""
    n = class_counts.astype(np.float64)
    return np.log(n + alpha) - np.log(n.sum() + alpha * len(n))


def laplace_log_cpt(attr_table: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    """``(C, V + 1)`` table of log P(a | c) with the missing column set to 0 (a missing value adds nothing)."""
    counts = attr_table[:, :-1].astype(np.float64)
    V = counts.shape[1]
    out = np.zeros(attr_table.shape)
    out[:, :-1] = np.log(counts + alpha) - np.log(counts.sum(axis=1, keepdims=True) + alpha * V)
    return out


class NaiveBayes(Model):
    """Naive Bayes with Laplace estimates on count tables.

    Parameters
    ----------
    alpha : float, default 1.0
        Additive smoothing (1 = Laplace, as Weka's NaiveBayes on nominal attributes).

    Examples
    --------
    >>> import numpy as np
    >>> from dbayes.counts import TableLayout, count_tables
    >>> from dbayes.models import NaiveBayes
    >>> X = np.asfortranarray([[0, 0], [0, 1], [1, 1], [1, 1]]); y = np.array([0, 0, 1, 1])
    >>> nb = NaiveBayes().fit(count_tables(X, y, TableLayout(2, (2, 2), pairs=False)))
    >>> nb.predict(np.asfortranarray([[0, 0], [1, 2]])).tolist()   # (1, missing) -> class 1
    [0, 1]
    """

    name = "nb"

    def __init__(self, *, alpha: float = 1.0):
        self.alpha = alpha

    def check_params(self) -> None:
        if not self.alpha > 0:
            raise JobError(f"nb: alpha must be positive, got {self.alpha!r}")

    def fit(self, tables: CountTables, train: TrainingRows | None = None) -> NaiveBayes:
        self.check_params()
        self.class_log_prior_ = laplace_log_prior(tables.class_counts, self.alpha)
        self.feature_log_prob_ = [laplace_log_cpt(tables.attr(i), self.alpha) for i in range(len(tables.cards))]
        self._set_fitted(tables)
        return self

    def joint_log_likelihood(self, X: np.ndarray) -> np.ndarray:
        X = self._check_X(X)
        return self.class_log_prior_ + attribute_factors(self.feature_log_prob_, X)
