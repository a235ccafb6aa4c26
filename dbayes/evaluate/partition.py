"""The work done on one partition of a dataset during cross-validation: pure functions of a pandas partition.

The engine maps these over partitions and combines their results; nothing here knows Dask. A *round* is one
(noise level, repeat) of R x k cross-validation: its :class:`RoundPlan` says how rows are coded and which fold
each belongs to.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from dbayes.counts import TableLayout, count_block
from dbayes.data.discretize import value_histogram
from dbayes.data.encode import Coding, encode_class, encode_partition
from dbayes.data.schema import Schema
from dbayes.evaluate.folds import stratified_folds
from dbayes.evaluate.metrics import LOG_LOSS_FLOOR
from dbayes.evaluate.noise import noisy_classes

__all__ = [
    "RoundPlan",
    "CodedPart",
    "FittedRound",
    "code_partition",
    "partition_histograms",
    "partition_counts",
    "partition_training_counts",
    "partition_rows",
    "partition_predict",
]


@dataclass(frozen=True)
class RoundPlan:
    """How one round codes rows and assigns folds."""

    schema: Schema
    coding: Coding
    folds: int
    seed: int
    repeat: int
    noise: float
    class_offsets: np.ndarray  # (P, C): rank of each partition's first row of each class
    row_starts: np.ndarray  # (P,): global id of each partition's first row
    scope: str = "fold"  # discretization scope
    fold_ids: np.ndarray | None = None  # every row's fold, when folds are assigned globally (Weka's)

    @property
    def n_classes(self) -> int:
        return self.schema.n_classes


@dataclass
class CodedPart:
    X: np.ndarray  # attribute codes under the plan's (common) coding
    y: np.ndarray  # true class codes
    y_train: np.ndarray  # class codes used when the row is in a training part (noise applied)
    fold: np.ndarray
    row_ids: np.ndarray


def code_partition(df: pd.DataFrame, index: int, plan: RoundPlan) -> CodedPart:
    X, y = encode_partition(df, plan.coding)
    start = int(plan.row_starts[index])
    row_ids = start + np.arange(len(df), dtype=np.int64)
    if plan.fold_ids is not None:
        fold = plan.fold_ids[start : start + len(df)]
    else:
        fold = stratified_folds(y, plan.class_offsets[index], plan.folds, plan.seed, plan.repeat)
    y_train = noisy_classes(y, row_ids, plan.noise, plan.n_classes, plan.seed, plan.repeat)
    return CodedPart(X, y, y_train, fold, row_ids)


def partition_classes(df: pd.DataFrame, schema: Schema) -> np.ndarray:
    """Class codes of the partition's rows (for fold assignments computed over the whole dataset)."""
    return encode_class(df[schema.class_name], schema.classes).astype(np.int8 if schema.n_classes < 128 else np.int32)


def partition_histograms(
    df: pd.DataFrame, index: int, plan: RoundPlan, grids: dict[str, np.ndarray] | None = None
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per numeric attribute: distinct values and their counts per (fold, training class).

    Columns are ``fold * C + class`` (one fold, ``F = 1``, under global scope). An attribute with a quantile
    grid in ``grids`` (too many distinct values to keep exactly) is counted per grid cell ``(g[b-1], g[b]]``,
    each cell standing at its upper edge ``g[b]``, so the histogram has at most ``len(grid)`` rows.
    """
    part = code_partition(df, index, plan)
    C = plan.n_classes
    F = plan.folds if plan.scope == "fold" else 1
    labels = (part.fold * C + part.y_train) if F > 1 else part.y_train
    out = {}
    for i in plan.schema.numeric_indices:
        name = plan.schema.attributes[i].name
        x = df[name].to_numpy(dtype=np.float64, na_value=np.nan)
        if grids and name in grids:
            grid = grids[name]
            known = ~np.isnan(x)
            cell = np.minimum(np.searchsorted(grid, x[known], side="left"), len(grid) - 1)
            counts = np.bincount(cell * (F * C) + labels[known], minlength=len(grid) * F * C)
            counts = counts.reshape(len(grid), F * C)
            used = counts.any(axis=1)
            out[name] = (grid[used], counts[used])
        else:
            out[name] = value_histogram(x, labels, F * C)
    return out


def partition_counts(df: pd.DataFrame, index: int, plan: RoundPlan, layout: TableLayout) -> np.ndarray:
    """``(F, layout.size)`` count tables of the partition's rows, by the fold they belong to."""
    part = code_partition(df, index, plan)
    return count_block(part.X, part.y_train, layout, part.fold, plan.folds)


def partition_fold_counts(df: pd.DataFrame, index: int, plan: RoundPlan) -> np.ndarray:
    """``(F,)`` rows of the partition in each fold."""
    return np.bincount(code_partition(df, index, plan).fold, minlength=plan.folds)


def partition_class_fold_counts(df: pd.DataFrame, index: int, plan: RoundPlan, layout: TableLayout) -> np.ndarray:
    """``(F, C)`` rows per (fold, training class): the class-only tables of a round without count models."""
    part = code_partition(df, index, plan)
    return count_block(np.empty((len(part.y), 0), dtype=np.uint8), part.y_train, layout, part.fold, plan.folds)


def partition_training_counts(
    df: pd.DataFrame, index: int, plan: RoundPlan, layout: TableLayout, fold: int
) -> np.ndarray:
    """``(layout.size,)`` count tables of the partition's rows outside ``fold`` (one fold's training part)."""
    part = code_partition(df, index, plan)
    keep = part.fold != fold if plan.folds > 1 else np.ones(len(part.fold), dtype=bool)
    return count_block(np.asfortranarray(part.X[keep]), part.y_train[keep], layout)[0]


def partition_rows(df: pd.DataFrame, index: int, plan: RoundPlan) -> CodedPart:
    """The coded rows themselves, for models that need the training instances."""
    return code_partition(df, index, plan)


@dataclass
class FittedRound:
    """Fitted models of one round: ``models[label][fold]``, and each fold's recoding of the common codes."""

    models: dict[str, list]
    fold_maps: list[list[np.ndarray | None]]
    classes: tuple[str, ...]
    dataset: str = ""
    noise: float = 0.0
    repeat: int = 0
    save_predictions: bool = True
    unit_dirs: dict[tuple[str, int], str] = field(default_factory=dict)
    precomputed: dict = field(default_factory=dict)  # (label, fold) -> (probabilities, seconds) of this partition
    test_limit: int | None = None  # test only each fold's first rows (dataset order)
    fold_starts: np.ndarray | None = None  # (P, F) rank of each partition's first row within each fold


def recode_rows(X: np.ndarray, maps: list[np.ndarray | None]) -> np.ndarray:
    """Common codes -> one fold's codes (attribute by attribute)."""
    if all(m is None for m in maps):
        return X
    out = np.empty(X.shape, dtype=np.int64, order="F")
    for i, m in enumerate(maps):
        out[:, i] = X[:, i] if m is None else m[X[:, i]]
    return out


# per (label, fold): n_test, n_correct, sum of -log p(true class), seconds
N_SUMS = 4


def partition_predict(
    df: pd.DataFrame, index: int, plan: RoundPlan, fitted: FittedRound, precomputed: dict | None = None
) -> dict:
    """Predict each row with the models of its own fold; write its predictions; return per-unit sums.

    ``precomputed[(label, fold)] = (probabilities, seconds)`` holds this partition's predictions of the models
    scored by the top-k neighbour reduction.
    """
    precomputed = precomputed or {}
    part = code_partition(df, index, plan)
    sums: dict[tuple[str, int], np.ndarray] = {}
    classes = pd.CategoricalDtype(list(fitted.classes))
    for f in range(plan.folds):
        rows = np.flatnonzero(part.fold == f)
        if fitted.test_limit is not None:
            rank = fitted.fold_starts[index, f] + np.arange(len(rows))
            rows = rows[rank < fitted.test_limit]
        Xf = recode_rows(part.X[rows], fitted.fold_maps[f]) if len(rows) else None
        for label, per_fold in fitted.models.items():
            if len(rows) == 0:
                sums[(label, f)] = np.zeros(N_SUMS)
                continue
            t0 = time.perf_counter()
            model = per_fold[f]
            if (label, f) in precomputed:
                proba, seconds = precomputed[(label, f)]
                if fitted.test_limit is not None:
                    proba = proba[: len(rows)]
            else:
                if hasattr(model, "make_grower"):  # trees read the raw attributes
                    proba = model.predict_proba(df.iloc[rows][list(plan.schema.names)])
                else:
                    proba = model.predict_proba(Xf)
                seconds = time.perf_counter() - t0
            pred = np.argmax(proba, axis=1)
            truth = part.y[rows]
            p_true = proba[np.arange(len(rows)), truth]
            sums[(label, f)] = np.array(
                [len(rows), np.sum(pred == truth), -np.sum(np.log(np.maximum(p_true, LOG_LOSS_FLOOR))), seconds]
            )
            if fitted.save_predictions:
                frame = pd.DataFrame(
                    {
                        "dataset": fitted.dataset,
                        "classifier": label,
                        "noise": fitted.noise,
                        "repeat": fitted.repeat,
                        "fold": f,
                        "row_id": part.row_ids[rows],
                        "true_class": pd.Categorical.from_codes(truth, dtype=classes),
                        "predicted_class": pd.Categorical.from_codes(pred, dtype=classes),
                        "proba": list(proba),
                    }
                )
                unit_dir = Path(fitted.unit_dirs[(label, f)])
                unit_dir.mkdir(parents=True, exist_ok=True)
                frame.to_parquet(unit_dir / f"part-{index:05d}.parquet", index=False)
    return sums


# -- trees: raw attributes, grown level by level ------------------------------------------------------------
def tree_schema(schema: Schema):
    """The :class:`~dbayes.models.trees.TreeSchema` of a dataset schema (declared nominal values kept)."""
    from dbayes.models.trees import TreeSchema

    kinds, values, cols = [], [], []
    n_num = n_nom = 0
    for a in schema.attributes:
        if a.is_nominal:
            kinds.append("nominal")
            values.append(tuple(a.values))
            cols.append(n_nom)
            n_nom += 1
        else:
            kinds.append("numeric")
            values.append(())
            cols.append(n_num)
            n_num += 1
    return TreeSchema(tuple(schema.names), tuple(kinds), tuple(values), tuple(cols), tuple(schema.classes))


def _tree_rows(df: pd.DataFrame, index: int, plan: RoundPlan, tschema):
    from dbayes.models.trees import encode_frame

    part = code_partition(df, index, plan)
    X_num, X_nom = encode_frame(df[list(tschema.names)], tschema)
    return part, X_num, X_nom


def tree_block_value_counts(block, folds: int) -> list:
    """Per fold g: distinct numeric values of the block's rows *in* fold g, their counts and first global row
    ids (the first pass of tree growth)."""
    from dbayes.models.trees import numeric_value_counts

    X_num, _, _, fold, row_ids = block
    out = []
    for g in range(folds):
        sel = np.flatnonzero(fold == g)
        counts = numeric_value_counts(X_num[sel], None, 0)
        out.append([(v, c, row_ids[sel][first]) for v, c, first in counts])
    return out


def tree_block_cells(block, grids: dict) -> dict:
    """Per (resolution, fold) key of ``grids``: the grid cell of each of the block's numeric values under those
    grids (-1 missing); kept beside the block for all the levels of a round's growth."""
    from dbayes.models.trees.schema import grid_cells

    return {key: grid_cells(block[0], g) for key, g in grids.items()}


def tree_block_advance(block, folds: int, states: dict, entries: dict | None) -> dict:
    """Where each growing tree's training rows of this block sit at the current level: the fold's training
    rows at the root at the first level, else the previous level's entries moved one step down (entries at
    nodes that became leaves are dropped).  Kept in worker memory from one level to the next, so a level
    costs one routing step, not a walk from the root."""
    from dbayes.models.trees.tree import Entries, advance

    X_num, X_nom, _, fold, _ = block
    out = {}
    for key, state in states.items():
        prev = None if entries is None else entries.get(key)
        if prev is None:
            f = key[1]
            rows = np.flatnonzero(fold != f) if folds > 1 else np.arange(len(fold), dtype=np.int64)
            out[key] = Entries(rows.astype(np.int64), np.zeros(len(rows), np.int64), np.ones(len(rows)))
            continue
        out[key] = advance(state.tree, X_num, X_nom, prev)
    return out


def tree_block_stats(block, cells: dict, grid_of: dict, states: dict, entries: dict) -> dict:
    """Split statistics of one level for every growing tree: ``states[(label, fold)]`` -> SplitStats, the
    tree's cells being ``cells[grid_of[(label, fold)]]``."""
    from dbayes.models.trees.stats import frontier_statistics

    X_num, X_nom, y_train, _, _ = block
    out = {}
    for key, state in states.items():
        out[key] = frontier_statistics((X_num, X_nom, y_train, None), state, entries[key], cells[grid_of[key]])
    return out


def partition_tree_rows(df: pd.DataFrame, index: int, plan: RoundPlan, tschema):
    """The partition as a tree block: ``(X_num, X_nom, training class, fold, global row ids)``; the engine
    keeps these in memory for the passes of one round's growth."""
    part, X_num, X_nom = _tree_rows(df, index, plan, tschema)
    return X_num, X_nom, part.y_train, part.fold, part.row_ids


# -- lazy models with the training rows spread over partitions: top-k neighbour reductions -----------------
def fold_rows(part: CodedPart, f: int, maps, train: bool):
    """The rows of a coded partition outside (``train``) or inside fold ``f``, recoded to the fold's bins:
    ``(X, y, row_ids)``; training rows carry their training class."""
    sel = (part.fold != f) if train else (part.fold == f)
    X = np.asfortranarray(recode_rows(part.X[sel], maps))
    return X, (part.y_train if train else part.y)[sel], part.row_ids[sel]


def topk_partition(test_part: CodedPart, train_part: CodedPart, f: int, maps, k: int, ties: bool, cards):
    """Nearest training rows of one training partition for the fold-``f`` test rows of one partition."""
    from dbayes.models.neighbours import topk_block

    X_test = fold_rows(test_part, f, maps, train=False)[0]
    X_train, _, ids = fold_rows(train_part, f, maps, train=True)
    return topk_block(X_test, X_train, ids, k, cards, ties=ties)


def neighbour_rows_partition(ids: np.ndarray, train_part: CodedPart, f: int, maps):
    """The codes and classes of the neighbours that live in one training partition."""
    from dbayes.models.neighbours import neighbour_rows_block

    X_train, y_train, row_ids = fold_rows(train_part, f, maps, train=True)
    return neighbour_rows_block(ids, X_train, y_train, row_ids)


def score_neighbourhoods(model, test_part: CodedPart, f: int, maps, topk, rows) -> tuple[np.ndarray, float]:
    """Class probabilities of the fold-``f`` test rows of one partition from their gathered neighbourhoods."""
    from scipy.special import logsumexp

    X_test = fold_rows(test_part, f, maps, train=False)[0]
    t0 = time.perf_counter()
    jll = model.score_neighbours(X_test, topk[0], *rows)
    proba = np.exp(jll - logsumexp(jll, axis=1, keepdims=True))  # as Model.predict_proba
    return proba, time.perf_counter() - t0


# -- trees: nodes finished on the driver (rows collected once, then grown in memory) -----------------------
def tree_block_take(block, cells: dict, entries: dict, moving: dict):
    """The entries of this block at the nodes ``moving[key]`` (node ids) of each tree, with the rows they
    reference: ``(row_ids, X_num, X_nom, y_train, {grid key: cells}, {key: Entries over those rows})``."""
    from dbayes.models.trees.tree import Entries

    X_num, X_nom, y_train, _, row_ids = block
    picked = {}
    for key, nodes in moving.items():
        e = entries.get(key)
        if e is None or not len(nodes):
            continue
        m = np.isin(e.node, nodes)
        if m.any():
            picked[key] = Entries(e.rows[m], e.node[m], e.w[m])
    rows = np.unique(np.concatenate([e.rows for e in picked.values()])) if picked else np.zeros(0, np.int64)
    local = {key: Entries(np.searchsorted(rows, e.rows), e.node, e.w) for key, e in picked.items()}
    return row_ids[rows], X_num[rows], X_nom[rows], y_train[rows], {g: c[rows] for g, c in cells.items()}, local


def tree_block_drop(entries: dict, moving: dict) -> dict:
    """The block's entries without those at the nodes ``moving[key]`` (taken by :func:`tree_block_take`)."""
    from dbayes.models.trees.tree import Entries

    out = dict(entries)
    for key, nodes in moving.items():
        e = entries.get(key)
        if e is None or not len(nodes):
            continue
        keep = ~np.isin(e.node, nodes)
        out[key] = Entries(e.rows[keep], e.node[keep], e.w[keep])
    return out


class TreeRowStore:
    """Training rows held in memory by the process that grows the trees, for the nodes finished there.

    Rows arrive from the partitions (:func:`tree_block_take`) with their grid cells and, per tree, the entries
    (row, node, weight) of the nodes handed over; a row shared by several trees (the folds of a round) is kept
    once.  Each level the store's entries move one step down, like a partition's, and give their part of the
    level's split statistics, which adds to the partitions' part (statistics are additive over rows).
    """

    def __init__(self):
        from dbayes.models.trees.tree import Entries

        self._empty = Entries(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
        self.row_ids = np.zeros(0, np.int64)
        self.X_num = self.X_nom = self.y = None
        self.cells: dict = {}
        self.entries: dict = {}

    @property
    def n_entries(self) -> int:
        return sum(len(e.rows) for e in self.entries.values())

    def add(self, taken: list) -> None:
        """Add the partitions' :func:`tree_block_take` results (their global row ids are distinct), sorting
        the store's row ids once for all of them."""
        from dbayes.models.trees.tree import Entries

        if self.X_num is None:  # the first block gives the arrays' shapes and types
            _, X_num, X_nom, y, cells, _ = taken[0]
            self.X_num, self.X_nom, self.y = X_num[:0], X_nom[:0], y[:0]
            self.cells = {g: c[:0] for g, c in cells.items()}
        taken = [t for t in taken if len(t[0])]
        if not taken:
            return
        offsets = np.cumsum([0] + [len(t[0]) for t in taken])
        row_ids = np.concatenate([t[0] for t in taken])
        known = np.zeros(len(row_ids), dtype=bool)
        position = np.empty(len(row_ids), np.int64)
        if len(self.row_ids):
            order = np.argsort(self.row_ids)
            at = np.minimum(np.searchsorted(self.row_ids[order], row_ids), len(order) - 1)
            known = self.row_ids[order[at]] == row_ids
            position[known] = order[at[known]]
        new = ~known
        position[new] = len(self.row_ids) + np.arange(int(new.sum()))
        self.row_ids = np.concatenate([self.row_ids, row_ids[new]])
        self.X_num = np.concatenate([self.X_num, np.concatenate([t[1] for t in taken])[new]])
        self.X_nom = np.concatenate([self.X_nom, np.concatenate([t[2] for t in taken])[new]])
        self.y = np.concatenate([self.y, np.concatenate([t[3] for t in taken])[new]])
        for g in self.cells:
            self.cells[g] = np.concatenate([self.cells[g], np.concatenate([t[4][g] for t in taken])[new]])
        for t, o in zip(taken, offsets[:-1], strict=True):
            for key, e in t[5].items():
                prev = self.entries.get(key, self._empty)
                self.entries[key] = Entries(
                    np.concatenate([prev.rows, position[o + e.rows]]),
                    np.concatenate([prev.node, e.node]),
                    np.concatenate([prev.w, e.w]),
                )

    def advance(self, states: dict) -> None:
        """Move the entries one step down the trees of ``states`` (drop those of finished trees)."""
        from dbayes.models.trees.tree import advance

        self.entries = {
            key: advance(states[key].tree, self.X_num, self.X_nom, e)
            for key, e in self.entries.items()
            if key in states
        }

    def stats(self, key, state, grid_key):
        """This store's part of tree ``key``'s split statistics at the current level."""
        from dbayes.models.trees.stats import frontier_statistics

        block = (self.X_num, self.X_nom, self.y, None)
        return frontier_statistics(block, state, self.entries.get(key, self._empty), self.cells[grid_key])

    def compact(self) -> None:
        """Forget the rows no entry references any more."""
        from dbayes.models.trees.tree import Entries

        if self.X_num is None:
            return
        live = np.unique(np.concatenate([self._empty.rows] + [e.rows for e in self.entries.values()]))
        if len(live) == len(self.row_ids):
            return
        self.row_ids, self.X_num, self.X_nom, self.y = (a[live] for a in (self.row_ids, self.X_num, self.X_nom, self.y))
        self.cells = {g: c[live] for g, c in self.cells.items()}
        self.entries = {k: Entries(np.searchsorted(live, e.rows), e.node, e.w) for k, e in self.entries.items()}
