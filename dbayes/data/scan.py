"""One look at every partition before anything is fitted: sizes, class counts, values, and bad input.

``scan_partition`` is a pure function of one pandas partition; ``schema_from_scans`` combines the scans of all
partitions (kept in partition order, since the fold assignment needs each partition's class counts) into the
:class:`~dbayes.data.schema.Schema` and checks the input as a whole.
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from dbayes.data.schema import NOMINAL, NUMERIC, Attribute, Schema, column_kind
from dbayes.errors import DataError

__all__ = ["PartitionScan", "scan_partition", "schema_from_scans", "SKETCH_SIZE"]

log = logging.getLogger(__name__)

SKETCH_SIZE = 1025  # order statistics kept per numeric column and partition (for quantile grids)


@dataclass
class PartitionScan:
    """What one partition holds."""

    n_rows: int
    class_counts: dict[str, int]
    missing_class: int
    nominal_values: dict[str, np.ndarray] = field(default_factory=dict)
    non_missing: dict[str, int] = field(default_factory=dict)
    n_distinct: dict[str, int] = field(default_factory=dict)
    infinite: dict[str, int] = field(default_factory=dict)
    sketch: dict[str, np.ndarray] = field(default_factory=dict)


def _value_counts(col: pd.Series) -> dict[str, int]:
    """Counts of the non-missing values of a nominal column, keyed by their strings (vectorised for categories)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        codes = col.cat.codes.to_numpy()
        counts = np.bincount(codes[codes >= 0], minlength=len(col.cat.categories))
        return {str(col.cat.categories[i]): int(counts[i]) for i in np.flatnonzero(counts)}
    vc = col.dropna().value_counts(sort=False)
    out: dict[str, int] = {}
    for v, c in vc.items():
        out[str(v)] = out.get(str(v), 0) + int(c)
    return out


def scan_partition(df: pd.DataFrame, class_column: str) -> PartitionScan:
    """Scan one partition (pure; no Dask)."""
    cls = df[class_column]
    scan = PartitionScan(
        n_rows=len(df),
        class_counts=_value_counts(cls),
        missing_class=int(cls.isna().sum()),
    )
    for name in df.columns:
        if name == class_column:
            continue
        col = df[name]
        kind = column_kind(col.dtype)
        if kind == NOMINAL:
            scan.nominal_values[name] = np.array(sorted(_value_counts(col)), dtype=object)
            scan.non_missing[name] = int(col.notna().sum())
        else:
            x = col.to_numpy(dtype=np.float64, na_value=np.nan)
            finite = np.isfinite(x)
            scan.infinite[name] = int(np.isinf(x).sum())
            v = np.sort(x[finite])
            scan.non_missing[name] = int(finite.sum())
            scan.n_distinct[name] = int(np.count_nonzero(np.diff(v)) + 1) if len(v) else 0
            if len(v):
                pos = np.linspace(0, len(v) - 1, min(SKETCH_SIZE, len(v))).round().astype(np.int64)
                scan.sketch[name] = v[pos]
            else:
                scan.sketch[name] = v
    return scan


def declared_values(series_dtype) -> tuple[str, ...]:
    if isinstance(series_dtype, pd.CategoricalDtype):
        cats = series_dtype.categories
        if len(cats) == 1 and str(cats[0]) == "__UNKNOWN_CATEGORIES__":
            return ()
        return tuple(str(c) for c in cats)
    return ()


def _merge_values(declared: tuple[str, ...], seen: set[str]) -> tuple[str, ...]:
    extra = sorted(seen.difference(declared))
    return tuple(declared) + tuple(extra)


def schema_from_scans(
    scans: list[PartitionScan],
    meta: pd.DataFrame,
    class_column: str,
    declared: dict[str, tuple[str, ...]],
    source: str,
) -> Schema:
    """The schema of the whole dataset, after checking it.

    Raises :class:`DataError` (naming ``source`` and the column) for: zero rows, a missing class value, a
    class with fewer than two values, a numeric column holding an infinity. Attributes that are missing in
    every row are dropped with a warning.
    """
    n_rows = sum(s.n_rows for s in scans)
    if n_rows == 0:
        raise DataError(f"{source}: the dataset has zero rows")
    missing_class = sum(s.missing_class for s in scans)
    if missing_class:
        raise DataError(f"{source}: class column {class_column!r} is missing in {missing_class} rows")
    seen_classes: set[str] = set()
    for s in scans:
        seen_classes.update(s.class_counts)
    classes = _merge_values(declared.get(class_column, ()), seen_classes)
    if len(seen_classes) < 2:
        raise DataError(
            f"{source}: class column {class_column!r} has {len(seen_classes)} distinct value(s); "
            "classification needs at least two"
        )
    attributes = []
    dropped = []
    for name in meta.columns:
        if name == class_column:
            continue
        try:
            kind = column_kind(meta[name].dtype)
        except TypeError as exc:
            raise DataError(f"{source}: column {name!r} has unsupported type {meta[name].dtype}") from exc
        if sum(s.non_missing.get(name, 0) for s in scans) == 0:
            dropped.append(name)
            continue
        if kind == NUMERIC:
            n_inf = sum(s.infinite.get(name, 0) for s in scans)
            if n_inf:
                raise DataError(f"{source}: numeric column {name!r} holds {n_inf} infinite value(s)")
            attributes.append(Attribute(str(name), NUMERIC))
        else:
            seen: set[str] = set()
            for s in scans:
                seen.update(s.nominal_values.get(name, ()))
            attributes.append(Attribute(str(name), NOMINAL, _merge_values(declared.get(name, ()), seen)))
    if dropped:
        msg = f"{source}: dropped attribute(s) missing in every row: {', '.join(dropped)}"
        warnings.warn(msg, stacklevel=2)
    if not attributes:
        raise DataError(f"{source}: no usable attribute columns besides the class {class_column!r}")
    return Schema(tuple(attributes), class_column, classes, source)


def merged_sketch(scans: list[PartitionScan], name: str) -> tuple[np.ndarray, np.ndarray]:
    """Pooled order statistics of a numeric column with their weights (rows each stands for)."""
    values, weights = [], []
    for s in scans:
        v = s.sketch.get(name)
        if v is None or len(v) == 0:
            continue
        values.append(v)
        weights.append(np.full(len(v), s.non_missing[name] / len(v)))
    if not values:
        return np.empty(0), np.empty(0)
    return np.concatenate(values), np.concatenate(weights)
