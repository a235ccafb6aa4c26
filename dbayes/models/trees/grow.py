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

from dbayes.models.trees.splits import Criterion, evaluate_nominal, evaluate_numeric
from dbayes.models.trees.stats import GrowerState, SplitStats, frontier_statistics
from dbayes.models.trees.tree import (
    J48_SMALL,
    LEAF,
    NOMINAL,
    NUMERIC,
    OPEN,
    Entries,
    Node,
    _step,
    flatten,
)

__all__ = ["TreeGrower", "fit_local", "AVERAGE_GAIN_SLACK", "MANY_VALUES_FRACTION"]

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

    def __init__(self, schema, grids, n_train, *, min_leaf=2, criterion=Criterion(), max_depth=None):
        self.schema = schema
        self.grids = tuple(grids)
        self.min_leaf = float(min_leaf)
        self.criterion = criterion
        self.max_depth = max_depth
        C = schema.n_classes
        self.nodes = [Node(np.zeros(C), depth=0, kind=OPEN)]
        self.open_nodes = np.array([0], dtype=np.int64)
        self.multi_val = all(k == "nominal" and schema.card(i) >= MANY_VALUES_FRACTION * n_train
                             for i, k in enumerate(schema.kinds))
        self.in_average = [k == "numeric" or self.multi_val or schema.card(i) < MANY_VALUES_FRACTION * n_train
                           for i, k in enumerate(schema.kinds)]

    @property
    def done(self) -> bool:
        return len(self.open_nodes) == 0

    def state(self) -> GrowerState:
        """The picklable state a block needs (broadcast once per level)."""
        return GrowerState(self.schema, self.grids, flatten(self.nodes, self.schema), self.open_nodes.copy())

    def split_level(self, stats: SplitStats) -> np.ndarray:
        """Choose the split of every open node from the summed stats; open their children.

        Returns the ids of the new open nodes.
        """
        if not np.array_equal(stats.open_nodes, self.open_nodes):
            raise ValueError("the stats are not those of the current level")
        new_open = []
        for k, node_id in enumerate(self.open_nodes):
            node = self.nodes[node_id]
            node.dist = stats.class_w[k].copy()
            cand = self._select(stats, k, node)
            if cand is None:
                node.kind = LEAF
                continue
            self._make_split(node, cand, stats, k)
            for b in range(len(node.bag_dist)):
                self.nodes.append(Node(node.bag_dist[b].copy(), depth=node.depth + 1, kind=OPEN))
                node.children.append(len(self.nodes) - 1)
                new_open.append(len(self.nodes) - 1)
        self.open_nodes = np.array(new_open, dtype=np.int64)
        return self.open_nodes

    def _select(self, stats, k, node):
        total = float(node.dist.sum())
        if total - 2 * self.min_leaf < -J48_SMALL or abs(total - node.dist.max()) < J48_SMALL:
            return None
        if self.max_depth is not None and node.depth >= self.max_depth:
            return None
        schema = self.schema
        cands = []
        for a, kind in enumerate(schema.kinds):
            j = schema.cols[a]
            if kind == "nominal":
                cands.append(evaluate_nominal(a, stats.nominal[j][k], total, self.min_leaf, self.criterion))
            else:
                grid = self.grids[j]
                cells, cw = stats.numeric_node(j, k, len(grid.values))
                cands.append(evaluate_numeric(a, grid, cells, cw, int(stats.num_rows[k, j]), total,
                                              self.min_leaf, self.criterion))
        valid = [c for c in cands if c.valid and self.in_average[c.attr]]
        if not valid:
            return None
        average = sum(c.gain for c in valid) / len(valid)
        best, best_ratio = None, 0.0
        for c in cands:
            if c.valid and c.gain >= average - AVERAGE_GAIN_SLACK and c.gain_ratio - best_ratio > J48_SMALL:
                best, best_ratio = c, c.gain_ratio
        if best is None or abs(best_ratio) < J48_SMALL:
            return None
        return best

    def _make_split(self, node, cand, stats, k):
        """J48's ``addInstWithUnknown``: the unknown instances are shared out in proportion to the known
        branch weights (equally when no weight is known)."""
        schema = self.schema
        j = schema.cols[cand.attr]
        if schema.kinds[cand.attr] == "nominal":
            node.kind = NOMINAL
            missing = stats.nominal[j][k][-1]
        else:
            node.kind = NUMERIC
            node.threshold = cand.threshold
            missing = stats.num_missing[k, j]
        bags = cand.bags
        per_bag = bags.sum(axis=1)
        known = per_bag.sum()
        probs = np.full(len(bags), 1.0 / len(bags)) if abs(known) < J48_SMALL else per_bag / known
        node.attr = cand.attr
        node.bag_dist = bags + probs[:, None] * missing[None, :]


def fit_local(block, schema, grids, *, min_leaf=2, criterion=Criterion(), max_depth=None) -> TreeGrower:
    """Grow a tree on one in-memory block ``(X_num, X_nom, y, w)`` (no pruning).

    Runs the same level loop as the engine, keeping each row's (fractional) position between levels so that
    a level costs one step of routing instead of a walk from the root.
    """
    X_num, X_nom, y, w = block
    grower = TreeGrower(schema, grids, len(y), min_leaf=min_leaf, criterion=criterion, max_depth=max_depth)
    entries = Entries.at_root(w)
    while not grower.done:
        state = grower.state()
        stats = frontier_statistics(block, state, entries)
        grower.split_level(stats)
        tree = flatten(grower.nodes, schema)
        split = (tree.kind[entries.node] == NUMERIC) | (tree.kind[entries.node] == NOMINAL)
        rows, node, wt = _step(tree, X_num, X_nom, entries.rows[split], entries.node[split], entries.w[split])
        entries = Entries(rows, node, wt)
    return grower
