"""The console summary of a run: mean error and standard deviation per dataset and classifier."""

from __future__ import annotations

import pandas as pd

__all__ = ["error_summary"]


def error_summary(metrics: pd.DataFrame) -> str:
    """Fixed-width table of error % (mean ± sd over folds and repeats), one row per dataset (and noise)."""
    if metrics.empty:
        return "(no results)"
    keys = ["dataset", "noise"] if metrics["noise"].nunique() > 1 else ["dataset"]
    order = list(dict.fromkeys(metrics["classifier"]))
    g = metrics.groupby([*keys, "classifier"], sort=False)["error"]
    mean = (100 * g.mean()).unstack("classifier")[order]
    sd = (100 * g.std(ddof=1)).unstack("classifier")[order].fillna(0.0)
    cells = mean.round(2).astype(str).radd("") + " ± " + sd.round(2).astype(str)
    cells = mean.map(lambda v: f"{v:6.2f}") + " ± " + sd.map(lambda v: f"{v:5.2f}")
    table = cells.reset_index()
    tm = metrics.groupby("classifier", sort=False)[["train_seconds", "test_seconds"]].sum().loc[order]
    lines = ["error % (mean ± sd over folds)", table.to_string(index=False), "", "seconds (sum over folds and datasets)"]
    lines.append(tm.round(2).to_string())
    return "\n".join(lines)
