"""Integer codes: a pandas partition becomes a block of value codes (missing = ``V_i``) and class codes.

Numeric attributes are coded by cut points: value ``v`` falls in bin ``j`` when ``cut[j-1] < v <= cut[j]``
(Weka's convention), i.e. ``j = searchsorted(cuts, v, side="left")``.

Cross-validation with discretization fitted inside each fold uses one common coding for all folds, cut at the
union of every fold's cut points (the finest bins), and per fold a map from the common bins to that fold's bins
(:func:`fold_slot_map`): the fold's cut points are a subset of the union, so the map is exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dbayes.data.schema import Schema

__all__ = ["Coding", "encode_partition", "encode_class", "fold_slot_map", "code_dtype"]


def code_dtype(cards) -> np.dtype:
    top = max(cards, default=0) + 1
    if top < 2**8:
        return np.dtype(np.uint8)
    if top < 2**16:
        return np.dtype(np.uint16)
    return np.dtype(np.int32)


@dataclass(frozen=True)
class Coding:
    """How to code every attribute: nominal by the schema's values, numeric by ``cuts[name]``."""

    schema: Schema
    cuts: dict[str, np.ndarray]

    @property
    def cards(self) -> tuple[int, ...]:
        return tuple(a.card if a.is_nominal else len(self.cuts.get(a.name, ())) + 1 for a in self.schema.attributes)

    def value_labels(self, i: int) -> list[str]:
        """Labels of attribute ``i``'s codes: its values, or Weka's bin names (``'(-inf-30.5]'``)."""
        a = self.schema.attributes[i]
        if a.is_nominal:
            return list(a.values)
        from dbayes.data.discretize import bin_labels

        return bin_labels(np.asarray(self.cuts.get(a.name, ()), dtype=np.float64))


def _nominal_codes(col: pd.Series, values: tuple[str, ...]) -> np.ndarray:
    card = len(values)
    if isinstance(col.dtype, pd.CategoricalDtype) and tuple(str(c) for c in col.cat.categories) == values:
        codes = col.cat.codes.to_numpy().astype(np.int64)
    else:
        strings = col.astype(object).where(col.notna(), None)
        strings = strings.map(lambda v: None if v is None else str(v))
        codes = pd.Categorical(strings, categories=list(values)).codes.astype(np.int64)
    codes[codes < 0] = card  # missing (and, defensively, any value not in the schema)
    return codes


def _numeric_codes(col: pd.Series, cuts: np.ndarray) -> np.ndarray:
    x = col.to_numpy(dtype=np.float64, na_value=np.nan)
    codes = np.searchsorted(cuts, x, side="left").astype(np.int64)
    codes[np.isnan(x)] = len(cuts) + 1
    return codes


def encode_class(col: pd.Series, classes: tuple[str, ...]) -> np.ndarray:
    """Class codes ``0..C-1``."""
    codes = _nominal_codes(col, classes)
    return codes


def encode_partition(df: pd.DataFrame, coding: Coding) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)``: Fortran-ordered attribute codes and class codes of one partition."""
    schema = coding.schema
    cards = coding.cards
    X = np.empty((len(df), len(schema.attributes)), dtype=code_dtype(cards), order="F")
    for i, a in enumerate(schema.attributes):
        col = df[a.name]
        if a.is_nominal:
            X[:, i] = _nominal_codes(col, a.values)
        else:
            X[:, i] = _numeric_codes(col, np.asarray(coding.cuts.get(a.name, ()), dtype=np.float64))
    y = encode_class(df[schema.class_name], schema.classes) if schema.class_name in df else None
    return X, y


def fold_slot_map(common_cuts: np.ndarray, fold_cuts: np.ndarray) -> np.ndarray:
    """Map the slots of the common bins (and missing) to the slots of one fold's bins (and missing).

    Common bin ``b`` holds values in ``(u[b-1], u[b]]``; it lies inside the fold bin that counts the fold's
    cut points ``<= u[b-1]``. ``fold_cuts`` must be a subset of ``common_cuts``.
    """
    u = np.asarray(common_cuts, dtype=np.float64)
    f = np.asarray(fold_cuts, dtype=np.float64)
    lower = np.concatenate([[-np.inf], u])
    m = np.searchsorted(f, lower, side="right")
    return np.concatenate([m, [len(f) + 1]]).astype(np.int64)
