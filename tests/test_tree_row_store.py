"""The driver's row store for trees finished in memory: rows kept once, entries re-indexed, compaction."""

import numpy as np

from dbayes.evaluate.partition import TreeRowStore, tree_block_drop, tree_block_take
from dbayes.models.trees.tree import Entries


def _block(row_ids, rng):
    n = len(row_ids)
    X_num = rng.normal(size=(n, 2))
    X_nom = rng.integers(0, 3, size=(n, 2)).astype(np.int16)
    y = rng.integers(0, 2, size=n)
    return X_num, X_nom, y, np.zeros(n, np.int64), np.asarray(row_ids, np.int64)


def test_take_drop_and_store_keep_each_row_once():
    rng = np.random.default_rng(3)
    block = _block(np.arange(100, 110), rng)
    cells = {(8, 0): np.arange(20).reshape(10, 2)}
    entries = {
        ("a", 0): Entries(np.array([0, 1, 2, 3, 3]), np.array([1, 1, 2, 2, 4]), np.array([1, 1, 1, 0.5, 0.5])),
        ("b", 0): Entries(np.array([3, 5, 9]), np.array([7, 7, 8]), np.ones(3)),
    }
    moving = {("a", 0): np.array([2, 4]), ("b", 0): np.array([7])}
    taken = tree_block_take(block, cells, entries, moving)
    kept = tree_block_drop(entries, moving)
    assert list(kept[("a", 0)].node) == [1, 1] and list(kept[("b", 0)].node) == [8]
    row_ids, X_num, _, y, got_cells, local = taken
    assert list(row_ids) == [102, 103, 105]  # row 3 taken once for two trees and two nodes
    store = TreeRowStore()
    store.add([taken])
    store.add([taken])  # the same rows again: not stored twice
    assert list(store.row_ids) == [102, 103, 105]
    a, b = store.entries[("a", 0)], store.entries[("b", 0)]
    assert len(a.rows) == 6 and len(b.rows) == 4  # each add brings its entries
    assert list(a.node[:3]) == [2, 2, 4] and np.allclose(a.w[:3], [1, 0.5, 0.5])
    for e in (a, b):  # every stored entry points at its own row's data
        at = store.row_ids[e.rows] - 100
        assert np.array_equal(store.X_num[e.rows], block[0][at])
        assert np.array_equal(store.X_nom[e.rows], block[1][at])
        assert np.array_equal(store.y[e.rows], block[2][at])
        assert np.array_equal(store.cells[(8, 0)][e.rows], cells[(8, 0)][at])
    assert list(store.row_ids[a.rows[:3]]) == [102, 103, 103]
    # compaction forgets rows no entry references, keeping entries on their rows
    store.entries = {("b", 0): store.entries[("b", 0)]}
    before = store.row_ids[store.entries[("b", 0)].rows].copy()
    store.compact()
    assert list(store.row_ids) == [103, 105]
    assert np.array_equal(store.row_ids[store.entries[("b", 0)].rows], before)
    assert np.array_equal(store.X_num[store.entries[("b", 0)].rows], block[0][before - 100])
