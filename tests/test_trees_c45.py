"""C4.5 (J48): a hand-worked tree, J48's own outputs as golden values, boundary cases."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from dbayes.data.bundled import bundled_path
from dbayes.errors import NotFittedError
from dbayes.models.trees import C45
from dbayes.models.trees.prune import added_errors
from dbayes.models.trees.splits import Criterion, evaluate_nominal

# The weather ("play tennis") data of Quinlan (1986) / Witten & Frank, nominal version.
WEATHER = [
    ("sunny", "hot", "high", "FALSE", "no"),
    ("sunny", "hot", "high", "TRUE", "no"),
    ("overcast", "hot", "high", "FALSE", "yes"),
    ("rainy", "mild", "high", "FALSE", "yes"),
    ("rainy", "cool", "normal", "FALSE", "yes"),
    ("rainy", "cool", "normal", "TRUE", "no"),
    ("overcast", "cool", "normal", "TRUE", "yes"),
    ("sunny", "mild", "high", "FALSE", "no"),
    ("sunny", "cool", "normal", "FALSE", "yes"),
    ("rainy", "mild", "normal", "FALSE", "yes"),
    ("sunny", "mild", "normal", "TRUE", "yes"),
    ("overcast", "mild", "high", "TRUE", "yes"),
    ("overcast", "hot", "normal", "FALSE", "yes"),
    ("rainy", "mild", "high", "TRUE", "no"),
]
TEMPERATURE = [85, 80, 83, 70, 68, 65, 64, 72, 69, 75, 75, 72, 81, 71]
HUMIDITY = [85, 90, 86, 96, 80, 70, 65, 95, 70, 80, 70, 90, 75, 91]


def weather(numeric=False):
    df = pd.DataFrame(WEATHER, columns=["outlook", "temperature", "humidity", "windy", "play"])
    cats = {
        "outlook": ["sunny", "overcast", "rainy"],
        "temperature": ["hot", "mild", "cool"],
        "humidity": ["high", "normal"],
        "windy": ["TRUE", "FALSE"],
    }
    X = pd.DataFrame({c: pd.Categorical(df[c], categories=v) for c, v in cats.items()})
    if numeric:
        X["temperature"] = np.array(TEMPERATURE, float)
        X["humidity"] = np.array(HUMIDITY, float)
    return X, pd.Series(pd.Categorical(df["play"], categories=["yes", "no"]))


def H(*counts):
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts if c)


def test_weather_gains_by_hand():
    """Root: 9 yes / 5 no, H = 0.940.  Gains: outlook 0.940 - (5*H(2,3) + 4*0 + 5*H(3,2))/14 = 0.247,
    humidity 0.940 - (7*H(3,4) + 7*H(6,1))/14 = 0.152, windy 0.048, temperature 0.029."""
    X, y = weather()
    y_codes = y.cat.codes.to_numpy()
    crit = Criterion()
    expected = {
        "outlook": H(9, 5) - (5 * H(2, 3) + 5 * H(3, 2)) / 14,
        "temperature": H(9, 5) - (4 * H(2, 2) + 6 * H(4, 2) + 4 * H(3, 1)) / 14,
        "humidity": H(9, 5) - (7 * H(3, 4) + 7 * H(6, 1)) / 14,
        "windy": H(9, 5) - (6 * H(3, 3) + 8 * H(6, 2)) / 14,
    }
    for a, name in enumerate(X.columns):
        codes = X[name].cat.codes.to_numpy()
        V = len(X[name].cat.categories)
        table = np.zeros((V + 1, 2))
        np.add.at(table, (codes, y_codes), 1.0)
        cand = evaluate_nominal(a, table, 14.0, 2, crit)
        assert cand.valid
        assert cand.gain == pytest.approx(expected[name], abs=1e-12)
        split_info = H(*table[:-1].sum(axis=1))
        assert cand.gain_ratio == pytest.approx(expected[name] / split_info, abs=1e-12)
    assert expected["outlook"] == pytest.approx(0.2467, abs=1e-4)


def test_weather_tree_by_hand():
    """Expected tree, derived by hand.

    Root: average gain (0.247 + 0.029 + 0.152 + 0.048) / 4 = 0.119; above it outlook (ratio 0.247/1.577
    = 0.156) and humidity (0.152/1 = 0.152): outlook.  sunny (2 yes, 3 no): humidity separates the classes
    (gain 0.971, ratio 1.0) beating temperature (0.571, ratio 0.375); windy's 0.020 is below the average.
    overcast (4 yes): pure leaf.  rainy (3 yes, 2 no): windy separates (ratio 1.0).
    Pruning keeps it: the sunny subtree's estimated errors U(3,0) + U(2,0) = 3(1 - 0.25^(1/3))
    + 2(1 - 0.25^(1/2)) = 2.110 are below those of a leaf, 2 + U(5,2) = 3.222 (less the 0.1 margin).
    """
    X, y = weather()
    model = C45().fit(X, y)
    assert model.to_text().splitlines()[3:10] == [
        "outlook = sunny",
        "|   humidity = high: no (3.0)",
        "|   humidity = normal: yes (2.0)",
        "outlook = overcast: yes (4.0)",
        "outlook = rainy",
        "|   windy = TRUE: no (2.0)",
        "|   windy = FALSE: yes (3.0)",
    ]
    assert (model.tree_size, model.n_leaves) == (8, 5)
    assert 3 * (1 - 0.25 ** (1 / 3)) + 2 * (1 - 0.25**0.5) == pytest.approx(2.110, abs=1e-3)
    assert 2 + added_errors(5, 2, 0.25) == pytest.approx(3.222, abs=1e-3)
    np.testing.assert_array_equal(model.predict(X), y.astype(object).to_numpy())


def test_weather_numeric_tree_is_j48s():
    """Golden: Weka's J48 on weather.numeric.arff (Witten & Frank, Data Mining, the J48 example output).

    Hand check of the numeric split at sunny: humidities 70y 70y | 85n 90n 95n; two admissible cuts
    (each side >= 2), best gain 0.971 minus the MDL correction log2(2)/5 = 0.771; the midpoint 77.5 is
    moved down to the largest training humidity below it, 75.
    """
    X, y = weather(numeric=True)
    lines = C45().fit(X, y).to_text().splitlines()[3:10]
    assert lines == [
        "outlook = sunny",
        "|   humidity <= 75: yes (2.0)",
        "|   humidity > 75: no (3.0)",
        "outlook = overcast: yes (4.0)",
        "outlook = rainy",
        "|   windy = TRUE: no (2.0)",
        "|   windy = FALSE: yes (3.0)",
    ]


def test_added_errors_matches_the_normal_approximation():
    z = 0.6744897501960817  # Phi^-1(0.75)
    N, e = 20.0, 4.0
    f = (e + 0.5) / N
    r = (f + z * z / (2 * N) + z * math.sqrt(f / N - f * f / N + z * z / (4 * N * N))) / (1 + z * z / N)
    assert added_errors(N, e, 0.25) == pytest.approx(r * N - e, rel=1e-12)
    assert added_errors(N, 0.0, 0.25) == pytest.approx(N * (1 - 0.25 ** (1 / N)), rel=1e-15)
    assert added_errors(4.0, 3.7, 0.25) == pytest.approx(0.3, rel=1e-12)  # e + 0.5 >= N


# Golden: Weka 3.6.14, `java weka.classifiers.trees.J48 -t iris.arff -no-cv -C 0.25 -M 2`, on the bundled
# iris data (run by the trees engineer, 2026-11-29).
IRIS_J48 = """\
petalwidth <= 0.6: Iris-setosa (50.0)
petalwidth > 0.6
|   petalwidth <= 1.7
|   |   petallength <= 4.9: Iris-versicolor (48.0/1.0)
|   |   petallength > 4.9
|   |   |   petalwidth <= 1.5: Iris-virginica (3.0)
|   |   |   petalwidth > 1.5: Iris-versicolor (3.0/1.0)
|   petalwidth > 1.7: Iris-virginica (46.0/1.0)"""


def load(name):
    df = pd.read_parquet(bundled_path(name))
    return df.drop(columns="class"), df["class"]


def test_iris_tree_is_j48s():
    X, y = load("iris")
    model = C45().fit(X, y)
    assert "\n".join(model.to_text().splitlines()[3:11]) == IRIS_J48
    assert (model.tree_size, model.n_leaves) == (9, 5)


def weka_cv_folds(y, folds=10, seed=1):
    """Weka's Evaluation.crossValidateModel orders (dbayes.evaluate.weka_folds replays them)."""
    from dbayes.evaluate.weka_folds import weka_cv_orders

    return weka_cv_orders(y, folds, seed)


# Golden: Weka 3.6.14 J48 -C 0.25 -M 2, 10-fold CV with -s 1 (the project's Weka reference table,
# dataset,classifier=J48,mode=cv,accuracy_pct), on the same bundled datasets.
WEKA_J48_CV = {
    "iris": 96.0,
    "labor": 73.6842105263158,
    "hepatitis": 83.87096774193549,
    "colic": 85.32608695652173,
    "glass": 66.82242990654206,
}


@pytest.mark.weka
@pytest.mark.parametrize("name", sorted(WEKA_J48_CV))
def test_cross_validated_accuracy_equals_j48s_on_weka_folds(name):
    X, y = load(name)
    codes = y.cat.codes.to_numpy()
    correct = 0
    for train, test in weka_cv_folds(codes):
        model = C45().fit(X.iloc[train], y.iloc[train])
        correct += int((model.predict(X.iloc[test]) == y.iloc[test].astype(object).to_numpy()).sum())
    assert 100.0 * correct / len(y) == pytest.approx(WEKA_J48_CV[name], abs=1e-9)


def test_missing_value_at_prediction_is_shared_between_branches():
    X, y = weather()
    model = C45().fit(X, y)
    row = pd.DataFrame(
        {
            "outlook": pd.Categorical([None], categories=["sunny", "overcast", "rainy"]),
            "temperature": pd.Categorical(["hot"], categories=["hot", "mild", "cool"]),
            "humidity": pd.Categorical(["high"], categories=["high", "normal"]),
            "windy": pd.Categorical(["TRUE"], categories=["TRUE", "FALSE"]),
        }
    )
    # sunny (5/14) -> humidity high -> no; overcast (4/14) -> yes; rainy (5/14) -> windy TRUE -> no
    np.testing.assert_allclose(model.predict_proba(row)[0], [4 / 14, 10 / 14], atol=1e-15)
    assert model.predict(row)[0] == "no"


def test_missing_values_in_training_follow_j48():
    """Golden: Weka 3.6.14 `J48 -t colic.arff -no-cv` on the bundled colic data (many missing values; the
    fractional leaf weights come from instances shared between branches)."""
    X, y = load("colic")
    model = C45().fit(X, y)
    assert model.to_text().splitlines()[3:8] == [
        "surgery = yes: yes (215.17/26.0)",
        "surgery = no",
        "|   outcome = lived: no (110.6/13.6)",
        "|   outcome = died: yes (23.13/7.0)",
        "|   outcome = euthanized: yes (19.1/6.0)",
    ]
    assert (model.tree_size, model.n_leaves) == (6, 4)


def test_boundary_cases():
    X, y = weather()
    with pytest.raises(NotFittedError):
        C45().predict(X)
    one_class = C45().fit(X, pd.Series(["yes"] * len(X)))
    assert one_class.tree_size == 1 and list(one_class.predict(X)) == ["yes"] * len(X)
    # a value never seen in training is routed like a missing value, not an IndexError
    model = C45().fit(X, y)
    odd = X.head(1).astype(object)
    odd.loc[odd.index[0], "outlook"] = "foggy"
    assert model.predict_proba(odd).shape == (1, 2)
    # an attribute that is always missing is never chosen
    X2 = X.copy()
    X2["empty"] = np.nan
    assert model.to_json() == C45().fit(X2, y).to_json()


def test_params_json_and_unpruned():
    model = C45(confidence=0.1)
    assert model.get_params()["confidence"] == 0.1
    assert model.set_params(min_leaf=3).min_leaf == 3
    with pytest.raises(ValueError):
        model.set_params(depth=3)
    X, y = load("credit-a")
    pruned, unpruned = C45().fit(X, y), C45(unpruned=True).fit(X, y)
    assert unpruned.tree_size > pruned.tree_size
    tree = json.loads(pruned.to_json())

    def count(node):
        return 1 + sum(count(b["node"]) for b in node.get("branches", []))

    assert count(tree) == pruned.tree_size
    assert tree["attribute"] == "A9" and tree["kind"] == "nominal"
    assert sum(tree["class_weights"]) == pytest.approx(len(y))


def test_binned_numeric_attribute_uses_observed_quantile_thresholds():
    X, y = load("diabetes")
    model = C45(max_exact_values=16).fit(X, y)
    exact = C45().fit(X, y)
    for nd in model.nodes_:
        if nd.is_split and model.schema_.kinds[nd.attr] == "numeric":
            grid = model.grids_[model.schema_.cols[nd.attr]]
            assert not grid.exact and nd.threshold in set(grid.values)
    acc = (model.predict(X) == y.astype(object).to_numpy()).mean()
    acc_exact = (exact.predict(X) == y.astype(object).to_numpy()).mean()
    assert acc > 0.7 and acc_exact > 0.8


def test_vectorised_added_errors_equal_the_scalar_formula():
    from dbayes.models.trees.prune import added_errors_many

    N = np.array([1.0, 2.0, 2.0, 3.5, 10.0, 10.0, 10.0, 40.0, 0.7, 5.0, 100.0])
    e = np.array([0.0, 0.5, 1.0, 3.2, 0.0, 0.3, 4.0, 39.7, 0.2, 4.6, 17.0])
    for cf in (0.1, 0.25, 0.5):
        expect = [added_errors(n, k, cf) for n, k in zip(N, e, strict=True)]
        np.testing.assert_allclose(added_errors_many(N, e, cf), expect, rtol=1e-13, atol=1e-13)


def _branch_errors(nodes, i, data, rows, w, cf):
    """J48's ``getEstimatedErrorsForBranch`` as a recursion over the nodes (the reference)."""
    from dbayes.models.trees import prune

    node = nodes[i]
    if not node.is_split:
        return prune._errors_for(data.class_w(rows, w), cf)
    b = data.branch(node, rows)
    dist = data.distribution(node, rows, w, b)
    parts = data.split(node, rows, w, b, dist)
    return sum(_branch_errors(nodes, c, data, r, ww, cf) for c, (r, ww) in zip(node.children, parts, strict=True))


@pytest.mark.parametrize("name", ["colic", "hepatitis", "glass"])
def test_subtree_raising_estimate_level_by_level_equals_the_recursion(name):
    """The raising estimate routes a node's rows through its largest branch level by level; it equals J48's
    recursive getEstimatedErrorsForBranch (kept as the reference) for every branch of an unpruned tree, on
    the (fractional, where values are missing) rows that reach the branch's parent."""
    from dbayes.models.trees.prune import _branch_errors_flat, _Flat, _Rows
    from dbayes.models.trees.schema import encode_frame

    df = pd.read_parquet(bundled_path(name))
    y = df.pop("class")
    model = C45(unpruned=True).fit(df, y)
    schema, nodes = model.schema_, model.nodes_
    X_num, X_nom = encode_frame(df, schema)
    yc = pd.Categorical(y, categories=list(schema.classes)).codes.astype(np.int64)
    data = _Rows((X_num, X_nom, yc, np.ones(len(yc))), schema)
    flat = _Flat(nodes, schema)
    checked = []

    def walk(i, rows, w):
        node = nodes[i]
        if not node.is_split:
            return
        for c in node.children:
            ref = _branch_errors(nodes, c, data, rows, w, 0.25)
            assert _branch_errors_flat(flat, c, data, rows, w, 0.25) == pytest.approx(ref, rel=1e-12, abs=1e-9)
            checked.append(c)
        b = data.branch(node, rows)
        for c, (r, ww) in zip(node.children, data.split(node, rows, w, b, node.bag_dist), strict=True):
            walk(c, r, ww)

    walk(0, np.arange(len(yc)), np.ones(len(yc)))
    assert len(checked) > 10
