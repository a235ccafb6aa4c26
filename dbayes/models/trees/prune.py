"""C4.5's error-based pruning with subtree raising, as Weka's ``C45PruneableClassifierTree`` does it.

1. *Collapse* (``collapse``): a split whose subtree makes at least as many training errors as the node would
   as a leaf (minus ``1e-3``) becomes a leaf.
2. *Prune* (``prune``), bottom-up.  At each split node, with ``U(N, e)`` the upper limit of the binomial
   error rate at confidence ``CF`` (:func:`added_errors`, Weka's ``Stats.addErrs``):
   - ``errors_leaf``: estimated errors ``e + U`` if the node were a leaf;
   - ``errors_tree``: the sum of the estimated errors of the subtree's leaves;
   - ``errors_largest``: the estimated errors of the largest branch when *all* the node's training instances
     are sent down it (subtree raising; ``inf`` without raising);
   the node becomes a leaf if ``errors_leaf <= min(errors_tree, errors_largest) + 0.1``; else, if
   ``errors_largest <= errors_tree + 0.1``, the largest branch replaces the node, the node's instances are
   redistributed through it (``newDistribution``) and the node is pruned again.

Subtree raising needs the training instances at each node, which is why :func:`prune_tree` takes the rows.
The distributed engine must provide them: either collect the training rows (what the local driver uses),
or run, for every raising decision, a pass that routes the node's rows through the raised branch and returns
the class weights at its leaves.  Without raising (``subtree_raising=False``) pruning needs only the node
distributions kept by the grower, and no pass at all (``rows`` may then be None).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.special import ndtri

from dbayes.models.trees.tree import J48_SMALL, LEAF, NUMERIC, Node

__all__ = ["added_errors", "estimated_errors", "collapse", "prune_tree", "compact"]

#: J48's pruning margin: a leaf or the largest branch is preferred unless it is worse by more than 0.1 error.
PRUNE_MARGIN = 0.1
#: J48's collapse margin (``collapse``: subtree errors ``>= node errors - 1e-3``).
COLLAPSE_MARGIN = 1e-3


def added_errors(N: float, e: float, cf: float) -> float:
    """Weka's ``Stats.addErrs``: extra errors to add to ``e`` observed errors in ``N`` for confidence ``cf``.

    Upper limit of the binomial confidence interval by the normal approximation with continuity correction
    (Quinlan 1993, ch. 4); the exact value ``N (1 - cf^(1/N))`` at ``e = 0`` and linear interpolation for
    ``0 < e < 1``; ``N - e`` when ``e + 0.5 >= N``.
    """
    if cf > 0.5:
        raise ValueError(f"the pruning confidence must be at most 0.5, got {cf}")
    if e < 1:
        base = N * (1 - cf ** (1 / N))  # exact upper limit at e = 0
        if e == 0:
            return base
        return base + e * (added_errors(N, 1, cf) - base)
    if e + 0.5 >= N:
        return max(N - e, 0.0)
    z = _z(cf)
    f = (e + 0.5) / N
    r = (f + z * z / (2 * N) + z * np.sqrt(f / N - f * f / N + z * z / (4 * N * N))) / (1 + z * z / N)
    return r * N - e


def added_errors_many(N: np.ndarray, e: np.ndarray, cf: float) -> np.ndarray:
    """:func:`added_errors` for arrays of leaves (``N > 0``), the same arithmetic case by case."""
    N, e = np.asarray(N, dtype=np.float64), np.asarray(e, dtype=np.float64)
    base = N * (1 - cf ** (1 / N))
    z = _z(cf)
    e1 = np.maximum(e, 1.0)
    f = (e1 + 0.5) / N
    r = (f + z * z / (2 * N) + z * np.sqrt(np.maximum(f / N - f * f / N + z * z / (4 * N * N), 0.0))) / (1 + z * z / N)
    normal = np.where(e1 + 0.5 >= N, np.maximum(N - e1, 0.0), r * N - e1)
    at_one = np.where(1.5 >= N, np.maximum(N - 1.0, 0.0), r * N - 1.0)  # e < 1: interpolate towards e = 1
    return np.where(e < 1, np.where(e == 0, base, base + e * (at_one - base)), normal)


@lru_cache(maxsize=8)
def _z(cf: float) -> float:
    return float(ndtri(1 - cf))


def _errors_for(dist: np.ndarray, cf: float) -> float:
    """Estimated errors of a leaf with class weights ``dist`` (J48 ``getEstimatedErrorsForDistribution``)."""
    d = dist.tolist()
    total = sum(d)
    if abs(total) < J48_SMALL:
        return 0.0
    e = total - max(d)
    return e + added_errors(total, e, cf)


def _num_incorrect(dist: np.ndarray) -> float:
    d = dist.tolist()
    return sum(d) - max(d)


def estimated_errors(nodes: list, i: int, cf: float) -> float:
    """Sum of the leaves' estimated errors in the subtree of node ``i``."""
    node = nodes[i]
    if not node.is_split:
        return _errors_for(node.dist, cf)
    return sum(estimated_errors(nodes, c, cf) for c in node.children)


def _training_errors(nodes, i):
    node = nodes[i]
    if not node.is_split:
        return _num_incorrect(node.dist)
    return sum(_training_errors(nodes, c) for c in node.children)


def _make_leaf(node: Node):
    node.dist = node.bag_dist.sum(axis=0)
    node.kind, node.children, node.bag_dist, node.attr, node.threshold = LEAF, [], None, -1, float("nan")


def collapse(nodes: list, i: int = 0) -> None:
    """J48's ``collapse``: splits that do not reduce the training error become leaves (top-down)."""
    subtree_errors = {}

    def errors(j):  # training errors of the leaves under j, computed once per node (post-order)
        node = nodes[j]
        e = _num_incorrect(node.dist) if not node.is_split else sum(errors(c) for c in node.children)
        subtree_errors[j] = e
        return e

    errors(i)
    stack = [i]
    while stack:
        j = stack.pop()
        node = nodes[j]
        if not node.is_split:
            continue
        if subtree_errors[j] >= _num_incorrect(node.bag_dist.sum(axis=0)) - COLLAPSE_MARGIN:
            _make_leaf(node)
        else:
            stack.extend(node.children)


class _Rows:
    """The training rows and the routing of (row, weight) sets through one node."""

    def __init__(self, block, schema):
        self.X_num, self.X_nom, self.y, _ = block
        self.schema = schema
        self.C = schema.n_classes

    def class_w(self, rows, w):
        return np.bincount(self.y[rows], weights=w, minlength=self.C).astype(np.float64)

    def branch(self, node, rows):
        """Branch of each row at ``node``, -1 when the value is missing."""
        col = self.schema.cols[node.attr]
        if node.kind == NUMERIC:
            x = self.X_num[rows, col]
            b = np.where(((x - node.threshold) < J48_SMALL) | (x <= node.threshold), 0, 1)
            b[np.isnan(x)] = -1
            return b
        code = self.X_nom[rows, col].astype(np.int64)
        return np.where(code >= len(node.children), -1, code)

    def distribution(self, node, rows, w, b):
        """``resetDistribution``: known branches plus the unknown shared in proportion."""
        nb, C = len(node.children), self.C
        known = b >= 0
        bags = np.bincount(b[known] * C + self.y[rows[known]], weights=w[known], minlength=nb * C).reshape(nb, C)
        missing = self.class_w(rows[~known], w[~known])
        per_bag = bags.sum(axis=1)
        tot = per_bag.sum()
        probs = np.full(nb, 1.0 / nb) if abs(tot) < J48_SMALL else per_bag / tot
        return bags + probs[:, None] * missing[None, :]

    def split(self, node, rows, w, b, bag_dist):
        """``split``: rows per branch, the unknown ones in every branch with weight times its share."""
        per_bag = bag_dist.sum(axis=1)
        shares = per_bag / per_bag.sum() if per_bag.sum() > 0 else np.full(len(per_bag), 1 / len(per_bag))
        miss = b < 0
        out = []
        for k in range(len(node.children)):
            here = b == k
            if shares[k] > J48_SMALL and miss.any():
                r = np.concatenate([rows[here], rows[miss]])
                ww = np.concatenate([w[here], w[miss] * shares[k]])
            else:
                r, ww = rows[here], w[here]
            out.append((r, ww))
        return out


class _Flat:
    """Arrays of the tree being pruned (kind, column, threshold, children), kept in step with its nodes, so
    that the subtree-raising estimate routes all of a node's rows through a branch in a few array steps."""

    def __init__(self, nodes, schema):
        self.kind = np.array([nd.kind for nd in nodes], dtype=np.int8)
        self.col = np.array([schema.cols[nd.attr] if nd.is_split else -1 for nd in nodes], dtype=np.int64)
        self.thr = np.array([nd.threshold for nd in nodes], dtype=np.float64)
        self.nch = np.array([len(nd.children) for nd in nodes], dtype=np.int64)
        self.start = np.r_[0, np.cumsum(self.nch)[:-1]].astype(np.int64)
        self.children = np.array([c for nd in nodes for c in nd.children], dtype=np.int64)

    def make_leaf(self, i):
        self.kind[i] = LEAF

    def raise_branch(self, i, src):
        for a in (self.kind, self.col, self.thr, self.nch, self.start):
            a[i] = a[src]


def _branch_errors_flat(flat: _Flat, i, data: _Rows, rows, w, cf) -> float:
    """``getEstimatedErrorsForBranch`` of subtree ``i`` on the rows ``(rows, w)``, level by level: at each
    split node the known rows go down their branch and the unknown ones down every branch with weight times
    the branch's share of the node's *current* rows (``resetDistribution`` then ``split``); the estimated
    errors of the class weights reaching each leaf are summed."""
    if flat.kind[i] == LEAF:
        return _errors_for(data.class_w(rows, w), cf)
    C = data.C
    node = np.full(len(rows), i, dtype=np.int64)
    at_leaf_node, at_leaf_y, at_leaf_w = [], [], []
    while len(rows):
        split = flat.kind[node] != LEAF
        if not split.all():
            leaf = ~split
            at_leaf_node.append(node[leaf]), at_leaf_y.append(data.y[rows[leaf]]), at_leaf_w.append(w[leaf])
            rows, node, w = rows[split], node[split], w[split]
            if not len(rows):
                break
        col = flat.col[node]
        slot = np.empty(len(rows), dtype=np.int64)
        num = flat.kind[node] == NUMERIC
        if num.any():
            x = data.X_num[rows[num], col[num]]
            t = flat.thr[node[num]]
            sl = np.where(((x - t) < J48_SMALL) | (x <= t), 0, 1)
            sl[np.isnan(x)] = -1
            slot[num] = sl
        if (~num).any():
            code = data.X_nom[rows[~num], col[~num]].astype(np.int64)
            slot[~num] = np.where(code >= flat.nch[node[~num]], -1, code)
        known = slot >= 0
        child_of_known = flat.children[flat.start[node[known]] + slot[known]]
        new_rows, new_node, new_w = [rows[known]], [child_of_known], [w[known]]
        miss = ~known
        if miss.any():
            # the branch shares of each node holding unknown rows, from its known rows (resetDistribution)
            m_nodes, m_inv = np.unique(node[miss], return_inverse=True)
            pos = np.searchsorted(m_nodes, node[known])
            here = (pos < len(m_nodes)) & (m_nodes[np.minimum(pos, len(m_nodes) - 1)] == node[known])
            nb_max = int(flat.nch[m_nodes].max())
            per_bag = np.zeros((len(m_nodes), nb_max))
            np.add.at(per_bag, (pos[here], slot[known][here]), w[known][here])
            nb = flat.nch[m_nodes]
            valid = np.arange(nb_max)[None, :] < nb[:, None]
            known_tot = per_bag.sum(axis=1)
            miss_tot = np.bincount(m_inv, weights=w[miss], minlength=len(m_nodes))
            uniform = np.where(valid, 1.0 / nb[:, None], 0.0)
            probs = np.where(
                np.abs(known_tot)[:, None] < J48_SMALL,
                uniform,
                per_bag / np.where(known_tot == 0, 1, known_tot)[:, None],
            )
            bag_tot = per_bag + probs * miss_tot[:, None]
            tot = bag_tot.sum(axis=1)
            shares = np.where(tot[:, None] > 0, bag_tot / np.where(tot > 0, tot, 1)[:, None], uniform)
            m_rows, m_w = rows[miss], w[miss]
            rep = np.repeat(np.arange(len(m_rows)), nb[m_inv])
            offs = np.arange(len(rep)) - np.repeat(np.cumsum(nb[m_inv]) - nb[m_inv], nb[m_inv])
            sh = shares[m_inv[rep], offs]
            keep = sh > J48_SMALL
            new_rows.append(m_rows[rep][keep])
            new_node.append(flat.children[flat.start[m_nodes[m_inv[rep]]] + offs][keep])
            new_w.append((m_w[rep] * sh)[keep])
        rows, node, w = np.concatenate(new_rows), np.concatenate(new_node), np.concatenate(new_w)
    if not at_leaf_node:
        return 0.0
    leaf_nodes, inv = np.unique(np.concatenate(at_leaf_node), return_inverse=True)
    dist = np.bincount(
        inv * C + np.concatenate(at_leaf_y), weights=np.concatenate(at_leaf_w), minlength=len(leaf_nodes) * C
    )
    dist = dist.reshape(len(leaf_nodes), C)
    total = dist.sum(axis=1)
    e = total - dist.max(axis=1)
    some = np.abs(total) >= J48_SMALL
    if not some.any():
        return 0.0
    return float((e[some] + added_errors_many(total[some], e[some], cf)).sum())


def _new_distribution(nodes, i, data: _Rows, rows, w):
    """``newDistribution``: recompute the distributions of subtree ``i`` from the given rows."""
    node = nodes[i]
    if not node.is_split:
        node.dist = data.class_w(rows, w)
        return
    b = data.branch(node, rows)
    node.bag_dist = data.distribution(node, rows, w, b)
    node.dist = node.bag_dist.sum(axis=0)
    for c, (r, ww) in zip(node.children, data.split(node, rows, w, b, node.bag_dist), strict=True):
        _new_distribution(nodes, c, data, r, ww)


def _max_bag(bag_dist):
    """``Distribution.maxBag``: the last branch whose weight is within 1e-6 of the running maximum."""
    best, idx = 0.0, -1
    for k, v in enumerate(bag_dist.sum(axis=1)):
        if best - v < J48_SMALL:
            best, idx = v, k
    return idx


def _prune(nodes, i, data, rows, w, cf, flat: _Flat) -> float:
    """J48's ``prune`` on subtree ``i`` with its training rows; returns the subtree's estimated errors."""
    node = nodes[i]
    if not node.is_split:
        return _errors_for(node.dist, cf)
    b = data.branch(node, rows)
    errors_tree = 0.0
    for c, (r, ww) in zip(node.children, data.split(node, rows, w, b, node.bag_dist), strict=True):
        errors_tree += _prune(nodes, c, data, r, ww, cf, flat)
    largest = node.children[_max_bag(node.bag_dist)]
    errors_largest = _branch_errors_flat(flat, largest, data, rows, w, cf)
    errors_leaf = _errors_for(node.bag_dist.sum(axis=0), cf)
    if (
        errors_leaf - (errors_tree + PRUNE_MARGIN) < J48_SMALL
        and errors_leaf - (errors_largest + PRUNE_MARGIN) < J48_SMALL
    ):
        _make_leaf(node)
        flat.make_leaf(i)
        return errors_leaf
    if errors_largest - (errors_tree + PRUNE_MARGIN) < J48_SMALL:
        src = nodes[largest]
        node.kind, node.attr, node.threshold = src.kind, src.attr, src.threshold
        node.children, node.bag_dist = list(src.children), src.bag_dist
        flat.raise_branch(i, largest)
        _new_distribution(nodes, i, data, rows, w)
        return _prune(nodes, i, data, rows, w, cf, flat)
    return errors_tree


def _prune_no_rows(nodes, i, cf) -> float:
    node = nodes[i]
    if not node.is_split:
        return _errors_for(node.dist, cf)
    errors_tree = sum(_prune_no_rows(nodes, c, cf) for c in node.children)
    errors_leaf = _errors_for(node.bag_dist.sum(axis=0), cf)
    if errors_leaf - (errors_tree + PRUNE_MARGIN) < J48_SMALL:
        _make_leaf(node)
        return errors_leaf
    return errors_tree


def prune_tree(nodes: list, *, confidence: float = 0.25, subtree_raising: bool = True, block=None, schema=None) -> None:
    """Prune in place (after :func:`collapse`).  ``block = (X_num, X_nom, y, w)`` is needed for raising."""
    if subtree_raising:
        if block is None:
            raise ValueError("subtree raising needs the training rows (block)")
        data = _Rows(block, schema)
        w = np.asarray(block[3], dtype=np.float64)
        _prune(nodes, 0, data, np.arange(len(w)), w, confidence, _Flat(nodes, schema))
    else:
        _prune_no_rows(nodes, 0, confidence)


def compact(nodes: list) -> list:
    """The nodes reachable from the root, renumbered depth-first (root 0), depths recomputed."""
    order, mapping = [], {}
    stack = [(0, 0)]
    while stack:
        i, d = stack.pop()
        mapping[i] = len(order)
        order.append((i, d))
        for c in reversed(nodes[i].children):
            stack.append((c, d + 1))
    out = []
    for i, d in order:
        nd = nodes[i]
        out.append(
            Node(
                nd.dist,
                depth=d,
                kind=nd.kind,
                attr=nd.attr,
                threshold=nd.threshold,
                bag_dist=nd.bag_dist,
                children=[mapping[c] for c in nd.children],
            )
        )
    return out
