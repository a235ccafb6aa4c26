"""What every classifier shares: parameters, the fitted-state check, and probabilities from one hook.

A model is fitted from count tables (and, for lazy models, the training rows themselves) and scores blocks of
coded rows through :meth:`Model.joint_log_likelihood`; ``predict_log_proba`` normalises it once with
log-sum-exp, and ``predict_proba``/``predict`` follow from that (the scikit-learn naive Bayes contract).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from scipy.special import logsumexp

from dbayes.counts import CountTables
from dbayes.errors import JobError, NotFittedError

__all__ = ["Model", "TrainingRows"]


@dataclass(frozen=True)
class TrainingRows:
    """The coded training rows, for the models that look at instances (lazy and wrapper models)."""

    X: np.ndarray
    y: np.ndarray
    cards: tuple[int, ...]
    n_classes: int


class Model:
    """Base class of the classifiers on coded data.

    Subclasses define a keyword-only ``__init__`` that only stores its parameters, ``fit`` and
    ``joint_log_likelihood``, and the class attributes below.
    """

    #: registry name
    name: ClassVar[str] = ""
    #: fitted from (class, value_i, value_j) tables as well as the class and attribute tables
    needs_pairs: ClassVar[bool] = False
    #: needs the training rows themselves (``fit(tables, train)``)
    needs_rows: ClassVar[bool] = False

    # -- parameters (scikit-learn contract) -----------------------------------------------------------------
    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [p.name for p in sig.parameters.values() if p.name != "self" and p.kind == p.KEYWORD_ONLY]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> Model:
        valid = self._param_names()
        for key, value in params.items():
            if key not in valid:
                raise JobError(
                    f"classifier {self.name!r} has no parameter {key!r} (parameters: {', '.join(valid) or 'none'})"
                )
            setattr(self, key, value)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def check_params(self) -> None:
        """Raise :class:`JobError` naming the parameter when a value is not valid (called before any work)."""

    # -- fitting and scoring --------------------------------------------------------------------------------
    def fit(self, tables: CountTables, train: TrainingRows | None = None) -> Model:
        raise NotImplementedError

    def joint_log_likelihood(self, X: np.ndarray) -> np.ndarray:
        """``(n, C)`` array of ``log P(c, x)`` up to a constant per row."""
        raise NotImplementedError

    def _check_fitted(self) -> None:
        if not getattr(self, "fitted_", False):
            raise NotFittedError(f"{type(self).__name__} is not fitted yet; call fit first")

    def _check_X(self, X: np.ndarray) -> np.ndarray:
        self._check_fitted()
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != len(self.cards_):
            raise ValueError(f"expected coded rows with {len(self.cards_)} attributes, got shape {X.shape}")
        return X

    def predict_log_proba(self, X: np.ndarray) -> np.ndarray:
        jll = self.joint_log_likelihood(X)
        return jll - logsumexp(jll, axis=1, keepdims=True)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return np.exp(self.predict_log_proba(X))

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Class codes; ties go to the lowest class code."""
        return np.argmax(self.joint_log_likelihood(X), axis=1)

    def _set_fitted(self, tables: CountTables) -> None:
        self.cards_ = tuple(tables.cards)
        self.n_classes_ = tables.n_classes
        self.fitted_ = True


def attribute_factors(log_cpt: list[np.ndarray], X: np.ndarray) -> np.ndarray:
    """Sum over attributes of ``log_cpt[i][:, X[:, i]]`` as ``(n, C)``; a missing value (code ``V_i``) adds 0.

    ``log_cpt[i]`` has shape ``(C, V_i + 1)`` with a zero last column, so a missing value needs no branch.
    """
    n = X.shape[0]
    C = log_cpt[0].shape[0] if log_cpt else 0
    out = np.zeros((n, C))
    for i, table in enumerate(log_cpt):
        out += table.T[X[:, i]]
    return out
