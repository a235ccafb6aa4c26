"""Fold assignment and class noise: stratified, seeded, and the same however the rows are partitioned."""

import numpy as np
import pytest

from dbayes.evaluate.folds import class_offsets, stratified_folds
from dbayes.evaluate.noise import noisy_classes
from dbayes.evaluate.weka_folds import weka_folds


def folds_by_partition(y, sizes, k, seed, repeat):
    bounds = np.cumsum([0, *sizes])
    spans = list(zip(bounds[:-1], bounds[1:], strict=True))
    off = class_offsets(np.array([np.bincount(y[a:b], minlength=y.max() + 1) for a, b in spans]))
    return np.concatenate([stratified_folds(y[a:b], off[i], k, seed, repeat) for i, (a, b) in enumerate(spans)])


@pytest.mark.parametrize("C", [2, 3, 26])
def test_stratified_and_partition_invariant(rng, C):
    y = rng.integers(0, C, 2000)
    whole = stratified_folds(y, np.zeros(C, dtype=np.int64), 10, 7, 0)
    for sizes in ([2000], [1, 999, 1000], [137] * 14 + [82]):
        assert np.array_equal(folds_by_partition(y, sizes, 10, 7, 0), whole)
    for c in range(C):  # every fold holds the class's rows give or take one
        per_fold = np.bincount(whole[y == c], minlength=10)
        assert per_fold.max() - per_fold.min() <= 1
    other_seed = stratified_folds(y, np.zeros(C, dtype=np.int64), 10, 8, 0)
    other_repeat = stratified_folds(y, np.zeros(C, dtype=np.int64), 10, 7, 1)
    assert (other_seed != whole).mean() > 0.5 and (other_repeat != whole).mean() > 0.5


def test_noise_changes_about_the_fraction_to_other_classes(rng):
    y = rng.integers(0, 4, 20000)
    z = noisy_classes(y, np.arange(20000), 0.3, 4, 1, 0)
    changed = z != y
    assert abs(changed.mean() - 0.3) < 0.015
    assert np.array_equal(noisy_classes(y, np.arange(20000), 0.3, 4, 1, 0), z)  # reproducible
    assert np.array_equal(noisy_classes(y, np.arange(20000), 0.0, 4, 1, 0), y)
    assert np.bincount(z[changed], minlength=4).min() > 1000  # every other class is drawn


def test_weka_folds_sizes_and_stratification(rng):
    y = rng.integers(0, 3, 1001)
    f = weka_folds(y, 10, 1)
    assert sorted(np.bincount(f)) == [100] * 9 + [101]
    for c in range(3):
        per_fold = np.bincount(f[y == c], minlength=10)
        assert per_fold.max() - per_fold.min() <= 1
