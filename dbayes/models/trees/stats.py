"""Per-level split statistics: the sufficient statistics of one level of growth, additive over row blocks.

For the open nodes ``k = 0 .. K-1`` of the current level, :func:`split_statistics` routes one block of
training rows ``(X_num, X_nom, y, w)`` down the current tree (fractional instances for missing values at the
nodes already split, :func:`dbayes.models.trees.tree.route`) and returns a :class:`SplitStats`:

- ``class_w`` ``(K, C)``: class weights per node;
- ``nominal[j]`` ``(K, V_j + 1, C)``: per nominal column ``j``, class weights per value, the last slot for
  missing;
- per numeric column ``j``: class weights per grid cell (per distinct value when the grid is exact), stored
  sparsely as sorted keys ``k * G_j + cell`` (``num_keys[j]``) with rows ``num_w[j]`` ``(n_keys, C)``;
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

from dbayes.models.trees.tree import OPEN, Entries, route

#: Numeric stats are counted in a dense (node, cell, class) table up to this size, else by sorting keys.
DENSE_LIMIT = 1 << 20

__all__ = ["SplitStats", "add_stats", "split_statistics", "frontier_statistics", "GrowerState"]


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
    open_nodes: np.ndarray
    class_w: np.ndarray
    nominal: tuple
    num_keys: tuple
    num_w: tuple
    num_missing: np.ndarray
    num_rows: np.ndarray

    def __add__(self, other: SplitStats) -> SplitStats:
        return add_stats(self, other)

    def numeric_node(self, j: int, k: int, n_cells: int):
        """``(cells, weights)`` of numeric column ``j`` at open node ``k`` (sorted cells)."""
        keys = self.num_keys[j]
        lo, hi = np.searchsorted(keys, [k * n_cells, (k + 1) * n_cells])
        return keys[lo:hi] - k * n_cells, self.num_w[j][lo:hi]


def _merge_sparse(keys_a, w_a, keys_b, w_b):
    keys, inv = np.unique(np.concatenate([keys_a, keys_b]), return_inverse=True)
    w = np.zeros((len(keys), w_a.shape[1] if w_a.ndim == 2 else w_b.shape[1]))
    np.add.at(w, inv, np.concatenate([w_a, w_b]))
    return keys, w


def add_stats(a: SplitStats, b: SplitStats) -> SplitStats:
    """The stats of the union of two blocks (same tree, same open nodes)."""
    if not np.array_equal(a.open_nodes, b.open_nodes):
        raise ValueError("split statistics of different levels cannot be added")
    merged = [
        _merge_sparse(ka, wa, kb, wb) for ka, wa, kb, wb in zip(a.num_keys, a.num_w, b.num_keys, b.num_w, strict=True)
    ]
    return SplitStats(
        a.open_nodes,
        a.class_w + b.class_w,
        tuple(x + y for x, y in zip(a.nominal, b.nominal, strict=True)),
        tuple(m[0] for m in merged),
        tuple(m[1] for m in merged),
        a.num_missing + b.num_missing,
        a.num_rows + b.num_rows,
    )


def frontier_statistics(block, state: GrowerState, entries: Entries) -> SplitStats:
    """Stats of the entries already routed to the open nodes (entries elsewhere are ignored)."""
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
    d_num = len(schema.numeric)
    num_keys, num_w = [], []
    num_missing = np.zeros((K, d_num, C))
    num_rows = np.zeros((K, d_num), dtype=np.int64)
    for j in range(d_num):
        x = X_num[rows, j]
        known = ~np.isnan(x)
        G = len(state.grids[j].values)
        miss = ~known
        num_missing[:, j, :] = np.bincount(k[miss] * C + yc[miss], weights=w[miss], minlength=K * C).reshape(K, C)
        num_rows[:, j] = np.bincount(k[known], minlength=K)
        if G == 0 or not known.any():
            num_keys.append(np.zeros(0, np.int64)), num_w.append(np.zeros((0, C)))
            continue
        cell = state.grids[j].cells(x[known])
        node_cell = k[known] * G + cell
        if K * G * C <= max(DENSE_LIMIT, 4 * len(node_cell)):  # small table: count densely
            present = np.bincount(node_cell, minlength=K * G) > 0
            table = np.bincount(node_cell * C + yc[known], weights=w[known], minlength=K * G * C)
            keys = np.flatnonzero(present)
            dense = table.reshape(K * G, C)[keys]
        else:  # sparse: sort the (node, cell, class) keys
            ukey, inv = np.unique(node_cell * C + yc[known], return_inverse=True)
            wsum = np.bincount(inv, weights=w[known], minlength=len(ukey))
            nc, cls = np.divmod(ukey, C)
            keys, pos = np.unique(nc, return_inverse=True)
            dense = np.zeros((len(keys), C))
            dense[pos, cls] = wsum
        num_keys.append(keys), num_w.append(dense)
    return SplitStats(
        np.asarray(state.open_nodes), class_w, tuple(nominal), tuple(num_keys), tuple(num_w), num_missing, num_rows
    )


def split_statistics(block, state: GrowerState) -> SplitStats:
    """The stats of one block of training rows ``(X_num, X_nom, y, w)`` for the open nodes of ``state``.

    Pure and module-level: the engine maps it over partitions (``state`` broadcast once per level) and
    reduces with ``+``.  Rows are routed from the root; :func:`frontier_statistics` with entries kept from
    the previous level (the local driver does this) avoids re-routing.
    """
    X_num, X_nom, _, w = block
    entries = route(state.tree, X_num, X_nom, Entries.at_root(w))
    at_open = state.tree.kind[entries.node] == OPEN
    entries = Entries(entries.rows[at_open], entries.node[at_open], entries.w[at_open])
    return frontier_statistics(block, state, entries)
