"""Cross-validation of many classifiers on a partitioned dataset, in a few passes over the data.

For each round (one noise level and one repeat of R x k cross-validation):

1. **histograms** (when numeric attributes are discretized): per numeric attribute, the distinct values with
   their counts per (fold, class), a reduction over partitions; each fold's cut points come from the histogram
   of its training part (all folds but itself), so discretization never sees the test fold;
2. **counts**: one pass counts every fold's rows under the common coding (the union of all folds' cut points)
   into ``(folds, size)`` int64 tables, tree-summed; a fold's training tables are ``total - fold``, recoded to
   the fold's own bins;
3. **fit**: every classifier on every fold's tables (in the client: pure NumPy, small);
4. **predict**: one pass maps the test rows of every fold through the models of their fold; the fitted models
   reach the tasks as one ``Delayed`` (one key, fetched once per worker), never embedded in each task.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import dask
import numpy as np

from dbayes.counts import CountTables, TableLayout
from dbayes.data.discretize import equal_frequency_cut_points, mdl_cut_points, merge_histograms
from dbayes.data.encode import Coding, code_dtype, fold_slot_map
from dbayes.data.scan import merged_sketch
from dbayes.errors import JobError
from dbayes.evaluate.folds import class_offsets
from dbayes.evaluate.metrics import METRIC_COLUMNS, fold_metrics
from dbayes.evaluate.partition import (
    FittedRound,
    RoundPlan,
    neighbour_rows_partition,
    partition_class_fold_counts,
    partition_classes,
    partition_counts,
    partition_fold_counts,
    partition_histograms,
    partition_predict,
    partition_rows,
    partition_training_counts,
    recode_rows,
    score_neighbourhoods,
    topk_partition,
)
from dbayes.evaluate.weka_folds import weka_folds
from dbayes.job import ClassifierSpec, Job
from dbayes.models.base import TrainingRows

from .datasets import Dataset
from .results import ResultStore, unit_name
from .trees import grow_trees

__all__ = ["RoundTimings", "run_round", "tree_sum", "fold_discretization"]

log = logging.getLogger(__name__)

#: largest size of the per-fold count tables counted in one pass (above it, one pass per fold)
MAX_FOLD_TABLES_BYTES = 512 * 2**20
#: above this size of coded training rows, lazy models find neighbours by a top-k reduction, not a broadcast
MAX_BROADCAST_ROWS_BYTES = 256 * 2**20


def _add(*arrays):
    out = arrays[0].copy()
    for a in arrays[1:]:
        out += a
    return out


def tree_sum(items: list, split_every: int = 8):
    """Delayed sum of delayed arrays as a tree of ``split_every``-way additions."""
    items = list(items)
    while len(items) > 1:
        items = [dask.delayed(_add)(*items[i : i + split_every]) for i in range(0, len(items), split_every)]
    return items[0]


def _merge_all(*parts: dict) -> dict:
    return {name: merge_histograms([p[name] for p in parts]) for name in parts[0]}


def _tree_merge(items: list, split_every: int = 8):
    items = list(items)
    while len(items) > 1:
        items = [dask.delayed(_merge_all)(*items[i : i + split_every]) for i in range(0, len(items), split_every)]
    return items[0]


@dataclass
class RoundTimings:
    histograms: float = 0.0
    counts: float = 0.0
    rows: float = 0.0
    fit: dict[tuple[str, int], float] = field(default_factory=dict)
    predict: float = 0.0


def _snap(cuts: np.ndarray, grid: np.ndarray | None) -> np.ndarray:
    if grid is None or len(cuts) == 0:
        return cuts
    return np.unique(grid[np.maximum(np.searchsorted(grid, cuts, side="left") - 1, 0)])


def fold_discretization(
    hist: tuple[np.ndarray, np.ndarray], n_folds: int, n_classes: int, method: str, bins: int, grid=None
) -> list[np.ndarray]:
    """Cut points of each fold's training part from the (value, fold x class) histogram.

    With ``n_folds == 1`` (global scope) one set of cut points from all rows.
    """
    values, counts = hist
    counts = counts.reshape(len(values), n_folds, n_classes)
    total = counts.sum(axis=1)
    out = []
    for f in range(n_folds):
        train = total - counts[:, f, :] if n_folds > 1 else total
        keep = train.sum(axis=1) > 0
        v, c = values[keep], train[keep]
        if len(v) == 0:
            out.append(np.empty(0))
            continue
        if method == "mdl":
            cuts = mdl_cut_points(v, c)
        else:
            cuts = equal_frequency_cut_points(v, c.sum(axis=1), bins)
        out.append(_snap(np.asarray(cuts, dtype=np.float64), grid))
    return out


def is_tree(model) -> bool:
    """Tree estimators grow on raw attributes (``make_grower``); the others are fitted from count tables."""
    return hasattr(model, "make_grower")


def quantile_grid(data: Dataset, name: str, size: int) -> np.ndarray:
    """``size`` weighted quantiles of a numeric column from the scan's per-partition order statistics (cell
    upper edges; the last is the column's maximum)."""
    sketch, w = merged_sketch(data.scans, name)
    order = np.argsort(sketch)
    cw = np.cumsum(w[order])
    q = np.searchsorted(cw, np.linspace(0, cw[-1], size + 1)[1:], side="left")
    return np.unique(np.append(sketch[order][np.minimum(q, len(order) - 1)], sketch.max()))


def _discretize(data: Dataset, job: Job, parts, plan_d, F: int) -> dict[str, list[np.ndarray]]:
    """Each fold's cut points of every numeric attribute (fitted on the fold's training part).

    Exact (all distinct values are candidate cut points, as Weka) unless a column may hold more than
    ``job.max_exact_values`` distinct values (the scan's per-partition counts tell); such a column is counted on
    a quantile grid of that many cells, and its cut points are grid edges.
    """
    schema = data.schema
    C = schema.n_classes
    numeric = [schema.attributes[i].name for i in schema.numeric_indices]
    grids = {}
    for name in numeric:
        if sum(s.n_distinct.get(name, 0) for s in data.scans) > job.max_exact_values:
            grids[name] = quantile_grid(data, name, job.max_exact_values)
            log.info(
                "%s: %s has more than %d distinct values; cut points sought on quantile bins",
                data.name,
                name,
                job.max_exact_values,
            )
    grids_d = dask.delayed(grids, traverse=False)
    hists = dask.compute(
        _tree_merge([dask.delayed(partition_histograms)(p, i, plan_d, grids_d) for i, p in enumerate(parts)])
    )[0]
    n_hist_folds = F if job.discretize_scope == "fold" else 1
    fold_cuts = {}
    for name in numeric:
        cuts = fold_discretization(hists[name], n_hist_folds, C, job.discretize, job.bins, grids.get(name))
        fold_cuts[name] = cuts if n_hist_folds == F else cuts * F
    return fold_cuts


def _fold_codings(schema, fold_cuts, F):
    """Per fold, the map from the common (finest) bins to the fold's bins, and the fold's cardinalities."""
    common = {name: np.unique(np.concatenate(c)) for name, c in fold_cuts.items()}
    fold_maps: list[list[np.ndarray | None]] = []
    fold_cards: list[tuple[int, ...]] = []
    for f in range(F):
        maps, cards = [], []
        for a in schema.attributes:
            if a.is_nominal:
                maps.append(None)
                cards.append(a.card)
            else:
                own = fold_cuts[a.name][f]
                maps.append(None if len(own) == len(common[a.name]) else fold_slot_map(common[a.name], own))
                cards.append(len(own) + 1)
        fold_maps.append(maps)
        fold_cards.append(tuple(cards))
    return common, fold_maps, fold_cards


def run_round(
    data: Dataset,
    job: Job,
    specs: list[ClassifierSpec],
    noise: float,
    repeat: int,
    store: ResultStore,
    on_step: Callable[[str], None] = lambda s: None,
    test_limit: int | None = None,
) -> list[dict]:
    """Run one round for ``specs`` and commit its units; returns the metric rows written.

    ``test_limit``: test only the first ``test_limit`` rows (in dataset order) of each fold's test part, to
    measure run time against the number of test instances (the LAWNB paper's Figure 4).
    """
    schema = data.schema
    C = schema.n_classes
    F = job.folds
    parts = data.frame.to_delayed()
    offsets = class_offsets(data.partition_class_counts())
    starts = data.row_starts()
    timings = RoundTimings()
    scope = job.discretize_scope
    templates = {s.label: s.make() for s in specs}
    bayes = {k: m for k, m in templates.items() if not is_tree(m)}
    trees = {k: m for k, m in templates.items() if is_tree(m)}

    fold_ids = None
    if job.fold_assignment == "weka" and F > 1:
        y_all = np.concatenate(dask.compute(*[dask.delayed(partition_classes)(p, schema) for p in parts]))
        fold_ids = weka_folds(y_all, F, job.seed + repeat)

    def make_plan(coding: Coding) -> RoundPlan:
        return RoundPlan(schema, coding, F, job.seed, repeat, noise, offsets, starts, scope, fold_ids)

    plan = make_plan(Coding(schema, {}))
    plan_d = dask.delayed(plan, traverse=False)

    # 1. discretization (for the count-table models) --------------------------------------------------------
    numeric = [schema.attributes[i].name for i in schema.numeric_indices]
    fold_cuts: dict[str, list[np.ndarray]] = {}
    if bayes and numeric:
        if job.discretize == "none":
            raise JobError(
                f'{job.source}: discretize = "none" but {data.name} has numeric attributes '
                f"({', '.join(numeric[:5])}); the Bayesian classifiers need discrete attributes"
            )
        t0 = time.perf_counter()
        fold_cuts = _discretize(data, job, parts, plan_d, F)
        timings.histograms = time.perf_counter() - t0
        on_step(f"histograms {timings.histograms:.2f}s")
    if not bayes:
        fold_cuts = {name: [np.empty(0)] * F for name in numeric}
    common, fold_maps, fold_cards = _fold_codings(schema, fold_cuts, F)
    coding = Coding(schema, common)
    plan = make_plan(coding)
    plan_d = dask.delayed(plan, traverse=False)
    fold_starts = None
    if test_limit is not None:
        per_part = np.stack(
            dask.compute(*[dask.delayed(partition_fold_counts)(p, i, plan_d) for i, p in enumerate(parts)])
        )
        fold_starts = np.cumsum(per_part, axis=0) - per_part  # (P, F): rank of each partition's first row per fold

    # 2. counts ---------------------------------------------------------------------------------------------
    train_tables: list[CountTables | None] = [None] * F
    n_train = [0] * F
    t0 = time.perf_counter()
    pairs = any(m.needs_pairs for m in bayes.values())
    layout = TableLayout(C, coding.cards, pairs=pairs)
    if not bayes:
        layout = TableLayout(C, tuple(1 for _ in coding.cards), pairs=False)  # class counts only
    if F * layout.size * 8 <= MAX_FOLD_TABLES_BYTES:
        # one pass: every fold's rows counted at once on the common bins; training = total - fold, recoded
        per_fold = (
            dask.compute(tree_sum([dask.delayed(partition_counts)(p, i, plan_d, layout) for i, p in enumerate(parts)]))[
                0
            ]
            if bayes
            else _class_counts_by_fold(parts, plan_d, C, F)
        )
        total = per_fold.sum(axis=0)
        for f in range(F):
            vec = total if job.resubstitution else total - per_fold[f]
            n_train[f] = int(vec[:C].sum())
            if bayes:
                t = CountTables(layout, vec)
                if any(m is not None for m in fold_maps[f]):
                    t = t.recode(fold_maps[f], fold_cards[f])
                train_tables[f] = t
        del per_fold
    else:
        # many classes and many fine bins (small, wide datasets): the folds' tables at once would not fit, so
        # each fold's training part is counted in a pass of its own, on the fold's own bins
        log.info("%s: %d folds x %d cells; counting fold by fold", data.name, F, layout.size)
        for f in range(F):
            own = Coding(schema, {name: fold_cuts[name][f] for name in numeric})
            plan_f = dask.delayed(make_plan(own), traverse=False)
            lay_f = TableLayout(C, fold_cards[f], pairs=pairs)
            counts = dask.compute(
                tree_sum([dask.delayed(partition_training_counts)(p, i, plan_f, lay_f, f) for i, p in enumerate(parts)])
            )[0]
            train_tables[f] = CountTables(lay_f, counts)
            n_train[f] = train_tables[f].n
    timings.counts = time.perf_counter() - t0
    on_step(f"counts {timings.counts:.2f}s")

    # 2b. training rows, for the models that need them ------------------------------------------------------
    topk_labels = set()
    if any(m.needs_rows for m in bayes.values()):
        rows_bytes = data.n_rows * len(schema.attributes) * code_dtype(coding.cards).itemsize
        use_topk = job.neighbours == "topk" or (job.neighbours == "auto" and rows_bytes > MAX_BROADCAST_ROWS_BYTES)
        if use_topk:
            topk_labels = {k for k, m in bayes.items() if m.needs_rows and _neighbour_query(m) is not None}
    rows = None
    if any(m.needs_rows for k, m in bayes.items() if k not in topk_labels):
        t0 = time.perf_counter()
        got = dask.compute(*[dask.delayed(partition_rows)(p, i, plan_d) for i, p in enumerate(parts)])
        rows = (
            np.asfortranarray(np.concatenate([g.X for g in got])),
            np.concatenate([g.y_train for g in got]),
            np.concatenate([g.fold for g in got]),
        )
        timings.rows = time.perf_counter() - t0
        on_step(f"rows {timings.rows:.2f}s")

    # 3. fit ------------------------------------------------------------------------------------------------
    fitted: dict[str, list] = {}
    for spec in specs:
        if spec.label not in bayes:
            continue
        fitted[spec.label] = []
        for f in range(F):
            model = spec.make()
            train = None
            if model.needs_rows and spec.label not in topk_labels:
                X, y, fold = rows
                sel = np.ones(len(fold), dtype=bool) if job.resubstitution else fold != f
                train = TrainingRows(np.asfortranarray(recode_rows(X[sel], fold_maps[f])), y[sel], fold_cards[f], C)
            t0 = time.perf_counter()
            model.fit(train_tables[f], train)
            timings.fit[(spec.label, f)] = time.perf_counter() - t0
            fitted[spec.label].append(model)
    if trees:
        t0 = time.perf_counter()
        per_fold_templates = {
            label: [next(s for s in specs if s.label == label).make() for _ in range(F)] for label in trees
        }
        grown = grow_trees(parts, plan, per_fold_templates, n_train, job.max_exact_values)
        seconds = (time.perf_counter() - t0) / (len(trees) * F)
        for label, models in grown.items():
            fitted[label] = models
            for f in range(F):
                timings.fit[(label, f)] = seconds
    fitted = {s.label: fitted[s.label] for s in specs}
    on_step(f"fit {sum(timings.fit.values()):.2f}s")

    # 4. predict --------------------------------------------------------------------------------------------
    scratch = store.scratch() if job.save_predictions else None
    unit_dirs = {
        (s.label, f): str(scratch / unit_name(data.name, s.label, noise, repeat, f, test_limit)) if scratch else ""
        for s in specs
        for f in range(F)
    }
    state = FittedRound(
        fitted,
        fold_maps,
        schema.classes,
        data.name,
        noise,
        repeat,
        job.save_predictions,
        unit_dirs,
        test_limit=test_limit,
        fold_starts=fold_starts,
    )
    state_d = dask.delayed(state, traverse=False)
    precomputed = _topk_predictions(parts, plan_d, fitted, topk_labels, fold_maps, fold_cards) if topk_labels else {}
    if topk_labels:
        on_step(f"top-k neighbours for {', '.join(sorted(topk_labels))}")
    t0 = time.perf_counter()
    try:
        results = dask.compute(
            *[
                dask.delayed(partition_predict)(p, i, plan_d, state_d, precomputed.get(i, {}))
                for i, p in enumerate(parts)
            ]
        )
    except BaseException:
        if scratch is not None:
            store.discard(scratch)
        raise
    timings.predict = time.perf_counter() - t0
    on_step(f"predict {timings.predict:.2f}s")

    # 5. commit ---------------------------------------------------------------------------------------------
    shared = (timings.histograms + timings.counts + timings.rows) / F
    rows_out = []
    for spec in specs:
        for f in range(F):
            sums = sum(r[(spec.label, f)] for r in results)
            m = fold_metrics(sums)
            model = fitted[spec.label][f]
            row = {
                "dataset": data.name,
                "classifier": spec.label,
                "classifier_name": spec.name,
                "noise": float(noise),
                "test_limit": test_limit,
                "repeat": int(repeat),
                "fold": int(f),
                "n_train": int(n_train[f]),
                **m,
                "train_seconds": shared + timings.fit[(spec.label, f)],
                "folds": F,
                "seed": job.seed,
                "discretize": job.discretize if spec.label in bayes else "none",
            }
            if is_tree(model):
                row["tree_size"] = int(model.tree_size)
                row["n_leaves"] = int(model.n_leaves)
            if test_limit is None:
                del row["test_limit"]
            row.update(_param_columns(spec))
            row = {k: row[k] for k in [*METRIC_COLUMNS, *sorted(set(row) - set(METRIC_COLUMNS))] if k in row}
            unit = unit_name(data.name, spec.label, noise, repeat, f, test_limit)
            store.commit(unit, row, scratch / unit if scratch else None)
            rows_out.append(row)
    if scratch is not None:
        store.discard(scratch)
    return rows_out


def _neighbour_query(model):
    query = getattr(model, "neighbour_query", None)
    return None if query is None else query()


def _topk_predictions(parts, plan_d, fitted, labels, fold_maps, fold_cards) -> dict[int, dict]:
    """Delayed predictions of the lazy models whose neighbours come from top-k reductions over the training
    partitions: for every test partition i and fold f, the k nearest rows of each training partition j are
    merged (:func:`~dbayes.models.neighbours.merge_topk`), the neighbours' rows fetched from where they live,
    and the test rows scored. No worker ever holds the whole training set. Returns ``{i: {(label, f): ...}}``.
    """
    from dbayes.models.neighbours import merge_neighbour_rows, merge_topk

    coded = dask.persist(*[dask.delayed(partition_rows)(p, i, plan_d) for i, p in enumerate(parts)])
    out: dict[int, dict] = {i: {} for i in range(len(parts))}
    for label in sorted(labels):
        for f, model in enumerate(fitted[label]):
            k, ties = _neighbour_query(model)
            model_d = dask.delayed(model, traverse=False)
            maps, cards = fold_maps[f], fold_cards[f]
            for i, test in enumerate(coded):
                lists = [dask.delayed(topk_partition)(test, train, f, maps, k, ties, cards) for train in coded]
                merged = dask.delayed(merge_topk)(lists, k, ties=ties)
                ids = merged[1]
                rows = dask.delayed(merge_neighbour_rows)(
                    [dask.delayed(neighbour_rows_partition)(ids, train, f, maps) for train in coded]
                )
                out[i][(label, f)] = dask.delayed(score_neighbourhoods)(model_d, test, f, maps, merged, rows)
    return out


def _param_columns(spec: ClassifierSpec) -> dict:
    """The classifier's numeric parameters as metric columns (``param_k``, ``param_s``...), so a report can plot
    accuracy against a parameter the job varies."""
    return {
        f"param_{k}": float(v) for k, v in spec.params.items() if isinstance(v, int | float) and not isinstance(v, bool)
    }


def _class_counts_by_fold(parts, plan_d, C: int, F: int) -> np.ndarray:
    """``(F, C)`` rows per (fold, class) when no count tables are needed (trees alone)."""
    lay = TableLayout(C, (), pairs=False)
    return dask.compute(
        tree_sum([dask.delayed(partition_class_fold_counts)(p, i, plan_d, lay) for i, p in enumerate(parts)])
    )[0]
