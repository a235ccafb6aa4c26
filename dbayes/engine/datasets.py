"""Opening a dataset: Parquet (file, directory of parts or fsspec URL) into a dask DataFrame, scanned."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from dbayes.data.bundled import bundled_names, bundled_path
from dbayes.data.scan import PartitionScan, scan_partition, schema_from_scans
from dbayes.data.schema import Schema, check_columns
from dbayes.errors import DataError

__all__ = ["Dataset", "open_dataset", "resolve_dataset"]

log = logging.getLogger(__name__)


@dataclass
class Dataset:
    """A scanned dataset: its name, where it came from, its partitions, schema and per-partition scans."""

    name: str
    source: str
    frame: dd.DataFrame
    schema: Schema
    scans: list[PartitionScan]

    @property
    def n_rows(self) -> int:
        return sum(s.n_rows for s in self.scans)

    def partition_class_counts(self) -> np.ndarray:
        return np.array([[s.class_counts.get(c, 0) for c in self.schema.classes] for s in self.scans], dtype=np.int64)

    def row_starts(self) -> np.ndarray:
        sizes = np.array([s.n_rows for s in self.scans], dtype=np.int64)
        return np.cumsum(sizes) - sizes


def resolve_dataset(spec: str) -> tuple[str, str]:
    """``(name, location)`` of a bundled short name, a local path or an fsspec URL."""
    if "://" in spec:
        return Path(spec.rstrip("/")).stem, spec
    path = Path(spec)
    if path.exists():
        return path.stem if path.is_file() else path.name, str(path)
    if spec in bundled_names():
        return spec, str(bundled_path(spec))
    raise DataError(
        f"{spec}: no such file or directory, and not a bundled dataset (bundled: {', '.join(bundled_names())})"
    )


def _declared_categories(location: str) -> dict[str, tuple[str, ...]]:
    """Value order of dictionary-encoded (categorical) columns, from the first rows of the first file."""
    import pyarrow as pa
    import pyarrow.dataset as pads
    import pyarrow.parquet as pq

    if "://" in location:
        import fsspec

        fs, path = fsspec.core.url_to_fs(location)
        data = pads.dataset(path, filesystem=fs, format="parquet")
    else:
        fs, data = None, pads.dataset(location, format="parquet")
    cols = [f.name for f in data.schema if pa.types.is_dictionary(f.type)]
    files = sorted(data.files)
    if not cols or not files:
        return {}
    handle = fs.open(files[0], "rb") if fs is not None else files[0]
    for batch in pq.ParquetFile(handle).iter_batches(batch_size=1, columns=cols):
        return {name: tuple(str(v) for v in batch.column(name).dictionary.to_pylist()) for name in cols}
    return {}


def open_dataset(spec: str, class_column: str = "class", partitions: int | None = None) -> Dataset:
    """Open, partition and scan a dataset; every problem is a :class:`DataError` naming it."""
    name, location = resolve_dataset(spec)
    if (
        "://" not in location
        and Path(location).is_dir()
        and not any(p.suffix == ".parquet" or p.is_dir() for p in Path(location).iterdir())
    ):
        raise DataError(f"{location}: directory holds no Parquet files")
    try:
        frame = dd.read_parquet(location)
        declared = _declared_categories(location)
    except DataError:
        raise
    except Exception as exc:  # pyarrow / fsspec raise many types for unreadable input
        raise DataError(f"{location}: not a readable Parquet dataset ({type(exc).__name__}: {exc})") from None
    check_columns(list(frame.columns), class_column, location)
    if partitions and partitions != frame.npartitions:
        frame = frame.repartition(npartitions=partitions)
    try:
        scans = list(dask.compute(*[dask.delayed(scan_partition)(p, class_column) for p in frame.to_delayed()]))
    except DataError:
        raise
    except Exception as exc:
        raise DataError(f"{location}: could not read the data ({type(exc).__name__}: {exc})") from None
    schema = schema_from_scans(scans, frame._meta, class_column, declared, location)
    keep = [*schema.names, class_column]
    if len(keep) != len(frame.columns):
        frame = frame[keep]
    return Dataset(name, location, frame, schema, scans)


def dataset_name(location: str) -> str:
    return os.path.splitext(os.path.basename(location.rstrip("/")))[0]


def empty_frame(schema: Schema) -> pd.DataFrame:
    return pd.DataFrame(columns=[*schema.names, schema.class_name])
