"""LAWNB and LWNB: brute-force references, the batched optimiser against scipy, partitions."""

import functools
import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.optimize import minimize

from dbayes.errors import NotFittedError
from dbayes.models._lbfgs import minimize_box_batched
from dbayes.models.lawnb import LAWNB
from dbayes.models.lwnb import LWNB
from dbayes.models.neighbours import merge_neighbour_rows, merge_topk, neighbour_rows_block, topk_block
from dbayes.models.wanbia import weighted_nb_ncll

CARDS = np.array([3, 2, 4, 3, 2, 3])


def _data(seed, n, n_classes=3, p_missing=0.08):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, v, n) for v in CARDS])
    y = (X[:, 0] + X[:, 2] * (X[:, 1] + 1) + rng.integers(0, 2, n)) % n_classes
    miss = rng.random(X.shape) < p_missing
    X[miss] = np.broadcast_to(CARDS, X.shape)[miss]
    return np.asfortranarray(X), y


def _tables(train):
    """A stand-in for CountTables: cards, class_counts and attr(i) of shape (C, V_i + 1)."""
    C = train.n_classes

    def attr(i):
        V = CARDS[i]
        return np.bincount(train.y * (V + 1) + train.X[:, i], minlength=C * (V + 1)).reshape(C, V + 1)

    return SimpleNamespace(cards=CARDS, class_counts=np.bincount(train.y, minlength=C), attr=attr)


@pytest.fixture(scope="module")
def split():
    X, y = _data(3, 160)
    train = SimpleNamespace(X=X[:120], y=y[:120], cards=CARDS, n_classes=3)
    return train, X[120:]


# --- the objective and the optimiser -------------------------------------------------------


def test_ncll_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    P, R, C, d = 3, 7, 4, 5
    L = np.log(rng.dirichlet(np.ones(3), size=(P, R, C, d))[..., 0])
    L[rng.random(L.shape) < 0.1] = 0.0
    N = rng.integers(0, 3, (P, R, C)).astype(float)
    log_prior = np.log(rng.dirichlet(np.ones(C), size=P))
    w = rng.random((P, d))
    f, g = weighted_nb_ncll(w, log_prior, L, N)
    h = 1e-6
    for i in range(d):
        e = np.zeros(d)
        e[i] = h
        fp, _ = weighted_nb_ncll(w + e, log_prior, L, N)
        fm, _ = weighted_nb_ncll(w - e, log_prior, L, N)
        np.testing.assert_allclose(g[:, i], (fp - fm) / (2 * h), rtol=1e-6, atol=1e-6)
    # and the value against a direct formula
    for p in range(P):
        total = 0.0
        for r in range(R):
            s = [log_prior[p, c] + sum(w[p, i] * L[p, r, c, i] for i in range(d)) for c in range(C)]
            lse = math.log(sum(math.exp(v) for v in s))
            total -= sum(N[p, r, c] * (s[c] - lse) for c in range(C))
        assert f[p] == pytest.approx(total, rel=1e-12)


def test_batched_optimiser_matches_scipy_instance_by_instance(split):
    train, test = split
    model = LAWNB(k=25).fit(None, train)
    ids = model.neighbours(test)
    X_nb, y_nb, found = neighbour_rows_block(ids, train.X, train.y, np.arange(len(train.y)))
    log_prior, log_cond, w_batch, res = model.fit_local(test, X_nb, y_nb, found)
    L = model._gather(log_cond, X_nb, found)
    N = np.zeros(y_nb.shape + (3,))
    np.put_along_axis(N, y_nb[:, :, None], found[:, :, None].astype(float), axis=2)
    assert res.converged.all()
    d = len(CARDS)
    for b in range(test.shape[0]):

        def fun(w, b=b):
            f, g = weighted_nb_ncll(w[None], log_prior[b : b + 1], L[b : b + 1], N[b : b + 1])
            return f[0], g[0]

        ref = minimize(fun, np.ones(d), jac=True, method="L-BFGS-B", bounds=[(0, 1)] * d)
        assert res.fun[b] <= ref.fun + 1e-6 * max(1.0, abs(ref.fun))
        assert res.fun[b] == pytest.approx(ref.fun, rel=1e-6, abs=1e-6)
        np.testing.assert_allclose(w_batch[b], ref.x, atol=2e-3)


def test_batched_optimiser_on_quadratics_with_active_bounds():
    rng = np.random.default_rng(1)
    P, n = 40, 6
    A = rng.normal(size=(P, n, n))
    H = A @ A.transpose(0, 2, 1) + 0.5 * np.eye(n)
    c = rng.normal(scale=2.0, size=(P, n))

    def fun_grad(x, rows):
        Hx = np.einsum("pij,pj->pi", H[rows], x)
        return 0.5 * np.einsum("pi,pi->p", x, Hx) - np.einsum("pi,pi->p", c[rows], x), Hx - c[rows]

    res = minimize_box_batched(fun_grad, np.ones((P, n)), 0.0, 1.0)
    for p in range(P):
        ref = minimize(
            lambda x, p=p: (0.5 * x @ H[p] @ x - c[p] @ x, H[p] @ x - c[p]),
            np.ones(n),
            jac=True,
            method="L-BFGS-B",
            bounds=[(0, 1)] * n,
            options={"ftol": 1e-14, "gtol": 1e-10},
        )
        np.testing.assert_allclose(res.x[p], ref.x, atol=1e-3)


# --- LAWNB against a brute-force reference ----------------------------------------------------


def _brute_lawnb_tables(train, x, k, m, ties=False):
    X, y, C = train.X, train.y, train.n_classes
    n, d = X.shape
    dist = [sum(1 for i in range(d) if x[i] >= CARDS[i] or X[j, i] == CARDS[i] or X[j, i] != x[i]) for j in range(n)]
    nb = sorted(range(n), key=lambda j: (dist[j], j))
    nb = [j for j in nb if dist[j] <= dist[nb[k - 1]]] if ties else nb[:k]
    p_c = [(sum(y == c) + 1) / (n + C) for c in range(C)]
    prior = [(sum(1 for j in nb if y[j] == c) + m * p_c[c]) / (len(nb) + m) for c in range(C)]

    @functools.cache
    def cond(i, v, c):
        n_iv = sum(X[:, i] == v)
        n_i = sum(X[:, i] < CARDS[i])
        p = (n_iv + 1) / (n_i + CARDS[i])
        n_cv = sum(1 for j in nb if y[j] == c and X[j, i] == v)
        n_ci = sum(1 for j in nb if y[j] == c and X[j, i] < CARDS[i])
        return (n_cv + m * p) / (n_ci + m)

    return nb, prior, cond


@pytest.mark.parametrize("ties", [False, True])
def test_lawnb_matches_brute_force_reference(split, ties):
    train, test = split
    k, m = 20, 1.0
    model = LAWNB(k=k, m=m, ties=ties).fit(None, train)
    jll = model.joint_log_likelihood(test[:6])
    weights = model.local_weights(test[:6])
    d, C = len(CARDS), 3
    for t, x in enumerate(test[:6]):
        nb, prior, cond = _brute_lawnb_tables(train, x, k, m, ties)
        if ties:
            assert len(nb) >= k

        def ncll(w, nb=nb, prior=prior, cond=cond):
            total = 0.0
            for j in nb:
                s = [
                    math.log(prior[c])
                    + sum(w[i] * math.log(cond(i, train.X[j, i], c)) for i in range(d) if train.X[j, i] < CARDS[i])
                    for c in range(C)
                ]
                total -= s[train.y[j]] - math.log(sum(math.exp(v) for v in s))
            return total

        ref = minimize(ncll, np.ones(d), method="L-BFGS-B", bounds=[(0, 1)] * d)
        assert ncll(weights[t]) == pytest.approx(ref.fun, rel=1e-5, abs=1e-5)
        for c in range(C):
            expect = math.log(prior[c]) + sum(
                weights[t, i] * math.log(cond(i, x[i], c)) for i in range(d) if x[i] < CARDS[i]
            )
            assert jll[t, c] == pytest.approx(expect, rel=1e-10, abs=1e-10)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("n_parts", [1, 3, 7])
def test_lawnb_topk_reduction_equals_broadcast(split, n_parts, ties):
    train, test = split
    model = LAWNB(k=15, ties=ties, block_size=7).fit(None, train)
    whole = model.joint_log_likelihood(test)
    n = len(train.y)
    ids = np.arange(n)
    bounds = np.linspace(0, n, n_parts + 1).astype(int)
    parts = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=False)]
    _, nb_ids = merge_topk([topk_block(test, train.X[s], ids[s], 15, CARDS, ties=ties) for s in parts], 15, ties=ties)
    assert ties == (nb_ids.shape[1] > 15)  # the tie rule is exercised
    X_nb, y_nb, found = merge_neighbour_rows(
        [neighbour_rows_block(nb_ids, train.X[s], train.y[s], ids[s]) for s in parts]
    )
    reduced = model.joint_log_likelihood_neighbours(test, X_nb, y_nb, found)
    np.testing.assert_array_equal(reduced, whole)
    # a model fitted from count tables only (no training rows on this worker) agrees exactly
    light = LAWNB(k=15, ties=ties).fit(_tables(train), None)
    np.testing.assert_array_equal(light.joint_log_likelihood_neighbours(test, X_nb, y_nb, found), whole)
    with pytest.raises(RuntimeError):
        light.joint_log_likelihood(test)


def test_lawnb_boundary_cases(split):
    train, test = split
    with pytest.raises(NotFittedError):
        LAWNB().joint_log_likelihood(test)
    model = LAWNB(k=500).fit(None, train)  # k larger than the training set: all rows
    proba = model.predict_proba(test)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # an all-missing test row and a class absent from training still score finitely
    one_class = SimpleNamespace(X=train.X, y=np.zeros_like(train.y), cards=CARDS, n_classes=3)
    jll = LAWNB(k=10).fit(None, one_class).joint_log_likelihood(CARDS[None, :])
    assert np.isfinite(jll).all() and jll[0, 0] > jll[0, 1]
    with pytest.raises(ValueError):
        LAWNB(k=0).fit(None, train)


# --- LWNB against a transcription of Weka's LWL + NaiveBayes -----------------------------------


def _brute_lwnb(train, x, k):
    X, y, C = train.X, train.y, train.n_classes
    n, d = X.shape
    dist = [
        math.sqrt(sum(1 for i in range(d) if x[i] >= CARDS[i] or X[j, i] == CARDS[i] or X[j, i] != x[i]))
        for j in range(n)
    ]
    order = sorted(range(n), key=lambda j: dist[j])
    kk = min(k, n)
    bw = dist[order[kk - 1]]
    nb = [j for j in order if dist[j] <= bw]
    raw = [1.0001 - (1.0 if bw <= 0 else dist[j] / bw) for j in nb]
    w = [r * len(nb) / sum(raw) for r in raw]
    class_counts = [1.0] * C
    for wj, j in zip(w, nb, strict=False):
        class_counts[y[j]] += wj
    scores = []
    for c in range(C):
        s = math.log(class_counts[c] / sum(class_counts))
        for i in range(d):
            if x[i] >= CARDS[i]:
                continue
            counts = [1.0] * CARDS[i]
            for wj, j in zip(w, nb, strict=False):
                if y[j] == c and X[j, i] < CARDS[i]:
                    counts[X[j, i]] += wj
            s += math.log(counts[x[i]] / sum(counts))
        scores.append(s)
    return scores


@pytest.mark.parametrize("k", [1, 10, 50, None])
def test_lwnb_matches_weka_transcription(split, k):
    train, test = split
    model = LWNB(k=k).fit(None, train)
    jll = model.joint_log_likelihood(test)
    for t, x in enumerate(test):
        np.testing.assert_allclose(jll[t], _brute_lwnb(train, x, len(train.y) if k is None else k), rtol=1e-10)


@pytest.mark.parametrize("n_parts", [1, 3, 7])
def test_lwnb_topk_reduction_equals_broadcast(split, n_parts):
    train, test = split
    model = LWNB(k=12, block_size=5).fit(None, train)
    whole = model.joint_log_likelihood(test)
    n = len(train.y)
    ids = np.arange(n)
    bounds = np.linspace(0, n, n_parts + 1).astype(int)
    parts = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=False)]
    dist, nb_ids = merge_topk(
        [topk_block(test, train.X[s], ids[s], 12, CARDS, ties=True) for s in parts], 12, ties=True
    )
    X_nb, y_nb, found = merge_neighbour_rows(
        [neighbour_rows_block(nb_ids, train.X[s], train.y[s], ids[s]) for s in parts]
    )
    reduced = model.joint_log_likelihood_neighbours(test, dist, X_nb, y_nb, found)
    np.testing.assert_array_equal(reduced, whole)
    light = LWNB(k=12).fit(_tables(train), None)
    np.testing.assert_array_equal(light.joint_log_likelihood_neighbours(test, dist, X_nb, y_nb, found), whole)
