"""WANBIA-CLL: estimates, compression to distinct rows, the optimum, boundary cases."""

import functools
import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.optimize import minimize

from dbayes.data.bundled import bundled_path
from dbayes.errors import NotFittedError
from dbayes.models.wanbia import WANBIA

CARDS = np.array([2, 3, 2, 3])


@pytest.fixture(scope="module")
def train():
    rng = np.random.default_rng(5)
    n = 150
    X = np.column_stack([rng.integers(0, v, n) for v in CARDS])
    X[:, 3] = X[:, 1]  # a duplicated attribute: the weights should split its evidence
    y = ((X[:, 0] + X[:, 1] + (rng.random(n) < 0.2)) % 2).astype(int)
    miss = rng.random(X.shape) < 0.05
    X[miss] = np.broadcast_to(CARDS, X.shape)[miss]
    return SimpleNamespace(X=np.asfortranarray(X), y=y, cards=CARDS, n_classes=2)


def _brute_tables(train, m=1.0):
    X, y, C = train.X, train.y, train.n_classes
    prior = [(sum(y == c) + m / C) / (len(y) + m) for c in range(C)]

    @functools.cache
    def cond(i, v, c):
        n_cv = sum(1 for r in range(len(y)) if y[r] == c and X[r, i] == v)
        n_ci = sum(1 for r in range(len(y)) if y[r] == c and X[r, i] < CARDS[i])
        return (n_cv + m / CARDS[i]) / (n_ci + m)

    return prior, cond


def _brute_ncll(train, w):
    prior, cond = _brute_tables(train)
    X = train.X.tolist()
    total = 0.0
    for x, c_true in zip(X, train.y.tolist(), strict=False):
        s = [
            math.log(prior[c]) + sum(w[i] * math.log(cond(i, x[i], c)) for i in range(len(CARDS)) if x[i] < CARDS[i])
            for c in range(2)
        ]
        total -= s[c_true] - math.log(sum(math.exp(v) for v in s))
    return total


def test_objective_on_distinct_rows_equals_row_by_row_and_reaches_optimum(train):
    model = WANBIA().fit(None, train)
    assert model.n_distinct_ < len(train.y)
    assert model.ncll_ == pytest.approx(_brute_ncll(train, model.weights_), rel=1e-10)
    ref = minimize(lambda w: _brute_ncll(train, w), np.ones(4), method="L-BFGS-B", bounds=[(0, 1)] * 4)
    assert model.ncll_ == pytest.approx(ref.fun, rel=1e-6)
    assert model.ncll_ <= _brute_ncll(train, np.ones(4)) + 1e-9  # never worse than naive Bayes
    assert np.all((model.weights_ >= 0) & (model.weights_ <= 1))
    # the duplicated attribute's evidence is shared: together they weigh about one attribute
    assert model.weights_[1] + model.weights_[3] < 1.5


def test_joint_log_likelihood_matches_formula(train):
    model = WANBIA().fit(None, train)
    prior, cond = _brute_tables(train)
    tests = np.array([[0, 1, 1, 1], [1, 3, 0, 2], [2, 3, 2, 3]])  # last row all missing
    jll = model.joint_log_likelihood(tests)
    for t, x in enumerate(tests):
        for c in range(2):
            expect = math.log(prior[c]) + sum(
                model.weights_[i] * math.log(cond(i, x[i], c)) for i in range(4) if x[i] < CARDS[i]
            )
            assert jll[t, c] == pytest.approx(expect, rel=1e-12)
    np.testing.assert_allclose(model.predict_proba(tests).sum(axis=1), 1.0)


def test_unfitted_and_bad_input(train):
    with pytest.raises(NotFittedError):
        WANBIA().predict(train.X)
    model = WANBIA().fit(None, train)
    with pytest.raises(ValueError):
        model.predict(np.array([[0, 0, 0, 4]]))  # code above V_i
    assert model.get_params() == {"m": 1.0, "max_iter": 15000}
    assert model.set_params(m=2.0).m == 2.0


def test_bundled_dataset_runs_and_beats_chance():
    pd = pytest.importorskip("pandas")
    df = pd.read_parquet(bundled_path("vote"))  # all nominal, with missing values
    y = df.pop("class").cat.codes.to_numpy()
    cards = np.array([len(df[c].cat.categories) for c in df.columns])
    X = np.column_stack(
        [np.where(df[c].cat.codes < 0, v, df[c].cat.codes) for c, v in zip(df.columns, cards, strict=False)]
    )
    tr = SimpleNamespace(X=X[::2], y=y[::2], cards=cards, n_classes=2)
    acc = (WANBIA().fit(None, tr).predict(X[1::2]) == y[1::2]).mean()
    assert acc > 0.85
