"""Where the work runs: an embedded LocalCluster, a local scheduler, or a running cluster by address."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass

import dask

from dbayes.errors import DbayesError

__all__ = ["Runtime", "runtime", "LOCAL_SCHEDULERS"]

log = logging.getLogger(__name__)

LOCAL_SCHEDULERS = ("synchronous", "threads", "processes")


@dataclass
class Runtime:
    """What ``runtime`` set up: the scheduler's name, the client (or None) and its dashboard link."""

    scheduler: str
    client: object | None = None
    dashboard: str | None = None

    @property
    def n_workers(self) -> int:
        if self.client is None:
            return 1 if self.scheduler == "synchronous" else (os.cpu_count() or 1)
        return max(1, sum(w.get("nthreads", 1) for w in self.client.scheduler_info()["workers"].values()))


def _quiet_distributed() -> None:
    """Keep the scheduler's and workers' INFO chatter off the console (warnings and errors still show)."""
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")
    # fitted models (tens of MB for AODE on wide data) travel once per round as one key of the graph; the
    # default 10 MB warning would fire on every round
    dask.config.set({"logging.distributed": "warning", "distributed.admin.large-graph-warning-threshold": "1GB"})
    for name in (
        "distributed",
        "distributed.scheduler",
        "distributed.nanny",
        "distributed.worker",
        "distributed.core",
        "distributed.http.proxy",
        "distributed.batched",
    ):
        logging.getLogger(name).setLevel(logging.WARNING)


@contextlib.contextmanager
def runtime(scheduler: str | None = "local", n_workers: int | None = None) -> Iterator[Runtime]:
    """Set up the scheduler for the block.

    ``"local"`` (default) starts a LocalCluster of worker processes with one thread each (as many as cores, at
    most ``n_workers``); ``"synchronous"``, ``"threads"`` and ``"processes"`` use Dask's local schedulers; any
    other value is the address of a running scheduler (``tcp://host:8786``).
    """
    scheduler = scheduler or "local"
    if scheduler in LOCAL_SCHEDULERS:
        with dask.config.set(scheduler=scheduler):
            yield Runtime(scheduler)
        return
    _quiet_distributed()
    from distributed import Client, LocalCluster

    if scheduler == "local":
        workers = n_workers or min(os.cpu_count() or 1, 8)
        with (
            LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.WARNING,
            ) as cluster,
            Client(cluster) as client,
        ):
            yield Runtime("local", client, client.dashboard_link)
        return
    address = scheduler if "://" in scheduler else f"tcp://{scheduler}"
    try:
        client = Client(address, timeout="10s")
    except OSError as exc:
        raise DbayesError(f"--scheduler {scheduler}: cannot reach a Dask scheduler there ({exc})") from None
    with client:
        yield Runtime(address, client, client.dashboard_link)
