"""Credal-C4.5 (seed 003): s = 0 is C4.5, the imprecise info gain by direct formula, alpha <= 0."""

import math

import numpy as np
import pandas as pd
import pytest

from dbayes.data.bundled import bundled_path
from dbayes.models.trees import C45, CredalC45
from dbayes.models.trees.splits import Criterion


def load(name):
    df = pd.read_parquet(bundled_path(name))
    return df.drop(columns="class"), df["class"]


@pytest.mark.parametrize(
    "name", ["iris", "labor", "colic", "credit-a", "hepatitis", "glass", "vote", "heart-c", "breast-w", "lymph"]
)
def test_s_zero_makes_exactly_c45s_tree(name):
    X, y = load(name)
    c45 = C45().fit(X, y)
    credal = CredalC45(s=0.0).fit(X, y)
    assert credal.to_json() == c45.to_json()
    assert C45(unpruned=True).fit(X, y).to_json() == CredalC45(s=0.0, unpruned=True).fit(X, y).to_json()


def shannon(counts):
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts if c) if n else 0.0


def upper_entropy_abellan(counts, s):
    """Abellan (2006) for integer counts and s <= 1: s shared equally among the classes of minimal count."""
    m = min(counts)
    k = sum(1 for c in counts if c == m)
    n = sum(counts) + s
    return shannon([(c + s / k if c == m else c) / n for c in counts]) if n else 0.0


def iig_direct(table, s):
    """IIG_D(C, X) = H*(K(C)) - sum_i P_D(x_i) H*(K(C | x_i)), seed 003 sec. 3, by plain loops."""
    class_counts = [sum(row[c] for row in table) for c in range(len(table[0]))]
    N = sum(class_counts)
    h = [shannon(row) for row in table]
    top = max(h)
    B = [i for i, v in enumerate(h) if v == top]
    p_d = [(sum(row) + (s / len(B) if i in B else 0)) / (N + s) for i, row in enumerate(table)]
    return upper_entropy_abellan(class_counts, s) - sum(
        p * upper_entropy_abellan(row, s) for p, row in zip(p_d, table, strict=True)
    )


TABLES = [
    [[3, 1], [1, 3]],
    [[2, 1], [1, 2]],
    [[5, 0], [2, 2], [0, 4]],
    [[4, 1, 0], [0, 3, 2], [1, 1, 6]],
    [[6, 2], [6, 2], [0, 5]],
    [[0, 0], [7, 1], [1, 7]],
]


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("s", [0.0, 0.25, 0.5, 1.0])
def test_imprecise_info_gain_equals_the_direct_formula(table, s):
    bags = np.array(table, dtype=float)
    total = bags.sum()
    gain = float(Criterion(s).gain(bags, total))
    expected = iig_direct(table, s)
    if abs(expected * total) < 1e-6:  # J48 counts a (weighted) gain within 1e-6 of 0 as 0
        expected = 0.0
    assert gain == pytest.approx(expected, abs=1e-12)


def test_unknown_values_scale_the_gain_as_in_c45():
    bags = np.array([[4.0, 1.0], [0.0, 3.0]])
    full = float(Criterion(1.0).gain(bags, 8.0))
    with_unknown = float(Criterion(1.0).gain(bags, 10.0))  # 2 more instances with the value missing
    assert with_unknown == pytest.approx(full * 8 / 10, rel=1e-12)


def test_alpha_not_positive_stops_growth():
    """x = a: (2 yes, 1 no), x = b: (1 yes, 2 no).  C4.5: gain 1 - H(2/3) = 0.082 > 0, it splits.
    s = 1: H*(K(C)) = H(3.5/7, 3.5/7) = 1 and H*(K(C | a)) = H(2/4, 2/4) = 1, so IIG = 0: a leaf.
    s = 0.5: H*(K(C | a)) = H(2/3.5, 1.5/3.5) = 0.985, IIG = 0.015 > 0: it splits."""
    X = pd.DataFrame({"x": pd.Categorical(list("aaabbb"))})
    y = pd.Series(["yes", "yes", "no", "yes", "no", "no"])
    assert C45(unpruned=True).fit(X, y).tree_size == 3
    assert CredalC45(s=1.0, unpruned=True).fit(X, y).tree_size == 1
    assert CredalC45(s=0.5, unpruned=True).fit(X, y).tree_size == 3
    assert iig_direct([[2, 1], [1, 2]], 1.0) == pytest.approx(0.0, abs=1e-15)
    assert iig_direct([[2, 1], [1, 2]], 0.5) == pytest.approx(0.0148, abs=1e-4)


def test_credal_trees_fit_predict_and_shrink_with_s():
    X, y = load("credit-g")
    sizes = [CredalC45(s=s, unpruned=True).fit(X, y).tree_size for s in (0.0, 0.5, 1.0)]
    assert sizes[0] >= sizes[1] >= sizes[2]
    model = CredalC45(s=1.0).fit(X, y)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert (model.predict(X) == y.astype(object).to_numpy()).mean() > 0.7
    assert model.get_params()["s"] == 1.0
    assert model.to_text().startswith("Credal-C4.5 (s=1.0) pruned tree")
    with pytest.raises(ValueError, match="s must be >= 0"):
        CredalC45(s=-1.0).fit(X, y)


def test_attributes_without_values_or_with_one_value_are_harmless():
    rng = np.random.default_rng(0)
    n = 120
    X = pd.DataFrame(
        {"a": rng.normal(size=n), "none": pd.Categorical([None] * n, categories=[]), "one": pd.Categorical(["k"] * n)}
    )
    y = pd.Series(np.where(X["a"] > 0, "p", "q"))
    for model in (C45(), CredalC45(s=1.0)):
        model.fit(X, y)
        assert model.tree_size == 3 and model.to_text().splitlines()[3].startswith("a <= ")


def test_root_attribute_is_the_best_iigr_among_above_average_iig():
    """Weather data, s = 1: IIG of each attribute by the direct formula, IIGR = IIG / H(X), the root is the
    attribute of largest IIGR among those with IIG at least the average (seed 003, Fig. 1, steps 4-8)."""
    from test_trees_c45 import weather

    X, y = weather()
    yc = y.cat.codes.to_numpy()
    iig, iigr = {}, {}
    for name in X.columns:
        codes = X[name].cat.codes.to_numpy()
        table = [[int(np.sum((codes == v) & (yc == c))) for c in (0, 1)] for v in range(len(X[name].cat.categories))]
        iig[name] = iig_direct(table, 1.0)
        iigr[name] = iig[name] / shannon([sum(r) for r in table])
    average = sum(iig.values()) / len(iig)
    best = max((n for n in iig if iig[n] >= average - 1e-3), key=lambda n: iigr[n])
    model = CredalC45(s=1.0, unpruned=True).fit(X, y)
    assert model.to_dict()["attribute"] == best
    # with s = 1 the imprecise criterion prefers humidity (2 values) to outlook (3 values); C4.5 outlook
    assert best == "humidity"
    assert C45(unpruned=True).fit(X, y).to_dict()["attribute"] == "outlook"
