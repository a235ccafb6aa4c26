"""Per-level split statistics: additive over row blocks, equal to brute-force counts, and the grids."""

import numpy as np
import pandas as pd
import pytest

from dbayes.models.trees.grow import TreeGrower
from dbayes.models.trees.schema import (
    TreeSchema,
    encode_frame,
    merge_value_counts,
    numeric_grid,
    numeric_value_counts,
)
from dbayes.models.trees.stats import split_statistics
from dbayes.models.trees.tree import OPEN, Entries, route


def make_data(n=600, missing=0.0, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "a": rng.normal(size=n).round(2),
            "b": pd.Categorical(rng.choice(["u", "v", "w"], size=n), categories=["u", "v", "w", "z"]),
            "c": rng.integers(0, 40, size=n).astype(float),
            "d": pd.Categorical(rng.choice(["p", "q"], size=n)),
        }
    )
    y = np.where((X["a"] > 0.2) ^ (X["b"] == "v") | (X["c"] > 30), "yes", "no")
    flip = rng.random(n) < 0.1
    y = np.where(flip, np.where(y == "yes", "no", "yes"), y)
    if missing:
        for col in X.columns:
            X.loc[rng.random(n) < missing, col] = np.nan if X[col].dtype.kind == "f" else None
    return X, pd.Series(y)


def setup(X, y, w, max_exact=4096):
    schema = TreeSchema.from_frame(X, ["no", "yes"])
    X_num, X_nom = encode_frame(X, schema)
    yc = (y.to_numpy() == "yes").astype(np.int64)
    grids = tuple(numeric_grid(v, c, max_exact, f) for v, c, f in numeric_value_counts(X_num))
    return schema, (X_num, X_nom, yc, w), grids


def grow_levels(schema, block, grids, levels):
    grower = TreeGrower(schema, grids, len(block[2]))
    for _ in range(levels):
        grower.split_level(split_statistics(block, grower.state()))
        if grower.done:
            break
    return grower


def blocks_of(block, n_blocks):
    n = len(block[2])
    cuts = np.linspace(0, n, n_blocks + 1).astype(int)
    return [tuple(a[lo:hi] for a in block) for lo, hi in zip(cuts[:-1], cuts[1:], strict=True)]


def assert_stats_equal(a, b, exact):
    cmp = (
        np.testing.assert_array_equal
        if exact
        else (lambda x, y: np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12))
    )
    np.testing.assert_array_equal(a.open_nodes, b.open_nodes)
    cmp(a.class_w, b.class_w)
    for x, y in zip(a.nominal, b.nominal, strict=True):
        cmp(x, y)
    np.testing.assert_array_equal(a.num_key, b.num_key)
    cmp(a.num_w, b.num_w)
    cmp(a.num_missing, b.num_missing)
    np.testing.assert_array_equal(a.num_rows, b.num_rows)


@pytest.mark.parametrize("levels", [0, 1, 2, 3])
def test_stats_of_1_3_7_blocks_are_identical_with_integer_weights(levels):
    """Integer weights and no missing value: every sum is exact, so the stats are bit-identical."""
    X, y = make_data()
    w = np.random.default_rng(1).integers(1, 4, size=len(y)).astype(float)
    schema, block, grids = setup(X, y, w, max_exact=50)  # attribute "a" binned, "c" exact
    assert not grids[0].exact and grids[1].exact
    grower = grow_levels(schema, block, grids, levels)
    assert not grower.done
    state = grower.state()
    whole = split_statistics(block, state)
    for n_blocks in (3, 7):
        parts = [split_statistics(b, state) for b in blocks_of(block, n_blocks)]
        total = parts[0]
        for p in parts[1:]:
            total = total + p
        assert_stats_equal(whole, total, exact=True)


def test_stats_of_blocks_with_missing_values_agree_to_rounding():
    """Missing values below a split node carry fractional weights (w times the branch share), whose sums in
    another order may differ in the last bits: compared at a relative 1e-12."""
    X, y = make_data(missing=0.15)
    w = np.ones(len(y))
    schema, block, grids = setup(X, y, w)
    grower = grow_levels(schema, block, grids, 2)
    state = grower.state()
    whole = split_statistics(block, state)
    assert not np.all(whole.class_w == np.round(whole.class_w))  # fractional instances are present
    for n_blocks in (3, 7):
        parts = [split_statistics(b, state) for b in blocks_of(block, n_blocks)]
        total = parts[0]
        for p in parts[1:]:
            total = total + p
        assert_stats_equal(whole, total, exact=False)


def test_stats_at_the_root_equal_brute_force_counts():
    X, y = make_data(n=200, missing=0.1, seed=3)
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=len(y))
    schema, block, grids = setup(X, y, w)
    st = split_statistics(block, TreeGrower(schema, grids, len(y)).state())
    yc = block[2]
    # class weights
    expect = [sum(w[i] for i in range(len(y)) if yc[i] == c) for c in (0, 1)]
    np.testing.assert_allclose(st.class_w[0], expect, rtol=1e-12)
    # nominal "b": values u, v, w, z and missing last
    cats = ["u", "v", "w", "z"]
    for v_idx in range(5):
        for c in (0, 1):
            ref = sum(
                w[i]
                for i in range(len(y))
                if yc[i] == c and ((X["b"].iloc[i] == cats[v_idx]) if v_idx < 4 else pd.isna(X["b"].iloc[i]))
            )
            assert st.nominal[0][0, v_idx, c] == pytest.approx(ref, rel=1e-12)
    # numeric "c" (exact grid): class weights per distinct value, missing and known-row counts
    cells, cw = st.numeric_node(1, 0)
    for cell, row in zip(cells, cw, strict=True):
        v = grids[1].values[cell]
        for c in (0, 1):
            ref = sum(w[i] for i in range(len(y)) if yc[i] == c and X["c"].iloc[i] == v)
            assert row[c] == pytest.approx(ref, rel=1e-12)
    assert st.num_rows[0, 1] == X["c"].notna().sum()
    ref_missing = [sum(w[i] for i in range(len(y)) if yc[i] == c and pd.isna(X["c"].iloc[i])) for c in (0, 1)]
    np.testing.assert_allclose(st.num_missing[0, 1], ref_missing, rtol=1e-12)


def test_fractional_routing_follows_branch_shares():
    """A row with a missing split value goes down every branch with weight times the branch's share."""
    X, y = make_data(n=300, missing=0.2, seed=5)
    schema, block, grids = setup(X, y, np.ones(len(y)))
    grower = grow_levels(schema, block, grids, 1)
    root = grower.nodes[0]
    assert root.is_split
    shares = root.bag_dist.sum(axis=1) / root.bag_dist.sum()
    ent = route(grower.state().tree, block[0], block[1], Entries.at_root(block[3]))
    col = X.columns[root.attr]
    missing_rows = np.flatnonzero(X[col].isna().to_numpy())
    assert len(missing_rows) > 0
    r = missing_rows[0]
    here = ent.rows == r
    expected = [c for c, s in zip(root.children, shares, strict=True) if s > 1e-6]
    assert sorted(ent.node[here].tolist()) == expected
    np.testing.assert_allclose(sorted(ent.w[here]), sorted(s for s in shares if s > 1e-6), rtol=1e-15)
    # weights are conserved
    assert ent.w.sum() == pytest.approx(len(y), rel=1e-12)
    assert np.all(grower.state().tree.kind[ent.node] == OPEN)


def test_value_counts_merge_across_blocks_and_grid_quantiles():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(1000, 1)).round(3)
    x[rng.random(1000) < 0.05, 0] = np.nan
    whole = numeric_value_counts(x)
    a = numeric_value_counts(x[:400], row_offset=0)
    b = numeric_value_counts(x[400:], row_offset=400)
    merged = merge_value_counts(a, b)
    for u, v in zip(whole[0], merged[0], strict=True):
        np.testing.assert_array_equal(u, v)
    vals, counts, first = whole[0]
    exact = numeric_grid(vals, counts, 10_000, first)
    assert exact.exact and len(exact.values) == len(vals)
    binned = numeric_grid(vals, counts, 20)
    assert not binned.exact and len(binned.values) <= 21
    assert set(binned.values) <= set(vals)  # edges are observed values
    assert binned.values[-1] == vals[-1]
    # each value falls in the cell of the first edge >= it
    known = x[~np.isnan(x[:, 0]), 0]
    cells = binned.cells(known)
    assert np.all(known <= binned.values[cells])
    assert np.all((cells == 0) | (known > binned.values[cells - 1]))


@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_growing_from_block_sums_gives_the_local_tree(missing):
    """The engine's loop (stats summed over 5 blocks at every level, rows routed from the root) grows the
    same tree as the local driver, which keeps each row's position between levels."""
    from dbayes.models.trees import C45
    from dbayes.models.trees.grow import fit_local

    X, y = make_data(n=500, missing=missing, seed=11)
    w = np.ones(len(y))
    schema, block, grids = setup(X, y, w)
    local = fit_local(block, schema, grids)
    engine = TreeGrower(schema, grids, len(y))
    while not engine.done:
        state = engine.state()
        parts = [split_statistics(b, state) for b in blocks_of(block, 5)]
        total = parts[0]
        for p in parts[1:]:
            total = total + p
        engine.split_level(total)
    a, b = C45().finish(local, block), C45().finish(engine, block)
    assert a.tree_size > 5
    assert a.to_text() == b.to_text()


def test_state_and_stats_survive_pickling():
    """The engine ships the state to workers and the stats back: both must pickle unchanged."""
    import pickle

    X, y = make_data(n=200, missing=0.1, seed=2)
    schema, block, grids = setup(X, y, np.ones(len(y)))
    grower = grow_levels(schema, block, grids, 1)
    state = pickle.loads(pickle.dumps(grower.state()))
    st = split_statistics(block, grower.state())
    assert_stats_equal(pickle.loads(pickle.dumps(st)), split_statistics(block, state), exact=True)


@pytest.mark.parametrize("credal_s", [None, 1.0])
def test_level_evaluation_equals_the_per_node_functions(credal_s):
    """The vectorised search over a whole level agrees with evaluating each attribute at each node."""
    from dbayes.models.trees.splits import Criterion, evaluate_level, evaluate_nominal, evaluate_numeric

    X, y = make_data(n=800, missing=0.1, seed=4)
    schema, block, grids = setup(X, y, np.ones(len(y)), max_exact=60)
    grower = grow_levels(schema, block, grids, 2)
    stats = split_statistics(block, grower.state())
    crit = Criterion(credal_s)
    ev = evaluate_level(stats, schema, grids, 2.0, crit)
    K = len(stats.open_nodes)
    assert K >= 3
    n_valid = 0
    for k in range(K):
        total = stats.class_w[k].sum()
        for a, kind in enumerate(schema.kinds):
            j = schema.cols[a]
            if kind == "nominal":
                cand = evaluate_nominal(a, stats.nominal[j][k], total, 2.0, crit)
            else:
                cells, cw = stats.numeric_node(j, k)
                cand = evaluate_numeric(a, grids[j], cells, cw, int(stats.num_rows[k, j]), total, 2.0, crit)
            assert ev.valid[k, a] == cand.valid
            if cand.valid:
                n_valid += 1
                assert ev.gain[k, a] == pytest.approx(cand.gain, abs=1e-10)
                assert ev.ratio[k, a] == pytest.approx(cand.gain_ratio, abs=1e-10)
                bags, threshold = ev.split_of(stats, schema, grids, k, a)
                np.testing.assert_allclose(bags, cand.bags, atol=1e-9)
                if kind == "numeric":
                    assert threshold == cand.threshold
    assert n_valid > K


@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_dense_and_sparse_numeric_counting_agree(missing, monkeypatch):
    """The (column, node, cell) class weights are counted in a dense table when it is small, else by sorting
    the keys; with integer weights both give identical stats, and so do grid cells computed beforehand."""
    from dbayes.models.trees import stats as stats_mod
    from dbayes.models.trees.schema import grid_cells

    X, y = make_data(n=700, missing=missing, seed=8)
    w = np.random.default_rng(3).integers(1, 3, size=len(y)).astype(float)
    schema, block, grids = setup(X, y, w, max_exact=40)
    state = grow_levels(schema, block, grids, 2).state()
    monkeypatch.setattr(stats_mod, "DENSE_LIMIT", 1 << 40)
    dense = split_statistics(block, state)
    monkeypatch.setattr(stats_mod, "DENSE_LIMIT", 0)
    sparse = split_statistics(block, state)
    given = split_statistics(block, state, grid_cells(block[0], grids))
    assert len(dense.num_key) > 10
    assert_stats_equal(dense, sparse, exact=not missing)
    assert_stats_equal(sparse, given, exact=True)


@pytest.mark.parametrize("credal_s", [None, 0.5])
def test_several_trees_evaluated_together_equal_one_at_a_time(credal_s):
    """evaluate_levels (the engine evaluates every fold's tree of a classifier in one pass) gives each tree
    the evaluation and the splits it gets alone, for trees with different grids and numbers of open nodes."""
    from dbayes.models.trees.splits import Criterion, evaluate_level, evaluate_levels

    crit = Criterion(credal_s)
    X, y = make_data(n=900, missing=0.05, seed=12)
    levels = []
    for t, (lo, hi, depth) in enumerate([(0, 600, 2), (300, 900, 1), (100, 800, 3)]):
        Xt, yt = X.iloc[lo:hi].reset_index(drop=True), y.iloc[lo:hi].reset_index(drop=True)
        schema, block, grids = setup(Xt, yt, np.ones(len(yt)), max_exact=30 + 10 * t)
        grower = grow_levels(schema, block, grids, depth)
        levels.append((split_statistics(block, grower.state()), grids))
    together = evaluate_levels(levels, schema, 2.0, crit)
    for (st, grids), ev in zip(levels, together, strict=True):
        alone = evaluate_level(st, schema, grids, 2.0, crit)
        np.testing.assert_array_equal(ev.valid, alone.valid)
        np.testing.assert_array_equal(ev.gain, alone.gain)
        np.testing.assert_array_equal(ev.ratio, alone.ratio)
        for k in range(len(st.open_nodes)):
            for a in np.flatnonzero(alone.valid[k]):
                b1, t1 = ev.split_of(st, schema, grids, k, a)
                b2, t2 = alone.split_of(st, schema, grids, k, a)
                np.testing.assert_array_equal(b1, b2)
                assert t1 == t2 or (np.isnan(t1) and np.isnan(t2))
    assert sum(len(st.open_nodes) for st, _ in levels) > 6


def test_segmented_cumsum_sums_each_segment_on_its_own():
    from dbayes.models.trees.splits import _segmented_cumsum

    rng = np.random.default_rng(5)
    lengths = rng.integers(1, 40, size=60)
    lengths[3] = 300
    W = rng.uniform(0, 2, size=(int(lengths.sum()), 3)) / 7.0
    firsts = np.r_[0, np.cumsum(lengths)[:-1]]
    got = _segmented_cumsum(W, firsts)
    for f, n in zip(firsts, lengths, strict=True):
        np.testing.assert_array_equal(got[f : f + n], np.cumsum(W[f : f + n], axis=0))


@pytest.mark.parametrize("chunk", [1, 7, 50])
def test_numeric_search_in_chunks_of_segments_is_the_same(chunk, monkeypatch):
    """A level with millions of (node, cell) rows is searched a run of segments at a time: same result."""
    from dbayes.models.trees import splits
    from dbayes.models.trees.splits import Criterion, evaluate_level

    X, y = make_data(n=900, missing=0.05, seed=21)
    schema, block, grids = setup(X, y, np.ones(len(y)), max_exact=60)
    stats = split_statistics(block, grow_levels(schema, block, grids, 3).state())
    whole = evaluate_level(stats, schema, grids, 2.0, Criterion())
    monkeypatch.setattr(splits, "NUMERIC_CHUNK", chunk)
    parts = evaluate_level(stats, schema, grids, 2.0, Criterion())
    np.testing.assert_array_equal(whole.valid, parts.valid)
    np.testing.assert_array_equal(whole.gain, parts.gain)
    np.testing.assert_array_equal(whole.ratio, parts.ratio)
    for a, b in zip(whole.detail, parts.detail, strict=True):
        np.testing.assert_array_equal(a, b)
    assert whole.valid.any()


def test_stats_of_many_blocks_summed_at_once_equal_the_pairwise_sum():
    from dbayes.models.trees.stats import sum_stats

    X, y = make_data(n=800, seed=9)
    w = np.random.default_rng(4).integers(1, 4, size=len(y)).astype(float)
    schema, block, grids = setup(X, y, w, max_exact=50)
    state = grow_levels(schema, block, grids, 2).state()
    parts = [split_statistics(b, state) for b in blocks_of(block, 6)]
    pairwise = parts[0]
    for p in parts[1:]:
        pairwise = pairwise + p
    assert_stats_equal(sum_stats(parts), pairwise, exact=True)
    assert_stats_equal(sum_stats(parts), split_statistics(block, state), exact=True)
