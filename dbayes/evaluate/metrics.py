"""Per-fold metrics from the sums the prediction pass returns."""

from __future__ import annotations

import numpy as np

__all__ = ["LOG_LOSS_FLOOR", "METRIC_COLUMNS"]

#: probabilities below this are clipped in the log loss (scikit-learn's convention), so a model that gives the
#: true class probability 0 (a tree leaf, say) has a large but finite loss
LOG_LOSS_FLOOR = 1e-15

#: the columns of a metrics row, in order (``test_limit``, ``tree_size`` and ``n_leaves`` only where they apply;
#: ``param_*`` columns, the classifier's numeric parameters, follow)
METRIC_COLUMNS = [
    "dataset",
    "classifier",
    "classifier_name",
    "noise",
    "test_limit",
    "repeat",
    "fold",
    "n_train",
    "n_test",
    "accuracy",
    "error",
    "log_loss",
    "train_seconds",
    "test_seconds",
    "folds",
    "seed",
    "discretize",
    "tree_size",
    "n_leaves",
]


def fold_metrics(sums: np.ndarray) -> dict[str, float]:
    n, correct, loss, seconds = (float(x) for x in sums)
    acc = correct / n if n else float("nan")
    return {
        "n_test": int(n),
        "accuracy": acc,
        "error": 1.0 - acc,
        "log_loss": loss / n if n else float("nan"),
        "test_seconds": seconds,
    }
