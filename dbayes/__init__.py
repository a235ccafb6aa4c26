"""dbayes: Bayesian-network classifiers, and the trees they are compared with, evaluated at scale on Dask."""

from dbayes.errors import DataError, DbayesError, JobError, NotFittedError

__version__ = "0.1.0"

__all__ = ["DbayesError", "DataError", "JobError", "NotFittedError", "__version__"]
