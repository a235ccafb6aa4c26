"""Reading ARFF and CSV files into the dataset convention (nominal = category in declared order, numeric =
float64, missing = null), for ``dbayes import``."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from dbayes.errors import DataError

__all__ = ["read_arff", "read_csv_dataset"]

_NUMERIC_TYPES = {"numeric", "real", "integer"}


def _split_values(text: str) -> list[str]:
    """Comma-separated ARFF tokens with single or double quotes."""
    reader = csv.reader(io.StringIO(text), delimiter=",", quotechar="'", skipinitialspace=True, escapechar="\\")
    row = next(reader, [])
    out = []
    for tok in row:
        tok = tok.strip()
        if len(tok) >= 2 and tok[0] == tok[-1] == '"':
            tok = tok[1:-1]
        out.append(tok)
    return out


def _parse_attribute(line: str, path: str, lineno: int) -> tuple[str, str, list[str] | None]:
    rest = line[len("@attribute") :].strip()
    if rest[:1] in "'\"":
        q = rest[0]
        end = rest.find(q, 1)
        if end < 0:
            raise DataError(f"{path}:{lineno}: unterminated attribute name")
        name, rest = rest[1:end], rest[end + 1 :].strip()
    else:
        parts = rest.split(None, 1)
        if len(parts) < 2:
            raise DataError(f"{path}:{lineno}: attribute without a type")
        name, rest = parts
    if rest.startswith("{"):
        end = rest.rfind("}")
        if end < 0:
            raise DataError(f"{path}:{lineno}: unterminated nominal value list for attribute {name!r}")
        return name, "nominal", _split_values(rest[1:end])
    kind = rest.split()[0].lower()
    if kind in _NUMERIC_TYPES:
        return name, "numeric", None
    if kind == "string":
        return name, "string", None
    raise DataError(f"{path}:{lineno}: attribute {name!r} has type {kind!r}, which dbayes does not read")


def read_arff(path: str | Path, class_column: str | None = None) -> pd.DataFrame:
    """Read a dense ARFF file; the class is ``class_column`` or the last attribute, renamed ``class``."""
    path = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror})") from None
    attrs: list[tuple[str, str, list[str] | None]] = []
    data_lines: list[str] = []
    in_data = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        low = line.lower()
        if in_data:
            if line.startswith("{"):
                raise DataError(f"{path}:{lineno}: sparse ARFF rows are not supported")
            data_lines.append(line)
        elif low.startswith("@attribute"):
            attrs.append(_parse_attribute(line, path, lineno))
        elif low.startswith("@data"):
            in_data = True
        elif low.startswith("@relation"):
            continue
        else:
            raise DataError(f"{path}:{lineno}: unexpected line in the ARFF header: {line[:60]!r}")
    if not attrs:
        raise DataError(f"{path}: not an ARFF file (no @attribute lines)")
    rows = []
    for k, line in enumerate(data_lines):
        vals = _split_values(line)
        if len(vals) != len(attrs):
            raise DataError(f"{path}: data row {k + 1} has {len(vals)} values, the header declares {len(attrs)}")
        rows.append(vals)
    cols = {}
    for j, (name, kind, values) in enumerate(attrs):
        raw = [r[j] for r in rows]
        if kind == "numeric":
            try:
                cols[name] = np.array([np.nan if v == "?" else float(v) for v in raw], dtype=np.float64)
            except ValueError as exc:
                raise DataError(f"{path}: numeric attribute {name!r} holds a non-number ({exc})") from None
        else:
            cats = values if values is not None else sorted({v for v in raw if v != "?"})
            bad = sorted({v for v in raw if v != "?" and v not in set(cats)})
            if bad:
                raise DataError(f"{path}: attribute {name!r} holds undeclared value(s) {bad[:5]}")
            cols[name] = pd.Categorical([None if v == "?" else v for v in raw], categories=cats)
    df = pd.DataFrame(cols)
    return _set_class(df, class_column, path)


def _set_class(df: pd.DataFrame, class_column: str | None, path: str) -> pd.DataFrame:
    cls = class_column or df.columns[-1]
    if cls not in df.columns:
        raise DataError(f"{path}: no column {cls!r} to use as the class (columns: {', '.join(df.columns)})")
    y = df.pop(cls)
    if not isinstance(y.dtype, pd.CategoricalDtype):
        y = y.astype("string").astype("category")
    if "class" in df.columns:
        raise DataError(f"{path}: an attribute is already named 'class'; rename it or choose it as the class")
    df["class"] = y
    return df


def read_csv_dataset(path: str | Path, class_column: str | None = None) -> pd.DataFrame:
    """Read a CSV file with a header; '?' and empty cells are missing; text columns become categories."""
    path = str(path)
    try:
        df = pd.read_csv(path, na_values=["?"], skipinitialspace=True)
    except (OSError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not a readable CSV file ({exc})") from None
    for name in df.columns:
        col = df[name]
        if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
            df[name] = col.astype(np.float64)
        else:
            df[name] = col.astype("string").astype("category")
    df.columns = [re.sub(r"\s+", " ", str(c)).strip() for c in df.columns]
    return _set_class(df, class_column, path)
