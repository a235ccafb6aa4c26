"""TAN family against brute force on small data: value-level CMI, semi-lazy parent choice, exact
leave-one-out, HOCP counts, per-instance trees, and a generic check suite over every model of the family."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dbayes.counts import TableLayout, count_tables
from dbayes.data.bundled import bundled_path
from dbayes.errors import JobError, NotFittedError
from dbayes.models._tree import (
    ancestors,
    batched_prim_parents,
    friedman_log_cpt,
    is_chain,
    tree_joint_log_likelihood,
)
from dbayes.models.aode import AODE, WAODE
from dbayes.models.base import TrainingRows
from dbayes.models.hocp_tan import HOCPTAN, ConfigurationCounts
from dbayes.models.lazy_tan import LazyTAN
from dbayes.models.nb import laplace_log_prior
from dbayes.models.semilazy_tan import SemiLazyTAN, value_level_cmi
from dbayes.models.sp_tan import SuperParentTAN, loo_joint_log_likelihood
from dbayes.models.tan import TAN, conditional_mutual_information, maximum_spanning_tree, orient_tree


def make_data(seed=0, n=80, cards=(3, 2, 4, 3, 2), C=3, p_missing=0.08, dependent=True):
    """Rows with chained dependencies (so trees are not trivial) and some missing values."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    cols = []
    prev = y
    for v in cards:
        x = (prev + rng.integers(0, 2, n)) % v if dependent else rng.integers(0, v, n)
        prev = x
        cols.append(x.copy())
    for k, v in enumerate(cards):
        cols[k][rng.random(n) < p_missing] = v
    return np.asfortranarray(np.column_stack(cols)), y, tuple(cards), C


def fit(model, X, y, cards, C):
    t = count_tables(X, y, TableLayout(C, cards, pairs=True))
    return model.fit(t, TrainingRows(X, y, cards, C))


# -- brute-force estimates
def value_cmi_loop(X, y, C, k, j, ak, aj, cards):
    """Eq. 11 from the rows where both A_k and A_j are known."""
    rows = [r for r in range(len(y)) if X[r, k] < cards[k] and X[r, j] < cards[j]]
    N = len(rows)
    total = 0.0
    for c in range(C):
        n_c = sum(1 for r in rows if y[r] == c)
        n_ckj = sum(1 for r in rows if y[r] == c and X[r, k] == ak and X[r, j] == aj)
        n_ck = sum(1 for r in rows if y[r] == c and X[r, k] == ak)
        n_cj = sum(1 for r in rows if y[r] == c and X[r, j] == aj)
        if n_ckj:
            total += n_ckj / N * math.log((n_ckj / n_c) / ((n_ck / n_c) * (n_cj / n_c)))
    return total


def eq8_loop(X, y, cards, k, c, xk, cond):
    """θ_s(x_k | c, cond) of eq. 8 from the rows; ``cond`` = {attribute: value} (missing values excluded)."""
    known = [r for r in range(len(y)) if X[r, k] < cards[k]]
    V = cards[k]
    theta0 = (sum(1 for r in known if X[r, k] == xk) + 1) / (len(known) + V)
    match = [r for r in known if y[r] == c and all(X[r, a] == v for a, v in cond.items())]
    n_pi = len(match)
    n_pi_x = sum(1 for r in match if X[r, k] == xk)
    return (n_pi_x + 5.0 * theta0) / (n_pi + 5.0)


# -- value-level CMI
def test_value_level_cmi_matches_loop_and_sums_to_eq7():
    X, y, cards, C = make_data(seed=1)
    t = count_tables(X, y, TableLayout(C, cards))
    for k, j in [(0, 1), (2, 0), (3, 4), (1, 3)]:
        table = value_level_cmi(t, k, j)
        for ak in range(cards[k]):
            for aj in range(cards[j]):
                assert table[ak, aj] == pytest.approx(value_cmi_loop(X, y, C, k, j, ak, aj, cards), abs=1e-12)
        assert np.isneginf(table[-1]).all() and np.isneginf(table[:, -1]).all()
        assert table[:-1, :-1].sum() == pytest.approx(conditional_mutual_information(t)[k, j], abs=1e-12)


# -- semi-lazy TAN
def test_semilazy_parent_choice_matches_loop():
    X, y, cards, C = make_data(seed=2, n=120, cards=(3, 2, 4, 3, 2, 3))
    m = fit(SemiLazyTAN(), X, y, cards, C)
    assert not m.chain_
    anc = ancestors(m.parents_)
    tests = np.asfortranarray(np.vstack([X[:25], [[3, 0, 1, 0, 1, 0]]]))  # last row: root missing
    chosen = m.chosen_parents(tests)
    for r, x in enumerate(tests):
        for k in range(len(cards)):
            best, best_val = -1, -np.inf
            if x[k] < cards[k]:
                for j in anc[k]:  # nearest first: ties keep the nearest
                    if x[j] == cards[j]:
                        continue
                    v = value_cmi_loop(X, y, C, k, j, x[k], x[j], cards)
                    if v > best_val + 1e-12:
                        best, best_val = j, v
            if x[k] == cards[k]:
                # a missing a_k contributes nothing whichever parent is reported
                continue
            assert chosen[r, k] == best, (r, k)
    # the scores are eq. 10 with eq. 8 estimates
    jll = m.joint_log_likelihood(tests)
    for r, x in enumerate(tests[:6]):
        for c in range(C):
            want = laplace_log_prior(np.bincount(y, minlength=C))[c]
            for k in range(len(cards)):
                if x[k] == cards[k]:
                    continue
                cond = {} if chosen[r, k] < 0 else {int(chosen[r, k]): x[chosen[r, k]]}
                want += math.log(eq8_loop(X, y, cards, k, c, x[k], cond))
            assert jll[r, c] == pytest.approx(want, rel=1e-10)


def test_semilazy_chain_is_naive_bayes():
    X, y, cards, C = make_data(seed=3, cards=(3, 2, 4))  # three attributes: every tree is a chain
    m = fit(SemiLazyTAN(), X, y, cards, C)
    assert m.chain_ and is_chain(m.parents_)
    assert (m.chosen_parents(X) == -1).all()
    jll = m.joint_log_likelihood(X[:5])
    for r, x in enumerate(X[:5]):
        for c in range(C):
            want = laplace_log_prior(np.bincount(y, minlength=C))[c]
            want += sum(math.log(eq8_loop(X, y, cards, k, c, x[k], {})) for k in range(3) if x[k] < cards[k])
            assert jll[r, c] == pytest.approx(want, rel=1e-10)


def test_is_chain_and_ancestors():
    assert is_chain(np.array([-1, 0, 1, 2])) and is_chain(np.array([1, -1, 1]))
    assert not is_chain(np.array([-1, 0, 0, 0]))
    assert ancestors(np.array([-1, 0, 1, 0])) == [[], [0], [1, 0], [0]]
    with pytest.raises(ValueError):
        ancestors(np.array([1, 0]))


# -- SuperParent TAN: exact leave-one-out
def refit_loo_jll(X, y, cards, C, parents, r):
    keep = np.arange(len(y)) != r
    t = count_tables(X[keep], y[keep], TableLayout(C, cards))
    cpts = [friedman_log_cpt(t, k, int(parents[k]), 5.0) for k in range(len(cards))]
    return tree_joint_log_likelihood(laplace_log_prior(t.class_counts), cpts, parents, X[r : r + 1])[0]


@pytest.mark.parametrize("parents", [[-1, -1, -1, -1, -1], [-1, 0, 1, 2, 3], [2, -1, -1, 2, 0], [-1, 0, 0, 0, 0]])
def test_loo_from_tables_equals_refitting(parents):
    X, y, cards, C = make_data(seed=4, n=40)
    parents = np.array(parents)
    t = count_tables(X, y, TableLayout(C, cards))
    got = loo_joint_log_likelihood(t, X, y, parents)
    want = np.array([refit_loo_jll(X, y, cards, C, parents, r) for r in range(len(y))])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert (np.argmax(got, axis=1) == y).mean() == (np.argmax(want, axis=1) == y).mean()


def brute_superparent(X, y, cards, C):
    """Keogh-Pazzani greedy search with LOO accuracy by refitting for every row."""
    n, d = X.shape

    def acc(parents):
        return sum(int(np.argmax(refit_loo_jll(X, y, cards, C, parents, r)) == y[r]) for r in range(n))

    parents = np.full(d, -1)
    current = acc(parents)
    for _ in range(d - 1):
        anc = ancestors(parents)
        orphans = [o for o in range(d) if parents[o] < 0]
        best_s, best_a = -1, -1
        for s in range(d):
            eligible = [o for o in orphans if o != s and o not in anc[s]]
            if not eligible:
                continue
            p = parents.copy()
            p[eligible] = s
            a = acc(p)
            if a > best_a:
                best_s, best_a = s, a
        if best_s < 0:
            break
        best_o, best_c = -1, -1
        for o in orphans:
            if o == best_s or o in anc[best_s]:
                continue
            p = parents.copy()
            p[o] = best_s
            a = acc(p)
            if a > best_c:
                best_o, best_c = o, a
        if best_c <= current:
            break
        parents[best_o] = best_s
        current = best_c
    return parents


@pytest.mark.parametrize("seed", [11, 12])  # 11: stops after 3 arcs; 12: a full tree (n - 1 arcs)
def test_superparent_search_matches_brute_force(seed):
    X, y, cards, C = make_data(seed=seed, n=45, cards=(3, 2, 3, 2, 3), p_missing=0.05)
    m = fit(SuperParentTAN(), X, y, cards, C)
    assert (m.parents_ >= 0).sum() >= 3
    assert m.parents_.tolist() == brute_superparent(X, y, cards, C).tolist()
    assert len(m.loo_accuracy_path_) == 1 + int((m.parents_ >= 0).sum())
    assert all(b > a for a, b in zip(m.loo_accuracy_path_, m.loo_accuracy_path_[1:], strict=False))


# -- HOCP
def test_hocp_counts_match_loops():
    X, y, cards, C = make_data(seed=6, n=100, cards=(3, 2, 4, 3, 2, 3))
    m = fit(HOCPTAN(), X, y, cards, C)
    anc = ancestors(m.parents_)
    assert max(len(a) for a in anc) >= 2
    tests = np.asfortranarray(np.vstack([X[:20], [[0, 1, 3, 2, 0, 2], [3, 2, 4, 3, 2, 3]]]))
    for k in range(len(cards)):
        cfg = m.configs_[k]
        for c in range(C):
            n_pi, n_pi_x = cfg.match_counts(tests, c)
            for r, x in enumerate(tests):
                match = [
                    i
                    for i in range(len(y))
                    if y[i] == c and X[i, k] < cards[k] and all(X[i, j] == x[j] for j in anc[k])
                ]
                assert n_pi[r] == len(match)
                assert n_pi_x[r] == (sum(1 for i in match if X[i, k] == x[k]) if x[k] < cards[k] else 0)
    # and the scores are eq. 9 with eq. 8 estimates
    jll = m.joint_log_likelihood(tests[:4])
    for r, x in enumerate(tests[:4]):
        for c in range(C):
            want = laplace_log_prior(np.bincount(y, minlength=C))[c]
            for k in range(len(cards)):
                if x[k] < cards[k]:
                    known = [i for i in range(len(y)) if X[i, k] < cards[k]]
                    theta0 = (sum(1 for i in known if X[i, k] == x[k]) + 1) / (len(known) + cards[k])
                    match = [i for i in known if y[i] == c and all(X[i, j] == x[j] for j in anc[k])]
                    want += math.log((sum(1 for i in match if X[i, k] == x[k]) + 5 * theta0) / (len(match) + 5))
            assert jll[r, c] == pytest.approx(want, rel=1e-10)


def test_configuration_counts_without_training_rows():
    cfg = ConfigurationCounts(
        np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=np.int64), 2, [0, 1], np.array([3, 3, 3]), 2
    )
    n_pi, n_pi_x = cfg.match_counts(np.array([[0, 1, 1]]), 1)
    assert n_pi.tolist() == [0] and n_pi_x.tolist() == [0]


def nominal_dataset(name):
    df = pd.read_parquet(bundled_path(name))
    cols = [c for c in df.columns if c != "class"]
    y = df["class"].cat.codes.to_numpy().astype(np.int64)
    cards = tuple(len(df[c].cat.categories) for c in cols)
    X = np.asfortranarray(
        np.column_stack(
            [np.where(df[c].cat.codes < 0, v, df[c].cat.codes) for c, v in zip(cols, cards, strict=True)]
        ).astype(np.int64)
    )
    return X, y, cards, len(df["class"].cat.categories)


def test_hocp_overfits_as_in_table_2():
    """Seed 000 Table 2: HOCP has lower error than TAN on the training data and higher under 10-fold CV."""
    X, y, cards, C = nominal_dataset("tic-tac-toe")
    fold = np.random.default_rng(0).permutation(len(y)) % 10
    err = {}
    for M in (TAN, HOCPTAN):
        train_err = (fit(M(), X, y, cards, C).predict(X) != y).mean()
        wrong = 0
        for f in range(10):
            te = fold == f
            wrong += int((fit(M(), X[~te], y[~te], cards, C).predict(X[te]) != y[te]).sum())
        err[M.name] = (train_err, wrong / len(y))
    assert err["hocp-tan"][0] < err["tan"][0] - 0.02
    assert err["hocp-tan"][1] > err["tan"][1] + 0.02


# -- totally-lazy TAN
def test_batched_prim_equals_tan_tree():
    rng = np.random.default_rng(7)
    W = rng.random((30, 6, 6))
    W = W + W.transpose(0, 2, 1)
    W[:5, 1, 3] = W[:5, 3, 1] = W[:5, 0, 2]  # ties
    got = batched_prim_parents(W)
    for b in range(len(W)):
        assert got[b].tolist() == orient_tree(maximum_spanning_tree(W[b]), 6).tolist()


@pytest.mark.parametrize("variant", ["class", "all"])
def test_lazy_tan_trees_and_scores_match_loop(variant):
    X, y, cards, C = make_data(seed=8, n=90)
    m = fit(LazyTAN(variant=variant), X, y, cards, C)
    tests = np.asfortranarray(np.vstack([X[:8], [[0, 1, 3, 2, 0]]]))
    par = m.instance_parents(tests)
    jll = m.joint_log_likelihood(tests)
    d = len(cards)
    prior = laplace_log_prior(np.bincount(y, minlength=C))
    for r, x in enumerate(tests):
        for c in range(C):
            W = np.full((d, d), -np.inf)
            for i in range(d):
                for j in range(d):
                    if i != j and x[i] < cards[i] and x[j] < cards[j]:
                        if variant == "all":
                            W[i, j] = value_cmi_loop(X, y, C, i, j, x[i], x[j], cards)
                        else:
                            W[i, j] = value_level_cmi_one_class(X, y, C, i, j, x[i], x[j], cards, c)
            want_par = batched_prim_parents(W[None])[0]
            assert par[r, c].tolist() == want_par.tolist()
            want = prior[c]
            for k in range(d):
                if x[k] == cards[k]:
                    continue
                p = want_par[k]
                cond = {p: x[p]} if p >= 0 and x[p] < cards[p] else {}
                want += math.log(eq8_loop(X, y, cards, k, c, x[k], cond))
            assert jll[r, c] == pytest.approx(want, rel=1e-10)
        if variant == "all":
            assert (par[r] == par[r, 0]).all()


def value_level_cmi_one_class(X, y, C, k, j, ak, aj, cards, c):
    rows = [r for r in range(len(y)) if X[r, k] < cards[k] and X[r, j] < cards[j]]
    N = len(rows)
    n_c = sum(1 for r in rows if y[r] == c)
    n_ckj = sum(1 for r in rows if y[r] == c and X[r, k] == ak and X[r, j] == aj)
    n_ck = sum(1 for r in rows if y[r] == c and X[r, k] == ak)
    n_cj = sum(1 for r in rows if y[r] == c and X[r, j] == aj)
    return n_ckj / N * math.log(n_ckj * n_c / (n_ck * n_cj)) if n_ckj else 0.0


# -- generic checks over every model of the family
FAMILY = [
    SemiLazyTAN,
    HOCPTAN,
    SuperParentTAN,
    lambda: LazyTAN(variant="class"),
    lambda: LazyTAN(variant="all"),
    AODE,
    WAODE,
]
IDS = ["semilazy-tan", "hocp-tan", "sp-tan", "lazy-tan-class", "lazy-tan-all", "aode", "waode"]


@pytest.mark.parametrize("make", FAMILY, ids=IDS)
def test_generic_probabilities_unseen_missing(make):
    X, y, cards, C = make_data(seed=9, n=60)
    m = fit(make(), X, y, cards, C)
    assert m.needs_pairs
    # unseen value: declare one more value for attribute 0 than the data has
    cards2 = (cards[0] + 1, *cards[1:])
    X2 = X.copy()
    X2[X2[:, 0] == cards[0], 0] = cards2[0]  # re-code missing
    m2 = fit(make(), np.asfortranarray(X2), y, cards2, C)
    tests = np.asfortranarray(np.vstack([X2[:5], [[cards[0], 0, 0, 0, 0], list(cards2)]]))  # unseen; all missing
    for model, T in [(m, X[:10]), (m2, tests)]:
        p = model.predict_proba(T)
        assert p.shape == (len(T), C)
        assert np.isfinite(p).all()
        np.testing.assert_allclose(p.sum(axis=1), 1.0)
        assert model.predict(T).shape == (len(T),)
        # the coded blocks of dbayes.data.encode are unsigned bytes: same scores
        np.testing.assert_allclose(model.predict_proba(np.asfortranarray(T.astype(np.uint8))), p, rtol=1e-12)


@pytest.mark.parametrize("make", FAMILY, ids=IDS)
def test_generic_one_class_and_one_attribute(make):
    X, y, cards, C = make_data(seed=10, n=30)
    m = fit(make(), X, np.zeros_like(y), cards, 1)
    np.testing.assert_allclose(m.predict_proba(X[:4]), 1.0)
    X1 = np.asfortranarray(X[:, :1])
    m = fit(make(), X1, y, cards[:1], C)
    np.testing.assert_allclose(m.predict_proba(X1[:4]).sum(axis=1), 1.0)


@pytest.mark.parametrize("make", FAMILY, ids=IDS)
def test_generic_params_and_unfitted(make):
    m = make()
    params = m.get_params()
    clone = type(m)(**params)
    assert clone.get_params() == params
    if params:
        key = next(iter(params))
        m.set_params(**{key: params[key]})
        assert m.get_params() == params
    with pytest.raises(JobError):
        m.set_params(no_such_parameter=1)
    with pytest.raises(NotFittedError):
        m.predict(np.zeros((1, 3), dtype=np.int64))


def test_bad_parameters_raise_job_error():
    X, y, cards, C = make_data(seed=11, n=20)
    with pytest.raises(JobError):
        fit(LazyTAN(variant="none"), X, y, cards, C)
    t = count_tables(X, y, TableLayout(C, cards))
    for M in (HOCPTAN, SuperParentTAN):
        with pytest.raises(JobError):
            M().fit(t)


@pytest.mark.parametrize("make", FAMILY, ids=IDS)
def test_generic_uint8_training_rows(make):
    X, y, cards, C = make_data(seed=12, n=50)
    p64 = fit(make(), X, y, cards, C).predict_proba(X[:6])
    p8 = fit(make(), np.asfortranarray(X.astype(np.uint8)), y, cards, C).predict_proba(X[:6])
    np.testing.assert_allclose(p8, p64, rtol=1e-12)
