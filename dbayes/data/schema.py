"""The schema of a dataset: which columns are attributes, nominal or numeric, and the class.

Nominal = pandas category, string/object or bool columns; numeric = integer or float columns. The order of
nominal values is the declared one (category order, as an ARFF header or a Parquet dictionary gives it); values
seen in the data but not declared are appended in sorted order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from dbayes.errors import DataError

__all__ = ["Attribute", "Schema", "column_kind"]

NOMINAL = "nominal"
NUMERIC = "numeric"


@dataclass(frozen=True)
class Attribute:
    """One attribute: its name, kind and, for a nominal one, its ordered values."""

    name: str
    kind: str
    values: tuple[str, ...] = ()

    @property
    def is_nominal(self) -> bool:
        return self.kind == NOMINAL

    @property
    def card(self) -> int:
        return len(self.values)


@dataclass(frozen=True)
class Schema:
    """Attributes in column order and the class with its ordered values.

    ``source`` names the file the schema was read from, for error messages.
    """

    attributes: tuple[Attribute, ...]
    class_name: str
    classes: tuple[str, ...]
    source: str = field(default="", compare=False)

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.attributes]

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def numeric_indices(self) -> list[int]:
        return [i for i, a in enumerate(self.attributes) if not a.is_nominal]

    @property
    def nominal_indices(self) -> list[int]:
        return [i for i, a in enumerate(self.attributes) if a.is_nominal]

    def drop(self, names: set[str]) -> Schema:
        return Schema(
            tuple(a for a in self.attributes if a.name not in names), self.class_name, self.classes, self.source
        )


def column_kind(dtype) -> str:
    """``"nominal"`` or ``"numeric"`` for a pandas dtype; raises for anything else."""
    if isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dtype):
        return NOMINAL
    if pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype):
        return NOMINAL
    if pd.api.types.is_numeric_dtype(dtype):
        return NUMERIC
    raise TypeError(f"unsupported dtype {dtype}")


def value_strings(values) -> list[str]:
    """Values of a nominal column as the strings the schema holds (bools as 'False'/'True')."""
    return [str(v) for v in values]


def _nominal_strings(series: pd.Series) -> np.ndarray:
    """Non-missing values of a nominal column as strings (object array)."""
    s = series.dropna()
    if isinstance(s.dtype, pd.CategoricalDtype):
        s = s.astype(object)
    return np.asarray([str(v) for v in s.to_numpy()], dtype=object) if len(s) else np.empty(0, dtype=object)


def check_columns(columns: list[str], class_column: str, source: str) -> None:
    if class_column not in columns:
        raise DataError(f"{source}: no class column {class_column!r} (columns: {', '.join(map(str, columns))})")
    if len(columns) < 2:
        raise DataError(f"{source}: no attribute columns besides the class {class_column!r}")
