"""Tests of dbayes.data.discretize: brute-force references and Weka 3.6's own cut points.

The Weka golden file ``tests/data/weka_discretize_golden.json`` is made by
``tests/golden/make_weka_golden.py`` (run by hand; its provenance is inside the file). Cut points are
compared for exact float equality: the file holds Weka's doubles bit for bit.
"""

from __future__ import annotations

import decimal
import json
import math
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dbayes.data import discretize
from dbayes.data.bundled import bundled_path
from dbayes.data.discretize import (
    _ln,
    apply_cut_points,
    bin_labels,
    equal_frequency_cut_points,
    mdl_cut_points,
    merge_histograms,
    value_histogram,
)
from dbayes.errors import DataError

GOLDEN = Path(__file__).parent / "data" / "weka_discretize_golden.json"


@cache
def golden() -> dict:
    return json.loads(GOLDEN.read_text())


def class_codes(df: pd.DataFrame) -> tuple[np.ndarray, int]:
    y = df["class"].cat.codes.to_numpy().astype(np.int64)
    assert (y >= 0).all()
    return y, len(df["class"].cat.categories)


# ---------------------------------------------------------------------------------------------------
# Brute-force references: plain loops over rows / candidate cuts, the paper's formulas
# ---------------------------------------------------------------------------------------------------


def ent(class_counts: list[int]) -> float:
    """Ent(S) = -sum_i P(C_i, S) log2 P(C_i, S) (Fayyad & Irani 1993)."""
    n = sum(class_counts)
    return -sum(c / n * math.log2(c / n) for c in class_counts if c > 0) if n else 0.0


def brute_force_mdl(values: list[float], counts: list[list[int]]) -> tuple[list[float], bool]:
    """Recursive Fayyad-Irani on the instance list, with the paper's formulas, written naively.

    Returns the cuts and whether some decision was too close to call in floating point (two candidate
    entropies within 1e-9, or the MDL test within 1e-9 of its threshold): there the order of floating
    point operations, not the mathematics, decides, and only the Weka golden tests can judge.
    """
    rows = [(v, c) for v, row in zip(values, counts, strict=True) for c, k in enumerate(row) for _ in range(k)]
    rows.sort()
    n_classes = len(counts[0]) if counts else 0
    close = False

    def class_counts(part):
        out = [0] * n_classes
        for _, c in part:
            out[c] += 1
        return out

    def split(part) -> list[float]:
        nonlocal close
        n = len(part)
        if n < 2:
            return []
        s_counts = class_counts(part)
        ent_s = ent(s_counts)
        best = None  # (E(A, T; S), index, cut)
        entropies = []
        for i in range(n - 1):
            if part[i][0] < part[i + 1][0]:  # boundary between two distinct values
                s1, s2 = part[: i + 1], part[i + 1 :]
                e = len(s1) / n * ent(class_counts(s1)) + len(s2) / n * ent(class_counts(s2))
                entropies.append(e)
                if best is None or e < best[0]:
                    best = (e, i, (part[i][0] + part[i + 1][0]) / 2)
        if best is None:
            return []
        e_best, i, cut = best
        gain = ent_s - e_best
        if gain <= 1e-12:
            return []
        if sum(1 for e in entropies if abs(e - e_best) < 1e-9) > 1:
            close = True
        s1, s2 = part[: i + 1], part[i + 1 :]
        c1, c2 = class_counts(s1), class_counts(s2)
        k = sum(1 for c in s_counts if c)
        k1, k2 = sum(1 for c in c1 if c), sum(1 for c in c2 if c)
        delta = math.log2(3**k - 2) - (k * ent_s - k1 * ent(c1) - k2 * ent(c2))
        threshold = math.log2(n - 1) / n + delta / n
        if abs(gain - threshold) < 1e-9:
            close = True
        if gain <= threshold:
            return []
        return split(s1) + [cut] + split(s2)

    return split(rows), close


def random_histogram(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    m = int(rng.integers(1, 25))
    n_classes = int(rng.integers(1, 5))
    values = np.sort(rng.choice(np.arange(-50, 50) / 8.0, size=m, replace=False))
    kind = rng.integers(0, 3)
    if kind == 0:  # noisy
        counts = rng.integers(0, 6, size=(m, n_classes))
    elif kind == 1:  # class drifts with the value: real cuts to find
        p = np.clip(np.linspace(0, 1, m)[:, None] - np.linspace(0, 1, n_classes)[None, :], 0.02, None)
        counts = rng.poisson(25 * p / p.sum(axis=1, keepdims=True))
    else:  # blocks of one class
        counts = np.zeros((m, n_classes), dtype=np.int64)
        counts[np.arange(m), np.repeat(rng.integers(0, n_classes, size=4), -(-m // 4))[:m]] = rng.integers(
            1, 16, size=m
        )
    counts[counts.sum(axis=1) == 0, 0] = 1
    return values, counts.astype(np.int64)


def test_mdl_matches_brute_force_on_random_histograms():
    rng = np.random.default_rng(1993)
    decided = with_cuts = several = 0
    for _ in range(300):
        values, counts = random_histogram(rng)
        expected, close = brute_force_mdl(values.tolist(), counts.tolist())
        if close:
            continue
        decided += 1
        got = mdl_cut_points(values, counts)
        np.testing.assert_array_equal(got, np.array(expected, dtype=np.float64))
        with_cuts += len(expected) > 0
        several += len(expected) > 1
    assert decided > 250 and with_cuts > 120 and several > 40, (decided, with_cuts, several)  # not vacuous


def test_mdl_worked_example():
    # Two pure blocks: one cut at the midpoint; N = 10, gain = 1 bit > (log2 9 + log2 7 - 2) / 10.
    values = np.array([1.0, 2.0, 4.0, 8.0])
    counts = np.array([[3, 0], [2, 0], [0, 4], [0, 1]])
    np.testing.assert_array_equal(mdl_cut_points(values, counts), [3.0])
    # Mixed halves: gain 1 - H(1/4) = 0.189 bit, but Delta = log2 7 - (2 - 4 H(1/4)) = 4.05 and the
    # threshold (log2 7 + Delta) / 8 = 0.857: rejected.
    assert mdl_cut_points(values[1:3], np.array([[3, 1], [1, 3]])).size == 0


def test_mdl_boundary_cases():
    empty = mdl_cut_points(np.zeros(0), np.zeros((0, 2), dtype=np.int64))
    assert empty.dtype == np.float64 and empty.size == 0
    assert mdl_cut_points(np.array([1.0]), np.array([[5, 5]])).size == 0  # one value
    assert mdl_cut_points(np.arange(6.0), np.ones((6, 1), dtype=np.int64)).size == 0  # one class
    assert mdl_cut_points(np.arange(4.0), np.array([[0, 0], [0, 0], [0, 0], [0, 0]])).size == 0
    # A value no row has is dropped: it must not move the midpoint.
    values = np.array([1.0, 2.0, 3.0, 100.0, 101.0, 102.0])
    counts = np.array([[9, 0], [9, 0], [9, 0], [0, 0], [0, 9], [0, 9]])
    np.testing.assert_array_equal(mdl_cut_points(values, counts), [52.0])
    with pytest.raises(DataError):
        mdl_cut_points(np.array([2.0, 1.0]), np.array([[1, 0], [0, 1]]))
    with pytest.raises(DataError):
        mdl_cut_points(np.array([1.0, np.inf]), np.array([[1, 0], [0, 1]]))
    with pytest.raises(DataError):
        mdl_cut_points(np.array([1.0, 2.0]), np.array([[1, 0], [0, -1]]))
    with pytest.raises(DataError):
        mdl_cut_points(np.array([1.0, 2.0]), np.array([[1.0, 0.5], [0.0, 1.0]]))


# ---------------------------------------------------------------------------------------------------
# Exactness against Weka 3.6
# ---------------------------------------------------------------------------------------------------


@pytest.mark.weka
@pytest.mark.parametrize("dataset", sorted(json.loads(GOLDEN.read_text())["bundled"]))
def test_cut_points_equal_weka_on_bundled_data(dataset):
    """Every numeric attribute: MDL and equal-frequency (3 and 10 bins) cut points, bit for bit."""
    df = pd.read_parquet(bundled_path(dataset))
    y, n_classes = class_codes(df)
    for attr, weka in golden()["bundled"][dataset].items():
        x = df[attr].to_numpy(dtype=np.float64)
        values, counts = value_histogram(x, y, n_classes)
        cuts = mdl_cut_points(values, counts)
        assert cuts.tolist() == weka["mdl"], (dataset, attr)
        for bins, weka_cuts in weka["ef"].items():
            got = equal_frequency_cut_points(values, counts.sum(axis=1), int(bins))
            assert got.tolist() == weka_cuts, (dataset, attr, bins)
        if "labels" in weka:
            assert bin_labels(cuts) == weka["labels"], (dataset, attr)


@pytest.mark.weka
@pytest.mark.parametrize("dataset", sorted(json.loads(GOLDEN.read_text())["folds"]))
def test_cut_points_equal_weka_on_training_folds(dataset):
    """Weka discretizes inside each training fold: other row sets, other ties, the same cut points."""
    df = pd.read_parquet(bundled_path(dataset))
    folds = golden()["folds"][dataset]
    for fold, attrs in folds.items():
        # The generator's split: fold k of n holds the rows i with i * 7919 % n == k.
        train = df.iloc[np.flatnonzero(np.arange(len(df)) * 7919 % len(folds) != int(fold))]
        y, n_classes = class_codes(train)
        for attr, weka_cuts in attrs.items():
            values, counts = value_histogram(train[attr].to_numpy(dtype=np.float64), y, n_classes)
            assert mdl_cut_points(values, counts).tolist() == weka_cuts, (dataset, fold, attr)


@pytest.mark.weka
def test_cut_points_equal_weka_on_synthetic_ties():
    """Histograms built to hold exactly tied candidate entropies: tie-breaking as in Weka."""
    cases = golden()["synthetic"]
    assert len(cases) >= 300
    for k, case in enumerate(cases):
        values, counts = np.array(case["values"]), np.array(case["counts"], dtype=np.int64)
        assert mdl_cut_points(values, counts).tolist() == case["mdl"], k
        for bins, weka_cuts in case["ef"].items():
            assert equal_frequency_cut_points(values, counts.sum(axis=1), int(bins)).tolist() == weka_cuts


@pytest.mark.weka
def test_fast_path_falls_back_to_exact_logarithms(monkeypatch):
    """mdl_cut_points decides with np.log and redoes close decisions with correctly rounded logarithms.

    With a fast logarithm a few ulps off, Weka's cut points must still come out exactly (without the
    fallback, this perturbation changes cuts of spectrometer and of the synthetic ties).
    """
    monkeypatch.setattr(discretize, "_FAST_LN", lambda x: np.log(x) * (1 + 2.0**-50))
    df = pd.read_parquet(bundled_path("spectrometer"))
    y, n_classes = class_codes(df)
    for attr, weka in golden()["bundled"]["spectrometer"].items():
        values, counts = value_histogram(df[attr].to_numpy(dtype=np.float64), y, n_classes)
        assert mdl_cut_points(values, counts).tolist() == weka["mdl"], attr
    for k, case in enumerate(golden()["synthetic"]):
        got = mdl_cut_points(np.array(case["values"]), np.array(case["counts"], dtype=np.int64))
        assert got.tolist() == case["mdl"], k


def test_golden_provenance():
    prov = golden()["provenance"]
    assert prov["weka_version"].startswith("3.6")
    assert "supervised.attribute.Discretize" in prov["mdl_filter"]
    assert sum(len(a) for a in golden()["bundled"].values()) == 1056


def test_ln_is_correctly_rounded():
    """_ln must give Java's (correctly rounded) Math.log bits, also where np.log is one ulp off."""
    ctx = decimal.Context(prec=50)
    known_hard = [19143, 94869, 102327, 136085, 275063, 9170, 136837, 7285, 11448]  # np/libm/longdouble
    rng = np.random.default_rng(5)
    x = np.concatenate([known_hard, np.arange(1, 3000), rng.integers(1, 10**7, size=3000)]).astype(float)
    x = np.concatenate([x, [2.0**52 + 1, 3.0**40 - 2, 0.75, 1e-3]])
    expected = np.array([float(ctx.ln(decimal.Decimal(v))) for v in x])
    np.testing.assert_array_equal(_ln(x), expected)


# ---------------------------------------------------------------------------------------------------
# Equal frequency
# ---------------------------------------------------------------------------------------------------


def brute_force_equal_frequency(x_sorted: list[float], n_bins: int) -> list[float]:
    """Weka 3.6's unsupervised Discretize -F loop over the sorted instances (unit weights)."""
    remaining = float(len(x_sorted))
    freq = remaining / n_bins
    cuts: list[float] = []
    counter = last = 0.0
    last_index = -1
    for i in range(len(x_sorted) - 1):
        counter += 1
        remaining -= 1
        if x_sorted[i] < x_sorted[i + 1]:
            if counter >= freq:
                if freq - last < counter - freq and last_index != -1:
                    cuts.append((x_sorted[last_index] + x_sorted[last_index + 1]) / 2)
                    counter -= last
                    last = counter
                    last_index = i
                else:
                    cuts.append((x_sorted[i] + x_sorted[i + 1]) / 2)
                    counter = last = 0.0
                    last_index = -1
                freq = (remaining + counter) / (n_bins - len(cuts))
            else:
                last_index = i
                last = counter
    if len(cuts) < n_bins - 1 and last_index != -1:
        cuts.append((x_sorted[last_index] + x_sorted[last_index + 1]) / 2)
    return cuts


def test_equal_frequency_matches_instance_loop():
    rng = np.random.default_rng(7)
    for _ in range(300):
        x = np.round(rng.gamma(1.5, 3.0, size=int(rng.integers(1, 80))), int(rng.integers(0, 2)))
        n_bins = int(rng.integers(1, 12))
        values, counts = value_histogram(x, np.zeros(x.size, dtype=np.int64), 1)
        got = equal_frequency_cut_points(values, counts[:, 0], n_bins)
        assert got.tolist() == brute_force_equal_frequency(sorted(x.tolist()), n_bins)
        assert got.size <= n_bins - 1


def test_equal_frequency_simple_cases():
    np.testing.assert_array_equal(equal_frequency_cut_points(np.arange(8.0), np.full(8, 5), 4), [1.5, 3.5, 5.5])
    assert equal_frequency_cut_points(np.arange(8.0), np.ones(8, dtype=np.int64), 1).size == 0
    assert equal_frequency_cut_points(np.array([3.0]), np.array([10]), 5).size == 0
    assert equal_frequency_cut_points(np.zeros(0), np.zeros(0, dtype=np.int64), 5).size == 0
    with pytest.raises(DataError):
        equal_frequency_cut_points(np.arange(3.0), np.ones(3, dtype=np.int64), 0)


# ---------------------------------------------------------------------------------------------------
# Applying cut points, labels
# ---------------------------------------------------------------------------------------------------


def weka_convert(v: float, cuts: list[float]) -> int:
    """Weka's Discretize.convertInstance: first j with v <= cuts[j]; missing -> len(cuts) + 1 here."""
    if math.isnan(v):
        return len(cuts) + 1
    j = 0
    while j < len(cuts) and not v <= cuts[j]:
        j += 1
    return j


def test_apply_cut_points_is_wekas_rule():
    rng = np.random.default_rng(3)
    for n_cuts in range(5):
        cuts = np.sort(rng.choice(np.arange(-10, 10) / 2.0, size=n_cuts, replace=False))
        x = np.concatenate([rng.integers(-12, 12, size=50) / 2.0, cuts, [np.nan, -np.inf, np.inf]])
        codes = apply_cut_points(x, cuts)
        assert codes.dtype == np.int64
        assert codes.tolist() == [weka_convert(v, cuts.tolist()) for v in x]
    assert apply_cut_points(np.array([30.5, 30.500000000000004]), np.array([30.5])).tolist() == [0, 1]
    with pytest.raises(DataError):
        apply_cut_points(np.array([1.0]), np.array([2.0, 1.0]))


def test_codes_of_every_training_value_match_weka_cuts():
    """What matters downstream: each training value of credit-a (with missing values) gets Weka's bin."""
    df = pd.read_parquet(bundled_path("credit-a"))
    y, n_classes = class_codes(df)
    for attr, weka in golden()["bundled"]["credit-a"].items():
        x = df[attr].to_numpy(dtype=np.float64)
        cuts = mdl_cut_points(*value_histogram(x, y, n_classes))
        codes = apply_cut_points(x, cuts)
        assert codes.tolist() == [weka_convert(v, weka["mdl"]) for v in x]
    assert np.isnan(df["A2"].to_numpy(dtype=np.float64)).any()


def test_bin_labels():
    assert bin_labels(np.array([30.5, 45.5])) == ["'(-inf-30.5]'", "'(30.5-45.5]'", "'(45.5-inf)'"]
    assert bin_labels(np.array([])) == ["'All'"]
    assert bin_labels(np.array([-0.25])) == ["'(-inf--0.25]'", "'(-0.25-inf)'"]
    assert bin_labels(np.array([1.23456789, 2.0000004])) == [
        "'(-inf-1.234568]'",
        "'(1.234568-2]'",
        "'(2-inf)'",
    ]
    assert bin_labels(np.array([-0.0000001, 0.0000004])) == ["'(-inf-0]'", "'(0-0]'", "'(0-inf)'"]


# ---------------------------------------------------------------------------------------------------
# Histograms
# ---------------------------------------------------------------------------------------------------


def brute_force_histogram(x, y, n_classes):
    table: dict[float, list[int]] = {}
    for v, c in zip(x.tolist(), y.tolist(), strict=True):
        if not math.isnan(v):
            table.setdefault(v, [0] * n_classes)[c] += 1
    keys = sorted(table)
    return np.array(keys, dtype=np.float64), np.array([table[k] for k in keys], dtype=np.int64).reshape(-1, n_classes)


def test_value_histogram_matches_loop():
    rng = np.random.default_rng(11)
    x = rng.integers(0, 30, size=500) / 4.0
    x[rng.random(500) < 0.1] = np.nan
    y = rng.integers(0, 3, size=500)
    values, counts = value_histogram(x, y, 3)
    ev, ec = brute_force_histogram(x, y, 3)
    np.testing.assert_array_equal(values, ev)
    np.testing.assert_array_equal(counts, ec)
    assert counts.dtype == np.int64 and values.dtype == np.float64


def test_merged_block_histograms_equal_whole_histogram():
    """Blocks in any number and order (some empty) merge exactly to the whole-data histogram."""
    df = pd.read_parquet(bundled_path("credit-a"))
    y, n_classes = class_codes(df)
    x = df["A2"].to_numpy(dtype=np.float64)
    whole = value_histogram(x, y, n_classes)
    rng = np.random.default_rng(2)
    for n_blocks in (1, 2, 7):
        order = rng.permutation(x.size)
        bounds = np.sort(rng.integers(0, x.size, size=n_blocks - 1))
        blocks = [value_histogram(x[i], y[i], n_classes) for i in np.split(order, bounds)]
        blocks.append(value_histogram(np.zeros(0), np.zeros(0, dtype=np.int64), n_classes))
        merged = merge_histograms(blocks[::-1])
        np.testing.assert_array_equal(merged[0], whole[0])
        np.testing.assert_array_equal(merged[1], whole[1])
        np.testing.assert_array_equal(mdl_cut_points(*merged), golden()["bundled"]["credit-a"]["A2"]["mdl"])


def test_histogram_errors():
    with pytest.raises(DataError):
        value_histogram(np.array([1.0, np.inf]), np.array([0, 1]), 2)
    with pytest.raises(DataError):
        value_histogram(np.array([1.0, 2.0]), np.array([0, 2]), 2)
    with pytest.raises(DataError):
        value_histogram(np.array([1.0, 2.0]), np.array([0]), 2)
    with pytest.raises(DataError):
        merge_histograms([])
    with pytest.raises(DataError):
        merge_histograms([(np.array([1.0]), np.array([[1, 0]])), (np.array([1.0]), np.array([[1, 0, 0]]))])
