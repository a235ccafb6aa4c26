"""Level-by-level growth: :class:`TreeGrower` and the local driver :func:`fit_local`.

The split of a node depends only on the node's own (weighted) instances, plus the whole training set for
two global facts (J48's ``m_allData``): the numeric grids (the distinct training values, where thresholds are
placed) and the "many-valued nominal attributes" rule.  So growing breadth-first, one level per pass over the
data, gives the same tree as J48's depth-first recursion:

    grower = TreeGrower(schema, grids, n_train, ...)
    while not grower.done:
        stats = sum(split_statistics(block, grower.state()) for block in blocks)   # one reduction
        grower.split_level(stats)

then :func:`dbayes.models.trees.prune.prune_tree`.  The engine runs the loop over Dask partitions; the local
driver :func:`fit_local` runs it on one block, keeping each row's position between levels.

Model selection is Weka's ``C45ModelSelection.selectModel``: a node becomes a leaf when its weight is below
``2 * min_leaf`` or it is pure; otherwise every attribute's best split is evaluated, the average gain of the
valid ones is taken (ignoring many-valued nominal attributes, ``numValues >= 0.3 * n_train``, unless all
attributes are such), and among the valid splits with gain ``>= average - 1e-3`` the one with the highest
gain ratio wins (first in column order unless beaten by more than ``1e-6``); no split when that ratio is 0
(for Credal-C4.5: when every IIGR is ``<= 0``, the stopping rule alpha <= 0 of seed 003, Fig. 1, step 6).
"""

from __future__ import annotations

import numpy as np

from dbayes.models.trees.schema import grid_cells
from dbayes.models.trees.splits import Criterion, evaluate_level, evaluate_levels
from dbayes.models.trees.stats import GrowerState, SplitStats, frontier_statistics
from dbayes.models.trees.tree import (
    J48_SMALL,
    LEAF,
    NOMINAL,
    NUMERIC,
    OPEN,
    Entries,
    FlatTree,
    Node,
    advance,
)

__all__ = ["TreeGrower", "fit_local", "split_levels", "AVERAGE_GAIN_SLACK", "MANY_VALUES_FRACTION"]

#: J48 admits attributes whose gain is at least the average minus 1e-3 ("closer to the original C4.5").
AVERAGE_GAIN_SLACK = 1e-3
#: A nominal attribute with at least this fraction of n_train values is left out of the average gain.
MANY_VALUES_FRACTION = 0.3


class TreeGrower:
    """Holds the tree and its open nodes; :meth:`split_level` turns summed stats into the next level.

    Parameters
    ----------
    schema : TreeSchema
    grids : tuple of NumericGrid
        one per numeric attribute (X_num column order), from the first pass.
    n_train : int
        number of training instances (J48's ``m_allData.numInstances()``).
    min_leaf : float
        J48's ``-M`` (minNoObj), default 2.
    criterion : Criterion
        C4.5's info gain or Credal-C4.5's imprecise info gain.
    max_depth : int or None
        optional depth limit (not in J48; None = unlimited).
    """

    def __init__(self, schema, grids, n_train, *, min_leaf=2, criterion=None, max_depth=None):
        self.schema = schema
        self.grids = tuple(grids)
        self.min_leaf = float(min_leaf)
        self.criterion = Criterion() if criterion is None else criterion
        self.max_depth = max_depth
        C = schema.n_classes
        self.nodes = [Node(np.zeros(C), depth=0, kind=OPEN)]
        self.open_nodes = np.array([0], dtype=np.int64)
        # the routing arrays (FlatTree), kept up to date as nodes are split and added
        self._kind, self._col, self._thr, self._start, self._nch = [OPEN], [-1], [np.nan], [0], [0]
        self._children, self._share = [], []
        self.multi_val = all(
            k == "nominal" and schema.card(i) >= MANY_VALUES_FRACTION * n_train for i, k in enumerate(schema.kinds)
        )
        self.in_average = [
            k == "numeric" or self.multi_val or schema.card(i) < MANY_VALUES_FRACTION * n_train
            for i, k in enumerate(schema.kinds)
        ]

    @property
    def done(self) -> bool:
        return len(self.open_nodes) == 0

    def state(self) -> GrowerState:
        """The picklable state a block needs (broadcast once per level)."""
        tree = FlatTree(
            np.array(self._kind, dtype=np.int8),
            np.array(self._col, dtype=np.int64),
            np.array(self._thr, dtype=np.float64),
            np.array(self._start, dtype=np.int64),
            np.array(self._nch, dtype=np.int64),
            np.array(self._children, dtype=np.int64),
            np.array(self._share, dtype=np.float64),
        )
        return GrowerState(self.schema, self.grids, tree, self.open_nodes.copy())

    def split_level(self, stats: SplitStats, evaluation=None) -> np.ndarray:
        """Choose the split of every open node from the summed stats; open their children.

        ``evaluation`` is this level's :class:`~dbayes.models.trees.splits.LevelEvaluation` when the caller
        evaluated several trees together (:func:`~dbayes.models.trees.splits.evaluate_levels`).  Returns the
        ids of the new open nodes.
        """
        if not np.array_equal(stats.open_nodes, self.open_nodes):
            raise ValueError("the stats are not those of the current level")
        best, evaluation = self.select(stats, evaluation)
        new_open = []
        for k, node_id in enumerate(self.open_nodes):
            node = self.nodes[node_id]
            node.dist = stats.class_w[k].copy()
            a = best[k]
            if a < 0:
                node.kind = self._kind[node_id] = LEAF
                continue
            bags, threshold = evaluation.split_of(stats, self.schema, self.grids, k, a)
            self._make_split(node, a, bags, threshold, stats, k)
            per_bag = node.bag_dist.sum(axis=1)
            tot = per_bag.sum()
            self._kind[node_id], self._col[node_id], self._thr[node_id] = node.kind, self.schema.cols[a], node.threshold
            self._start[node_id], self._nch[node_id] = len(self._children), len(per_bag)
            self._share.extend((per_bag / tot).tolist() if tot > 0 else [1.0 / len(per_bag)] * len(per_bag))
            for b in range(len(node.bag_dist)):
                self.nodes.append(Node(node.bag_dist[b].copy(), depth=node.depth + 1, kind=OPEN))
                child = len(self.nodes) - 1
                node.children.append(child)
                new_open.append(child)
                self._children.append(child)
                self._kind.append(OPEN), self._col.append(-1), self._thr.append(np.nan)
                self._start.append(0), self._nch.append(0)
        self.open_nodes = np.array(new_open, dtype=np.int64)
        return self.open_nodes

    def select(self, stats: SplitStats, evaluation=None):
        """Attribute chosen at each open node (-1: the node becomes a leaf), C45ModelSelection's rule,
        and the :class:`~dbayes.models.trees.splits.LevelEvaluation` it was chosen from."""
        class_w = stats.class_w
        total = class_w.sum(axis=1)
        K = len(total)
        depth = np.array([self.nodes[i].depth for i in self.open_nodes], dtype=np.int64)
        splittable = (total - 2 * self.min_leaf >= -J48_SMALL) & (
            np.abs(total - class_w.max(axis=1)) >= J48_SMALL
        )  # enough weight, not pure
        if self.max_depth is not None:
            splittable &= depth < self.max_depth
        ev = (
            evaluation
            if evaluation is not None
            else evaluate_level(stats, self.schema, self.grids, self.min_leaf, self.criterion)
        )
        valid = ev.valid & splittable[:, None]
        counted = valid & np.asarray(self.in_average, dtype=bool)[None, :]
        n_counted = counted.sum(axis=1)
        average = np.divide((ev.gain * counted).sum(axis=1), n_counted, out=np.zeros(K), where=n_counted > 0)
        best = np.full(K, -1, dtype=np.int64)
        best_ratio = np.zeros(K)
        eligible = valid & (ev.gain >= average[:, None] - AVERAGE_GAIN_SLACK)
        ratio = np.where(eligible, ev.ratio, -np.inf)
        # J48 scans the attributes in order, taking one whose ratio beats the best so far by more than
        # 1e-6: only a strict running record of its row can be taken, so the scan visits those columns only
        prev_max = np.maximum.accumulate(np.concatenate([np.full((K, 1), -np.inf), ratio[:, :-1]], axis=1), axis=1)
        for a in np.flatnonzero((eligible & (ratio > prev_max)).any(axis=0)):
            take = eligible[:, a] & (ev.ratio[:, a] - best_ratio > J48_SMALL)
            best[take] = a
            best_ratio[take] = ev.ratio[take, a]
        best[(n_counted == 0) | (np.abs(best_ratio) < J48_SMALL)] = -1
        return best, ev

    def _make_split(self, node, a, bags, threshold, stats, k):
        """J48's ``addInstWithUnknown``: the unknown instances are shared out in proportion to the known
        branch weights (equally when no weight is known)."""
        schema = self.schema
        j = schema.cols[a]
        if schema.kinds[a] == "nominal":
            node.kind = NOMINAL
            missing = stats.nominal[j][k][-1]
        else:
            node.kind = NUMERIC
            node.threshold = threshold
            missing = stats.num_missing[k, j]
        per_bag = bags.sum(axis=1)
        known = per_bag.sum()
        probs = np.full(len(bags), 1.0 / len(bags)) if abs(known) < J48_SMALL else per_bag / known
        node.attr = a
        node.bag_dist = bags + probs[:, None] * missing[None, :]


def fit_local(
    block, schema=None, grids=None, *, min_leaf=2, criterion=None, max_depth=None, grower: TreeGrower | None = None
) -> TreeGrower:
    """Grow a tree on one in-memory block ``(X_num, X_nom, y, w)`` (no pruning).

    Runs the same level loop as the engine (``split_level`` on the stats of the level), keeping each row's
    (fractional) position between levels so that a level costs one routing step instead of a walk from the
    root.  Pass either ``schema`` and ``grids`` (and the growth parameters) or a ready ``grower``.
    """
    X_num, X_nom, y, w = block
    if grower is None:
        grower = TreeGrower(schema, grids, len(y), min_leaf=min_leaf, criterion=criterion, max_depth=max_depth)
    entries = Entries.at_root(w)
    state = grower.state()
    cells = grid_cells(X_num, grower.grids)
    while not grower.done:
        stats = frontier_statistics(block, state, entries, cells)
        grower.split_level(stats)
        state = grower.state()
        entries = advance(state.tree, X_num, X_nom, entries)
    return grower


def split_levels(growers: dict, stats: dict) -> None:
    """``growers[key].split_level(stats[key])`` for many trees, the trees that share a criterion and minimum
    leaf size (one classifier's folds) evaluated together in one vectorised pass."""
    groups: dict = {}
    for key in stats:
        g = growers[key]
        groups.setdefault((g.criterion, g.min_leaf, id(g.schema)), []).append(key)
    for keys in groups.values():
        g0 = growers[keys[0]]
        evs = evaluate_levels([(stats[k], growers[k].grids) for k in keys], g0.schema, g0.min_leaf, g0.criterion)
        for k, ev in zip(keys, evs, strict=True):
            growers[k].split_level(stats[k], ev)
