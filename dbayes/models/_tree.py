"""Helpers shared by the TAN family: ancestors in a tree, eq. 8 CPTs, value-level CMI, batched Prim.

Notation follows seed 000 (Wang, Webb, Zheng 2003): ``parents[k]`` is the attribute parent of ``A_k``
(-1 when the class is its only parent); eq. 8 smooths every conditional probability towards the Laplace
estimate of the attribute's marginal with confidence ``N0``, which in closed form is

    θ_s(x | π) = (N(π, x) + N0 · θ_0(x)) / (N(π) + N0),        θ_0(x) = (N_x + 1) / (N + V),

(identical to ``dbayes.models.tan.smoothed_log_cpt``: ``w·P̂ + (1-w)·θ_0`` with ``w = N(π)/(N(π)+N0)``);
missing values are left out of every count (sec. 2.2).
"""

from __future__ import annotations

import numpy as np

from dbayes.counts import CountTables

__all__ = [
    "ancestors",
    "is_chain",
    "marginal_prior",
    "friedman_log_cpt",
    "value_cmi_terms",
    "batched_prim_parents",
    "tree_joint_log_likelihood",
]


def ancestors(parents: np.ndarray) -> list[list[int]]:
    """Ancestors of every attribute, nearest first (parent, grandparent, ...), in a forest given by
    ``parents``.

    Raises ``ValueError`` when ``parents`` holds a cycle.
    """
    parents = np.asarray(parents)
    d = len(parents)
    out = []
    for k in range(d):
        chain, p = [], int(parents[k])
        while p >= 0:
            if p == k or len(chain) >= d:
                raise ValueError("parents contain a cycle")
            chain.append(p)
            p = int(parents[p])
        out.append(chain)
    return out


def is_chain(parents: np.ndarray) -> bool:
    """True when the undirected tree given by ``parents`` is a single path (every node has degree <= 2)."""
    parents = np.asarray(parents)
    d = len(parents)
    if (parents < 0).sum() > 1:  # a forest of several trees is not one chain
        return False
    degree = np.zeros(d, dtype=np.int64)
    for k, p in enumerate(parents):
        if p >= 0:
            degree[k] += 1
            degree[p] += 1
    return bool((degree <= 2).all())


def marginal_prior(attr_table: np.ndarray) -> np.ndarray:
    """θ_0(x) of eq. 8: Laplace estimate (N_x + 1) / (N + V) of an attribute's marginal, shape ``(V,)``.

    ``attr_table`` is ``tables.attr(k)``, shape ``(C, V + 1)``; the missing slot is left out.
    """
    m = attr_table[:, :-1].sum(axis=0).astype(np.float64)
    return (m + 1.0) / (m.sum() + len(m))


def friedman_log_cpt(tables: CountTables, k: int, p: int, n0: float) -> np.ndarray:
    """``(C, V_p + 1, V_k + 1)`` table of log θ_s(x_k | c, x_p) (eq. 8), laid out as ``TAN.log_cpt_``.

    Row ``V_p`` (parent missing, or ``p = -1``: no attribute parent) holds log θ_s(x_k | c); column ``V_k``
    (x_k missing) is 0, so a missing value contributes nothing.
    """
    C, Vk = tables.n_classes, tables.cards[k]
    Vp = tables.cards[p] if p >= 0 else 0
    prior = marginal_prior(tables.attr(k))
    out = np.zeros((C, Vp + 1, Vk + 1))
    n_cx = tables.attr(k)[:, :-1].astype(np.float64)
    out[:, Vp, :-1] = np.log(n_cx + n0 * prior) - np.log(n_cx.sum(axis=1, keepdims=True) + n0)
    if p >= 0:
        n = tables.pair(p, k)[:, :-1, :-1].astype(np.float64)
        out[:, :Vp, :-1] = np.log(n + n0 * prior) - np.log(n.sum(axis=2, keepdims=True) + n0)
    return out


def value_cmi_terms(n_cij: np.ndarray) -> np.ndarray:
    """Per-class value-level conditional mutual information of two attributes (seed 000 eq. 11).

    For counts ``n_cij`` of shape ``(C, V_i, V_j)`` (rows with both values known), returns ``T`` of the same
    shape with

        T[c, a_i, a_j] = P(a_i, a_j, c) · log [ P(a_i, a_j | c) / (P(a_i | c) · P(a_j | c)) ],

    maximum-likelihood probabilities, and 0 where ``N(a_i, a_j, c) = 0`` (the limit of ``p log p``).
    ``T.sum(axis=0)`` is eq. 11's I(a_i, a_j | C); ``T.sum()`` is eq. 7's I(A_i; A_j | C) exactly as
    ``dbayes.models.tan.conditional_mutual_information`` computes it (eq. 11 is the pointwise decomposition of
    eq. 7). Every entry is 0 when no row has both values known.
    """
    n = n_cij.astype(np.float64)
    total = n.sum()
    if total == 0:
        return np.zeros_like(n)
    n_c = n.sum(axis=(1, 2), keepdims=True)
    n_ci = n.sum(axis=2, keepdims=True)
    n_cj = n.sum(axis=1, keepdims=True)
    pos = n > 0
    safe = np.where(pos, n, 1.0)
    with np.errstate(divide="ignore"):
        ratio = (
            np.log(safe) + np.log(np.maximum(n_c, 1.0)) - np.log(np.maximum(n_ci, 1.0)) - np.log(np.maximum(n_cj, 1.0))
        )
    return np.where(pos, n * ratio, 0.0) / total


def batched_prim_parents(W: np.ndarray) -> np.ndarray:
    """Parents of maximum weighted spanning trees rooted at attribute 0, for a batch of weight matrices.

    Prim's algorithm grown from attribute 0 on every ``W[b]`` (shape ``(B, d, d)``, symmetric) at once; the
    node that attaches a new node is its parent, so edges point away from attribute 0 (as ``TAN`` orients
    its tree). Ties go to the lowest new node and then to the node that entered the tree first, as in
    ``dbayes.models.tan.maximum_spanning_tree``. ``-inf`` weights are allowed (such edges are taken last).

    Returns an ``(B, d)`` integer array, -1 for the root.
    """
    B, d, _ = W.shape
    parent = np.full((B, d), -1, dtype=np.int64)
    if d < 2:
        return parent
    rows = np.arange(B)
    in_tree = np.zeros((B, d), dtype=bool)
    in_tree[:, 0] = True
    best = W[:, 0, :].copy()
    link = np.zeros((B, d), dtype=np.int64)
    for _ in range(d - 1):
        # candidates outside the tree; an edge of weight -inf is still a candidate, below every finite one
        cand = np.where(in_tree, -np.inf, np.maximum(best, -np.finfo(np.float64).max))
        j = np.argmax(cand, axis=1)
        parent[rows, j] = link[rows, j]
        in_tree[rows, j] = True
        wj = W[rows, j, :]
        better = (~in_tree) & (wj > best)
        best = np.where(better, wj, best)
        link = np.where(better, j[:, None], link)
    return parent


def tree_joint_log_likelihood(
    class_log_prior: np.ndarray, log_cpt: list[np.ndarray], parents: np.ndarray, X: np.ndarray
) -> np.ndarray:
    """``(n, C)`` log P(c) + Σ_k log θ(x_k | c, x_parent(k)) with tables laid out as
    :func:`friedman_log_cpt`."""
    out = np.tile(class_log_prior, (X.shape[0], 1))
    for k, table in enumerate(log_cpt):
        p = int(parents[k])
        xp = X[:, p] if p >= 0 else np.full(X.shape[0], table.shape[1] - 1)
        out += table[:, xp, X[:, k]].T
    return out
