"""The only package that knows Dask: datasets as dask DataFrames, reductions, maps, clusters, result files."""

from dbayes.engine.cluster import Runtime, runtime
from dbayes.engine.datasets import Dataset, open_dataset
from dbayes.engine.runner import JobRun, run_job

__all__ = ["Runtime", "runtime", "Dataset", "open_dataset", "JobRun", "run_job"]
