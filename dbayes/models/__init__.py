"""Classifiers on count tables and coded rows: pure NumPy/SciPy, no Dask."""

from dbayes.models.base import Model, TrainingRows
from dbayes.models.nb import NaiveBayes
from dbayes.models.tan import TAN

__all__ = ["Model", "TrainingRows", "NaiveBayes", "TAN"]
