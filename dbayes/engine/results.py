"""Result files: one Parquet file of metrics and one directory of predictions per unit of work.

A unit is (dataset, classifier label, noise, repeat, fold). Its predictions are written into a hidden temporary
directory (readers skip names starting with '.') and renamed into place; its metrics file is written last, to a
temporary name and renamed, and its presence is what marks the unit done. An interrupted job therefore leaves no
half-written result that a reader or a rerun would take for a finished one, and a rerun skips finished units.
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

import pandas as pd

__all__ = ["ResultStore", "unit_name"]


def unit_name(dataset: str, label: str, noise: float, repeat: int, fold: int, test_limit: int | None = None) -> str:
    limit = "" if test_limit is None else f"__l{test_limit}"
    return f"{dataset}__{label}__noise{noise:g}{limit}__r{repeat}__f{fold}"


class ResultStore:
    """The ``metrics/`` and ``predictions/`` folders of a job's output directory."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.metrics = self.root / "metrics"
        self.predictions = self.root / "predictions"

    def prepare(self) -> None:
        self.metrics.mkdir(parents=True, exist_ok=True)
        self.predictions.mkdir(parents=True, exist_ok=True)

    def metrics_path(self, unit: str) -> Path:
        return self.metrics / f"{unit}.parquet"

    def is_done(self, unit: str) -> bool:
        return self.metrics_path(unit).is_file()

    def scratch(self) -> Path:
        """A fresh hidden directory for the predictions of one round."""
        path = self.predictions / f".tmp-{uuid.uuid4().hex}"
        path.mkdir(parents=True)
        return path

    def commit(self, unit: str, row: dict, scratch_dir: Path | None) -> None:
        """Move the unit's predictions into place, then write its metrics atomically."""
        if scratch_dir is not None and scratch_dir.is_dir():
            final = self.predictions / unit
            if final.exists():
                shutil.rmtree(final)
            os.replace(scratch_dir, final)
        path = self.metrics_path(unit)
        tmp = path.with_name(f".tmp-{uuid.uuid4().hex}-{path.name}")
        pd.DataFrame([row]).to_parquet(tmp, index=False)
        os.replace(tmp, path)

    def discard(self, scratch_dir: Path) -> None:
        shutil.rmtree(scratch_dir, ignore_errors=True)

    def read_metrics(self) -> pd.DataFrame:
        """All the unit rows, in file-name order.  Each file is read with ``ParquetFile`` (a dataset object per
        file costs more than the read: tens of thousands of units took minutes), on a few threads."""
        from concurrent.futures import ThreadPoolExecutor

        import pyarrow as pa
        import pyarrow.parquet as pq

        files = sorted(self.metrics.glob("*.parquet"))
        if not files:
            return pd.DataFrame()
        with ThreadPoolExecutor(max_workers=4) as pool:
            tables = list(pool.map(lambda f: pq.ParquetFile(f).read(), files))
        return pa.concat_tables(tables, promote_options="default").to_pandas()
