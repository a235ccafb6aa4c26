"""The tree: nodes, and routing rows down it with C4.5's fractional instances.

A tree is a list of :class:`Node`; node 0 is the root.  For routing inside the pure per-block functions the
list is flattened into :class:`FlatTree` arrays (small, picklable, broadcast once per level by the engine).

C4.5's missing values (Quinlan 1993, ch. 3; Weka ``ClassifierSplitModel.split``): an instance whose value of
the split attribute is missing goes down *every* branch, with its weight multiplied by the branch's share of
the node's training weight, ``perBag(b) / total``; shares of at most ``1e-6`` are dropped (J48 tests
``Utils.gr(weight, 0)``, i.e. ``> 1e-6``).  A numeric test sends ``x`` left when ``x - threshold < 1e-6`` or
``x <= threshold`` (J48's ``Utils.smOrEq``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "LEAF",
    "OPEN",
    "NUMERIC",
    "NOMINAL",
    "J48_SMALL",
    "Node",
    "FlatTree",
    "Entries",
    "flatten",
    "step",
    "advance",
    "route",
]

LEAF, OPEN, NUMERIC, NOMINAL = 0, 1, 2, 3

#: Weka's ``Utils.SMALL``: J48 compares weights and criteria with this tolerance (``Utils.gr``, ``eq``, ...).
J48_SMALL = 1e-6


@dataclass
class Node:
    """One node.  ``dist`` is its class weights (J48's ``perClass``); a split node also keeps
    ``bag_dist`` ``(n_bags, C)``, the class weights per branch with the instances of unknown value shared
    out in proportion (J48's ``addInstWithUnknown``)."""

    dist: np.ndarray
    depth: int = 0
    kind: int = OPEN
    attr: int = -1  # attribute index (column order), for NUMERIC/NOMINAL
    threshold: float = float("nan")
    bag_dist: np.ndarray | None = None
    children: list = field(default_factory=list)

    @property
    def total(self) -> float:
        return float(self.dist.sum())

    @property
    def is_split(self) -> bool:
        return self.kind in (NUMERIC, NOMINAL)


@dataclass(frozen=True)
class FlatTree:
    """Arrays for routing: per node ``kind``, ``col`` (column in X_num/X_nom), ``threshold``,
    ``child_start``/``n_children`` into ``children``, and per child slot ``share`` (missing-value share)."""

    kind: np.ndarray
    col: np.ndarray
    threshold: np.ndarray
    child_start: np.ndarray
    n_children: np.ndarray
    children: np.ndarray
    share: np.ndarray

    @property
    def n_nodes(self) -> int:
        return len(self.kind)


def flatten(nodes: list, schema) -> FlatTree:
    """:class:`FlatTree` of a node list (nodes not reachable from the root are carried along harmlessly)."""
    n = len(nodes)
    kind = np.array([nd.kind for nd in nodes], dtype=np.int8)
    col = np.array([schema.cols[nd.attr] if nd.is_split else -1 for nd in nodes], dtype=np.int64)
    thr = np.array([nd.threshold for nd in nodes], dtype=np.float64)
    n_children = np.array([len(nd.children) for nd in nodes], dtype=np.int64)
    child_start = np.zeros(n, dtype=np.int64)
    if n > 1:
        child_start[1:] = np.cumsum(n_children)[:-1]
    children = np.array([c for nd in nodes for c in nd.children], dtype=np.int64)
    split = [nd for nd in nodes if nd.is_split]
    if split:
        per_bag = np.concatenate([nd.bag_dist for nd in split]).sum(axis=1)
        owner = np.repeat(np.arange(len(split)), [len(nd.bag_dist) for nd in split])
        tot = np.bincount(owner, weights=per_bag)[owner]
        nb = np.array([len(nd.bag_dist) for nd in split], dtype=np.float64)[owner]
        share = np.divide(per_bag, tot, out=1.0 / nb, where=tot > 0)
    else:
        share = np.zeros(0)
    return FlatTree(kind, col, thr, child_start, n_children, children, share)


@dataclass(frozen=True)
class Entries:
    """Weighted (row, node) pairs: where the rows of a block (or their fractions) currently are."""

    rows: np.ndarray
    node: np.ndarray
    w: np.ndarray

    @classmethod
    def at_root(cls, w: np.ndarray) -> Entries:
        n = len(w)
        return cls(np.arange(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.asarray(w, np.float64))


def step(tree: FlatTree, X_num, X_nom, rows, node, w, drop_shares=True, skip=None):
    """Move every entry one level down (all entries must sit at split nodes)."""
    kind = tree.kind[node]
    col = tree.col[node]
    slot = np.full(len(rows), -1, dtype=np.int64)
    num = kind == NUMERIC
    if num.any():
        x = X_num[rows[num], col[num]]
        t = tree.threshold[node[num]]
        left = ((x - t) < J48_SMALL) | (x <= t)
        s = np.where(left, 0, 1)
        s[np.isnan(x)] = -1
        slot[num] = s
    nom = kind == NOMINAL
    if nom.any():
        code = X_nom[rows[nom], col[nom]].astype(np.int64)
        s = np.where(code >= tree.n_children[node[nom]], -1, code)
        slot[nom] = s
    known = slot >= 0
    k_rows, k_w = rows[known], w[known]
    k_node = tree.children[tree.child_start[node[known]] + slot[known]]
    miss = ~known
    if not miss.any():
        return k_rows, k_node, k_w
    m_rows, m_node, m_w = rows[miss], node[miss], w[miss]
    nb = tree.n_children[m_node]
    rep = np.repeat(np.arange(len(m_rows)), nb)
    first = np.repeat(tree.child_start[m_node], nb)
    offs = np.arange(len(rep)) - np.repeat(np.cumsum(nb) - nb, nb)
    pos = first + offs
    share = tree.share[pos]
    child = tree.children[pos]
    keep = share > J48_SMALL if drop_shares else np.ones(len(pos), dtype=bool)
    if skip is not None:
        keep &= ~skip[child]
    return (
        np.concatenate([k_rows, m_rows[rep][keep]]),
        np.concatenate([k_node, child[keep]]),
        np.concatenate([k_w, (m_w[rep] * share)[keep]]),
    )


def advance(tree: FlatTree, X_num, X_nom, entries: Entries) -> Entries:
    """The entries one level down: those at nodes split since they got there take one :func:`step`, those
    at leaves are dropped (growth keeps each row's position between levels this way)."""
    split = (tree.kind[entries.node] == NUMERIC) | (tree.kind[entries.node] == NOMINAL)
    return Entries(*step(tree, X_num, X_nom, entries.rows[split], entries.node[split], entries.w[split]))


def route(tree: FlatTree, X_num, X_nom, entries: Entries, *, skip=None) -> Entries:
    """Move entries down until each sits at a leaf or open node (C4.5's fractional routing).

    ``skip`` (bool per node), if given, drops the branches it marks when sharing out a missing value
    (J48's prediction skips empty leaves) and keeps shares of any size.
    """
    rows, node, w = entries.rows, entries.node, entries.w
    done_r, done_n, done_w = [], [], []
    while len(rows):
        split = (tree.kind[node] == NUMERIC) | (tree.kind[node] == NOMINAL)
        if not split.all():
            stop = ~split
            done_r.append(rows[stop]), done_n.append(node[stop]), done_w.append(w[stop])
            rows, node, w = rows[split], node[split], w[split]
            if not len(rows):
                break
        rows, node, w = step(tree, X_num, X_nom, rows, node, w, drop_shares=skip is None, skip=skip)
    if not done_r:
        return Entries(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
    return Entries(np.concatenate(done_r), np.concatenate(done_n), np.concatenate(done_w))
