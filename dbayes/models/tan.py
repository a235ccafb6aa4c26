"""Friedman's tree-augmented naive Bayes (TAN), as seed 000 sec. 2.1-2.2 implements it.

Structure (Friedman, Geiger, Goldszmidt 1997; seed 000 sec. 2.1, steps 1-5):

1. conditional mutual information between attribute pairs given the class (eq. 7)

       I(A_i; A_j | C) = Σ_{a_i, a_j, c} P(a_i, a_j, c) log [ P(a_i, a_j | c) / (P(a_i | c) P(a_j | c)) ];

2-3. a maximum weighted spanning tree over the attributes with these weights;
4.   edges directed away from a root. Seed 000 sets each edge "from A_i to A_j (i < j)"; that cannot hold for
     every edge of every tree while keeping one parent per attribute, so we root the tree at the attribute of
     lowest index, which gives exactly that direction along every path whose indices increase;
5.   the class is a parent of every attribute.

Parameters (seed 000 eq. 8, with N0 = 5): every conditional probability is smoothed towards a prior,

       θ_s(x | π(x)) = N(π(x)) / (N(π(x)) + N0) · P̂(x | π(x)) + N0 / (N(π(x)) + N0) · θ_0(x),

where π(x) is (class, parent value) — or the class alone for the root — and the prior θ_0(x) is the Laplace
estimate of the attribute's marginal, (N_x + 1) / (N + V). The class prior is Laplace-estimated. Missing values
are left out of every count; N(π(x)) counts the rows with both π(x) and a known x (sec. 2.2). A missing test
value is skipped; a missing parent value falls back to π(x) = class.

``smoothing="weka"`` reproduces Weka 3.6's ``BayesNet -Q TAN -- -S BAYES -E SimpleEstimator -- -A 0.5``: missing
values replaced by the training mode (``ReplaceMissingValues``), edge weights = gain of the local BAYES score
(Dirichlet prior α = 0.5) when the candidate parent is added, the tree grown and directed as Weka's
``search.local.TAN`` does, and CPTs (N(x, π) + α) / (N(π) + α V) with α = 0.5.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from dbayes.counts import CountTables
from dbayes.errors import JobError
from dbayes.models.base import Model, TrainingRows
from dbayes.models.nb import laplace_log_prior

__all__ = [
    "TAN",
    "conditional_mutual_information",
    "maximum_spanning_tree",
    "orient_tree",
    "mode_replaced",
    "weka_tan_parents",
    "smoothed_log_cpt",
]

SMOOTHINGS = ("friedman", "weka")


# -- structure ------------------------------------------------------------------------------------------------
def _known_pair_cells(tables: CountTables):
    """Pair-region cells whose two values are both known: pair number, (c, a, b), count."""
    lay = tables.layout
    pid, c, a, b = lay.pair_cells
    pl = lay.pair_list
    cards = np.asarray(lay.cards)
    known = (a < cards[pl[pid, 0]]) & (b < cards[pl[pid, 1]])
    n = tables.values[lay.pair_start :].astype(np.float64)
    return pid[known], c[known], a[known], b[known], n[known]


def _group_sum(keys: list[np.ndarray], shape: tuple[int, ...], weights: np.ndarray) -> np.ndarray:
    flat = np.ravel_multi_index(keys, shape)
    return np.bincount(flat, weights=weights, minlength=int(np.prod(shape)))[flat]


def conditional_mutual_information(tables: CountTables) -> np.ndarray:
    """``(d, d)`` symmetric matrix of I(A_i; A_j | C) (eq. 7) from the rows where both values are known.

    Computed for all pairs at once over the flat pair tables.
    """
    lay = tables.layout
    d = len(lay.cards)
    W = np.zeros((d, d))
    if d < 2:
        return W
    pid, c, a, b, n = _known_pair_cells(tables)
    P, C, S = len(lay.pair_list), lay.n_classes, int(lay.slots.max())
    total = np.bincount(pid, weights=n, minlength=P)
    n_c = _group_sum([pid, c], (P, C), n)
    n_ca = _group_sum([pid, c, a], (P, C, S), n)
    n_cb = _group_sum([pid, c, b], (P, C, S), n)
    pos = n > 0
    terms = np.zeros_like(n)
    terms[pos] = n[pos] * (np.log(n[pos]) + np.log(n_c[pos]) - np.log(n_ca[pos]) - np.log(n_cb[pos]))
    with np.errstate(invalid="ignore", divide="ignore"):
        cmi = np.where(total > 0, np.bincount(pid, weights=terms, minlength=P) / total, 0.0)
    pl = lay.pair_list
    W[pl[:, 0], pl[:, 1]] = cmi
    W[pl[:, 1], pl[:, 0]] = cmi
    return W


def maximum_spanning_tree(W: np.ndarray) -> list[tuple[int, int]]:
    """Edges ``(i, j)`` of a maximum weighted spanning tree (Prim's algorithm from attribute 0).

    Ties go to the edge met first in row-major order of (tree node, new node), so the tree is deterministic.
    """
    d = W.shape[0]
    if d < 2:
        return []
    in_tree = np.zeros(d, dtype=bool)
    in_tree[0] = True
    best = W[0].copy()
    link = np.zeros(d, dtype=np.int64)
    edges = []
    for _ in range(d - 1):
        cand = np.where(in_tree, -np.inf, best)
        j = int(np.argmax(cand))
        i = int(link[j])
        edges.append((min(i, j), max(i, j)))
        in_tree[j] = True
        better = (~in_tree) & (W[j] > best)
        best[better] = W[j][better]
        link[better] = j
    return edges


def orient_tree(edges: list[tuple[int, int]], d: int, root: int = 0) -> np.ndarray:
    """Parent of each attribute (-1 for none) when the edges are directed away from ``root``."""
    adj: list[list[int]] = [[] for _ in range(d)]
    for i, j in edges:
        adj[i].append(j)
        adj[j].append(i)
    parent = np.full(d, -1, dtype=np.int64)
    seen = np.zeros(d, dtype=bool)
    for start in [root, *range(d)]:
        if seen[start]:
            continue
        seen[start] = True
        stack = [start]
        while stack:
            u = stack.pop()
            for v in sorted(adj[u]):
                if not seen[v]:
                    seen[v] = True
                    parent[v] = u
                    stack.append(v)
    return parent


def mode_replaced(tables: CountTables) -> tuple[CountTables, np.ndarray]:
    """Tables with each attribute's missing slot merged into its most frequent value (first on ties).

    Weka's ``ReplaceMissingValues`` applied before counting, done on the tables. Returns the tables and the
    modes.
    """
    modes = np.array([int(np.argmax(tables.attr(i)[:, :-1].sum(axis=0))) for i in range(len(tables.cards))])
    maps = []
    for i, v in enumerate(tables.cards):
        m = np.arange(v + 1)
        m[v] = modes[i]
        maps.append(m)
    return tables.recode(maps, tables.cards), modes


def _bayes_score(counts: np.ndarray, alpha: float) -> float:
    """Weka's local BAYES score of a node: counts of shape (configurations, values)."""
    V = counts.shape[-1]
    c = counts.reshape(-1, V).astype(np.float64)
    return float(
        gammaln(alpha + c).sum()
        - gammaln((alpha + c).sum(axis=1)).sum()
        + c.shape[0] * (gammaln(V * alpha) - V * gammaln(alpha))
    )


def weka_tan_parents(tables: CountTables, alpha: float = 0.5) -> np.ndarray:
    """Parents found by Weka 3.6's ``search.local.TAN`` on mode-replaced tables (class not counted).

    ``delta[h, t]`` is the gain of node h's local BAYES score when t joins the class as its parent; the tree is
    grown from the best link by always adding the best link between a linked and an unlinked node (ties: the
    first in Weka's scan order, which ``argmax`` over the row-major matrix reproduces), then directed as Weka
    does.
    """
    lay = tables.layout
    d = len(lay.cards)
    parent = np.full(d, -1, dtype=np.int64)
    if d < 2:
        return parent
    C = lay.n_classes
    V = np.asarray(lay.cards, dtype=np.float64)
    base = np.array([_bayes_score(tables.attr(i)[:, :-1], alpha) for i in range(d)])
    # score of node h with parents (class, t) = sum over cells lnG(a + N) - sum over (c, v_t) lnG(a V_h + N_{c,v_t})
    #                                          + C V_t (lnG(V_h a) - V_h lnG(a))
    pid, c, a, b, n = _known_pair_cells(tables)
    pl = lay.pair_list
    P, S = len(pl), int(lay.slots.max())
    cell_sum = np.bincount(pid, weights=gammaln(alpha + n), minlength=P)
    # all (pair, c, value) configurations, including those with no rows (N = 0)
    n_ca = np.bincount(np.ravel_multi_index([pid, c, a], (P, C, S)), weights=n, minlength=P * C * S).reshape(P, C, S)
    n_cb = np.bincount(np.ravel_multi_index([pid, c, b], (P, C, S)), weights=n, minlength=P * C * S).reshape(P, C, S)
    i, j = pl[:, 0], pl[:, 1]
    valid_a = np.arange(S)[None, :] < V[i][:, None]  # (P, S)
    valid_b = np.arange(S)[None, :] < V[j][:, None]
    # head j, tail i: configurations (c, a), values b
    g_j = np.where(valid_a[:, None, :], gammaln(alpha * V[j][:, None, None] + n_ca), 0.0).sum(axis=(1, 2))
    g_i = np.where(valid_b[:, None, :], gammaln(alpha * V[i][:, None, None] + n_cb), 0.0).sum(axis=(1, 2))
    const = gammaln(V * alpha) - V * gammaln(alpha)  # per head
    delta = np.full((d, d), -np.inf)
    delta[j, i] = cell_sum - g_j + C * V[i] * const[j] - base[j]
    delta[i, j] = cell_sum - g_i + C * V[j] * const[i] - base[i]
    # A one-valued head or tail leaves the score unchanged: Weka's sums then cancel to exactly 0.0, and so must
    # ours, or the tie-breaking between such links would follow rounding noise.
    single = V == 1
    delta[single[:, None] | single[None, :]] = 0.0
    np.fill_diagonal(delta, -np.inf)
    linked = np.zeros(d, dtype=bool)
    links = []
    for k in range(d - 1):
        cand = delta.copy()
        if k > 0:
            cand[~(linked[:, None] ^ linked[None, :])] = -np.inf
        n1, n2 = np.unravel_index(int(np.argmax(cand)), cand.shape)
        links.append((int(n2), int(n1)))  # Weka: link1 = n2, link2 = n1
        linked[[n1, n2]] = True
    has_parent = np.zeros(d, dtype=bool)
    for l1, l2 in links:
        if not has_parent[l1]:
            parent[l1] = l2
            has_parent[l1] = True
        else:
            parent[l2] = l1
            has_parent[l2] = True
    return parent


# -- parameters -----------------------------------------------------------------------------------------------
def smoothed_log_cpt(n_pi_x: np.ndarray, prior: np.ndarray, n0: float) -> np.ndarray:
    """log θ_s(x | π) of eq. 8 for counts ``n_pi_x`` of shape (..., V) (last axis: x) and prior θ_0(x)."""
    n = n_pi_x.astype(np.float64)
    n_pi = n.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_hat = np.where(n_pi > 0, n / n_pi, 0.0)
    w = n_pi / (n_pi + n0)
    return np.log(w * p_hat + (1.0 - w) * prior)


class TAN(Model):
    """Friedman's tree-augmented naive Bayes.

    Parameters
    ----------
    smoothing : {"friedman", "weka"}, default "friedman"
        ``"friedman"``: conditional mutual information, seed 000's eq. 8 with ``n0`` and Laplace priors.
        ``"weka"``: Weka 3.6 BayesNet/TAN with the simple estimator (``alpha``), for checking against Weka.
    n0 : float, default 5
        Confidence N0 of the prior in eq. 8.
    alpha : float, default 0.5
        Dirichlet prior of the ``"weka"`` score and estimator.

    Attributes
    ----------
    parents_ : ndarray of int
        Attribute parent of each attribute (-1: the class alone).
    weights_ : ndarray
        Edge weights the tree was built from (CMI, or Weka's score gains).

    Examples
    --------
    >>> import numpy as np
    >>> from dbayes.counts import TableLayout, count_tables
    >>> from dbayes.models import TAN
    >>> rng = np.random.default_rng(0)
    >>> x0 = rng.integers(0, 2, 500); x1 = x0 ^ (rng.random(500) < .1); x2 = x1 ^ (rng.random(500) < .1)
    >>> X = np.asfortranarray(np.c_[x0, x1, x2]); y = rng.integers(0, 2, 500)
    >>> TAN().fit(count_tables(X, y, TableLayout(2, (2, 2, 2)))).parents_.tolist()   # the chain 0 -> 1 -> 2
    [-1, 0, 1]
    """

    name = "tan"
    needs_pairs = True

    def __init__(self, *, smoothing: str = "friedman", n0: float = 5.0, alpha: float = 0.5):
        self.smoothing = smoothing
        self.n0 = n0
        self.alpha = alpha

    def check_params(self) -> None:
        if self.smoothing not in SMOOTHINGS:
            raise JobError(f"tan: smoothing must be one of {', '.join(SMOOTHINGS)}, got {self.smoothing!r}")
        if not (isinstance(self.n0, int | float) and self.n0 >= 0):
            raise JobError(f"tan: n0 must be a number >= 0, got {self.n0!r}")
        if not (isinstance(self.alpha, int | float) and self.alpha > 0):
            raise JobError(f"tan: alpha must be a positive number, got {self.alpha!r}")

    def fit(self, tables: CountTables, train: TrainingRows | None = None) -> TAN:
        self.check_params()
        d = len(tables.cards)
        if self.smoothing == "weka":
            tables, modes = mode_replaced(tables)
            self.parents_ = weka_tan_parents(tables, self.alpha)
            self.weights_ = None
            self.class_log_prior_ = laplace_log_prior(tables.class_counts, self.alpha)
            test_maps = []
            for i, v in enumerate(tables.cards):
                m = np.arange(v + 1)
                m[v] = modes[i]
                test_maps.append(m)
            self.test_maps_ = test_maps
        else:
            self.weights_ = conditional_mutual_information(tables)
            self.parents_ = orient_tree(maximum_spanning_tree(self.weights_), d)
            self.class_log_prior_ = laplace_log_prior(tables.class_counts, 1.0)
            self.test_maps_ = None
        self.log_cpt_ = [self._log_cpt(tables, k) for k in range(d)]
        self._set_fitted(tables)
        return self

    def _log_cpt(self, tables: CountTables, k: int) -> np.ndarray:
        """``(C, V_p + 1, V_k + 1)`` log P(x_k | c, x_p); row V_p (parent missing or no parent) = log P(x_k | c);
        column V_k (x_k missing) = 0."""
        C, Vk = tables.n_classes, tables.cards[k]
        p = int(self.parents_[k])
        Vp = tables.cards[p] if p >= 0 else 0
        out = np.zeros((C, Vp + 1, Vk + 1))
        n_ck = tables.attr(k)[:, :-1]
        if self.smoothing == "weka":
            a = self.alpha
            out[:, Vp, :-1] = np.log(n_ck + a) - np.log(n_ck.sum(axis=1, keepdims=True) + a * Vk)
            if p >= 0:
                n = tables.pair(p, k)[:, :-1, :-1].astype(np.float64)
                out[:, :Vp, :-1] = np.log(n + a) - np.log(n.sum(axis=2, keepdims=True) + a * Vk)
            return out
        marginal = n_ck.sum(axis=0).astype(np.float64)
        prior = (marginal + 1.0) / (marginal.sum() + Vk)  # Laplace estimate of P_T(x)
        out[:, Vp, :-1] = smoothed_log_cpt(n_ck, prior, self.n0)
        if p >= 0:
            out[:, :Vp, :-1] = smoothed_log_cpt(tables.pair(p, k)[:, :-1, :-1], prior, self.n0)
        return out

    def joint_log_likelihood(self, X: np.ndarray) -> np.ndarray:
        X = self._check_X(X)
        if self.test_maps_ is not None:
            X = np.column_stack([m[X[:, i]] for i, m in enumerate(self.test_maps_)])
        out = np.tile(self.class_log_prior_, (X.shape[0], 1))
        for k, table in enumerate(self.log_cpt_):
            p = int(self.parents_[k])
            xp = X[:, p] if p >= 0 else np.full(X.shape[0], table.shape[1] - 1)
            out += table[:, xp, X[:, k]].T
        return out
