"""The result store: unit files mark units done; reads combine them into one file, never serving a row whose
unit file is gone or was rewritten."""

import os

import pandas as pd

from dbayes.engine import results
from dbayes.engine.results import ResultStore


def _commit(store, i, acc, **extra):
    store.commit(f"d__c__noise0__r0__f{i}", {"dataset": "d", "fold": i, "accuracy": acc, **extra}, None)


def _combined(store):
    return sorted(p.name for p in store.metrics.iterdir() if p.name.startswith("_combined."))


def test_reads_are_combined_and_follow_the_unit_files(tmp_path, monkeypatch):
    monkeypatch.setattr(results, "COMBINE_AFTER", 3)
    store = ResultStore(tmp_path)
    store.prepare()
    assert store.read_metrics().empty
    for i in range(5):
        _commit(store, i, i / 10)
    first = store.read_metrics()
    assert list(first["fold"]) == [0, 1, 2, 3, 4] and list(first.columns) == ["dataset", "fold", "accuracy"]
    assert len(_combined(store)) == 1
    # the combined rows are served while the unit files are there, unchanged
    pd.testing.assert_frame_equal(store.read_metrics(), first)
    # a deleted unit file is not done any more; a rewritten one is read again; new units are added
    os.unlink(store.metrics_path("d__c__noise0__r0__f1"))
    path = store.metrics_path("d__c__noise0__r0__f2")
    _commit(store, 2, 0.99, tree_size=7)
    os.utime(path, ns=(os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns + 1))
    _commit(store, 5, 0.5)
    again = store.read_metrics()
    assert list(again["fold"]) == [0, 2, 3, 4, 5]
    assert again.set_index("fold").loc[2, "accuracy"] == 0.99 and again.set_index("fold").loc[2, "tree_size"] == 7
    # with fewer fresh files than COMBINE_AFTER the old combined file stays; more than one are merged
    assert len(_combined(store)) == 1
    for i in range(6, 10):
        _commit(store, i, 0.1)
    assert len(store.read_metrics()) == 9 and len(_combined(store)) == 1


def test_a_read_only_results_folder_is_still_read(tmp_path, monkeypatch):
    monkeypatch.setattr(results, "COMBINE_AFTER", 1)
    store = ResultStore(tmp_path)
    store.prepare()
    for i in range(3):
        _commit(store, i, 0.5)

    def refuse(*a, **k):
        raise PermissionError("read-only")

    monkeypatch.setattr(results.os, "replace", refuse)
    assert list(store.read_metrics()["fold"]) == [0, 1, 2]
    assert _combined(store) == [] and not [p for p in store.metrics.iterdir() if p.name.startswith(".tmp")]
