"""End-to-end tests of the comparison report (Markdown + self-contained HTML + PNG figures)."""

from __future__ import annotations

import base64
import io
import re
import sys

import numpy as np
import pandas as pd
import pytest

from dbayes.errors import DataError, DbayesError
from dbayes.evaluate import plots, report
from dbayes.evaluate import stats as st_

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def synthetic_metrics(
    seed: int = 0,
    *,
    datasets=("anneal", "iris", "vote", "sonar", "glass"),
    classifiers=("nb", "tan", "aode", "lawnb"),
    noises=(0.0, 0.1, 0.3),
    repeats=2,
    folds=3,
) -> pd.DataFrame:
    """A results frame shaped like the runner's: one row per dataset, classifier, noise, repeat, fold."""
    rng = np.random.default_rng(seed)
    rows = []
    for d_i, dataset in enumerate(datasets):
        for noise in noises:
            for c_i, name in enumerate(classifiers):
                for repeat in range(repeats):
                    for fold in range(folds):
                        acc = float(
                            np.clip(
                                0.65 + 0.05 * d_i + 0.02 * c_i - (0.4 - 0.05 * c_i) * noise + rng.normal(0, 0.015), 0, 1
                            )
                        )
                        rows.append(
                            dict(
                                dataset=dataset,
                                classifier=name,
                                noise=noise,
                                repeat=repeat,
                                fold=fold,
                                n_test=50,
                                n_train=100,
                                accuracy=acc,
                                error=1 - acc,
                                log_loss=0.5,
                                train_seconds=0.01 * (c_i + 1),
                                test_seconds=0.001 * (c_i + 1),
                            )
                        )
    return pd.DataFrame(rows)


def _table(tables, key, section=""):
    found = [t for t in tables if t.key == key and t.section == section]
    assert len(found) == 1, (key, section, [(t.key, t.section) for t in tables])
    return found[0]


def test_write_report_end_to_end(tmp_path):
    metrics = synthetic_metrics()
    paths = report.write_report(metrics, tmp_path / "out", baseline="lawnb", title="Synthetic job")
    assert paths.markdown.exists() and paths.html.exists() and paths.figures_skipped is None
    names = sorted(p.name for p in paths.figures)
    assert names == sorted(
        ["cd_noise-0.png", "cd_noise-0.1.png", "cd_noise-0.3.png", "accuracy_vs_noise.png", "time_vs_noise.png"]
    )
    for path in paths.figures:
        assert path.parent == tmp_path / "out" and path.read_bytes().startswith(PNG_SIGNATURE)

    md = paths.markdown.read_text(encoding="utf-8")
    assert md.startswith("# Synthetic job")
    for heading in (
        "## noise = 0",
        "## noise = 0.1",
        "## noise = 0.3",
        "## Overall",
        "### Error (%) per data set",
        "### Win/loss/draw of lawnb (sign test)",
        "### Win/tie/loss of lawnb (corrected t-test)",
        "### Friedman average ranks",
        "### Nemenyi p-values",
        "### Holm's procedure against lawnb",
        "### Time per classifier",
        "### Accuracy per noise level",
        "### Friedman ranks per noise level",
    ):
        assert heading in md, heading
    for path in paths.figures:  # Markdown references the PNGs beside it
        assert f"]({path.name})" in md
    # The numbers are those of the stats functions.
    result = st_.friedman_test(st_.dataset_scores(metrics, where={"noise": 0.3}))
    assert f"chi2_F = {result.statistic:.3f}" in md
    assert "corrected resampled t-test (Nadeau and Bengio 2003)" in md
    # Best (lowest) error per data set in bold, in the first section (noise 0).
    errors = st_.dataset_scores(metrics, "error", where={"noise": 0.0}).loc["sonar"] * 100
    row = next(line for line in md.splitlines() if line.startswith("| sonar |"))
    cells = [c.strip() for c in row.split("|")[2:-1]]
    assert [c.startswith("**") for c in cells] == list(errors == errors.min())
    assert cells[int(np.argmin(errors))].startswith(f"**{errors.min():.2f} \u00b1 ")

    html_text = paths.html.read_text(encoding="utf-8")
    assert html_text.startswith("<!DOCTYPE html>") and html_text.rstrip().endswith("</html>")
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html_text)
    assert len(images) == len(paths.figures)
    assert all(base64.b64decode(data).startswith(PNG_SIGNATURE) for data in images)
    assert not re.search(r'(src|href)="(?!data:)', html_text)  # self-contained: no external resource
    assert "<strong>" in html_text and "Nemenyi p-values" in html_text


def test_summary_tables_content_and_order():
    metrics = synthetic_metrics(noises=(0.0,))
    tables = report.summary_tables(metrics)
    keys = [t.key for t in tables]
    assert keys == ["error", "wld", "ttest", "friedman", "nemenyi", "pairs", "holm", "time"]
    wld = _table(tables, "wld")
    assert list(wld.frame.index) == ["tan", "aode", "lawnb"]  # baseline defaults to the first label, nb
    pd.testing.assert_frame_equal(wld.frame, st_.wld_table(metrics, "nb", 2))
    error = _table(tables, "error")
    assert error.frame.shape == (6, 4) and error.text.shape == error.bold.shape == (6, 4)
    assert error.frame.loc["iris", "tan"] == pytest.approx(
        st_.dataset_scores(metrics, "error").loc["iris", "tan"] * 100
    )
    nemenyi = _table(tables, "nemenyi")
    pd.testing.assert_frame_equal(nemenyi.frame, st_.nemenyi_test(st_.dataset_scores(metrics)).p_values)
    text = report.render_text(tables)
    assert "Win/loss/draw of nb (sign test)" in text and "Nemenyi p-values" in text
    paired = report.summary_tables(metrics, test="paired")
    assert "paired t-test over the folds" in _table(paired, "ttest").caption


def test_one_repeat_has_no_t_test_and_single_classifier_only_errors():
    one_repeat = synthetic_metrics(noises=(0.0,), repeats=1)
    assert "ttest" not in [t.key for t in report.summary_tables(one_repeat)]
    single = synthetic_metrics(noises=(0.0,), classifiers=("nb",))
    assert [t.key for t in report.summary_tables(single)] == ["error", "time"]


def test_report_without_matplotlib_keeps_every_table(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    assert not plots.plotting_available()
    metrics = synthetic_metrics()
    paths = report.write_report(metrics, tmp_path)
    assert paths.figures == () and "matplotlib is not installed" in paths.figures_skipped
    md = paths.markdown.read_text(encoding="utf-8")
    assert "Figures were skipped" in md and ".png" not in md
    assert "Figures were skipped" in paths.html.read_text(encoding="utf-8")
    assert not list(tmp_path.glob("*.png"))
    assert md.count("### Nemenyi p-values") == 3 and "### Friedman ranks per noise level" in md


def test_vary_a_parameter_column(tmp_path):
    base = synthetic_metrics(noises=(0.0,), classifiers=("nb", "lawnb"), datasets=("a", "b", "c"))
    frames = []
    for k in (5, 10, 20):
        part = base.copy()
        part["k"] = k
        part.loc[part.classifier == "lawnb", "accuracy"] += 0.001 * k
        part["error"] = 1 - part["accuracy"]
        frames.append(part)
    metrics = pd.concat(frames, ignore_index=True)
    paths = report.write_report(metrics, tmp_path, vary="k")
    names = {p.name for p in paths.figures}
    assert {"accuracy_vs_k.png", "time_vs_k.png", "cd_noise-0_k-5.png"} <= names
    md = paths.markdown.read_text(encoding="utf-8")
    assert "## noise = 0, k = 5" in md and "## noise = 0, k = 20" in md
    table = st_.vary_table(metrics, "k")
    assert table.loc[20, "lawnb"] - table.loc[5, "lawnb"] == pytest.approx(0.015)
    with pytest.raises(DataError):
        report.write_report(metrics, tmp_path, vary="nope")
    with pytest.raises(DataError, match="varied"):
        st_.dataset_scores(metrics)  # k varies: a per-data-set table must pick one


def test_bad_input(tmp_path):
    metrics = synthetic_metrics(noises=(0.0,))
    with pytest.raises(DbayesError, match="baseline"):
        report.write_report(metrics, tmp_path, baseline="c45")
    with pytest.raises(DataError, match="lacks"):
        report.summary_tables(metrics.drop(columns=["fold"]))
    with pytest.raises(DbayesError):
        report.summary_tables(metrics, test="welch")


def test_load_metrics_and_console_summary(tmp_path):
    metrics = synthetic_metrics(noises=(0.0,)).drop(columns="noise")  # noise defaults to 0.0
    metrics.to_parquet(tmp_path / "metrics.parquet")
    loaded = report.load_metrics(tmp_path)
    assert (loaded["noise"] == 0.0).all() and len(loaded) == len(metrics)
    buffer = io.StringIO()
    report.print_summary(loaded, file=buffer)
    lines = buffer.getvalue().splitlines()
    assert lines[0].split() == ["dataset", "nb", "tan", "aode", "lawnb"]
    assert len(lines) == 2 + 5 + 1
    with pytest.raises(DataError):
        report.load_metrics(tmp_path / "missing")


def test_cd_diagram_draws_one_thick_bar_per_clique():
    ranks = pd.Series({"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964})
    cd = st_.critical_difference(4, 14, 0.10)
    figure = plots.cd_diagram(ranks, cd)
    ax = figure.axes[0]
    thick = [line for line in ax.lines if line.get_linewidth() >= 4]
    assert len(thick) == len(st_.nemenyi_cliques(ranks, cd)) == 2
    texts = {t.get_text() for t in ax.texts}
    assert {"C4.5 (3.14)", "C4.5+m+cf (1.96)", "CD = 1.12"} <= texts
    # Rank 1 is at the right: the best classifier's label is right of the worst's.
    pos = {t.get_text(): t.get_position()[0] for t in ax.texts}
    assert pos["C4.5+m+cf (1.96)"] > pos["C4.5 (3.14)"]
    assert plots.figure_png(figure).startswith(PNG_SIGNATURE)


def test_vary_tables_and_tree_sizes():
    metrics = synthetic_metrics(classifiers=("c45", "credal"), datasets=("a", "b"))
    metrics["tree_size"] = np.where(metrics["classifier"] == "c45", 20.0, 10.0) * (1 + metrics["noise"])
    tables = report.summary_tables(metrics, baseline="c45")
    sizes = _table(tables, "tree_size", "Overall").frame
    assert sizes.loc["c45", "noise 0.3"] == pytest.approx(26.0) and sizes.loc["credal", "noise 0"] == pytest.approx(
        10.0
    )
    metrics["test_limit"] = metrics["fold"] * 10
    tables = report.summary_tables(metrics, baseline="c45", vary="test_limit")
    acc = _table(tables, "accuracy_vs_test_limit", "Overall").frame
    assert list(acc.index) == [0, 10, 20] and list(acc.columns) == ["c45", "credal"]
    secs = _table(tables, "time_vs_test_limit", "Overall").frame
    assert secs.loc[0, "credal"] == pytest.approx(0.022)
