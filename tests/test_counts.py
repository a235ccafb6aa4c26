"""Count tables against counting with Python loops; the algebra; both kernels."""

import itertools

import numpy as np
import pytest
from conftest import random_codes

from dbayes.counts import CountTables, TableLayout, count_block, count_tables
from dbayes.counts.kernels import HAVE_NUMBA, count_block_numba, count_block_numpy


def brute_force(X, y, C, cards, fold=None, n_folds=1):
    """Class, attribute and pair counts with dictionaries and loops."""
    out = []
    for f in range(n_folds):
        rows = [r for r in range(len(y)) if fold is None or fold[r] == f]
        cls = np.zeros(C, dtype=np.int64)
        attr = [np.zeros((C, v + 1), dtype=np.int64) for v in cards]
        pair = {}
        for i, j in itertools.combinations(range(len(cards)), 2):
            pair[i, j] = np.zeros((C, cards[i] + 1, cards[j] + 1), dtype=np.int64)
        for r in rows:
            c = y[r]
            cls[c] += 1
            for i in range(len(cards)):
                attr[i][c, X[r, i]] += 1
            for (i, j), t in pair.items():
                t[c, X[r, i], X[r, j]] += 1
        out.append((cls, attr, pair))
    return out


CASES = [(3, (2, 5, 3, 1)), (2, (16, 3)), (26, (4, 4, 4, 4, 4))]


@pytest.mark.parametrize("C,cards", CASES)
@pytest.mark.parametrize("kernel", ["default", "numpy", "numba"])
def test_tables_equal_brute_force(rng, C, cards, kernel):
    X = random_codes(rng, 400, cards)
    y = rng.integers(0, C, 400)
    fold = rng.integers(0, 3, 400)
    layout = TableLayout(C, cards)
    if kernel == "numba" and not HAVE_NUMBA:
        pytest.skip("numba not installed")
    fn = {"default": count_block, "numpy": count_block_numpy, "numba": count_block_numba}[kernel]
    got = fn(X, y, layout, fold, 3)
    for f, (cls, attr, pair) in enumerate(brute_force(X, y, C, cards, fold, 3)):
        t = CountTables(layout, got[f])
        assert np.array_equal(t.class_counts, cls)
        for i in range(len(cards)):
            assert np.array_equal(t.attr(i), attr[i])
        for (i, j), p in pair.items():
            assert np.array_equal(t.pair(i, j), p)
            assert np.array_equal(t.pair(j, i), p.transpose(0, 2, 1))


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed")
def test_numba_and_numpy_kernels_agree_on_larger_block(rng):
    cards = (10, 9, 10, 16, 16, 7, 15, 6, 5, 2, 10, 10, 10, 16)
    X = random_codes(rng, 20_000, cards).astype(np.uint8)
    y = rng.integers(0, 2, 20_000)
    fold = rng.integers(0, 10, 20_000)
    layout = TableLayout(2, cards)
    assert np.array_equal(count_block_numba(X, y, layout, fold, 10), count_block_numpy(X, y, layout, fold, 10))


def test_sum_of_blocks_is_table_of_union_and_fold_subtraction(rng):
    cards = (3, 4, 2)
    X = random_codes(rng, 300, cards)
    y = rng.integers(0, 2, 300)
    layout = TableLayout(2, cards)
    whole = count_tables(X, y, layout)
    chunks = np.array_split(np.arange(300), 7)
    parts = [count_tables(X[s], y[s], layout) for s in chunks]
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    assert total == whole
    rest = np.concatenate(chunks[1:])
    assert whole - parts[0] == count_tables(X[rest], y[rest], layout)
    assert whole.n == 300


def test_recode_merges_slots_like_recounting(rng):
    cards = (5, 3)
    X = random_codes(rng, 500, cards)
    y = rng.integers(0, 2, 500)
    layout = TableLayout(2, cards)
    m0 = np.array([0, 0, 1, 1, 2, 3])  # 5 values -> 3 bins, missing -> 3
    coarse = X.copy()
    coarse[:, 0] = m0[X[:, 0]]
    expected = count_tables(coarse, y, TableLayout(2, (3, 3)))
    got = count_tables(X, y, layout).recode([m0, None], (3, 3))
    assert got == expected


def test_layout_rejects_mismatched_algebra():
    a = CountTables(TableLayout(2, (2, 2)))
    b = CountTables(TableLayout(2, (2, 3)))
    with pytest.raises(ValueError, match="different layouts"):
        a + b


def test_without_pairs_and_empty_block():
    layout = TableLayout(3, (2, 2))
    empty = count_block(np.empty((0, 2), dtype=np.uint8), np.empty(0, dtype=np.int64), layout, None, 2)
    assert empty.shape == (2, layout.size) and not empty.any()
    t = CountTables(layout, layout.empty())
    assert t.without_pairs().layout.pairs is False
    with pytest.raises(ValueError, match="without attribute pairs"):
        t.without_pairs().pair(0, 1)
