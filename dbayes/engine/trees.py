"""Growing C4.5 / Credal-C4.5 trees on partitioned data: one reduction per tree level, small nodes in memory.

For a round, the trees of every classifier label and every fold grow together: a first pass gives each fold's
numeric value counts (the grids of candidate thresholds; each tree classifier's own ``max_exact_values``, else
the job's), then each level is one pass in which every partition moves its training rows one step down every
growing tree (the rows' positions, and their grid cells, stay in worker memory between levels) and returns the
per-node split statistics, summed over partitions (exact for integer weights).

Deep levels hold many small nodes whose statistics are about as large as their rows, spread over all the
partitions.  As in PLANET (Panda et al., VLDB 2009), such nodes are finished in memory: an open node of weight
at most ``LOCAL_NODE_WEIGHT`` is handed over, while at most ``LOCAL_ENTRIES`` (row, node) entries are held, to a
row store in the driver (:class:`~dbayes.evaluate.partition.TreeRowStore`), which collects its rows once;
from then on the node's subtree grows from the store's statistics, the partitions' part of the level covering
the other nodes.  Statistics add over rows, so the trees are those of level-by-level growth.  A small round
(every tree's root under the limits) collects its rows once and makes no further pass over the partitions.

J48's subtree raising re-distributes a node's training rows, so the training rows are collected for the
pruning step when there are at most ``MAX_COLLECTED_ROWS`` of them; above that the trees are pruned without
subtree raising, and the log says so.
"""

from __future__ import annotations

import logging
import time
from functools import reduce

import dask
import numpy as np

from dbayes.evaluate.partition import (
    TreeRowStore,
    partition_tree_rows,
    tree_block_advance,
    tree_block_cells,
    tree_block_drop,
    tree_block_stats,
    tree_block_take,
    tree_block_value_counts,
    tree_schema,
)

__all__ = ["grow_trees", "MAX_COLLECTED_ROWS", "LOCAL_ENTRIES", "LOCAL_NODE_WEIGHT"]

log = logging.getLogger(__name__)

MAX_COLLECTED_ROWS = 5_000_000
#: At most this many (row, node) entries are grown in the driver's memory at once (PLANET's in-memory finish).
LOCAL_ENTRIES = 1 << 22
#: An open node of at most this weight is handed over to the driver when the entries' budget allows.
LOCAL_NODE_WEIGHT = 1 << 18


def _nodes_to_finish_here(growers: dict, remote: dict, local: dict, held: int, budget: int, n_train) -> dict:
    """Per tree, the open nodes (still grown from the partitions) to hand over to the driver's store: those
    of weight at most ``LOCAL_NODE_WEIGHT``, lightest first, while the store holds at most ``budget``
    entries.  A node's weight is its share of its parent's rows (the root's: the fold's training rows)."""
    if budget <= 0:
        return {}
    cand_key, cand_node, cand_w = [], [], []
    for key, state in remote.items():
        nodes = state.open_nodes[~local[key][state.open_nodes]]
        w = np.array([growers[key].nodes[i].dist.sum() if i else n_train[key[1]] for i in nodes], dtype=float)
        small = w <= LOCAL_NODE_WEIGHT
        cand_key += [key] * int(small.sum())
        cand_node.append(nodes[small])
        cand_w.append(w[small])
    if not cand_key:
        return {}
    nodes, w = np.concatenate(cand_node), np.concatenate(cand_w)
    order = np.argsort(w, kind="stable")
    take = order[np.cumsum(w[order]) + held <= budget]
    moving: dict = {}
    for i in np.sort(take):
        moving.setdefault(cand_key[i], []).append(int(nodes[i]))
    return {key: np.array(v, dtype=np.int64) for key, v in moving.items()}


def _inherit(mark: np.ndarray, grower, previous_open: np.ndarray) -> np.ndarray:
    """``mark`` (per node: grown in the driver) extended to the children of the nodes the last level split
    (``previous_open``): a child takes its parent's mark."""
    n = len(grower.nodes)
    if n == len(mark):
        return mark
    out = np.zeros(n, dtype=bool)
    out[: len(mark)] = mark
    for parent in previous_open[mark[previous_open]]:
        children = grower.nodes[parent].children
        if children:
            out[children] = True
    return out


def _merge_counts(a: list, b: list) -> list:
    from dbayes.models.trees import merge_value_counts

    return [merge_value_counts(x, y) for x, y in zip(a, b, strict=True)]


def _sum_stats(*parts: dict) -> dict:
    from dbayes.models.trees.stats import sum_stats

    return {key: sum_stats([p[key] for p in parts]) for key in parts[0]}


def _tree_reduce(items: list, fn, split_every: int = 8):
    items = list(items)
    while len(items) > 1:
        items = [dask.delayed(fn)(*items[i : i + split_every]) for i in range(0, len(items), split_every)]
    return items[0]


def grow_trees(parts, plan, templates: dict, n_train: list[int], max_exact_values: int) -> dict[str, list]:
    """Fitted tree estimators ``{label: [model of fold 0, ...]}`` for the tree ``templates`` (unfitted)."""
    from dbayes.models.trees import merge_value_counts, numeric_grid
    from dbayes.models.trees.grow import split_levels
    from dbayes.models.trees.stats import sum_stats

    F = plan.folds
    tschema = tree_schema(plan.schema)
    plan_d = dask.delayed(plan, traverse=False)
    # the partitions coded once and kept in memory for all the passes of this round
    blocks = dask.persist(*[dask.delayed(partition_tree_rows)(p, i, plan_d, tschema) for i, p in enumerate(parts)])
    # 1. grids: numeric value counts of each fold's training part
    counts = dask.compute(
        _tree_reduce(
            [dask.delayed(tree_block_value_counts)(b, F) for b in blocks],
            lambda *xs: reduce(_merge_counts, xs),
        )
    )[0]
    # each tree classifier's resolution: its own max_exact_values, else the job's
    resolution = {
        label: max_exact_values if per_fold[0].max_exact_values is None else per_fold[0].resolution
        for label, per_fold in templates.items()
    }
    grids: dict[tuple[int, int], tuple] = {}
    for f in range(F):
        mine = [counts[g] for g in range(F) if g != f] if F > 1 else [counts[0]]
        merged = reduce(merge_value_counts, mine)
        for r in sorted(set(resolution.values())):
            grids[(r, f)] = tuple(numeric_grid(v, c, r, first) for v, c, first in merged)
    del counts, merged, mine  # per-value counts: as large as the data when every value is distinct
    # 2. levels: each partition keeps its numeric grid cells and every tree's entries (row, node, weight)
    # in memory; a level moves the entries one step down and reduces their split statistics
    cells = dask.persist(*[dask.delayed(tree_block_cells)(b, grids) for b in blocks])
    growers = {
        (label, f): model.make_grower(tschema, grids[(resolution[label], f)], n_train[f])
        for label, per_fold in templates.items()
        for f, model in enumerate(per_fold)
    }
    grid_of = {key: (resolution[key[0]], key[1]) for key in growers}
    entries = [None] * len(blocks)
    store = TreeRowStore()  # the rows of the nodes finished here (PLANET's in-memory subtrees)
    local = {key: np.zeros(1, dtype=bool) for key in growers}  # per tree: node grown from the store?
    level = 0
    while True:
        t_level = time.perf_counter()
        states = {key: g.state() for key, g in growers.items() if not g.done}
        if not states:
            break
        remote = {key: s for key, s in states.items() if not local[key][s.open_nodes].all()}
        store.advance(states)
        if remote:
            remote_d = dask.delayed(remote, traverse=False)
            entries = dask.persist(
                *[dask.delayed(tree_block_advance)(b, F, remote_d, e) for b, e in zip(blocks, entries, strict=True)]
            )
            moving = _nodes_to_finish_here(growers, remote, local, store.n_entries, LOCAL_ENTRIES, n_train)
            if moving:
                moving_d = dask.delayed(moving, traverse=False)
                store.add(
                    dask.compute(
                        *[
                            dask.delayed(tree_block_take)(b, c, e, moving_d)
                            for b, c, e in zip(blocks, cells, entries, strict=True)
                        ]
                    )
                )
                entries = dask.persist(*[dask.delayed(tree_block_drop)(e, moving_d) for e in entries])
                for key, nodes in moving.items():
                    local[key][nodes] = True
                remote = {key: s for key, s in remote.items() if not local[key][s.open_nodes].all()}
                remote_d = dask.delayed(remote, traverse=False)
        stats = {}
        if remote:
            stats = dask.compute(
                _tree_reduce(
                    [
                        dask.delayed(tree_block_stats)(b, c, grid_of, remote_d, e)
                        for b, c, e in zip(blocks, cells, entries, strict=True)
                    ],
                    _sum_stats,
                )
            )[0]
        for key, state in states.items():
            if local[key][state.open_nodes].any():
                here = store.stats(key, state, grid_of[key])
                stats[key] = sum_stats([stats[key], here]) if key in stats else here
        split_levels(growers, stats)
        for key in states:  # a node grown here has its children grown here
            local[key] = _inherit(local[key], growers[key], states[key].open_nodes)
        if len(store.row_ids) > 2 * store.n_entries + (1 << 16):
            store.compact()
        log.debug(
            "level %d: %d trees, %d open nodes (%d grown here), %d entries here, %.2fs",
            level,
            len(states),
            sum(len(st.open_nodes) for st in states.values()),
            sum(int(local[k][st.open_nodes].sum()) for k, st in states.items()),
            store.n_entries,
            time.perf_counter() - t_level,
        )
        level += 1
    if store.X_num is not None:
        log.info("trees finished in memory from %d collected rows", len(store.row_ids))
    del entries, cells
    log.info("trees grown in %d levels", level)
    # 3. pruning (subtree raising needs the training rows)
    rows = None
    if sum(n_train) / max(F, 1) <= MAX_COLLECTED_ROWS:
        got = dask.compute(*blocks)
        rows = tuple(np.concatenate([g[k] for g in got]) for k in range(4))
    fitted: dict[str, list] = {label: [] for label in templates}
    for (label, f), grower in growers.items():
        model = templates[label][f]
        block = None
        if rows is not None:
            X_num, X_nom, y, fold = rows
            sel = fold != f if F > 1 else np.ones(len(fold), dtype=bool)
            block = (X_num[sel], X_nom[sel], y[sel], np.ones(int(sel.sum())))
        elif getattr(model, "subtree_raising", False):
            log.warning("%s fold %d: too many training rows to collect; pruned without subtree raising", label, f)
            model.set_params(subtree_raising=False)
        fitted[label].append(model.finish(grower, block))
    return fitted
