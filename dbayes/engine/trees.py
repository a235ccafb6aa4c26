"""Growing C4.5 / Credal-C4.5 trees on partitioned data: one reduction per tree level.

For a round, the trees of every classifier label and every fold grow together: a first pass gives each fold's
numeric value counts (the grids of candidate thresholds), then each level is one pass in which every
partition moves its training rows one step down every growing tree (the rows' positions, and their grid cells,
stay in worker memory between levels) and returns the per-node split statistics, summed over partitions (exact
for integer weights). J48's subtree raising re-distributes a node's training rows, so the
training rows are collected for the pruning step when there are at most ``MAX_COLLECTED_ROWS`` of them; above
that the trees are pruned without subtree raising, and the log says so.
"""

from __future__ import annotations

import logging
from functools import reduce

import dask
import numpy as np

from dbayes.evaluate.partition import (
    partition_tree_rows,
    tree_block_advance,
    tree_block_cells,
    tree_block_stats,
    tree_block_value_counts,
    tree_schema,
)

__all__ = ["grow_trees", "MAX_COLLECTED_ROWS"]

log = logging.getLogger(__name__)

MAX_COLLECTED_ROWS = 5_000_000


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
    grids = []
    for f in range(F):
        mine = [counts[g] for g in range(F) if g != f] if F > 1 else [counts[0]]
        merged = reduce(merge_value_counts, mine)
        grids.append(tuple(numeric_grid(v, c, max_exact_values, first) for v, c, first in merged))
    del counts, merged, mine  # per-value counts: as large as the data when every value is distinct
    # 2. levels: each partition keeps its numeric grid cells and every tree's entries (row, node, weight)
    # in memory; a level moves the entries one step down and reduces their split statistics
    cells = dask.persist(*[dask.delayed(tree_block_cells)(b, grids if F > 1 else grids[:1]) for b in blocks])
    growers = {
        (label, f): model.make_grower(tschema, grids[f], n_train[f])
        for label, per_fold in templates.items()
        for f, model in enumerate(per_fold)
    }
    entries = [None] * len(blocks)
    level = 0
    while True:
        states = {key: g.state() for key, g in growers.items() if not g.done}
        if not states:
            break
        states_d = dask.delayed(states, traverse=False)
        entries = dask.persist(
            *[dask.delayed(tree_block_advance)(b, F, states_d, e) for b, e in zip(blocks, entries, strict=True)]
        )
        stats = dask.compute(
            _tree_reduce(
                [
                    dask.delayed(tree_block_stats)(b, c, states_d, e)
                    for b, c, e in zip(blocks, cells, entries, strict=True)
                ],
                _sum_stats,
            )
        )[0]
        split_levels(growers, stats)
        level += 1
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
