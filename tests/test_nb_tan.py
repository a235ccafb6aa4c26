"""Naive Bayes and TAN against the formulas computed directly, instance by instance."""

import itertools
import math

import numpy as np
import pytest
from conftest import random_codes

from dbayes.counts import TableLayout, count_tables
from dbayes.errors import JobError, NotFittedError
from dbayes.models import TAN, NaiveBayes
from dbayes.models.tan import conditional_mutual_information, maximum_spanning_tree, orient_tree


def _count(X, y, cond):
    return sum(1 for r in range(len(y)) if cond(X[r], y[r]))


def nb_brute(X, y, C, cards, x):
    """P(c | x) of seed 000 eq. 3 and 5 with Laplace estimates and sec. 2.2's missing-value rule."""
    scores = []
    for c in range(C):
        s = math.log((_count(X, y, lambda r, yy: yy == c) + 1) / (len(y) + C))
        for k, v in enumerate(cards):
            if x[k] == v:  # missing test value: skipped
                continue
            n_cv = _count(X, y, lambda r, yy: yy == c and r[k] == x[k])
            n_c = _count(X, y, lambda r, yy: yy == c and r[k] != v)  # class c, A_k known
            s += math.log((n_cv + 1) / (n_c + v))
        scores.append(s)
    m = max(scores)
    p = np.exp(np.array(scores) - m)
    return p / p.sum()


def test_naive_bayes_matches_formula(rng):
    cards = (3, 2, 4)
    X = random_codes(rng, 120, cards, missing_rate=0.15)
    y = rng.integers(0, 3, 120)
    nb = NaiveBayes().fit(count_tables(X, y, TableLayout(3, cards, pairs=False)))
    test = random_codes(rng, 25, cards, missing_rate=0.2)
    got = nb.predict_proba(test)
    for r in range(len(test)):
        assert np.allclose(got[r], nb_brute(X, y, 3, cards, test[r]), rtol=1e-12)


def cmi_brute(X, y, C, i, j, cards):
    rows = [r for r in range(len(y)) if X[r, i] != cards[i] and X[r, j] != cards[j]]
    n = len(rows)
    total = 0.0
    for c, a, b in itertools.product(range(C), range(cards[i]), range(cards[j])):
        n_cab = sum(1 for r in rows if y[r] == c and X[r, i] == a and X[r, j] == b)
        if n_cab == 0:
            continue
        n_c = sum(1 for r in rows if y[r] == c)
        n_ca = sum(1 for r in rows if y[r] == c and X[r, i] == a)
        n_cb = sum(1 for r in rows if y[r] == c and X[r, j] == b)
        total += n_cab / n * math.log((n_cab / n_c) / ((n_ca / n_c) * (n_cb / n_c)))
    return total


def spanning_trees(d):
    """Every spanning tree of the complete graph on d nodes (via Pruefer sequences)."""
    for seq in itertools.product(range(d), repeat=d - 2):
        degree = [1] * d
        for s in seq:
            degree[s] += 1
        edges = []
        seq = list(seq)
        for s in seq:
            leaf = min(k for k in range(d) if degree[k] == 1)
            edges.append((min(leaf, s), max(leaf, s)))
            degree[leaf] -= 1
            degree[s] -= 1
        u, v = [k for k in range(d) if degree[k] == 1]
        edges.append((min(u, v), max(u, v)))
        yield edges


def test_cmi_and_spanning_tree_match_brute_force(rng):
    cards = (3, 2, 3, 2, 2)
    base = rng.integers(0, 2, 300)
    X = random_codes(rng, 300, cards, missing_rate=0.05)
    X[:, 1] = np.where(rng.random(300) < 0.8, base, X[:, 1])
    X[:, 3] = np.where(rng.random(300) < 0.7, X[:, 1] % 2, X[:, 3])
    y = rng.integers(0, 2, 300)
    t = count_tables(X, y, TableLayout(2, cards))
    W = conditional_mutual_information(t)
    for i, j in itertools.combinations(range(5), 2):
        assert W[i, j] == pytest.approx(cmi_brute(X, y, 2, i, j, cards), rel=1e-10, abs=1e-14)
    best = max(spanning_trees(5), key=lambda es: sum(W[i, j] for i, j in es))
    got = maximum_spanning_tree(W)
    assert sum(W[i, j] for i, j in got) == pytest.approx(sum(W[i, j] for i, j in best), rel=1e-12)
    parents = orient_tree(got, 5)
    assert parents[0] == -1 and (parents[1:] >= 0).all()


def tan_brute(X, y, C, cards, parents, n0, x):
    """P(c | x) from seed 000 eq. 6 and 8 with Laplace class prior and marginal prior, by counting."""
    N = len(y)
    scores = []
    for c in range(C):
        s = math.log((_count(X, y, lambda r, yy: yy == c) + 1) / (N + C))
        for k, v in enumerate(cards):
            if x[k] == v:
                continue
            known = [r for r in range(N) if X[r, k] != v]
            prior = (sum(1 for r in known if X[r, k] == x[k]) + 1) / (len(known) + v)
            p = parents[k]
            if p >= 0 and x[p] != cards[p]:
                rows = [r for r in known if y[r] == c and X[r, p] == x[p]]
            else:
                rows = [r for r in known if y[r] == c]
            n_pi = len(rows)
            n_x = sum(1 for r in rows if X[r, k] == x[k])
            p_hat = n_x / n_pi if n_pi else 0.0
            s += math.log(n_pi / (n_pi + n0) * p_hat + n0 / (n_pi + n0) * prior)
        scores.append(s)
    e = np.exp(np.array(scores) - max(scores))
    return e / e.sum()


def test_tan_probabilities_match_eq8(rng):
    cards = (3, 2, 4, 2)
    X = random_codes(rng, 150, cards, missing_rate=0.1)
    X[:, 1] = np.where(rng.random(150) < 0.7, X[:, 0] % 2, X[:, 1])
    y = rng.integers(0, 2, 150)
    tan = TAN(n0=5).fit(count_tables(X, y, TableLayout(2, cards)))
    test = random_codes(rng, 30, cards, missing_rate=0.15)
    got = tan.predict_proba(test)
    for r in range(len(test)):
        assert np.allclose(got[r], tan_brute(X, y, 2, cards, tan.parents_, 5, test[r]), rtol=1e-12)


def test_unseen_values_missing_values_and_errors(rng):
    cards = (3, 3)
    X = np.asfortranarray([[0, 0], [0, 1], [1, 0], [1, 1]])  # value 2 of both attributes never seen
    y = np.array([0, 0, 1, 1])
    tables = count_tables(X, y, TableLayout(2, cards))
    for model in (NaiveBayes(), TAN(), TAN(smoothing="weka")):
        with pytest.raises(NotFittedError):
            model.predict(X)
        model.fit(tables)
        p = model.predict_proba(np.asfortranarray([[2, 2], [3, 3], [2, 3]]))
        assert np.isfinite(p).all() and np.allclose(p.sum(axis=1), 1.0)
    with pytest.raises(JobError, match="smoothing"):
        TAN(smoothing="nope").fit(tables)
    with pytest.raises(JobError, match="no parameter"):
        NaiveBayes().set_params(beta=1)
    assert TAN().set_params(n0=2).get_params() == {"smoothing": "friedman", "n0": 2, "alpha": 0.5}


def test_single_attribute_and_one_class_tables():
    X = np.asfortranarray([[0], [1], [1]])
    y = np.array([0, 0, 0])
    tables = count_tables(X, y, TableLayout(2, (2,)))
    for model in (NaiveBayes(), TAN(), TAN(smoothing="weka")):
        p = model.fit(tables).predict_proba(X)
        assert np.allclose(p.sum(axis=1), 1) and (p[:, 0] > p[:, 1]).all()


def weka_tan_loops(tables, alpha=0.5):
    """Weka 3.6 search.local.TAN transcribed with plain loops (the reference for the vectorised version)."""
    from scipy.special import gammaln

    def score(counts):  # LocalScoreSearchAlgorithm.calcScoreOfCounts, BAYES
        total = 0.0
        for row in counts.reshape(-1, counts.shape[-1]):
            total += sum(gammaln(alpha + v) for v in row) - gammaln(sum(alpha + v for v in row))
            total += gammaln(len(row) * alpha) - len(row) * gammaln(alpha)
        return total

    d = len(tables.cards)
    base = [score(tables.attr(i)[:, :-1]) for i in range(d)]
    f = [[score(tables.pair(t, h)[:, :-1, :-1]) if h != t else None for t in range(d)] for h in range(d)]
    linked = [False] * d
    link1, link2 = [], []
    for k in range(d - 1):
        best, b1, b2 = 0.0, -1, -1
        for n1 in range(d):
            for n2 in range(d):
                if n1 == n2 or (k > 0 and not (linked[n1] != linked[n2])):
                    continue
                if b1 == -1 or f[n1][n2] - base[n1] > best:
                    best, b1, b2 = f[n1][n2] - base[n1], n2, n1
        link1.append(b1)
        link2.append(b2)
        linked[b1] = linked[b2] = True
    parent = [-1] * d
    has = [False] * d
    for a, b in zip(link1, link2, strict=True):
        if not has[a]:
            parent[a], has[a] = b, True
        else:
            parent[b], has[b] = a, True
    return parent


def test_weka_tan_structure_matches_loop_transcription(rng):
    from dbayes.models.tan import mode_replaced, weka_tan_parents

    for _ in range(4):
        cards = tuple(int(v) for v in rng.integers(1, 5, 6))
        X = random_codes(rng, 200, cards, missing_rate=0.05)
        for k in range(1, 6):
            X[:, k] = np.where(rng.random(200) < 0.5, X[:, k - 1] % (cards[k] + 1), X[:, k])
        X = np.minimum(X, np.array(cards))
        y = rng.integers(0, 3, 200)
        tables, _ = mode_replaced(count_tables(X, y, TableLayout(3, cards)))
        assert weka_tan_parents(tables).tolist() == weka_tan_loops(tables)
