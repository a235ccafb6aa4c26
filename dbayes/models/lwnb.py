"""LWNB: locally weighted naive Bayes (lazy), as Weka's ``LWL`` around ``NaiveBayes``.

Frank, Hall and Pfahringer, "Locally weighted naive Bayes", UAI 2003, sec. 2; reproduced as
Weka 3.6 runs it (``weka.classifiers.lazy.LWL -U 0 -K 50`` with ``LinearNNSearch``,
``EuclideanDistance`` and ``weka.classifiers.bayes.NaiveBayes`` on discretized data):

* Neighbours: ``LinearNNSearch.kNearestNeighbours`` keeps the ``k`` nearest training rows
  **and every row tied with the k-th distance**; with fewer than ``k`` rows, all of them.
* Distance: ``EuclideanDistance`` on nominal attributes, ``sqrt(#mismatches)`` (a missing
  value on either side is a mismatch; ``postProcessDistances`` takes the square root).
* Kernel (``LWL.distributionForInstance``, linear kernel ``-U 0``): bandwidth ``D`` = the
  distance of the k-th neighbour; each neighbour gets ``1.0001 - dist / D``. Weka's constant
  1.0001 (``WEKA_LINEAR_OFFSET``) gives the rows at exactly ``D`` (the tied ones included) a
  small positive weight. If ``D = 0`` every neighbour gets the same weight.
  The weights are then rescaled to sum to the number of neighbours.
* Naive Bayes on the weighted neighbours (``NaiveBayes`` with ``DiscreteEstimator`` and
  Laplace): every count starts at 1 and adds the instance weights, so
  ``P(c) = (W_c + 1) / (W + C)`` and ``P(v | c) = (W_cv + 1) / (W_ci + V_i)`` with ``W_ci``
  the weight of class-``c`` neighbours whose attribute ``i`` is not missing. Missing values
  are skipped when counting and when predicting.

Distributed use: as for LAWNB (see :mod:`dbayes.models.lawnb`) with ``ties=True`` in
``topk_block``/``merge_topk`` and ``model.joint_log_likelihood_neighbours(test, dist, X_nb,
y_nb, found)``; only ``cards_``, ``n_classes_`` and ``k`` of the model are used there.

``k=None`` uses all training rows (Weka's ``-K -1``, the configuration in Frank et al.'s
"LWNB with all instances").
"""

from __future__ import annotations

import numpy as np

from dbayes.models.neighbours import compact_code_dtype, neighbour_rows_block, topk_block
from dbayes.models.wanbia import _check_train, _ScoringMixin

__all__ = ["LWNB", "WEKA_LINEAR_OFFSET", "lwl_linear_weights"]

#: Neighbour codes gathered at once, in array elements (bounds memory to ~128 MiB of int64).
GATHER_BUDGET = 2**24

#: Weka LWL's linear kernel is ``1.0001 - d / bandwidth`` (LWL.java, distributionForInstance).
WEKA_LINEAR_OFFSET = 1.0001


def lwl_linear_weights(dist, valid, k):
    """Instance weights of Weka's LWL linear kernel for sorted neighbour lists.

    Parameters
    ----------
    dist : ndarray (B, R)
        Squared Euclidean distances (numbers of mismatches), sorted ascending per row.
    valid : ndarray (B, R), bool
        False for padding.
    k : int
        The k of the search; the bandwidth is the distance of neighbour ``min(k, n) - 1``.

    Returns
    -------
    ndarray (B, R): weights, 0 on padding, summing per row to the number of valid neighbours.
    """
    B, R = dist.shape
    n_valid = valid.sum(axis=1)
    root = np.sqrt(np.where(valid, dist, 0).astype(float))
    kth = np.clip(np.minimum(k, n_valid) - 1, 0, max(R - 1, 0))
    bandwidth = root[np.arange(B), kth] if R else np.zeros(B)
    zero_bw = bandwidth <= 0
    scaled = np.where(zero_bw[:, None], 1.0, root / np.where(zero_bw, 1.0, bandwidth)[:, None])
    raw = np.where(valid, WEKA_LINEAR_OFFSET - scaled, 0.0)
    # sequential sum (cumsum), so padding zeros at the end of a row leave it bit-identical
    # whatever the padded width (pairwise summation would not)
    total = np.cumsum(raw, axis=1)[:, -1] if R else np.zeros(B)
    return raw * (n_valid / total)[:, None]


class LWNB(_ScoringMixin):
    """Locally weighted naive Bayes with a linear kernel (Frank, Hall, Pfahringer 2003).

    Parameters
    ----------
    k : int or None, default 50
        Neighbours (ties at the k-th distance included, as Weka); None = all rows.
    block_size : int, default 512
        Test rows handled together.

    References
    ----------
    Frank, E., Hall, M., Pfahringer, B. (2003). Locally weighted naive Bayes. UAI, 249-256.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5)
    >>> y = X[:, 0]
    >>> model = LWNB(k=5).fit(None, SimpleNamespace(X=X, y=y, cards=[2, 2], n_classes=2))
    >>> model.predict(np.array([[0, 1], [1, 1]])).tolist()
    [0, 1]
    """

    name = "lwnb"

    def __init__(self, *, k=50, block_size=512):
        self.k = k
        self.block_size = block_size

    def fit(self, tables=None, train=None):
        """Store the training rows (``train``: ``X``, ``y``, ``cards``, ``n_classes``).

        With only ``tables`` (a ``CountTables`` with ``cards`` and ``class_counts``) nothing
        but the shapes is kept, for :meth:`joint_log_likelihood_neighbours` (top-k path;
        ``k=None`` then needs ``tables.class_counts`` to know the training-set size).
        """
        if self.k is not None and int(self.k) < 1:
            raise ValueError(f"k must be at least 1 or None, got {self.k}")
        if train is None and tables is not None:
            self.cards_ = np.asarray(tables.cards, dtype=np.int64)
            self.n_classes_ = len(tables.class_counts)
            self.n_train_ = int(np.sum(tables.class_counts))
            return self
        X, y, cards, C = _check_train(train)
        self.X_ = X.astype(compact_code_dtype(cards), order="F")
        self.y_, self.cards_, self.n_classes_ = y, cards, C
        self.n_train_ = X.shape[0]
        return self

    def _k(self):
        return self.n_train_ if self.k is None else int(self.k)

    def neighbours(self, X):
        """(dist, ids) of the neighbourhoods, ties included (broadcast path)."""
        self._check_fitted()
        if not hasattr(self, "X_"):
            raise RuntimeError("fitted from count tables only: use joint_log_likelihood_neighbours")
        n = self.X_.shape[0]
        return topk_block(X, self.X_, np.arange(n), self._k(), self.cards_, ties=True)

    def neighbour_query(self) -> tuple[int, bool] | None:
        """``(k, ties)`` for the top-k reduction; None when every training row is a neighbour (``k=None``)."""
        return None if self.k is None else (int(self.k), True)

    def score_neighbours(self, X, dist, X_nb, y_nb, valid):
        """Joint log-scores from gathered neighbourhoods (the engine's top-k path)."""
        return self.joint_log_likelihood_neighbours(X, dist, X_nb, y_nb, valid)

    def joint_log_likelihood_neighbours(self, X, dist, X_nb, y_nb, valid):
        """Joint log-scores from neighbourhoods given as sorted (dist, rows), shape (B, C)."""
        self._check_fitted()
        X = self._check_X(X)
        B = X.shape[0]
        C = self.n_classes_
        w = lwl_linear_weights(dist, valid, self._k())
        # Weighted counts by bincount: it adds in input order, row by row, so padding (weight
        # 0, at the end of each row) leaves the counts bit-identical whatever the width.
        R = y_nb.shape[1]
        b_idx = np.repeat(np.arange(B), R)
        w_flat = w.reshape(-1)
        bc = b_idx * C + y_nb.reshape(-1)
        W_c = np.bincount(bc, weights=w_flat, minlength=B * C).reshape(B, C)
        jll = np.log((W_c + 1.0) / (W_c.sum(axis=1, keepdims=True) + C))
        rows = np.arange(B)
        for i, V in enumerate(self.cards_):
            x_nb = np.where(valid, X_nb[:, :, i], V).reshape(-1).astype(np.int64)
            cnt = np.bincount(bc * (V + 1) + x_nb, weights=w_flat, minlength=B * C * (V + 1))
            cnt = cnt.reshape(B, C, V + 1)
            W_ci = cnt[:, :, :V].sum(axis=2)
            x = X[:, i]
            present = x < V
            W_cv = cnt[rows, :, np.where(present, x, 0)]  # (B, C)
            term = np.log((W_cv + 1.0) / (W_ci + V))
            jll += np.where(present[:, None], term, 0.0)
        return jll

    def joint_log_likelihood(self, X):
        """Log-scores ``log P(c) + sum_i log P(x_i | c)`` on each weighted neighbourhood."""
        self._check_fitted()
        X = self._check_X(X)
        n = self.X_.shape[0]
        bs = max(1, int(self.block_size))
        out = []
        for start in range(0, X.shape[0], bs):
            Xb = X[start : start + bs]
            dist, ids = self.neighbours(Xb)
            # ties can make neighbourhoods wide: gather the rows in slices of bounded size
            width = max(1, ids.shape[1] * X.shape[1])
            step = max(1, GATHER_BUDGET // width)
            for s in range(0, Xb.shape[0], step):
                sl = slice(s, s + step)
                X_nb, y_nb, found = neighbour_rows_block(ids[sl], self.X_, self.y_, np.arange(n))
                out.append(self.joint_log_likelihood_neighbours(Xb[sl], dist[sl], X_nb, y_nb, found))
        return np.concatenate(out, axis=0) if out else np.empty((0, self.n_classes_))
