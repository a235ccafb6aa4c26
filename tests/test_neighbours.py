"""Nearest neighbours on codes: brute force, ties, and the top-k reduction over partitions."""

import numpy as np
import pytest

from dbayes.models.neighbours import (
    PAD_DIST,
    block_distances,
    merge_neighbour_rows,
    merge_topk,
    neighbour_rows_block,
    topk_block,
)


def _coded(rng, n, cards, p_missing=0.1):
    cols = []
    for v in cards:
        col = rng.integers(0, v, n)
        col[rng.random(n) < p_missing] = v
        cols.append(col)
    return np.asfortranarray(np.column_stack(cols))


def _brute_distance(a, b, cards):
    dist = 0
    for i, v in enumerate(cards):
        if a[i] == v or b[i] == v or a[i] != b[i]:
            dist += 1
    return dist


def _brute_topk(test_X, train_X, train_ids, k, cards, ties):
    out = []
    for t in test_X:
        pairs = sorted((_brute_distance(t, r, cards), int(i)) for r, i in zip(train_X, train_ids, strict=False))
        kk = min(k, len(pairs))
        if ties:
            kth = pairs[kk - 1][0]
            pairs = [p for p in pairs if p[0] <= kth]
        else:
            pairs = pairs[:kk]
        out.append(pairs)
    return out


def _as_pairs(dist, ids):
    return [
        [(int(d), int(i)) for d, i in zip(drow, irow, strict=False) if i >= 0]
        for drow, irow in zip(dist, ids, strict=False)
    ]


CARDS = np.array([2, 3, 2, 4, 2])


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    train = _coded(rng, 120, CARDS)
    test = _coded(rng, 25, CARDS)
    ids = rng.permutation(1000)[:120]  # ids need not be sorted nor contiguous
    return test, train, ids


def test_distances_match_brute_force_and_missing_never_matches(data):
    test, train, _ = data
    D = block_distances(test, train, CARDS)
    for t in range(test.shape[0]):
        for j in range(train.shape[0]):
            assert D[t, j] == _brute_distance(test[t], train[j], CARDS)
    both_missing = np.full((1, len(CARDS)), CARDS)
    assert block_distances(both_missing, both_missing, CARDS)[0, 0] == len(CARDS)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("k", [1, 5, 30, 200])
def test_topk_matches_brute_force(data, k, ties):
    test, train, ids = data
    dist, got_ids = topk_block(test, train, ids, k, CARDS, ties=ties)
    assert _as_pairs(dist, got_ids) == _brute_topk(test, train, ids, k, CARDS, ties)
    assert np.all((got_ids >= 0) | (dist == PAD_DIST))


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("n_chunks", [1, 3, 7])
@pytest.mark.parametrize("k", [1, 6, 40])
def test_merge_over_chunks_equals_whole(data, n_chunks, k, ties):
    test, train, ids = data
    whole = topk_block(test, train, ids, k, CARDS, ties=ties)
    rng = np.random.default_rng(n_chunks)
    cut = np.sort(rng.choice(np.arange(1, train.shape[0]), n_chunks - 1, replace=False))
    parts = [
        topk_block(test, train[sl], ids[sl], k, CARDS, ties=ties)
        for sl in (slice(a, b) for a, b in zip(np.r_[0, cut], np.r_[cut, train.shape[0]], strict=False))
    ]
    merged = merge_topk(parts, k, ties=ties)
    np.testing.assert_array_equal(merged[0], whole[0])
    np.testing.assert_array_equal(merged[1], whole[1])
    # merging is associative: a tree of merges gives the same lists
    if n_chunks == 7:
        tree = merge_topk([merge_topk(parts[:3], k, ties=ties), merge_topk(parts[3:], k, ties=ties)], k, ties=ties)
        np.testing.assert_array_equal(tree[1], whole[1])


def test_ties_broken_by_smaller_id():
    train = np.zeros((6, 2), dtype=np.int64)  # all identical: distance 0 to the test row
    ids = np.array([50, 10, 40, 20, 30, 60])
    dist, got = topk_block(np.zeros((1, 2), dtype=np.int64), train, ids, 3, [2, 2])
    assert got.tolist() == [[10, 20, 30]]
    dist, got = topk_block(np.zeros((1, 2), dtype=np.int64), train, ids, 3, [2, 2], ties=True)
    assert got.tolist() == [[10, 20, 30, 40, 50, 60]]


def test_fewer_training_rows_than_k_and_empty_partition(data):
    test, train, ids = data
    dist, got = topk_block(test, train[:4], ids[:4], 10, CARDS)
    assert got.shape == (test.shape[0], 4)
    empty = topk_block(test, train[:0], ids[:0], 10, CARDS)
    merged = merge_topk([empty, (dist, got)], 10)
    np.testing.assert_array_equal(merged[1], got)


def test_neighbour_rows_gathered_across_partitions(data):
    test, train, ids = data
    y = np.arange(train.shape[0]) % 3
    _, nb_ids = topk_block(test, train, ids, 8, CARDS, ties=True)
    parts = [neighbour_rows_block(nb_ids, train[s], y[s], ids[s]) for s in (slice(0, 50), slice(50, None))]
    X_nb, y_nb, found = merge_neighbour_rows(parts)
    assert np.array_equal(found, nb_ids >= 0)
    pos = {int(i): r for r, i in enumerate(ids)}
    for t in range(nb_ids.shape[0]):
        for s in range(nb_ids.shape[1]):
            if nb_ids[t, s] >= 0:
                assert np.array_equal(X_nb[t, s], train[pos[int(nb_ids[t, s])]])
                assert y_nb[t, s] == y[pos[int(nb_ids[t, s])]]


def test_many_attributes_use_a_wider_accumulator():
    rng = np.random.default_rng(2)
    cards = np.full(300, 2)
    a = _coded(rng, 3, cards, p_missing=0.0)
    b = 1 - a  # every attribute differs: distance 300 does not fit in uint8
    D = block_distances(a, b, cards)
    assert D.dtype == np.uint16 and np.all(np.diag(D) == 300)
    dist, ids = topk_block(a, b, np.arange(3), 1, cards)
    assert dist.dtype == np.int32 and dist.max() <= 300


@pytest.mark.parametrize("ties", [False, True])
def test_large_distances_take_the_partition_fallback(ties):
    rng = np.random.default_rng(4)
    cards = np.full(40, 5)
    train, test = _coded(rng, 60, cards), _coded(rng, 6, cards)  # k-th distances well above 8
    ids = np.arange(60)
    dist, got = topk_block(test, train, ids, 5, cards, ties=ties)
    assert dist[dist < PAD_DIST].min() > 8
    assert _as_pairs(dist, got) == _brute_topk(test, train, ids, 5, cards, ties)
