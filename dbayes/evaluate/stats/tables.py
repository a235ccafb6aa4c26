"""The papers' comparison tables, computed from a results (metrics) DataFrame.

A metrics frame has one row per (dataset, classifier, noise, repeat, fold) with at least the columns of
:data:`REQUIRED_COLUMNS`; jobs may add parameter columns (``k``, ``n_test_instances``...). Classifiers
keep their order of first appearance. Each function here takes the frame and returns a labelled DataFrame
(or a string, for the console); nothing is printed or written.

Per-data-set figures are means over the folds and repeats of the per-fold values (seed 004: "the mean of
the 100 accuracies"). A frame with several noise levels, or any other varied parameter, is cut with
``where={"noise": 0.1}`` before a per-data-set comparison; a comparison that would mix conditions raises.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from dbayes.errors import DataError, DbayesError

from .pairwise import corrected_resampled_t_test, paired_t_test, sign_test, win_loss_draw
from .ranks import friedman_test, nemenyi_test, pairwise_z_tests

__all__ = [
    "REQUIRED_COLUMNS",
    "check_metrics",
    "classifier_order",
    "select",
    "dataset_scores",
    "dataset_summary",
    "error_table",
    "time_table",
    "wld_table",
    "accuracy_table",
    "friedman_rank_table",
    "nemenyi_table",
    "nemenyi_pvalue_table",
    "ttest_by_dataset",
    "ttest_wtl_table",
    "vary_table",
    "format_summary",
]

REQUIRED_COLUMNS = ("dataset", "classifier", "repeat", "fold", "accuracy", "error")
"""Columns every metrics frame must have; ``noise`` defaults to 0.0, ``n_train``/``n_test`` are needed by
the corrected t-test and ``train_seconds``/``test_seconds`` by the time columns."""

_KEY = ["dataset", "classifier", "repeat", "fold"]


def check_metrics(metrics: pd.DataFrame) -> pd.DataFrame:
    """Validate a metrics frame and return it with a ``noise`` column (0.0 where absent)."""
    if not isinstance(metrics, pd.DataFrame):
        raise DataError(f"metrics must be a pandas DataFrame, got {type(metrics).__name__}")
    missing = [c for c in REQUIRED_COLUMNS if c not in metrics.columns]
    if missing:
        raise DataError(f"the metrics frame lacks the columns {missing}; it has {list(metrics.columns)}")
    if metrics.empty:
        raise DataError("the metrics frame has no rows")
    if "noise" not in metrics.columns:
        metrics = metrics.assign(noise=0.0)
    return metrics


def classifier_order(metrics: pd.DataFrame) -> list[str]:
    """Classifier labels in order of first appearance."""
    return list(pd.unique(metrics["classifier"].astype(str)))


def _dataset_order(metrics: pd.DataFrame) -> list[str]:
    return list(pd.unique(metrics["dataset"].astype(str)))


def select(metrics: pd.DataFrame, where: Mapping | None = None, *, unique: bool = True) -> pd.DataFrame:
    """Rows matching every ``column: value`` of ``where`` (a float NaN matches missing values).

    With ``unique`` it checks that one row per (dataset, classifier, repeat, fold) remains, so that nothing
    varied is averaged together by mistake.
    """
    metrics = check_metrics(metrics)
    for column, value in (where or {}).items():
        if column not in metrics.columns:
            raise DataError(f"cannot select on {column!r}: not a column of the metrics frame")
        if _is_float(value) and np.isnan(value):
            metrics = metrics[metrics[column].isna()]
        elif _is_float(value):
            metrics = metrics[np.isclose(metrics[column].astype(float), value)]
        else:
            metrics = metrics[metrics[column] == value]
    if metrics.empty:
        raise DataError(f"no metrics rows match {dict(where or {})}")
    duplicated = metrics.duplicated(_KEY)
    if unique and duplicated.any():
        varied = [
            c
            for c in metrics.columns
            if c not in _KEY
            and metrics[c].dtype.kind in "biuf"
            and metrics.loc[metrics.duplicated(_KEY, keep=False), c].nunique() > 1
            and c not in ("accuracy", "error", "log_loss", "train_seconds", "test_seconds", "n_train", "n_test")
        ]
        raise DataError(
            f"{int(duplicated.sum())} rows repeat a (dataset, classifier, repeat, fold); "
            f"select one value of the varied column(s) {varied} with where={{...}}"
        )
    return metrics


def _is_float(value) -> bool:
    return isinstance(value, float | np.floating)


def dataset_scores(
    metrics: pd.DataFrame, value: str = "accuracy", *, where: Mapping | None = None, complete: bool = True
) -> pd.DataFrame:
    """Per-data-set mean of ``value`` over folds and repeats: rows data sets, columns classifiers.

    With ``complete`` (the default) a data set missing a classifier raises, since rank tests need every
    cell.
    """
    rows = select(metrics, where)
    table = rows.pivot_table(
        index="dataset", columns="classifier", values=value, aggfunc="mean", observed=True, sort=False
    )
    table = table.reindex(index=[d for d in _dataset_order(rows) if d in table.index], columns=classifier_order(rows))
    if complete and table.isna().to_numpy().any():
        gaps = table.isna().stack()
        raise DataError(f"no {value} for (dataset, classifier) {list(gaps[gaps].index)[:5]}")
    table.columns.name = "classifier"
    return table


def dataset_summary(metrics: pd.DataFrame, value: str = "error", *, where: Mapping | None = None) -> pd.DataFrame:
    """Long table of mean, standard deviation (ddof 1, over folds x repeats) and count per (dataset,
    classifier)."""
    rows = select(metrics, where)
    grouped = rows.groupby(["dataset", "classifier"], sort=False, observed=True)[value]
    out = grouped.agg(["mean", "std", "count"]).reset_index()
    return out


def _cv_seconds(rows: pd.DataFrame) -> pd.DataFrame:
    """Seconds (train + test) of one cross-validation run: the mean per fold times the number of folds,
    per data set and classifier (over any conditions present in ``rows``)."""
    seconds = rows.get("train_seconds", 0.0) + rows.get("test_seconds", 0.0)
    rows = rows.assign(_seconds=seconds)
    per_fold = rows.groupby(["dataset", "classifier"], sort=False, observed=True)["_seconds"].mean()
    n_folds = rows.groupby("dataset", sort=False, observed=True)["fold"].nunique()
    per_run = per_fold * n_folds.reindex(per_fold.index.get_level_values("dataset")).to_numpy()
    table = per_run.unstack("classifier")
    return table.reindex(index=_dataset_order(rows), columns=classifier_order(rows))


def error_table(metrics: pd.DataFrame, *, where: Mapping | None = None) -> pd.DataFrame:
    """Seed 000 Table 3: error (%) and time per domain and classifier, with a final "Mean" row.

    Columns are a MultiIndex (classifier, "error" | "time"); error is the mean per-fold error in percent,
    time the seconds (train + test) of one cross-validation run, averaged over repeats.
    """
    rows = select(metrics, where)
    errors = dataset_scores(rows, "error", complete=False) * 100.0
    seconds = _cv_seconds(rows)
    parts = {}
    for name in classifier_order(rows):
        parts[(name, "error")] = errors[name]
        parts[(name, "time")] = seconds[name]
    table = pd.DataFrame(parts)
    table.columns = pd.MultiIndex.from_tuples(table.columns, names=["classifier", "measure"])
    table.loc["Mean"] = table.mean(axis=0)
    table.index.name = "dataset"
    return table


def time_table(metrics: pd.DataFrame, *, where: Mapping | None = None) -> pd.DataFrame:
    """Mean train and test seconds per fold, and seconds per CV run, for each classifier (averaged over
    data sets and over every condition in the frame unless ``where`` selects one)."""
    rows = select(metrics, where, unique=False)
    out = pd.DataFrame(index=pd.Index(classifier_order(rows), name="classifier"))
    for column in ("train_seconds", "test_seconds"):
        if column in rows.columns:
            out[f"{column}_per_fold"] = rows.groupby("classifier", observed=True)[column].mean()
    out["seconds_per_cv_run"] = _cv_seconds(rows).mean(axis=0)
    return out


def wld_table(
    metrics: pd.DataFrame, baseline: str, precision: int | None = 2, *, where: Mapping | None = None
) -> pd.DataFrame:
    """Seed 000 Table 4: WIN/LOSS/DRAW of ``baseline`` against each other classifier, with the sign test.

    A win is a data set where ``baseline``'s mean error, in percent rounded to ``precision`` decimals, is
    lower. ``p`` is the one-tailed binomial sign test in the direction observed (the probability of so
    many wins, or losses, or more when both are equiprobable; draws ignored); ``p_two_sided`` as well.
    """
    errors = dataset_scores(metrics, "error", where=where) * 100.0
    _check_baseline(baseline, errors.columns)
    rows = []
    for other in errors.columns:
        if other == baseline:
            continue
        wld = win_loss_draw(errors[baseline], errors[other], precision=precision, lower_is_better=True)
        direction = "greater" if wld.wins >= wld.losses else "less"
        one = sign_test(wld.wins, wld.losses, wld.draws, alternative=direction)
        two = sign_test(wld.wins, wld.losses, wld.draws, alternative="two-sided")
        rows.append((other, wld.wins, wld.losses, wld.draws, one.p_value, two.p_value))
    table = pd.DataFrame(rows, columns=["classifier", "win", "loss", "draw", "p", "p_two_sided"])
    return table.set_index("classifier")


def _check_baseline(baseline: str, names: Sequence[str]) -> None:
    if baseline not in list(names):
        raise DbayesError(f"baseline {baseline!r} is not among the classifiers {list(names)}")


def _levels(metrics: pd.DataFrame, column: str) -> list:
    return sorted(pd.unique(metrics[column]))


def accuracy_table(metrics: pd.DataFrame, *, by: str = "noise") -> pd.DataFrame:
    """Seed 003 Table 1: mean accuracy (%) and its standard deviation over data sets, per classifier and
    value of ``by`` (the noise level).

    Columns are a MultiIndex (level, "mean" | "sd"); the sd is that of the per-data-set mean accuracies.
    """
    metrics = check_metrics(metrics)
    parts = {}
    for level in _levels(metrics, by):
        scores = dataset_scores(metrics, "accuracy", where={by: level}, complete=False) * 100.0
        parts[(level, "mean")] = scores.mean(axis=0)
        parts[(level, "sd")] = scores.std(axis=0, ddof=1)
    table = pd.DataFrame(parts).reindex(classifier_order(metrics))
    table.columns = pd.MultiIndex.from_tuples(table.columns, names=[by, "statistic"])
    table.index.name = "classifier"
    return table


def friedman_rank_table(metrics: pd.DataFrame, *, by: str = "noise", value: str = "accuracy") -> pd.DataFrame:
    """Seed 003 Table 2: Friedman's average ranks (1 = best accuracy) per classifier and value of ``by``,
    followed by the rows ``chi2_F``, ``p (chi2_F)``, ``F_F`` (Iman-Davenport) and ``p (F_F)``."""
    metrics = check_metrics(metrics)
    columns = {}
    for level in _levels(metrics, by):
        scores = dataset_scores(metrics, value, where={by: level})
        result = friedman_test(scores, higher_is_better=value != "error")
        stats = pd.Series(
            {
                "chi2_F": result.statistic,
                "p (chi2_F)": result.p_value,
                "F_F": result.iman_davenport,
                "p (F_F)": result.ff_p_value,
                "data sets": float(result.n_datasets),
            }
        )
        columns[level] = pd.concat([result.average_ranks, stats])
    table = pd.DataFrame(columns)
    table.columns.name = by
    return table


def nemenyi_table(metrics: pd.DataFrame, *, where: Mapping | None = None, alpha: float = 0.05) -> pd.DataFrame:
    """Seed 003 Tables 3-4: every pair with its z, unadjusted p and Nemenyi's threshold alpha/m, plus the
    p-value of the studentized-range Nemenyi test (``p_nemenyi``)."""
    scores = dataset_scores(metrics, "accuracy", where=where)
    nemenyi = nemenyi_test(scores, alpha=alpha)
    table = pairwise_z_tests(nemenyi.average_ranks, nemenyi.n_datasets, alpha=alpha)
    pairs = zip(table["first"], table["second"], strict=True)
    table["p_nemenyi"] = [nemenyi.p_values.loc[a, b] for a, b in pairs]
    return table


def nemenyi_pvalue_table(metrics: pd.DataFrame, *, where: Mapping | None = None) -> pd.DataFrame:
    """The k x k matrix of Nemenyi p-values on accuracy ranks."""
    return nemenyi_test(dataset_scores(metrics, "accuracy", where=where)).p_values


def ttest_by_dataset(
    metrics: pd.DataFrame, baseline: str, *, test: str = "corrected", alpha: float = 0.05, where: Mapping | None = None
) -> pd.DataFrame:
    """Per data set, the two-tailed paired t-test of ``baseline``'s fold accuracies against each other
    classifier's (seed 004), the folds paired on (repeat, fold).

    ``test="corrected"`` is Nadeau and Bengio's corrected resampled t-test (needs ``n_train``/``n_test``),
    ``"paired"`` the plain paired t-test. ``outcome`` is "win" where the baseline is significantly more
    accurate at ``alpha``, "loss" where significantly less, else "tie".
    """
    if test not in ("corrected", "paired"):
        raise DbayesError(f"test must be 'corrected' or 'paired', got {test!r}")
    rows = select(metrics, where)
    _check_baseline(baseline, classifier_order(rows))
    out = []
    for dataset in _dataset_order(rows):
        part = rows[rows["dataset"] == dataset]
        folds = part.pivot_table(index=["repeat", "fold"], columns="classifier", values="accuracy", observed=True)
        for other in classifier_order(rows):
            if other == baseline or other not in folds.columns or baseline not in folds.columns:
                continue
            pair = folds[[baseline, other]].dropna()
            if len(pair) != len(folds):
                raise DataError(f"{dataset}: {baseline} and {other} were not run on the same folds")
            if test == "corrected":
                for column in ("n_train", "n_test"):
                    if column not in part.columns:
                        raise DataError(f"the corrected t-test needs the column {column!r}")
                result = corrected_resampled_t_test(
                    pair[baseline], pair[other], n_train=part["n_train"], n_test=part["n_test"]
                )
            else:
                result = paired_t_test(pair[baseline], pair[other])
            outcome = "tie"
            if result.p_value < alpha:
                outcome = "win" if result.mean_difference > 0 else "loss"
            out.append(
                (
                    dataset,
                    other,
                    float(pair[baseline].mean()),
                    float(pair[other].mean()),
                    result.mean_difference,
                    result.statistic,
                    result.p_value,
                    len(pair),
                    outcome,
                )
            )
    return pd.DataFrame(
        out,
        columns=[
            "dataset",
            "classifier",
            "baseline_accuracy",
            "accuracy",
            "difference",
            "t",
            "p_value",
            "n_folds",
            "outcome",
        ],
    )


def ttest_wtl_table(
    metrics: pd.DataFrame, baseline: str, *, test: str = "corrected", alpha: float = 0.05, where: Mapping | None = None
) -> pd.DataFrame:
    """Seed 004 Table 2 summary: for each other classifier, the number of data sets where ``baseline`` is
    significantly better (win), not significantly different (tie), significantly worse (loss)."""
    detail = ttest_by_dataset(metrics, baseline, test=test, alpha=alpha, where=where)
    counts = pd.crosstab(detail["classifier"], detail["outcome"])
    counts = counts.reindex(
        index=[c for c in classifier_order(select(metrics, where)) if c != baseline],
        columns=["win", "tie", "loss"],
        fill_value=0,
    )
    counts.columns.name = None
    return counts.astype(int)


def vary_table(metrics: pd.DataFrame, vary: str, value: str = "accuracy") -> pd.DataFrame:
    """Mean of ``value`` over data sets (of per-data-set means) per classifier, at each value of ``vary``.

    Rows are the sorted values of ``vary``, columns the classifiers. For times pass
    ``value="train_seconds"`` or ``"test_seconds"``.
    """
    metrics = check_metrics(metrics)
    if vary not in metrics.columns:
        raise DataError(f"cannot vary {vary!r}: not a column of the metrics frame")
    per_dataset = metrics.groupby([vary, "dataset", "classifier"], observed=True, sort=False)[value].mean()
    table = per_dataset.groupby([vary, "classifier"], observed=True, sort=False).mean().unstack("classifier")
    return table.sort_index().reindex(columns=classifier_order(metrics))


def format_summary(metrics: pd.DataFrame, value: str = "error", *, percent: bool = True, decimals: int = 2) -> str:
    """Fixed-width text table of mean +- sd of ``value`` per data set (rows) and classifier (columns).

    With several noise levels the rows are (dataset, noise). The sd is over folds x repeats. Best mean per
    row is marked with ``*`` (lowest error, highest accuracy).
    """
    metrics = check_metrics(metrics)
    scale = 100.0 if percent else 1.0
    names = classifier_order(metrics)
    noises = _levels(metrics, "noise")
    lower_is_better = value in ("error", "log_loss") or value.endswith("seconds")
    header = ["dataset"] + (["noise"] if len(noises) > 1 else []) + names
    lines = []
    for noise in noises:
        summary = dataset_summary(metrics, value, where={"noise": noise})
        for dataset in pd.unique(summary["dataset"]):
            part = summary[summary["dataset"] == dataset].set_index("classifier")
            means = part["mean"].reindex(names) * scale
            best = means.min() if lower_is_better else means.max()
            cells = []
            for name in names:
                if name not in part.index:
                    cells.append("-")
                    continue
                mean, sd = part.at[name, "mean"] * scale, part.at[name, "std"] * scale
                mark = "*" if np.isclose(mean, best) else " "
                sd_text = "" if np.isnan(sd) else f" +- {sd:.{decimals}f}"  # no sd from a single fold
                cells.append(f"{mean:.{decimals}f}{sd_text}{mark}")
            lines.append([str(dataset)] + ([f"{noise:g}"] if len(noises) > 1 else []) + cells)
    widths = [max(len(row[i]) for row in [header] + lines) for i in range(len(header))]
    fmt = [lambda s, w=w: s.ljust(w) for w in widths[:1]] + [lambda s, w=w: s.rjust(w) for w in widths[1:]]
    text = ["  ".join(f(c) for f, c in zip(fmt, header, strict=True)), "  ".join("-" * w for w in widths)]
    text += ["  ".join(f(c) for f, c in zip(fmt, row, strict=True)) for row in lines]
    unit = " (%)" if percent else ""
    text.append(f"{value}{unit}: mean +- sd over folds x repeats; * best per row")
    return "\n".join(text)
