"""The cross-validation engine: the same tables, models and predictions however the data is partitioned and
whichever scheduler runs it; resuming; atomic results."""

import socket
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dbayes.engine import open_dataset, run_job, runtime
from dbayes.engine.results import ResultStore
from dbayes.job import parse_job

ROOT = Path(__file__).resolve().parents[1]


def small_job(**kw):
    spec = {
        "name": "t",
        "datasets": ["credit-a"],
        "folds": 5,
        "classifiers": [{"name": "nb"}, {"name": "tan"}, {"name": "tan", "label": "tan-weka", "smoothing": "weka"}],
    }
    spec.update(kw)
    return parse_job(spec, "test-job")


def run_and_read(tmp_path, name, job, scheduler="synchronous"):
    out = tmp_path / name
    with runtime(scheduler, n_workers=2) as rt:
        run_job(job, out, rt, report=lambda s: None)
    metrics = ResultStore(out).read_metrics().sort_values(["classifier", "fold"]).reset_index(drop=True)
    preds = pd.read_parquet(out / "predictions").sort_values(["classifier", "row_id"]).reset_index(drop=True)
    return metrics, preds


def _same(a, b):
    cols = ["dataset", "classifier", "fold", "n_train", "n_test", "accuracy", "log_loss"]
    pd.testing.assert_frame_equal(a[0][cols], b[0][cols])
    pa, pb = a[1], b[1]
    assert pa[["row_id", "fold", "true_class", "predicted_class"]].equals(
        pb[["row_id", "fold", "true_class", "predicted_class"]]
    )
    assert np.array_equal(np.stack(pa["proba"]), np.stack(pb["proba"]))


def test_identical_for_1_3_and_17_partitions(tmp_path):
    runs = [run_and_read(tmp_path, f"p{k}", small_job(partitions=k)) for k in (1, 3, 17)]
    _same(runs[0], runs[1])
    _same(runs[0], runs[2])
    m = runs[0][0]
    assert len(m) == 15 and (m.groupby("classifier")["n_test"].sum() == 690).all()


def test_per_fold_tables_equal_tables_of_training_rows(tmp_path, monkeypatch):
    """A fold's training tables (total - fold, recoded to the fold's bins) equal counting its training rows
    discretized with cut points fitted on those rows alone."""
    from dbayes.counts import TableLayout, count_tables
    from dbayes.data.discretize import mdl_cut_points, value_histogram
    from dbayes.data.encode import Coding
    from dbayes.engine.cv import run_round
    from dbayes.evaluate.partition import RoundPlan, code_partition
    from dbayes.models.nb import NaiveBayes

    captured = []
    original = NaiveBayes.fit
    monkeypatch.setattr(
        NaiveBayes, "fit", lambda self, tables, train=None: captured.append(tables) or original(self, tables)
    )
    data = open_dataset("credit-a", partitions=4)
    job = parse_job(
        {"datasets": ["credit-a"], "folds": 5, "classifiers": [{"name": "nb"}], "save_predictions": False}, "x"
    )
    store = ResultStore(tmp_path / "spy")
    store.prepare()
    run_round(data, job, list(job.classifiers), 0.0, 0, store)

    pdf = data.frame.compute()
    one = (np.zeros((1, 2), dtype=np.int64), np.zeros(1, dtype=np.int64))
    part = code_partition(pdf, 0, RoundPlan(data.schema, Coding(data.schema, {}), 5, 1, 0, 0.0, *one))
    for f in (0, 2):
        train = part.fold != f
        cuts = {}
        for i in data.schema.numeric_indices:
            name = data.schema.attributes[i].name
            x = pdf[name].to_numpy(dtype=float, na_value=np.nan)[train]
            cuts[name] = mdl_cut_points(*value_histogram(x, part.y[train], 2))
        coding = Coding(data.schema, cuts)
        coded = code_partition(pdf, 0, RoundPlan(data.schema, coding, 5, 1, 0, 0.0, *one))
        expected = count_tables(coded.X[train], coded.y[train], TableLayout(2, coding.cards, pairs=False))
        assert captured[f] == expected


@pytest.mark.cluster
@pytest.mark.parametrize("scheduler", ["threads", "local"])
def test_identical_across_schedulers(tmp_path, scheduler):
    job = small_job(partitions=3)
    base = run_and_read(tmp_path, "sync", job, "synchronous")
    other = run_and_read(tmp_path, scheduler, job, scheduler)
    _same(base, other)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.cluster
def test_job_on_real_scheduler_and_worker_processes(tmp_path):
    port = _free_port()
    state = tmp_path / "cluster"
    start = subprocess.run(
        ["bash", str(ROOT / "deploy/local/start-cluster.sh"), str(port), "2", str(state)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    try:
        assert start.returncode == 0, start.stderr
        address = start.stdout.strip().splitlines()[-1]
        job = small_job(partitions=4)
        base = run_and_read(tmp_path, "sync", job, "synchronous")
        remote = run_and_read(tmp_path, "remote", job, address)
        _same(base, remote)
    finally:
        subprocess.run(["bash", str(ROOT / "deploy/local/stop-cluster.sh"), str(state)], timeout=60)


def test_resume_skips_finished_units_and_redoes_missing(tmp_path):
    job = small_job(classifiers=[{"name": "nb"}])
    out = tmp_path / "r"
    with runtime("synchronous") as rt:
        first = run_job(job, out, rt, report=lambda s: None)
        assert first.units_done == 5
        victim = sorted((out / "metrics").glob("*__f3.parquet"))[0]
        before = pd.read_parquet(victim)
        victim.unlink()
        second = run_job(job, out, rt, report=lambda s: None)
    assert second.units_skipped == 0 and second.units_done == 5  # the round is redone as a whole
    pd.testing.assert_frame_equal(
        pd.read_parquet(victim).drop(columns=["train_seconds", "test_seconds"]),
        before.drop(columns=["train_seconds", "test_seconds"]),
    )
    with runtime("synchronous") as rt:
        third = run_job(job, out, rt, report=lambda s: None)
    assert third.units_done == 0 and third.units_skipped == 5
    assert not [p for p in (out / "predictions").iterdir() if p.name.startswith(".tmp")]


def test_noise_changes_training_not_test_classes(tmp_path):
    job = small_job(classifiers=[{"name": "nb"}], noise=[0.0, 0.3])
    m, p = run_and_read(tmp_path, "n", job)
    assert sorted(m["noise"].unique()) == [0.0, 0.3]
    clean = p[p.noise == 0.0].sort_values("row_id")
    noisy = p[p.noise == 0.3].sort_values("row_id")
    assert (clean["true_class"].to_numpy() == noisy["true_class"].to_numpy()).all()
    acc = m.groupby("noise")["accuracy"].mean()
    assert acc[0.3] < acc[0.0]


def test_global_and_equal_frequency_discretization_run(tmp_path):
    for kw in ({"discretize_scope": "global"}, {"discretize": "equal-frequency", "bins": 5}):
        m, _ = run_and_read(tmp_path, str(kw), small_job(classifiers=[{"name": "nb"}], **kw))
        assert m["accuracy"].between(0.7, 0.95).all()


def test_fold_by_fold_counting_gives_the_same_results(tmp_path, monkeypatch):
    """When the folds' tables would be too large for one pass, each fold is counted on its own: same numbers."""
    from dbayes.engine import cv

    job = small_job(partitions=3)
    one_pass = run_and_read(tmp_path, "one", job)
    monkeypatch.setattr(cv, "MAX_FOLD_TABLES_BYTES", 0)
    per_fold = run_and_read(tmp_path, "per-fold", job)
    _same(one_pass, per_fold)


def test_resubstitution_trains_and_tests_on_all_rows(tmp_path):
    job = parse_job({"datasets": ["iris"], "resubstitution": True, "classifiers": [{"name": "nb"}]}, "x")
    m, p = run_and_read(tmp_path, "resub", job)
    assert len(m) == 1 and m["n_train"].iloc[0] == m["n_test"].iloc[0] == 150
    assert sorted(p["row_id"]) == list(range(150))


def test_trees_same_for_1_3_and_17_partitions(tmp_path):
    """Trees grow from split statistics summed over partitions: the same trees and predictions. Fractional
    instances (rows with missing values below a split) make the sums agree to rounding, not bit for bit."""
    job = small_job(classifiers=[{"name": "c45"}, {"name": "credal-c45", "s": 1.0}], folds=3)
    runs = [run_and_read(tmp_path, f"t{k}", small_job(**{**_tree_job(), "partitions": k})) for k in (1, 3, 17)]
    for other in runs[1:]:
        cols = ["classifier", "fold", "n_train", "n_test", "accuracy", "tree_size", "n_leaves"]
        pd.testing.assert_frame_equal(runs[0][0][cols], other[0][cols])
        assert runs[0][1]["predicted_class"].equals(other[1]["predicted_class"])
        assert np.allclose(np.stack(runs[0][1]["proba"]), np.stack(other[1]["proba"]), rtol=0, atol=1e-12)
    m = runs[0][0]
    assert (m["tree_size"] > 1).all() and job.folds == 3


def _tree_job():
    return {"classifiers": [{"name": "c45"}, {"name": "credal-c45", "s": 1.0}], "folds": 3}


def test_weka_fold_assignment_reproduces_weka_accuracy(tmp_path):
    """With Weka's own folds, NB, TAN (weka smoothing), AODE and C4.5 give Weka 3.6's accuracy on credit-a
    (weka.csv, 10-fold CV, seed 1: NB 86.5217, AODE 86.3768, J48 86.0870)."""
    job = small_job(
        folds=10,
        fold_assignment="weka",
        classifiers=[{"name": "nb"}, {"name": "aode"}, {"name": "c45"}],
        partitions=3,
    )
    m, _ = run_and_read(tmp_path, "wk", job)
    acc = (m.groupby("classifier")["accuracy"].mean() * 100).round(4)
    assert acc["nb"] == pytest.approx(86.5217, abs=1e-4)
    assert acc["aode"] == pytest.approx(86.3768, abs=1e-4)
    assert acc["c45"] == pytest.approx(86.0870, abs=1e-4)


def test_lazy_models_same_by_broadcast_and_by_topk_reduction(tmp_path):
    """LAWNB and LWNB give identical predictions whether the training rows travel with the model or the
    neighbours come from per-partition top-k lists merged by a reduction."""
    runs = []
    for mode in ("broadcast", "topk"):
        job = small_job(
            partitions=3,
            neighbours=mode,
            folds=3,
            classifiers=[
                {"name": "lwnb", "k": 20},
                {"name": "lawnb", "k": 15},
                {"name": "lawnb", "label": "lawnb-ties", "k": 10, "ties": True},
            ],
        )
        runs.append(run_and_read(tmp_path, mode, job))
    _same(runs[0], runs[1])


def test_trees_grow_on_their_own_max_exact_values(tmp_path):
    """A tree classifier's ``max_exact_values`` sets its numeric grids in the engine (otherwise the job's option
    does), so each tree equals the tree fitted locally with that resolution; several resolutions in one round."""
    from dbayes.models.trees import C45, CredalC45

    job = parse_job(
        {
            "datasets": ["credit-a"],
            "resubstitution": True,
            "discretize": "none",
            "max_exact_values": 32,
            "classifiers": [
                {"name": "c45"},
                {"name": "c45", "label": "c45-q4", "max_exact_values": 4},
                {"name": "credal-c45", "label": "credal-exact", "s": 1.0, "max_exact_values": 100_000},
            ],
        },
        "x",
    )
    m, _ = run_and_read(tmp_path, "res", job)
    m = m.set_index("classifier")
    df = pd.read_parquet(ROOT / "dbayes/datasets/credit-a.parquet")
    X, y = df.drop(columns="class"), df["class"]
    local = {"c45": C45(max_exact_values=32), "c45-q4": C45(max_exact_values=4), "credal-exact": CredalC45(s=1.0)}
    for label, model in local.items():
        model.fit(X, y)
        assert m.loc[label, "tree_size"] == model.tree_size, label
        assert m.loc[label, "accuracy"] == pytest.approx(np.mean(model.predict(X) == y.to_numpy()), abs=1e-12)
    assert m.loc["c45", "tree_size"] != m.loc["c45-q4", "tree_size"]


@pytest.mark.parametrize(
    "params, word",
    [
        ({"name": "c45", "confidence": 0.7}, "confidence"),
        ({"name": "c45", "max_exact_values": "x"}, "max_exact_values"),
        ({"name": "c45", "subtree_raising": "yes"}, "subtree_raising"),
        ({"name": "credal-c45", "s": -1}, "s must be"),
    ],
)
def test_bad_tree_parameters_are_job_errors(params, word):
    from dbayes.errors import JobError

    with pytest.raises(JobError, match=word) as err:
        parse_job({"datasets": ["iris"], "classifiers": [params]}, "bad.toml")
    assert "bad.toml" in str(err.value) and "classifiers[0]" in str(err.value)


@pytest.mark.parametrize("budget, node_weight", [(0, 1000), (400, 60), (3000, 1000), (1 << 22, 1 << 18)])
def test_trees_finished_in_memory_equal_trees_grown_from_partitions(tmp_path, monkeypatch, caplog, budget, node_weight):
    """Nodes handed over to the driver's row store (small ones first, within an entries budget) grow into the
    same trees as nodes grown level by level from the partitions: the stats of the two parts add up."""
    import logging

    import dbayes.engine.trees as engine_trees

    monkeypatch.setattr(engine_trees, "LOCAL_ENTRIES", 0)  # every level from the partitions
    reference = run_and_read(tmp_path, "ref", small_job(**{**_tree_job(), "partitions": 4}))
    monkeypatch.setattr(engine_trees, "LOCAL_ENTRIES", budget)
    monkeypatch.setattr(engine_trees, "LOCAL_NODE_WEIGHT", node_weight)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="dbayes.engine.trees"):
        run = run_and_read(tmp_path, "mixed", small_job(**{**_tree_job(), "partitions": 4}))
    held = [r.getMessage() for r in caplog.records if "finished in memory" in r.getMessage()]
    assert bool(held) == (budget > 0)
    cols = ["classifier", "fold", "n_train", "n_test", "accuracy", "tree_size", "n_leaves"]
    pd.testing.assert_frame_equal(reference[0][cols], run[0][cols])
    assert reference[1]["predicted_class"].equals(run[1]["predicted_class"])
    assert np.allclose(np.stack(reference[1]["proba"]), np.stack(run[1]["proba"]), rtol=0, atol=1e-12)


@pytest.mark.cluster
def test_trees_on_a_local_cluster_equal_the_synchronous_trees(tmp_path, monkeypatch):
    """Trees grown on a LocalCluster (entries and cells persisted on the workers, some nodes finished in the
    driver's memory) equal the trees grown level by level with the synchronous scheduler."""
    import dbayes.engine.trees as engine_trees

    job = small_job(**{**_tree_job(), "partitions": 3})
    monkeypatch.setattr(engine_trees, "LOCAL_ENTRIES", 0)
    base = run_and_read(tmp_path, "sync", job, "synchronous")
    monkeypatch.setattr(engine_trees, "LOCAL_ENTRIES", 400)
    monkeypatch.setattr(engine_trees, "LOCAL_NODE_WEIGHT", 60)
    other = run_and_read(tmp_path, "local", job, "local")
    cols = ["classifier", "fold", "n_train", "n_test", "accuracy", "tree_size", "n_leaves"]
    pd.testing.assert_frame_equal(base[0][cols], other[0][cols])
    assert base[1]["predicted_class"].equals(other[1]["predicted_class"])
    assert np.allclose(np.stack(base[1]["proba"]), np.stack(other[1]["proba"]), rtol=0, atol=1e-12)


def test_a_job_returns_its_own_units_from_a_shared_results_folder(tmp_path):
    """Two jobs write into one folder (or a job resumes beside another's units): each run returns only its own
    units' metrics, so its summary never mixes in rows another process is still writing."""
    out = tmp_path / "shared"
    nb = [{"name": "nb"}]
    with runtime("synchronous") as rt:
        first = run_job(parse_job({"datasets": ["iris"], "classifiers": nb, "folds": 3}, "a"), out, rt, lambda s: None)
        second = run_job(parse_job({"datasets": ["zoo"], "classifiers": nb, "folds": 2}, "b"), out, rt, lambda s: None)
    assert set(first.metrics["dataset"]) == {"iris"} and len(first.metrics) == 3
    assert set(second.metrics["dataset"]) == {"zoo"} and len(second.metrics) == 2
    assert len(ResultStore(out).read_metrics()) == 5
