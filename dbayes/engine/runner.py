"""Running a job: check every input first, then the rounds that are not done yet, then the summary."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from dbayes.job import Job

from .cluster import Runtime
from .cv import is_tree, run_round
from .datasets import Dataset, open_dataset
from .results import ResultStore, unit_name

__all__ = ["run_job", "JobRun"]

log = logging.getLogger(__name__)


@dataclass
class JobRun:
    out: Path
    metrics: pd.DataFrame
    units_done: int
    units_skipped: int
    seconds: float


def _default_partitions(job: Job, rt: Runtime | None, data_partitions: int, n_rows: int) -> int | None:
    if job.partitions:
        return job.partitions
    workers = rt.n_workers if rt else 1
    if data_partitions >= workers or workers <= 1:
        return None
    return int(max(1, min(workers, n_rows // 1000)))


def run_job(
    job: Job,
    out: str | Path,
    rt: Runtime | None = None,
    report: Callable[[str], None] | None = None,
) -> JobRun:
    """Run ``job`` into ``out``; finished units are skipped, so an interrupted job resumes."""
    say = report or (lambda msg: print(msg, file=sys.stderr))
    t_start = time.perf_counter()
    # Every dataset is opened and checked before anything is written.
    datasets: list[Dataset] = []
    needs_discrete = any(not is_tree(s.make()) for s in job.classifiers)
    for spec in job.datasets:
        data = open_dataset(spec, job.class_column)
        parts = _default_partitions(job, rt, data.frame.npartitions, data.n_rows)
        if parts and parts != data.frame.npartitions:
            data = open_dataset(spec, job.class_column, partitions=parts)
        numeric = data.schema.numeric_indices
        if numeric and job.discretize == "none" and needs_discrete:
            from dbayes.errors import JobError

            raise JobError(
                f'{job.source}: discretize = "none", but dataset {data.name!r} has numeric attributes '
                f"({', '.join(data.schema.attributes[i].name for i in numeric[:5])}) "
                "that the Bayesian classifiers need discretized"
            )
        datasets.append(data)
    names = [d.name for d in datasets]
    if len(set(names)) != len(names):
        from dbayes.errors import JobError

        raise JobError(
            f"{job.source}: two datasets share the name {sorted(n for n in names if names.count(n) > 1)[0]!r}"
        )
    say(
        f"job {job.name}: {len(datasets)} dataset(s) x {len(job.classifiers)} classifier(s), {job.repeats} x "
        f"{job.folds}-fold CV, noise {list(job.noise)}, scheduler {rt.scheduler if rt else 'default'}, results in {out}"
    )
    store = ResultStore(out)
    store.prepare()
    n_units = len(datasets) * len(job.noise) * len(job.test_limit) * job.repeats * len(job.classifiers) * job.folds
    done = skipped = 0
    for data in datasets:
        data.frame = data.frame.persist()
        for noise in job.noise:
            for limit in job.test_limit:
                for repeat in range(job.repeats):
                    todo = [
                        s
                        for s in job.classifiers
                        if not all(
                            store.is_done(unit_name(data.name, s.label, noise, repeat, f, limit))
                            for f in range(job.folds)
                        )
                    ]
                    skipped += (len(job.classifiers) - len(todo)) * job.folds
                    if not todo:
                        continue
                    lim = "" if limit is None else f" test_limit={limit}"
                    head = f"[{data.name} noise={noise:g}{lim} repeat={repeat + 1}/{job.repeats}]"
                    steps: list[str] = []
                    run_round(data, job, todo, noise, repeat, store, on_step=steps.append, test_limit=limit)
                    done += len(todo) * job.folds
                    say(f"{head} {', '.join(steps)}  ({done + skipped}/{n_units} units)")
    # this job's units only: the folder may hold other jobs' results, or units another process is writing
    mine = {
        unit_name(d.name, s.label, noise, repeat, f, limit)
        for d in datasets
        for s in job.classifiers
        for noise in job.noise
        for limit in job.test_limit
        for repeat in range(job.repeats)
        for f in range(job.folds)
    }
    metrics = store.read_metrics(units=mine)
    return JobRun(Path(out), metrics, done, skipped, time.perf_counter() - t_start)
