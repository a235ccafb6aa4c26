"""The command line: bad input gives one clear line and exit status 2, and writes nothing."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dbayes.cli import main
from dbayes.data.bundled import bundled_path

JOB = """
datasets = ["{data}"]
folds = 3
{extra}
[[classifiers]]
name = "{clf}"
{param}
"""


def write_job(tmp_path, data="iris", clf="nb", param="", extra="", name="job.toml"):
    p = tmp_path / name
    p.write_text(JOB.format(data=data, clf=clf, param=param, extra=extra))
    return p


def run_cli(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def snapshot(folder: Path):
    if not folder.exists():
        return None
    return sorted((str(p.relative_to(folder)), p.stat().st_mtime_ns) for p in folder.rglob("*"))


def _frame(**cols):
    return pd.DataFrame(cols)


BAD = {
    "missing file": (lambda t: write_job(t, data=str(t / "nope.parquet")), "no such file"),
    "not parquet": (
        lambda t: (t.joinpath("x.parquet").write_text("hello"), write_job(t, data=str(t / "x.parquet")))[1],
        "not a readable Parquet",
    ),
    "no class column": (
        lambda t: (
            _frame(a=[1.0, 2.0], b=["x", "y"]).to_parquet(t / "d.parquet"),
            write_job(t, data=str(t / "d.parquet")),
        )[1],
        "no class column 'class'",
    ),
    "one class": (
        lambda t: (
            _frame(a=[1.0, 2.0, 3.0], **{"class": ["x", "x", "x"]}).to_parquet(t / "d.parquet"),
            write_job(t, data=str(t / "d.parquet")),
        )[1],
        "1 distinct value",
    ),
    "zero rows": (
        lambda t: (
            _frame(a=np.array([], dtype=float), **{"class": np.array([], dtype=object)}).to_parquet(t / "d.parquet"),
            write_job(t, data=str(t / "d.parquet")),
        )[1],
        "zero rows",
    ),
    "inf": (
        lambda t: (
            _frame(a=[1.0, np.inf, 3.0, 4.0], **{"class": ["x", "y", "x", "y"]}).to_parquet(t / "d.parquet"),
            write_job(t, data=str(t / "d.parquet")),
        )[1],
        "column 'a' holds 1 infinite",
    ),
    "unknown classifier": (lambda t: write_job(t, clf="svm"), "unknown classifier 'svm'"),
    "unknown parameter": (lambda t: write_job(t, clf="tan", param="gamma = 3"), "no parameter 'gamma'"),
    "bad parameter value": (lambda t: write_job(t, clf="tan", param='smoothing = "x"'), "smoothing"),
    "malformed toml": (
        lambda t: ((t / "job.toml").write_text("datasets = [\n"), t / "job.toml")[1],
        "not a valid TOML",
    ),
    "unknown option": (lambda t: write_job(t, extra="fold = 3"), "unknown option(s) 'fold'"),
    "bad option value": (lambda t: write_job(t, extra='discretize = "kmeans"'), "option 'discretize'"),
    "missing job": (lambda t: t / "absent.toml", "job file not found"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, case):
    make, message = BAD[case]
    job = make(tmp_path)
    out = tmp_path / "results"
    # an earlier good run's results must stay untouched
    good = write_job(tmp_path, name="good.toml")
    assert run_cli(["run", str(good), "--scheduler", "synchronous", "--out", str(out)], capsys)[0] == 0
    before = snapshot(out)
    code, stdout, err = run_cli(["run", str(job), "--scheduler", "synchronous", "--out", str(out)], capsys)
    assert code == 2
    assert message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert snapshot(out) == before


def test_entirely_missing_attribute_is_dropped_with_warning(tmp_path, capsys):
    df = pd.read_parquet(bundled_path("iris"))
    df.insert(0, "empty", np.nan)
    df.to_parquet(tmp_path / "iris2.parquet")
    job = write_job(tmp_path, data=str(tmp_path / "iris2.parquet"))
    with pytest.warns(UserWarning, match="dropped attribute.*empty"):
        code, _, _ = run_cli(["run", str(job), "--scheduler", "synchronous", "--out", str(tmp_path / "o")], capsys)
    assert code == 0


def test_run_prints_summary_and_writes_results(tmp_path, capsys):
    job = write_job(tmp_path)
    code, stdout, err = run_cli(["run", str(job), "--scheduler", "synchronous", "--out", str(tmp_path / "o")], capsys)
    assert code == 0
    assert "iris" in stdout and "nb" in stdout
    m = pd.read_parquet(tmp_path / "o" / "metrics")
    assert len(m) == 3 and {
        "dataset",
        "classifier",
        "noise",
        "repeat",
        "fold",
        "n_test",
        "accuracy",
        "error",
        "log_loss",
        "train_seconds",
        "test_seconds",
    } <= set(m.columns)
    code, stdout, _ = run_cli(["report", str(tmp_path / "o"), "--out", str(tmp_path / "rep")], capsys)
    assert code == 0 and (tmp_path / "rep" / "report.html").is_file()


ARFF = """% a comment
@relation weather
@attribute outlook {sunny, overcast, 'rain y'}
@attribute temperature numeric
@attribute windy {TRUE, FALSE}
@attribute play {yes, no}
@data
sunny,85,FALSE,no
overcast,?,TRUE,yes
'rain y',70,?,yes
sunny,72,TRUE,no
"""


def test_import_arff_keeps_declared_value_order(tmp_path, capsys):
    src = tmp_path / "w.arff"
    src.write_text(ARFF)
    code, stdout, _ = run_cli(["import", str(src), str(tmp_path / "w.parquet")], capsys)
    assert code == 0
    df = pd.read_parquet(tmp_path / "w.parquet")
    assert list(df.columns) == ["outlook", "temperature", "windy", "class"]
    assert list(df["outlook"].cat.categories) == ["sunny", "overcast", "rain y"]
    assert list(df["class"].cat.categories) == ["yes", "no"]
    assert df["temperature"].isna().sum() == 1 and df["windy"].isna().sum() == 1
    code, _, err = run_cli(["import", str(src), str(tmp_path / "w.parquet")], capsys)
    assert code == 2 and "already exists" in err


def test_import_csv_and_bad_formats(tmp_path, capsys):
    (tmp_path / "d.csv").write_text("a,b,label\n1,x,p\n2,?,q\n,y,p\n")
    code, _, _ = run_cli(
        ["import", str(tmp_path / "d.csv"), str(tmp_path / "d.parquet"), "--class-column", "label"], capsys
    )
    assert code == 0
    df = pd.read_parquet(tmp_path / "d.parquet")
    assert df["a"].dtype == np.float64 and df["b"].isna().sum() == 1 and list(df.columns)[-1] == "class"
    (tmp_path / "d.xlsx").write_text("x")
    code, _, err = run_cli(["import", str(tmp_path / "d.xlsx"), str(tmp_path / "e.parquet")], capsys)
    assert code == 2 and "unknown format" in err
    (tmp_path / "bad.arff").write_text("@relation r\n@attribute a {x,y}\n@attribute c {p,q}\n@data\nx,p\nz,q\n")
    code, _, err = run_cli(["import", str(tmp_path / "bad.arff"), str(tmp_path / "f.parquet")], capsys)
    assert code == 2 and "undeclared value" in err and not (tmp_path / "f.parquet").exists()


def test_sample_writes_parts_shaped_like_the_source(tmp_path, capsys):
    out = tmp_path / "s.parquet"
    code, stdout, _ = run_cli(
        [
            "sample",
            "--from",
            "adult",
            "--rows",
            "25000",
            "--rows-per-part",
            "10000",
            "--scheduler",
            "synchronous",
            str(out),
        ],
        capsys,
    )
    assert code == 0
    assert len(list(out.glob("part-*.parquet"))) == 3
    df = pd.read_parquet(out)
    src = pd.read_parquet(bundled_path("adult"))
    assert len(df) == 25000 and list(df.columns) == list(src.columns)
    assert list(df["workclass"].cat.categories) == list(src["workclass"].cat.categories)
    # class balance and a missing-value rate close to the source's
    assert abs((df["class"] == ">50K").mean() - (src["class"] == ">50K").mean()) < 0.02
    assert abs(df["workclass"].isna().mean() - src["workclass"].isna().mean()) < 0.01
    assert df["age"].between(src["age"].min(), src["age"].max()).all()
    code, _, err = run_cli(
        ["sample", "--from", "adult", "--rows", "10", "--scheduler", "synchronous", str(out)], capsys
    )
    assert code == 2 and "already exists" in err


def test_console_entry_point_exit_status(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "dbayes.cli", "run", str(tmp_path / "x.toml")],
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    assert r.returncode == 2 and "job file not found" in r.stderr


def test_report_leaves_out_datasets_an_interrupted_job_has_not_finished(tmp_path, capsys):
    """A dataset with some of its units missing (job stopped, or still running) is named and left out of the
    report, unless --partial; the complete datasets are reported as usual."""
    job = tmp_path / "job.toml"
    job.write_text('datasets = ["iris", "wine"]\nfolds = 3\n[[classifiers]]\nname = "nb"\n')
    out = tmp_path / "o"
    assert run_cli(["run", str(job), "--scheduler", "synchronous", "--out", str(out)], capsys)[0] == 0
    units = sorted((out / "metrics").glob("*wine*"))
    assert len(units) == 3
    units[0].unlink()  # as if the job had stopped before this unit
    code, stdout, err = run_cli(["report", str(out), "--out", str(tmp_path / "rep")], capsys)
    assert code == 0
    assert "not complete" in err and "wine" in err and "no result" not in err
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "iris" in md and "wine" not in md
    code, stdout, err = run_cli(["report", str(out), "--partial", "--out", str(tmp_path / "rep2")], capsys)
    assert code == 0 and "wine" in (tmp_path / "rep2" / "report.md").read_text()
