"""What the trees know about the attributes, and the raw-attribute encoding of a pandas DataFrame.

Trees work on *raw* attributes (docs/architecture.md, "Coded data", before discretization):

- numeric attributes as ``float64`` with NaN for missing, gathered in ``X_num`` of shape ``(n, d_num)``;
- nominal attributes as integer codes ``0 .. V-1`` with **missing = V**, gathered in ``X_nom`` ``(n, d_nom)``;
- class codes ``y`` ``(n,)`` and per-instance weights ``w`` ``(n,)`` (fractional instances).

A :class:`TreeSchema` keeps the attributes in their column order (J48 breaks ties between attributes by
column order) and, for each, where its column lives in ``X_num`` or ``X_nom``.

Numeric grids
-------------
The split statistics of a numeric attribute are class weights per *grid cell*.  The grid of an attribute is
made in a first pass over the training data (:func:`numeric_value_counts`, which adds across blocks, then
:func:`numeric_grid`):

- when the attribute has at most ``max_exact_values`` distinct values the grid is the sorted distinct values
  and C4.5's numeric split search is exact (every threshold between adjacent observed values is a candidate);
- above that, the grid is ``max_exact_values`` weighted quantiles of the observed values (each an observed
  value); a cell holds the values in ``(q_{b-1}, q_b]`` and the candidate thresholds are the ``q_b`` only.
  Trees then differ from J48's wherever J48 would cut inside a cell.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dbayes.errors import DataError

__all__ = [
    "TreeSchema",
    "NumericGrid",
    "encode_frame",
    "numeric_value_counts",
    "merge_value_counts",
    "numeric_grid",
    "grid_cells",
    "DEFAULT_MAX_EXACT_VALUES",
]

#: Above this many distinct values a numeric attribute's candidate thresholds are quantiles (also the job
#: option's default, so a tree fitted directly equals the tree a job grows).  Of the bundled datasets only
#: Adult's ``fnlwgt`` (28,523 values) has more than a few thousand; its tree is exact, and J48's.
DEFAULT_MAX_EXACT_VALUES = 65536


@dataclass(frozen=True)
class TreeSchema:
    """Attributes in column order: name, kind (``"numeric"``/``"nominal"``), values, column in X_num/X_nom."""

    names: tuple
    kinds: tuple
    values: tuple  # per attribute: tuple of nominal values, or () for numeric
    cols: tuple  # per attribute: column index in X_num (numeric) or X_nom (nominal)
    classes: tuple

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def n_attributes(self) -> int:
        return len(self.names)

    @property
    def numeric(self) -> list:
        """Attribute indices of the numeric attributes, in X_num column order."""
        return [i for i, k in enumerate(self.kinds) if k == "numeric"]

    @property
    def nominal(self) -> list:
        """Attribute indices of the nominal attributes, in X_nom column order."""
        return [i for i, k in enumerate(self.kinds) if k == "nominal"]

    def card(self, i: int) -> int:
        """Number of values ``V`` of nominal attribute ``i`` (the missing code)."""
        return len(self.values[i])

    @classmethod
    def from_frame(cls, X: pd.DataFrame, classes) -> TreeSchema:
        """Nominal = pandas ``category`` (or object/string/bool) columns, numeric = number columns."""
        names, kinds, values, cols = [], [], [], []
        n_num = n_nom = 0
        for name in X.columns:
            col = X[name]
            if isinstance(col.dtype, pd.CategoricalDtype):
                vals = tuple(col.cat.categories)
            elif pd.api.types.is_bool_dtype(col.dtype) or not pd.api.types.is_numeric_dtype(col.dtype):
                vals = tuple(sorted(col.dropna().unique(), key=str))
            else:
                vals = None
            names.append(str(name))
            if vals is None:
                kinds.append("numeric")
                values.append(())
                cols.append(n_num)
                n_num += 1
            else:
                kinds.append("nominal")
                values.append(vals)
                cols.append(n_nom)
                n_nom += 1
        return cls(tuple(names), tuple(kinds), tuple(values), tuple(cols), tuple(classes))


def encode_frame(X: pd.DataFrame, schema: TreeSchema):
    """``(X_num, X_nom)`` of a DataFrame whose columns are the schema's attributes.

    Nominal values not among the schema's values (never declared at training time) are coded as missing:
    J48 would refuse them; we route them like a missing value, which is C4.5's treatment of the unknown.
    """
    if list(map(str, X.columns)) != list(schema.names):
        missing = [n for n in schema.names if n not in set(map(str, X.columns))]
        if missing:
            raise DataError(f"columns {missing} of the training data are absent")
        X = X[[c for c in X.columns if str(c) in set(schema.names)]]
        X.columns = list(map(str, X.columns))
        X = X[list(schema.names)]
    n = len(X)
    X_num = np.empty((n, len(schema.numeric)), dtype=np.float64, order="F")
    X_nom = np.empty((n, len(schema.nominal)), dtype=np.int32, order="F")
    for i, name in enumerate(schema.names):
        col = X.iloc[:, i]
        if schema.kinds[i] == "numeric":
            try:
                X_num[:, schema.cols[i]] = pd.to_numeric(col).to_numpy(dtype=np.float64, na_value=np.nan)
            except (TypeError, ValueError) as exc:
                raise DataError(f"column {name!r} must be numeric: {exc}") from exc
        else:
            V = len(schema.values[i])
            values = col.astype(object).to_numpy()
            codes = pd.Index(list(schema.values[i]), dtype=object).get_indexer(values).astype(np.int32)
            codes[codes < 0] = V  # missing, or a value the schema does not declare
            X_nom[:, schema.cols[i]] = codes
    return X_num, X_nom


@dataclass(frozen=True)
class NumericGrid:
    """Grid of one numeric attribute: sorted ``values``; ``exact`` when they are all the distinct values.

    A value ``x`` falls in cell ``searchsorted(values, x, "left")``: the cell whose upper edge is the first
    grid value ``>= x``.  For an exact grid that is the rank of ``x`` among the distinct values.
    """

    values: np.ndarray
    exact: bool
    first_seen: np.ndarray | None = None  # per value: index of the first training row holding it

    def cells(self, x: np.ndarray) -> np.ndarray:
        """Cell index of each (non-missing) value; values above the last edge go to the last cell."""
        idx = np.searchsorted(self.values, x, side="left")
        return np.minimum(idx, len(self.values) - 1)


def numeric_value_counts(X_num: np.ndarray, w: np.ndarray | None = None, row_offset: int = 0) -> list:
    """First pass, per block: for each numeric column, (sorted distinct values, their total weight, the
    global index of the first row holding each value).  ``row_offset`` is the block's first row index.

    The first-row index only serves to place thresholds exactly as J48 does when distinct values lie within
    ``1e-6`` of each other (``C45Split.setSplitPoint`` scans the data in order).
    """
    out = []
    for j in range(X_num.shape[1]):
        x = X_num[:, j]
        known = np.flatnonzero(~np.isnan(x))
        vals, first, inv = np.unique(x[known], return_index=True, return_inverse=True)
        wt = np.ones(len(known)) if w is None else np.asarray(w, dtype=np.float64)[known]
        out.append((vals, np.bincount(inv, weights=wt, minlength=len(vals)), known[first] + row_offset))
    return out


def merge_value_counts(a: list, b: list) -> list:
    """Add two results of :func:`numeric_value_counts` (the first pass's reduction)."""
    out = []
    for (va, ca, fa), (vb, cb, fb) in zip(a, b, strict=True):
        vals, inv = np.unique(np.concatenate([va, vb]), return_inverse=True)
        first = np.full(len(vals), np.iinfo(np.int64).max)
        np.minimum.at(first, inv, np.concatenate([fa, fb]))
        out.append((vals, np.bincount(inv, weights=np.concatenate([ca, cb]), minlength=len(vals)), first))
    return out


def numeric_grid(
    values: np.ndarray, counts: np.ndarray, max_exact_values: int, first_seen: np.ndarray | None = None
) -> NumericGrid:
    """Exact grid (all distinct values) or ``max_exact_values`` weighted quantiles (observed values)."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) <= max_exact_values:
        return NumericGrid(values, True, None if first_seen is None else np.asarray(first_seen))
    cum = np.cumsum(counts)
    targets = cum[-1] * np.arange(1, max_exact_values + 1) / max_exact_values
    idx = np.minimum(np.searchsorted(cum, targets, side="left"), len(values) - 1)
    edges = np.unique(values[idx])
    if edges[-1] != values[-1]:
        edges = np.append(edges, values[-1])
    return NumericGrid(edges, False)


def grid_cells(X_num: np.ndarray, grids) -> np.ndarray:
    """Grid cell of every value, ``(n, d_num)`` C-ordered, -1 for a missing value (int16 when every grid
    has at most 32,767 cells, else int32).  Computed once per block; every level of growth reads it."""
    n, d = X_num.shape
    big = max([0] + [len(g.values) for g in grids]) > np.iinfo(np.int16).max
    out = np.empty((n, d), dtype=np.int32 if big else np.int16)
    for j, g in enumerate(grids):
        x = X_num[:, j]
        if len(g.values) == 0:
            out[:, j] = -1
            continue
        c = g.cells(x)
        c[np.isnan(x)] = -1
        out[:, j] = c
    return out
