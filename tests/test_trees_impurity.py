"""Entropy, the IDM upper entropy H* and the distribution P_D, against brute force."""

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import minimize

from dbayes.models.trees.impurity import (
    entropy,
    imprecise_value_distribution,
    max_entropy_distribution,
    upper_entropy,
)


def shannon(p):
    return -sum(x * math.log2(x) for x in p if x > 0)


def credal_bounds(counts, s):
    N = sum(counts)
    return [n / (N + s) for n in counts], [(n + s) / (N + s) for n in counts]


def brute_force_grid(counts, s, steps=400):
    """max H(p) over K(C) by enumerating the extra mass s*t with t on a grid of the simplex (C <= 3)."""
    N = sum(counts)
    best = -1.0
    C = len(counts)
    for ij in itertools.product(range(steps + 1), repeat=C - 1):
        if sum(ij) > steps:
            continue
        t = [i / steps for i in ij] + [1 - sum(ij) / steps]
        best = max(best, shannon([(n + s * tc) / (N + s) for n, tc in zip(counts, t, strict=True)]))
    return best


def brute_force_optimize(counts, s):
    """max H(p) subject to the box constraints of K(C) and sum p = 1, by SLSQP from several starts."""
    lo, hi = credal_bounds(counts, s)
    C = len(counts)
    rng = np.random.default_rng(0)
    best = -1.0
    for _ in range(5):
        t = rng.dirichlet(np.ones(C))
        x0 = np.array(lo) + t * (1 - sum(lo))
        res = minimize(
            lambda p: -shannon(np.clip(p, 1e-300, None)),
            x0,
            method="SLSQP",
            bounds=list(zip(lo, hi, strict=True)),
            constraints=[{"type": "eq", "fun": lambda p: p.sum() - 1}],
            options={"ftol": 1e-12, "maxiter": 500},
        )
        if res.success:
            best = max(best, -res.fun)
    return best


CASES = [
    ([3, 0], 1.0),
    ([5, 2], 0.5),
    ([4, 4], 1.0),
    ([0, 0, 7], 1.0),
    ([1, 2, 6], 0.25),
    ([2, 2, 5], 1.0),
    ([2.5, 0.3, 1.2], 1.0),
    ([0.4, 0.6, 3.0], 2.0),
    ([1, 1.5, 9], 3.0),
    ([10, 0, 0], 0.75),
]


@pytest.mark.parametrize("counts,s", CASES)
def test_upper_entropy_is_the_maximum_over_the_credal_set(counts, s):
    h_star = float(upper_entropy(np.array(counts, float), s))
    grid = brute_force_grid(counts, s, steps=400 if len(counts) == 2 else 150)
    opt = brute_force_optimize(counts, s)
    assert h_star >= grid - 1e-12  # nothing on the grid beats it
    assert h_star >= opt - 1e-9  # nor does a local optimiser
    assert h_star - max(grid, opt) < 2e-3  # and it is attained (up to grid resolution)
    assert abs(h_star - opt) < 1e-6


@pytest.mark.parametrize("counts,s", CASES)
def test_max_entropy_distribution_lies_in_the_credal_set(counts, s):
    p = max_entropy_distribution(np.array(counts, float), s)
    lo, hi = credal_bounds(counts, s)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(p >= np.array(lo) - 1e-12) and np.all(p <= np.array(hi) + 1e-12)
    assert shannon(p) == pytest.approx(float(upper_entropy(np.array(counts, float), s)), abs=1e-12)


@pytest.mark.parametrize("counts", [[3, 1, 1], [4, 2, 7, 2], [5, 0], [1, 1, 1], [0, 3, 3, 9]])
@pytest.mark.parametrize("s", [0.25, 0.5, 1.0])
def test_abellan_rule_for_integer_counts_and_s_at_most_one(counts, s):
    """Abellan (2006): for s <= 1 share s equally among the classes of minimal count."""
    m = min(counts)
    mins = [c == m for c in counts]
    q = [(c + (s / sum(mins) if is_min else 0)) / (sum(counts) + s) for c, is_min in zip(counts, mins, strict=True)]
    np.testing.assert_allclose(max_entropy_distribution(np.array(counts, float), s), q, rtol=0, atol=1e-15)


def test_s_zero_is_shannon_entropy_and_vectorised():
    counts = np.array([[3.0, 1.0, 0.0], [2.0, 2.0, 2.0], [0.0, 0.0, 0.0]])
    expected = [shannon([0.75, 0.25]), math.log2(3), 0.0]
    np.testing.assert_allclose(entropy(counts), expected, atol=1e-15)
    np.testing.assert_array_equal(upper_entropy(counts, 0.0), entropy(counts))
    # an empty node with s > 0: the credal set is the whole simplex, H* = log2 C
    assert float(upper_entropy(np.zeros(4), 1.0)) == pytest.approx(2.0, abs=1e-15)


def test_negative_s_is_refused():
    with pytest.raises(ValueError, match="s must be >= 0"):
        upper_entropy(np.ones(2), -0.5)


def test_imprecise_value_distribution_shares_s_among_values_of_maximal_entropy():
    # values: x1 (3 yes, 1 no) H=0.811; x2 (1 yes, 3 no) H=0.811; x3 (4 yes, 0 no) H=0 -> B = {x1, x2}
    per_value = np.array([[3.0, 1.0], [1.0, 3.0], [4.0, 0.0]])
    p = imprecise_value_distribution(per_value.sum(axis=1), per_value, 1.0)
    np.testing.assert_allclose(p, [(4 + 0.5) / 13, (4 + 0.5) / 13, 4 / 13], atol=1e-15)
    # a single value of maximal entropy takes all of s
    per_value = np.array([[3.0, 2.0], [1.0, 3.0]])
    p = imprecise_value_distribution(per_value.sum(axis=1), per_value, 0.5)
    np.testing.assert_allclose(p, [5.5 / 9.5, 4 / 9.5], atol=1e-15)
    # s = 0 gives the relative frequencies
    np.testing.assert_allclose(
        imprecise_value_distribution(np.array([5.0, 4.0]), per_value, 0.0), [5 / 9, 4 / 9], atol=1e-15
    )


def test_p_d_maximises_the_expected_conditional_entropy_over_the_credal_set():
    """Brute force over K_D(X): no distribution on a grid gives a larger sum_i P(x_i) H(C | x_i)."""
    per_value = np.array([[2.0, 1.0], [0.0, 3.0], [2.0, 2.0]])
    n = per_value.sum(axis=1)
    s = 1.0
    h = [shannon(r / r.sum()) for r in per_value]
    p_d = imprecise_value_distribution(n, per_value, s)
    target = float(np.dot(p_d, h))
    steps = 100
    for i in range(steps + 1):
        for j in range(steps + 1 - i):
            t = np.array([i, j, steps - i - j]) / steps
            p = (n + s * t) / (n.sum() + s)
            assert float(np.dot(p, h)) <= target + 1e-12


def test_water_level_without_sorting_equals_the_sorted_computation_bit_for_bit():
    """The fast level (the minimum's classes share s) is the sorted computation's value, bit for bit, on
    integer and fractional weights, ties, zeros and large s; shapes of any rank."""
    from dbayes.models.trees.impurity import _water_level, water_level

    rng = np.random.default_rng(7)
    cases = [
        rng.integers(0, 4, size=(2000, 6)).astype(float),
        rng.integers(0, 40, size=(500, 48)).astype(float),
        rng.integers(0, 3, size=(300, 2)).astype(float) + rng.random((300, 2)) * (rng.random((300, 1)) < 0.3),
        np.zeros((3, 5)),
        np.array([[5.0, 5.0, 5.0], [1.0, 0.0, 0.0], [0.5, 0.5, 3.0]]),
    ]
    for counts in cases:
        for s in (0.25, 0.5, 1.0, 2.0, 7.5):
            ref = _water_level(np.sort(counts, axis=-1), s)
            got = water_level(counts, s)
            assert np.array_equal(got, ref), (counts.shape, s)
    block = rng.integers(0, 5, size=(4, 3, 2, 7)).astype(float)
    assert np.array_equal(water_level(block, 1.0), _water_level(np.sort(block, axis=-1), 1.0))
    assert water_level(np.array([2.0, 0.0, 1.0]), 1.0).shape == ()
