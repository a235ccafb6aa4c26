"""``dbayes sample``: many rows shaped like a dataset, drawn from a TAN fitted to it, written in parallel."""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

import dask
import numpy as np
import pandas as pd

from dbayes.counts import CountTables, TableLayout
from dbayes.data.encode import Coding
from dbayes.data.scan import merged_sketch
from dbayes.data.schema import Schema
from dbayes.errors import DataError
from dbayes.evaluate.partition import RoundPlan, partition_counts
from dbayes.job import parse_job
from dbayes.models.sampling import sample_tan
from dbayes.models.tan import TAN

from .cv import _discretize, tree_sum
from .datasets import open_dataset

__all__ = ["sample_dataset"]


def _decode(X: np.ndarray, y: np.ndarray, coding: Coding, ranges: dict, rng: np.random.Generator) -> pd.DataFrame:
    schema = coding.schema
    cols = {}
    for i, a in enumerate(schema.attributes):
        codes = X[:, i]
        if a.is_nominal:
            c = np.where(codes >= a.card, -1, codes)
            cols[a.name] = pd.Categorical.from_codes(c, categories=list(a.values))
        else:
            lo_all, hi_all = ranges[a.name]
            edges = np.concatenate([[lo_all], coding.cuts.get(a.name, np.empty(0)), [hi_all]])
            nb = len(edges) - 1
            valid = codes < nb
            b = np.minimum(codes, nb - 1)
            lo, hi = edges[b], edges[b + 1]
            x = lo + (hi - lo) * rng.random(len(codes))  # uniform inside the bin
            x[~valid] = np.nan
            cols[a.name] = x
    cols[schema.class_name] = pd.Categorical.from_codes(y, categories=list(schema.classes))
    return pd.DataFrame(cols)


def _write_part(model, tables, coding, ranges, n, seed, index, folder) -> int:
    rng = np.random.default_rng([seed, index])
    X, y = sample_tan(model, tables, n, rng)
    frame = _decode(X, y, coding, ranges, rng)
    frame.to_parquet(Path(folder) / f"part-{index:05d}.parquet", index=False)
    return n


def sample_dataset(source: str, rows: int, out: str | Path, *, rows_per_part: int = 1_000_000, seed: int = 1) -> int:
    """Fit a TAN (MDL bins fitted on all rows) to ``source`` and write ``rows`` sampled rows as Parquet parts."""
    if rows < 1:
        raise DataError(f"--rows must be at least 1, got {rows}")
    out = Path(out)
    if out.exists():
        raise DataError(f"{out}: already exists; choose a new output path")
    data = open_dataset(source)
    schema: Schema = data.schema
    parts = data.frame.to_delayed()
    C = schema.n_classes
    offsets = np.zeros((len(parts), C), dtype=np.int64)
    starts = data.row_starts()
    plan = RoundPlan(schema, Coding(schema, {}), 2, seed, 0, 0.0, offsets, starts, "global")
    cuts: dict[str, np.ndarray] = {}
    ranges: dict[str, tuple[float, float]] = {}
    if schema.numeric_indices:
        # the engine's discretization (MDL on all rows; quantile grids for columns with very many values)
        job = parse_job(
            {"datasets": [source], "classifiers": [{"name": "tan"}], "discretize_scope": "global"}, "sample"
        )
        cuts = {n: c[0] for n, c in _discretize(data, job, parts, dask.delayed(plan, traverse=False), 2).items()}
        for i in schema.numeric_indices:
            name = schema.attributes[i].name
            sketch, _ = merged_sketch(data.scans, name)
            ranges[name] = (float(sketch.min()), float(sketch.max()))  # the sketch keeps each partition's extremes
    coding = Coding(schema, cuts)
    plan = RoundPlan(schema, coding, 2, seed, 0, 0.0, offsets, starts, "global")
    layout = TableLayout(C, coding.cards, pairs=True)
    counts = dask.compute(tree_sum([dask.delayed(partition_counts)(p, i, plan, layout) for i, p in enumerate(parts)]))[
        0
    ]
    tables = CountTables(layout, counts.sum(axis=0))
    model = TAN().fit(tables)
    tmp = out.with_name(f".tmp-{uuid.uuid4().hex}-{out.name}")
    tmp.mkdir(parents=True)
    sizes = [rows_per_part] * (rows // rows_per_part) + ([rows % rows_per_part] if rows % rows_per_part else [])
    model_d = dask.delayed(model, traverse=False)
    tables_d = dask.delayed(tables, traverse=False)
    try:
        written = dask.compute(
            *[
                dask.delayed(_write_part)(model_d, tables_d, coding, ranges, n, seed, i, str(tmp))
                for i, n in enumerate(sizes)
            ]
        )
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    os.replace(tmp, out)
    return int(sum(written))
