"""Bench helpers: Weka 3.6's cross-validation folds and its MDL discretization, from the package.

``weka_cv_folds`` gives each fold's test rows as ``Evaluation.crossValidateModel`` makes them
(:mod:`dbayes.evaluate.weka_folds`); ``code_fold`` codes a fold with MDL cut points fitted on its training rows
(:func:`dbayes.data.discretize.mdl_cut_points`, equal to Weka's ``Discretize``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dbayes.data.discretize import apply_cut_points, value_histogram
from dbayes.data.discretize import mdl_cut_points as _mdl
from dbayes.evaluate.weka_folds import weka_folds


def weka_cv_folds(y, folds=10, seed=1):
    """Test-row indices (into the original order) of each fold, in Weka's test order."""
    fold = weka_folds(np.asarray(y), folds, seed)
    return [np.flatnonzero(fold == f) for f in range(folds)]


def mdl_cut_points(x, y, C):
    return _mdl(*value_histogram(np.asarray(x, dtype=float), np.asarray(y), C))


def code_fold(df, y, train_idx, test_idx, C):
    """Coded (X_train, X_test, cards) with MDL cut points learnt on the training rows."""
    cols_tr, cols_te, cards = [], [], []
    for name in df.columns:
        col = df[name]
        if isinstance(col.dtype, pd.CategoricalDtype):
            V = len(col.cat.categories)
            codes = col.cat.codes.to_numpy().astype(np.int64)
            codes[codes < 0] = V
        else:
            x = col.to_numpy(dtype=float)
            cuts = mdl_cut_points(x[train_idx], y[train_idx], C)
            V = len(cuts) + 1
            codes = apply_cut_points(x, cuts)
        cols_tr.append(codes[train_idx])
        cols_te.append(codes[test_idx])
        cards.append(V)
    return (
        np.asfortranarray(np.column_stack(cols_tr)),
        np.asfortranarray(np.column_stack(cols_te)),
        np.array(cards),
    )


def load(name):
    from dbayes.data.bundled import bundled_path

    df = pd.read_parquet(bundled_path(name))
    cls = df.pop("class")
    keep = cls.notna().to_numpy()
    df, cls = df[keep].reset_index(drop=True), cls[keep].reset_index(drop=True)
    y = cls.cat.codes.to_numpy().astype(np.int64)
    return df, y, len(cls.cat.categories)
