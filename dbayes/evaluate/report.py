"""The comparison report of a job: Markdown and self-contained HTML, from a metrics DataFrame.

:func:`summary_tables` computes every table (as :class:`ReportTable`: a numeric frame and its display
text) and :func:`write_report` renders them with the figures of :mod:`dbayes.evaluate.plots`. Both are
pure functions of the metrics frame (plus, for the latter, the files it writes), so ``dbayes run`` prints
its summary and ``dbayes report`` writes its files through the same code.

Report layout: per condition (noise level, and any other column named in ``vary``): the error table (mean
+- sd over folds x repeats, best in bold), win/loss/draw against the baseline with the sign test, the
per-data-set t-test win/tie/loss when there are several repeats, Friedman's test with the Nemenyi p-values,
Holm against the baseline, and the CD diagram; then the time per classifier, seed 003's accuracy and
Friedman-rank tables when the noise level varies, and line plots against each varied parameter.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import itertools
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from dbayes.errors import DataError, DbayesError
from dbayes.evaluate import plots
from dbayes.evaluate.stats import (
    check_metrics,
    classifier_order,
    dataset_scores,
    dataset_summary,
    format_summary,
    friedman_rank_table,
    friedman_test,
    holm_test,
    nemenyi_cliques,
    nemenyi_table,
    nemenyi_test,
    time_table,
    ttest_wtl_table,
    vary_table,
    wld_table,
)

__all__ = [
    "ReportTable",
    "ReportFigure",
    "ReportPaths",
    "load_metrics",
    "summary_tables",
    "write_report",
    "print_summary",
    "render_text",
    "render_markdown",
    "render_html",
]

PLUS_MINUS = "\u00b1"


@dataclass(frozen=True)
class ReportTable:
    """One table of the report: ``frame`` holds the numbers, ``text`` the formatted cells (same shape),
    ``bold`` marks the cells to emphasise (or None)."""

    key: str
    title: str
    caption: str
    frame: pd.DataFrame
    text: pd.DataFrame
    bold: pd.DataFrame | None = None
    section: str = ""


@dataclass(frozen=True)
class ReportFigure:
    """A figure of the report: file name (PNG beside the Markdown), title, caption and the PNG bytes."""

    filename: str
    title: str
    caption: str
    png: bytes
    section: str = ""


@dataclass(frozen=True)
class ReportPaths:
    """What :func:`write_report` wrote. ``figures_skipped`` says why there are no figures, else None."""

    markdown: Path
    html: Path
    figures: tuple[Path, ...] = field(default_factory=tuple)
    figures_skipped: str | None = None


def load_metrics(path: str | Path) -> pd.DataFrame:
    """Read a job's metrics: a Parquet file, or a directory of Parquet files (a results directory whose
    ``metrics.parquet`` is taken when present)."""
    path = Path(path)
    if path.is_dir() and (path / "metrics.parquet").exists():
        path = path / "metrics.parquet"
    if not path.exists():
        raise DataError(f"no results at {path}")
    return check_metrics(pd.read_parquet(path))


# ----------------------------------------------------------------------------------------------- format


def _p(p: float) -> str:
    if p is None or (isinstance(p, float) and np.isnan(p)):
        return "-"
    if p == 0.0:
        return "0"
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def _num(x: float, decimals: int = 2) -> str:
    if x is None or (isinstance(x, float | np.floating) and np.isnan(x)):
        return "-"
    if isinstance(x, float | np.floating) and np.isinf(x):
        return "inf"
    return f"{x:.{decimals}f}"


def _seconds(x: float) -> str:
    if np.isnan(x):
        return "-"
    return f"{x:.3g}"


def _condition_label(condition: dict) -> str:
    return ", ".join(
        f"{k} = {v:g}" if isinstance(v, float | np.floating) else f"{k} = {v}" for k, v in condition.items()
    )


def _slug(condition: dict) -> str:
    parts = [f"{k}-{v:g}" if isinstance(v, float | np.floating) else f"{k}-{v}" for k, v in condition.items()]
    return "_".join(p.replace(" ", "").replace("/", "-") for p in parts) or "all"


# ----------------------------------------------------------------------------------------------- tables


def _conditions(metrics: pd.DataFrame, vary: Sequence[str]) -> list[dict]:
    columns = ["noise"] + [v for v in vary if v != "noise"]
    combos = metrics[columns].drop_duplicates()
    combos = combos.sort_values(columns, kind="mergesort", na_position="first")
    return [dict(zip(columns, row, strict=True)) for row in combos.itertuples(index=False)]


def _select_condition(metrics: pd.DataFrame, condition: dict) -> pd.DataFrame:
    mask = np.ones(len(metrics), dtype=bool)
    for column, value in condition.items():
        if pd.isna(value):
            mask &= metrics[column].isna().to_numpy()
        else:
            mask &= (metrics[column] == value).to_numpy()
    return metrics[mask]


def _error_table(rows: pd.DataFrame, section: str, decimals: int) -> ReportTable:
    summary = dataset_summary(rows, "error")
    names = classifier_order(rows)
    means = summary.pivot(index="dataset", columns="classifier", values="mean") * 100.0
    sds = summary.pivot(index="dataset", columns="classifier", values="std") * 100.0
    order = list(pd.unique(rows["dataset"].astype(str)))
    means, sds = means.reindex(index=order, columns=names), sds.reindex(index=order, columns=names)
    means.loc["Mean"] = means.mean(axis=0)
    sds.loc["Mean"] = means.drop(index="Mean").std(axis=0, ddof=1)
    text = pd.DataFrame("-", index=means.index, columns=names)
    for i, j in itertools.product(means.index, names):
        if np.isnan(means.at[i, j]):
            continue
        text.at[i, j] = f"{means.at[i, j]:.{decimals}f}"
        if not np.isnan(sds.at[i, j]):  # no sd from a single fold
            text.at[i, j] += f" {PLUS_MINUS} {sds.at[i, j]:.{decimals}f}"
    best = means.min(axis=1)
    bold = means.apply(lambda col: np.isclose(col, best) & col.notna())
    means.index.name = text.index.name = "dataset"
    caption = (
        f"Mean error in percent over folds x repeats {PLUS_MINUS} standard deviation; the Mean row "
        f"averages the data sets ({PLUS_MINUS} sd over data sets). Best per row in bold."
    )
    return ReportTable("error", "Error (%) per data set", caption, means, text, bold, section)


def _wld(rows: pd.DataFrame, baseline: str, precision: int, section: str) -> ReportTable:
    table = wld_table(rows, baseline, precision)
    text = pd.DataFrame(
        {
            "WIN": table["win"].astype(str),
            "LOSS": table["loss"].astype(str),
            "DRAW": table["draw"].astype(str),
            "P (one-tailed)": table["p"].map(_p),
            "P (two-tailed)": table["p_two_sided"].map(_p),
        }
    )
    caption = (
        f"WIN/LOSS/DRAW of {baseline} against each classifier: data sets where {baseline}'s mean "
        f"error (%, to {precision} decimal places) is lower / higher / equal; P is the binomial sign "
        "test on wins and losses (draws ignored), one-tailed in the direction observed."
    )
    return ReportTable("wld", f"Win/loss/draw of {baseline} (sign test)", caption, table, text, None, section)


def _ttest(rows: pd.DataFrame, baseline: str, test: str, alpha: float, section: str) -> ReportTable:
    table = ttest_wtl_table(rows, baseline, test=test, alpha=alpha)
    name = (
        "corrected resampled t-test (Nadeau and Bengio 2003)" if test == "corrected" else "paired t-test over the folds"
    )
    caption = (
        f"Per data set, two-tailed {name} at alpha = {alpha} on the fold accuracies of {baseline} "
        f"against each classifier: win = {baseline} significantly more accurate, tie = no "
        "significant difference, loss = significantly less accurate."
    )
    return ReportTable(
        "ttest", f"Win/tie/loss of {baseline} ({test} t-test)", caption, table, table.astype(str), None, section
    )


def _friedman_tables(rows: pd.DataFrame, baseline: str, alpha: float, section: str) -> tuple[list[ReportTable], object]:
    scores = dataset_scores(rows, "accuracy")
    result = friedman_test(scores)
    nemenyi = nemenyi_test(scores, alpha=alpha)
    ranks = result.average_ranks
    frame = pd.DataFrame({"average rank": ranks})
    text = frame.map(lambda x: _num(x, 3))
    bold = frame == frame.min()
    caption = (
        f"Friedman test on accuracy ranks (1 = best, ties averaged) over {result.n_datasets} data "
        f"sets: chi2_F = {_num(result.statistic, 3)} (p = {_p(result.p_value)}), Iman-Davenport "
        f"F_F = {_num(result.iman_davenport, 3)} (p = {_p(result.ff_p_value)}, df = "
        f"{result.n_classifiers - 1}, {(result.n_classifiers - 1) * (result.n_datasets - 1)}). "
        f"Nemenyi critical difference at alpha = {alpha}: CD = {_num(nemenyi.critical_difference, 3)} "
        f"(q_alpha = {_num(nemenyi.q_alpha, 3)})."
    )
    tables = [ReportTable("friedman", "Friedman average ranks", caption, frame, text, bold, section)]
    pv = nemenyi.p_values
    tables.append(
        ReportTable(
            "nemenyi",
            "Nemenyi p-values",
            f"Pairwise p-values of the Nemenyi test (studentized range, infinite df); bold where p < {alpha}.",
            pv,
            pv.map(_p),
            (pv < alpha) & (pv.index.to_numpy()[:, None] != pv.columns.to_numpy()[None, :]),
            section,
        )
    )
    pairs = nemenyi_table(rows, alpha=alpha)
    pairs_text = pd.DataFrame(
        {
            "i": pairs["i"].astype(str),
            "algorithms": pairs["algorithms"],
            "z": pairs["z"].map(lambda x: _num(x, 3)),
            "p": pairs["p_value"].map(_p),
            "alpha / m": pairs["nemenyi_alpha"].map(_p),
            "p (Nemenyi)": pairs["p_nemenyi"].map(_p),
        }
    )
    tables.append(
        ReportTable(
            "pairs",
            "Pairwise comparisons",
            "Unadjusted two-tailed z-test p-values of every pair (as in the "
            "tables of Garcia and Herrera 2008): Nemenyi rejects p <= alpha / m with m = k(k-1)/2 pairs; the "
            "last column is the studentized-range Nemenyi p-value (that of the p-value matrix and the CD "
            "diagram; the alpha / m rule is the more conservative of the two, so they can disagree near the "
            f"threshold). Bold: rejected by p <= alpha / m at alpha = {alpha}.",
            pairs.set_index("i"),
            pairs_text.set_index("i"),
            pd.DataFrame(
                {c: pairs["nemenyi_reject"].to_numpy() for c in pairs_text.columns if c != "i"}, index=pairs_text["i"]
            ),
            section,
        )
    )
    if baseline in ranks.index and ranks.size > 1:
        holm = holm_test(scores, baseline, alpha=alpha)
        holm_text = pd.DataFrame(
            {
                "average rank": holm["average_rank"].map(lambda x: _num(x, 3)),
                "z": holm["z"].map(lambda x: _num(x, 3)),
                "p": holm["p_value"].map(_p),
                "alpha / (k - i)": holm["alpha_step"].map(_p),
                "adjusted p": holm["adjusted_p"].map(_p),
                "rejected": holm["rejected"].map({True: "yes", False: "no"}),
            }
        )
        tables.append(
            ReportTable(
                "holm",
                f"Holm's procedure against {baseline}",
                f"z-tests of each classifier's average rank "
                f"against {baseline}'s, in step order; Holm's step-down procedure at alpha = {alpha}.",
                holm,
                holm_text,
                pd.DataFrame({c: holm["rejected"].to_numpy() for c in holm_text.columns}, index=holm_text.index),
                section,
            )
        )
    return tables, (ranks, nemenyi.critical_difference, alpha)


def _vary_columns(metrics: pd.DataFrame, vary) -> list[str]:
    if vary is None:
        vary = []
    elif isinstance(vary, str):
        vary = [vary]
    for column in vary:
        if column not in metrics.columns:
            raise DataError(f"cannot vary {column!r}: not a column of the metrics frame")
        if metrics[column].dtype.kind not in "biuf":
            raise DataError(f"cannot vary {column!r}: its values are not numeric")
    columns = list(dict.fromkeys(vary))
    if metrics["noise"].nunique() > 1 and "noise" not in columns:
        columns.insert(0, "noise")
    return columns


def _build(metrics, *, baseline, precision, alpha, test, vary, decimals):
    metrics = check_metrics(metrics)
    names = classifier_order(metrics)
    baseline = names[0] if baseline is None else baseline
    if baseline not in names:
        raise DbayesError(f"baseline {baseline!r} is not among the classifiers {names}")
    if test not in ("corrected", "paired"):
        raise DbayesError(f"test must be 'corrected' or 'paired', got {test!r}")
    varied = _vary_columns(metrics, vary)
    tables: list[ReportTable] = []
    cd_inputs: list[tuple[str, dict, object]] = []
    conditions = _conditions(metrics, [v for v in varied if v != "noise"])
    for condition in conditions:
        rows = _select_condition(metrics, condition)
        section = _condition_label(condition) if len(conditions) > 1 else ""
        tables.append(_error_table(rows, section, decimals))
        n_classifiers, n_datasets = rows["classifier"].nunique(), rows["dataset"].nunique()
        if n_classifiers < 2 or baseline not in set(rows["classifier"]):
            continue
        tables.append(_wld(rows, baseline, precision, section))
        if rows["repeat"].nunique() > 1 or test == "paired":
            tables.append(_ttest(rows, baseline, test, alpha, section))
        if n_datasets >= 2:
            more, cd_input = _friedman_tables(rows, baseline, alpha, section)
            tables.extend(more)
            cd_inputs.append((section, condition, cd_input))
    times = time_table(metrics)
    times_text = times.map(_seconds).rename(
        columns={
            "train_seconds_per_fold": "train s / fold",
            "test_seconds_per_fold": "test s / fold",
            "seconds_per_cv_run": "s / CV run",
        }
    )
    tables.append(
        ReportTable(
            "time",
            "Time per classifier",
            "Seconds, averaged over data sets, conditions, "
            "folds and repeats; a CV run is all folds of one repeat (train + test).",
            times,
            times_text,
            None,
            "Overall",
        )
    )
    if metrics["noise"].nunique() > 1:
        tables.extend(_noise_tables(metrics, decimals))
    if "tree_size" in metrics.columns and metrics["tree_size"].notna().any():
        tables.append(_tree_size_table(metrics))
    for column in varied:
        if column != "noise":
            tables.extend(_vary_tables(metrics, column, decimals))
    return metrics, baseline, varied, tables, cd_inputs


def _tree_size_table(metrics: pd.DataFrame) -> ReportTable:
    """Mean number of tree nodes per classifier (and noise level), for the tree classifiers."""
    trees = metrics[metrics["tree_size"].notna()]
    sizes = trees.groupby(["classifier", "noise"], sort=False)["tree_size"].mean().unstack("noise").sort_index(axis=1)
    sizes.columns = [f"noise {c:g}" for c in sizes.columns]
    return ReportTable(
        "tree_size",
        "Tree size",
        "Mean number of nodes per tree over data sets, folds and repeats, per noise level (class noise in the "
        "training folds).",
        sizes,
        sizes.map(lambda v: f"{v:.1f}"),
        None,
        "Overall",
    )


def _vary_tables(metrics: pd.DataFrame, column: str, decimals: int) -> list[ReportTable]:
    """Accuracy and time (train + test seconds per fold) against a column the job varies: the numbers behind
    the line plots."""
    work = metrics.assign(seconds=metrics["train_seconds"] + metrics["test_seconds"])
    acc = vary_table(work, column, "accuracy") * 100
    secs = vary_table(work, column, "seconds")
    return [
        ReportTable(
            f"accuracy_vs_{column}",
            f"Accuracy (%) against {column}",
            f"Mean accuracy over data sets (of per-data-set means over folds and repeats) at each {column}.",
            acc,
            acc.map(lambda v: _num(v, decimals)),
            None,
            "Overall",
        ),
        ReportTable(
            f"time_vs_{column}",
            f"Time against {column}",
            f"Train + test seconds per fold, averaged over data sets, at each {column}.",
            secs,
            secs.map(_seconds),
            None,
            "Overall",
        ),
    ]


def _noise_tables(metrics: pd.DataFrame, decimals: int) -> list[ReportTable]:
    from dbayes.evaluate.stats import accuracy_table

    acc = accuracy_table(metrics)
    levels = list(acc.columns.get_level_values(0).unique())
    text = pd.DataFrame(
        {
            f"noise {lv:g}": [
                f"{m:.{decimals}f} ({_num(s, decimals)})"
                for m, s in zip(acc[(lv, "mean")], acc[(lv, "sd")], strict=True)
            ]
            for lv in levels
        },
        index=acc.index,
    )
    means = pd.DataFrame({f"noise {lv:g}": acc[(lv, "mean")] for lv in levels}, index=acc.index)
    out = [
        ReportTable(
            "accuracy_by_noise",
            "Accuracy per noise level",
            "Mean accuracy (%) over data sets "
            "and, in parentheses, its standard deviation over data sets, per classifier and noise "
            "level (class noise in the training folds). Best per column in bold.",
            acc,
            text,
            means == means.max(),
            "Overall",
        )
    ]
    try:
        ranks = friedman_rank_table(metrics)
    except DbayesError:
        return out
    rtext = ranks.copy().astype(object)
    for idx in ranks.index:
        fmt = _p if idx.startswith("p (") else (lambda x: f"{x:.0f}") if idx == "data sets" else (lambda x: _num(x, 3))
        rtext.loc[idx] = ranks.loc[idx].map(fmt)
    rtext.columns = [f"noise {c:g}" for c in ranks.columns]
    names = classifier_order(metrics)
    bold = pd.DataFrame(False, index=ranks.index, columns=rtext.columns)
    bold.loc[names] = (ranks.loc[names] == ranks.loc[names].min()).to_numpy()
    out.append(
        ReportTable(
            "ranks_by_noise",
            "Friedman ranks per noise level",
            "Average accuracy ranks "
            "(1 = best) per noise level, with Friedman's chi2_F, Iman-Davenport F_F and their "
            "p-values. Best per column in bold.",
            ranks,
            rtext,
            bold,
            "Overall",
        )
    )
    return out


def summary_tables(
    metrics: pd.DataFrame,
    *,
    baseline: str | None = None,
    precision: int = 2,
    alpha: float = 0.05,
    test: str = "corrected",
    vary=None,
    decimals: int = 2,
) -> list[ReportTable]:
    """Every table of the report, in report order.

    Parameters
    ----------
    metrics : DataFrame
        One row per (dataset, classifier, noise, repeat, fold); see
        :data:`dbayes.evaluate.stats.REQUIRED_COLUMNS`.
    baseline : str, optional
        The classifier compared with the others (default: the first label in order of appearance).
    precision : int
        Decimals of error (%) at which win/loss/draw are counted (seed 000: 2).
    alpha : float
        Significance level of the t-tests, Nemenyi and Holm.
    test : {"corrected", "paired"}
        Per-data-set t-test when there are several repeats: Nadeau-Bengio's corrected resampled t-test, or
        the plain paired t-test over folds (seed 004's). With ``"paired"`` it is also run for one repeat.
    vary : str or list of str, optional
        Numeric parameter columns the job varies; the noise level is added when it varies.
    """
    return _build(
        metrics, baseline=baseline, precision=precision, alpha=alpha, test=test, vary=vary, decimals=decimals
    )[3]


def render_text(tables: Sequence[ReportTable]) -> str:
    """The tables of :func:`summary_tables` as plain text for the console (title, cells, caption)."""
    blocks = []
    for table in tables:
        heading = f"{table.title}" + (f" [{table.section}]" if table.section else "")
        text = table.text.copy()
        text.columns = _flat(text.columns)
        blocks.append(f"{heading}\n{'=' * len(heading)}\n{text.to_string()}\n({table.caption})")
    return "\n\n".join(blocks)


def print_summary(metrics: pd.DataFrame, *, value: str = "error", file=None) -> None:
    """Print the fixed-width mean +- sd table of :func:`dbayes.evaluate.stats.format_summary`."""
    print(format_summary(metrics, value), file=file or sys.stdout)


# ---------------------------------------------------------------------------------------------- figures


def _figures(metrics, varied, cd_inputs) -> list[ReportFigure]:
    figures = []
    for section, condition, (ranks, cd, alpha) in cd_inputs:
        title = f"Nemenyi, alpha = {alpha}" + (f" ({section})" if section else "")
        fig = plots.cd_diagram(ranks, cd, cliques=nemenyi_cliques(ranks, cd), title=title)
        caption = (
            "Average accuracy ranks (1 = best, at the right); classifiers joined by a thick bar are "
            f"not significantly different (Nemenyi, alpha = {alpha}, CD = {cd:.3f})."
        )
        figures.append(
            ReportFigure(
                f"cd_{_slug(condition)}.png", "Critical-difference diagram", caption, plots.figure_png(fig), section
            )
        )
    for column in varied:
        acc = vary_table(metrics, column, "accuracy") * 100.0
        fig = plots.line_plot(acc, ylabel="accuracy (%)", xlabel=column, title=f"Accuracy against {column}")
        figures.append(
            ReportFigure(
                f"accuracy_vs_{column}.png",
                f"Accuracy against {column}",
                f"Mean accuracy over data sets (of the per-data-set means) at each {column}.",
                plots.figure_png(fig),
                "Overall",
            )
        )
        seconds = metrics.assign(seconds=metrics.get("train_seconds", 0.0) + metrics.get("test_seconds", 0.0))
        times = vary_table(seconds, column, "seconds")
        fig = plots.line_plot(
            times,
            ylabel="seconds per fold (train + test)",
            xlabel=column,
            title=f"Time against {column}",
            logy=bool((times.to_numpy() > 0).all()),
        )
        figures.append(
            ReportFigure(
                f"time_vs_{column}.png",
                f"Time against {column}",
                f"Mean train + test seconds per fold over data sets at each {column}.",
                plots.figure_png(fig),
                "Overall",
            )
        )
    return figures


# -------------------------------------------------------------------------------------------- rendering


def _flat(columns) -> list[str]:
    return [" ".join(str(c) for c in col) if isinstance(col, tuple) else str(col) for col in columns]


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def _table_markdown(table: ReportTable) -> str:
    header = [table.text.index.name or ""] + _flat(table.text.columns)
    lines = [
        "| " + " | ".join(_md_cell(h) for h in header) + " |",
        "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|",
    ]
    for r, idx in enumerate(table.text.index):
        cells = []
        for c in range(table.text.shape[1]):
            cell = _md_cell(table.text.iat[r, c])
            if table.bold is not None and bool(table.bold.iat[r, c]):
                cell = f"**{cell}**"
            cells.append(cell)
        lines.append("| " + " | ".join([_md_cell(idx)] + cells) + " |")
    return "\n".join(lines)


def _sections(tables, figures):
    order = list(dict.fromkeys([t.section for t in tables] + [f.section for f in figures]))
    if "Overall" in order:
        order.remove("Overall")
        order.append("Overall")
    for section in order:
        yield (section, [t for t in tables if t.section == section], [f for f in figures if f.section == section])


def _intro(metrics, baseline, varied) -> list[str]:
    names = classifier_order(metrics)
    return [
        f"Data sets: {metrics['dataset'].nunique()}; classifiers: {', '.join(names)}; "
        f"repeats: {metrics['repeat'].nunique()}; folds: {metrics['fold'].nunique()}; "
        f"noise levels: {', '.join(f'{x:g}' for x in sorted(metrics['noise'].unique()))}.",
        f"Baseline: {baseline}." + (f" Varied: {', '.join(varied)}." if varied else ""),
    ]


def render_markdown(title, intro, tables, figures, skipped) -> str:
    """The Markdown report: figures are referenced by file name (PNG beside the Markdown)."""
    out = [f"# {title}", "", *intro, ""]
    if skipped:
        out += [f"> Figures were skipped: {skipped}", ""]
    for section, sec_tables, sec_figures in _sections(tables, figures):
        if section:
            out += [f"## {section}", ""]
        for table in sec_tables:
            out += [f"### {table.title}", "", _table_markdown(table), "", f"*{table.caption}*", ""]
        for figure in sec_figures:
            out += [f"### {figure.title}", "", f"![{figure.title}]({figure.filename})", "", f"*{figure.caption}*", ""]
    return "\n".join(out)


_CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 75em; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { border-bottom: 2px solid #444; padding-bottom: .2em; }
h2 { margin-top: 2em; border-bottom: 1px solid #bbb; }
table { border-collapse: collapse; margin: .6em 0 .3em; font-size: 0.92em; }
th, td { padding: .25em .7em; border-bottom: 1px solid #ddd; text-align: right; white-space: nowrap; }
th { background: #f0f0f0; border-bottom: 2px solid #888; }
td:first-child, th:first-child { text-align: left; }
tr:hover td { background: #fafaf0; }
.caption { font-size: .9em; color: #555; max-width: 60em; margin-top: .2em; }
.note { background: #fff6d5; border-left: 4px solid #e0b000; padding: .5em 1em; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
"""


def _table_html(table: ReportTable) -> str:
    header = [table.text.index.name or ""] + _flat(table.text.columns)
    rows = ["<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>"]
    for r, idx in enumerate(table.text.index):
        cells = [f"<td>{html.escape(str(idx))}</td>"]
        for c in range(table.text.shape[1]):
            cell = html.escape(str(table.text.iat[r, c]))
            if table.bold is not None and bool(table.bold.iat[r, c]):
                cell = f"<strong>{cell}</strong>"
            cells.append(f"<td>{cell}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return "<table>\n<thead>" + rows[0] + "</thead>\n<tbody>\n" + "\n".join(rows[1:]) + "\n</tbody>\n</table>"


def render_html(title, intro, tables, figures, skipped) -> str:
    """The self-contained HTML report: PNG figures embedded as base64 data URIs."""
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
    ]
    out += [f"<p>{html.escape(line)}</p>" for line in intro]
    if skipped:
        out.append(f'<p class="note">Figures were skipped: {html.escape(skipped)}</p>')
    for section, sec_tables, sec_figures in _sections(tables, figures):
        if section:
            out.append(f"<h2>{html.escape(section)}</h2>")
        for table in sec_tables:
            out += [
                f"<h3>{html.escape(table.title)}</h3>",
                _table_html(table),
                f'<p class="caption">{html.escape(table.caption)}</p>',
            ]
        for figure in sec_figures:
            data = base64.b64encode(figure.png).decode("ascii")
            out += [
                f"<h3>{html.escape(figure.title)}</h3>",
                f'<figure><img alt="{html.escape(figure.title)}" src="data:image/png;base64,{data}">',
                f'<figcaption class="caption">{html.escape(figure.caption)}</figcaption></figure>',
            ]
    out.append("</body></html>")
    return "\n".join(out)


def write_report(
    metrics: pd.DataFrame,
    out_dir: str | Path,
    *,
    baseline: str | None = None,
    title: str | None = None,
    vary=None,
    precision: int = 2,
    alpha: float = 0.05,
    test: str = "corrected",
    plot: bool = True,
) -> ReportPaths:
    """Write ``report.md`` (with the PNG figures beside it) and the self-contained ``report.html``.

    Parameters are those of :func:`summary_tables`; ``plot=False`` skips the figures, as does a missing
    matplotlib (the report then says so and still has every table).

    Returns
    -------
    ReportPaths
    """
    metrics, baseline, varied, tables, cd_inputs = _build(
        metrics, baseline=baseline, precision=precision, alpha=alpha, test=test, vary=vary, decimals=2
    )
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    skipped = None
    figures: list[ReportFigure] = []
    if not plot:
        skipped = "plotting was turned off."
    elif not plots.plotting_available():
        skipped = "matplotlib is not installed (install the 'plot' extra: pip install dbayes[plot])."
    else:
        figures = _figures(metrics, varied, cd_inputs)
    paths = []
    for figure in figures:
        path = out_dir / figure.filename
        path.write_bytes(figure.png)
        paths.append(path)
    title = title or "dbayes comparison report"
    intro = _intro(metrics, baseline, varied)
    intro.append(f"Generated {_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC.")
    md_path, html_path = out_dir / "report.md", out_dir / "report.html"
    md_path.write_text(render_markdown(title, intro, tables, figures, skipped), encoding="utf-8")
    html_path.write_text(render_html(title, intro, tables, figures, skipped), encoding="utf-8")
    return ReportPaths(md_path, html_path, tuple(paths), skipped)
