"""Per-level split statistics: the sufficient statistics of one level of growth, additive over row blocks.

For the open nodes ``k = 0 .. K-1`` of the current level, :func:`split_statistics` routes one block of
training rows ``(X_num, X_nom, y, w)`` down the current tree (fractional instances for missing values at the
nodes already split, :func:`dbayes.models.trees.tree.route`) and returns a :class:`SplitStats`:

- ``class_w`` ``(K, C)``: class weights per node;
- ``nominal[j]`` ``(K, V_j + 1, C)``: per nominal column ``j``, class weights per value, the last slot for
  missing;
- per numeric column ``j``: class weights per grid cell (per distinct value when the grid is exact), all
  columns stored together and sparsely as sorted keys ``(j * K + k) * stride + cell`` (``num_key``) with rows
  ``num_w`` ``(n_keys, C)``;
  ``num_missing`` ``(K, d_num, C)`` the class weights of the rows with the value missing, and ``num_rows``
  ``(K, d_num)`` the number of (row, node) entries with a known value (J48 compares this *count*, not a
  weight, with twice the minimum split size).

Stats of two blocks add with ``a + b`` (:func:`add_stats`): the engine maps :func:`split_statistics` over the
partitions and tree-reduces with ``+``; the sum is what the grower needs.  Sums of float weights are exact
when the weights are integers (or sums of few dyadic fractions); otherwise they agree to rounding only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dbayes.models.trees.schema import grid_cells
from dbayes.models.trees.tree import OPEN, Entries, route

#: Numeric stats are counted in a dense (node, cell, class) table up to this size, else by sorting keys.
DENSE_LIMIT = 1 << 20

__all__ = ["SplitStats", "add_stats", "sum_stats", "split_statistics", "frontier_statistics", "GrowerState"]


@dataclass(frozen=True)
class GrowerState:
    """What a block needs to compute one level's stats: the schema, numeric grids, the tree so far
    (:class:`~dbayes.models.trees.tree.FlatTree`) and the ids of its open nodes."""

    schema: object
    grids: tuple
    tree: object
    open_nodes: np.ndarray


@dataclass(frozen=True)
class SplitStats:
    """One level's split statistics (see the module docstring).

    The numeric statistics of all columns are kept together: sorted keys ``num_key = (j * K + k) * stride +
    cell`` (column ``j``, open node ``k``, grid cell; ``stride`` the largest grid size) with class weights
    ``num_w`` ``(n_keys, C)``, only for the non-empty (column, node, cell) triples.
    """

    open_nodes: np.ndarray
    class_w: np.ndarray
    nominal: tuple
    num_key: np.ndarray
    num_w: np.ndarray
    num_missing: np.ndarray
    num_rows: np.ndarray
    stride: int

    def __add__(self, other: SplitStats) -> SplitStats:
        return add_stats(self, other)

    def numeric_node(self, j: int, k: int):
        """``(cells, weights)`` of numeric column ``j`` at open node ``k`` (sorted cells)."""
        seg = j * len(self.open_nodes) + k
        lo, hi = np.searchsorted(self.num_key, [seg * self.stride, (seg + 1) * self.stride])
        return self.num_key[lo:hi] - seg * self.stride, self.num_w[lo:hi]


def _merge_sparse(tables: list):
    """Sum of sparse tables ``(sorted distinct keys, rows of class weights)``: all keys sorted once, each
    table's weights added at its keys' places (np.union1d would hash: much slower on large tables)."""
    tables = [t for t in tables if len(t[0])] or tables[:1]
    if len(tables) == 1:
        return tables[0]
    keys = np.sort(np.concatenate([k for k, _ in tables]))
    keys = keys[np.r_[True, keys[1:] != keys[:-1]]]
    w = np.zeros((len(keys), tables[0][1].shape[1]))
    for k, wt in tables:
        w[np.searchsorted(keys, k)] += wt  # a table's keys are distinct
    return keys, w


def add_stats(a: SplitStats, b: SplitStats) -> SplitStats:
    """The stats of the union of two blocks (same tree, same open nodes)."""
    return sum_stats([a, b])


def sum_stats(parts: list) -> SplitStats:
    """The stats of the union of several blocks in one merge (cheaper than adding them two by two)."""
    a = parts[0]
    if len(parts) == 1:
        return a
    for b in parts[1:]:
        if not np.array_equal(a.open_nodes, b.open_nodes) or a.stride != b.stride:
            raise ValueError("split statistics of different levels cannot be added")
    keys, w = _merge_sparse([(p.num_key, p.num_w) for p in parts])
    return SplitStats(
        a.open_nodes,
        sum(p.class_w for p in parts[1:]) + a.class_w,
        tuple(sum(p.nominal[j] for p in parts[1:]) + a.nominal[j] for j in range(len(a.nominal))),
        keys,
        w,
        sum(p.num_missing for p in parts[1:]) + a.num_missing,
        sum(p.num_rows for p in parts[1:]) + a.num_rows,
        a.stride,
    )


def _sparse_sum(key: np.ndarray, y: np.ndarray, w: np.ndarray, C: int):
    """Sorted distinct ``key`` values and their class weights ``(n_keys, C)`` (sums of ``w`` by key, class).

    Entries of weight 1 (every entry but the fractional ones below a missing value) are counted by sorting
    their keys alone; the others are summed after an argsort, and the two tables added."""
    unit = w == 1.0
    if unit.all():
        return _count_keys(key * C + y, C)
    keys_u, w_u = _count_keys(key[unit] * C + y[unit], C)
    frac = ~unit
    kc = key[frac] * C + y[frac]
    order = np.argsort(kc)
    kc = kc[order]
    starts = np.flatnonzero(np.r_[True, kc[1:] != kc[:-1]])
    wsum = np.add.reduceat(w[frac][order], starts) if len(starts) else np.zeros(0)
    keys_f, w_f = _rows_of(kc[starts], wsum, C)
    return _merge_sparse([(keys_u, w_u), (keys_f, w_f)])


def _count_keys(kc: np.ndarray, C: int):
    """Distinct keys of ``kc = key * C + class`` (weight 1 each) as a sparse table."""
    kc = np.sort(kc)
    starts = np.flatnonzero(np.r_[True, kc[1:] != kc[:-1]]) if len(kc) else np.zeros(0, np.int64)
    counts = np.diff(np.r_[starts, len(kc)]).astype(np.float64)
    return _rows_of(kc[starts], counts, C)


def _rows_of(kc_distinct: np.ndarray, wsum: np.ndarray, C: int):
    keys_c, cls = np.divmod(kc_distinct, C)
    first = np.r_[True, keys_c[1:] != keys_c[:-1]] if len(keys_c) else np.zeros(0, bool)
    pos = np.cumsum(first) - 1
    out = np.zeros((int(first.sum()), C))
    out[pos, cls] = wsum
    return keys_c[first], out


def frontier_statistics(block, state: GrowerState, entries: Entries, cells: np.ndarray | None = None) -> SplitStats:
    """Stats of the entries already routed to the open nodes (entries elsewhere are ignored).

    ``cells`` ``(n, d_num)``, if given, holds each block row's grid cell per numeric column (-1 for missing,
    :func:`~dbayes.models.trees.schema.grid_cells`); it spares binning the values again at every level.
    """
    X_num, X_nom, y, _ = block
    schema, C = state.schema, state.schema.n_classes
    K = len(state.open_nodes)
    lookup = np.full(state.tree.n_nodes, -1, dtype=np.int64)
    lookup[state.open_nodes] = np.arange(K)
    k = lookup[entries.node]
    sel = k >= 0
    k, rows, w = k[sel], entries.rows[sel], entries.w[sel]
    yc = np.asarray(y, dtype=np.int64)[rows]
    class_w = np.bincount(k * C + yc, weights=w, minlength=K * C).reshape(K, C)
    nominal = []
    for a in schema.nominal:
        V = schema.card(a)
        code = X_nom[rows, schema.cols[a]].astype(np.int64)
        idx = (k * (V + 1) + code) * C + yc
        nominal.append(np.bincount(idx, weights=w, minlength=K * (V + 1) * C).reshape(K, V + 1, C))
    d = len(schema.numeric)
    stride = max([1] + [len(g.values) for g in state.grids])
    num_missing = np.zeros((K, d, C))
    num_rows = np.zeros((K, d), dtype=np.int64)
    num_key, num_w = np.zeros(0, np.int64), np.zeros((0, C))
    if d and len(rows):
        cell = grid_cells(X_num[rows], state.grids) if cells is None else cells[rows]
        known = cell >= 0  # (m, d)
        kj = k[:, None] * d + np.arange(d)[None, :]  # (node, column) of each (entry, column) pair
        num_rows = np.bincount(kj[known], minlength=K * d).reshape(K, d)
        y2 = np.broadcast_to(yc[:, None], cell.shape)
        w2 = np.broadcast_to(w[:, None], cell.shape)
        if not known.all():
            miss = ~known
            num_missing = np.bincount(kj[miss] * C + y2[miss], weights=w2[miss], minlength=K * d * C).reshape(K, d, C)
        seg_key = ((np.arange(d)[None, :] * K + k[:, None]) * stride + cell)[known]  # (j * K + k) * stride + cell
        yk, wk = y2[known], w2[known]
        if K * d * stride * C <= max(DENSE_LIMIT, 4 * len(seg_key)):  # small table: count densely
            present = np.bincount(seg_key, minlength=K * d * stride) > 0
            table = np.bincount(seg_key * C + yk, weights=wk, minlength=K * d * stride * C)
            num_key = np.flatnonzero(present)
            num_w = table.reshape(-1, C)[num_key]
        else:  # sparse: sort the keys
            num_key, num_w = _sparse_sum(seg_key, yk, wk, C)
    return SplitStats(
        np.asarray(state.open_nodes), class_w, tuple(nominal), num_key, num_w, num_missing, num_rows, stride
    )


def split_statistics(block, state: GrowerState, cells: np.ndarray | None = None) -> SplitStats:
    """The stats of one block of training rows ``(X_num, X_nom, y, w)`` for the open nodes of ``state``.

    Pure and module-level: the stats of several blocks add with ``+``.  Rows are routed from the root; the
    engine and the local driver keep the entries of the previous level instead and call
    :func:`frontier_statistics` (one routing step per level).
    """
    X_num, X_nom, _, w = block
    entries = route(state.tree, X_num, X_nom, Entries.at_root(w))
    at_open = state.tree.kind[entries.node] == OPEN
    entries = Entries(entries.rows[at_open], entries.node[at_open], entries.w[at_open])
    return frontier_statistics(block, state, entries, cells)
