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

    def read_metrics(self, units=None) -> pd.DataFrame:
        """All the unit rows (only those of the unit names ``units``, if given), in unit-name order.

        A unit's metrics file is the record of the unit; reading tens of thousands of small files takes minutes,
        so the rows already read are also kept in a combined file (``metrics/_combined.*.parquet``, with each
        unit's name and file time).  A read takes the combined rows whose unit file is still there, unchanged,
        and reads the other unit files (``ParquetFile`` on a few threads); when it read many, it writes a new
        combined file (atomically) and removes the older ones.  A unit file deleted or rewritten is never
        served from the combined file.
        """
        for _ in range(5):
            try:
                return self._read_metrics(units)
            except FileNotFoundError:  # another reader replaced a combined file meanwhile: list again
                continue
        return self._read_metrics(units)

    def _read_metrics(self, wanted) -> pd.DataFrame:
        from concurrent.futures import ThreadPoolExecutor

        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self.metrics.is_dir():
            return pd.DataFrame()
        units: dict[str, int] = {}
        combined: list[Path] = []
        with os.scandir(self.metrics) as it:
            for entry in it:
                name = entry.name
                if not name.endswith(".parquet") or name.startswith("."):
                    continue
                if name.startswith(_COMBINED):
                    combined.append(Path(entry.path))
                else:
                    units[name[: -len(".parquet")]] = entry.stat().st_mtime_ns
        if not units:
            return pd.DataFrame()
        tables, have = [], set()
        for path in sorted(combined):
            t = pq.ParquetFile(path).read()
            names = t.column(_UNIT).to_pylist()
            stamps = t.column(_STAMP).to_pylist()
            pairs = enumerate(zip(names, stamps, strict=True))
            keep = [i for i, (u, m) in pairs if units.get(u) == m and u not in have]
            have.update(names[i] for i in keep)
            if keep:
                tables.append(t.take(pa.array(keep, pa.int64())))
        missing = sorted(set(units) - have)

        def read(unit: str):
            t = pq.ParquetFile(self.metrics / f"{unit}.parquet").read()
            n = t.num_rows
            t = t.append_column(_UNIT, pa.array([unit] * n, pa.string()))
            return t.append_column(_STAMP, pa.array([units[unit]] * n, pa.int64()))

        with ThreadPoolExecutor(max_workers=4) as pool:
            fresh = list(pool.map(read, missing))
        table = pa.concat_tables(tables + fresh, promote_options="default")
        if len(fresh) >= COMBINE_AFTER or (fresh and len(combined) > 1):
            self._write_combined(table, combined)
        if wanted is not None:
            import pyarrow.compute as pc

            table = table.filter(pc.is_in(table.column(_UNIT), value_set=pa.array(sorted(wanted), pa.string())))
        table = table.sort_by(_UNIT)
        return table.drop_columns([_UNIT, _STAMP]).to_pandas()

    def _write_combined(self, table, old: list[Path]) -> None:
        import pyarrow.parquet as pq

        path = self.metrics / f"{_COMBINED}{uuid.uuid4().hex}.parquet"
        tmp = path.with_name(f".tmp-{path.name}")
        try:
            pq.write_table(table, tmp)
            os.replace(tmp, path)
            for p in old:
                p.unlink(missing_ok=True)
        except OSError:  # a read-only results folder: reading still works, only slower
            tmp.unlink(missing_ok=True)


#: Metrics rows already read are combined into one file once this many unit files were read.
COMBINE_AFTER = 64
_COMBINED = "_combined."
_UNIT, _STAMP = "_unit", "_unit_mtime_ns"
