"""C4.5 (Weka's J48) as a scikit-learn-style estimator on raw attributes.

Reproduces J48's defaults (``-C 0.25 -M 2``): gain ratio among the attributes of at least average gain, binary
splits at observed values on numeric attributes (with J48's MDL correction), multiway splits on nominal ones,
fractional instances for missing values at training and prediction, collapse, error-based pruning with
confidence 0.25 and subtree raising; leaves predict their class distribution.

References
----------
J. R. Quinlan, *C4.5: Programs for Machine Learning*, Morgan Kaufmann, 1993.
Weka 3.6, ``weka.classifiers.trees.J48`` and ``weka.classifiers.trees.j48.*``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dbayes.errors import DataError, JobError, NotFittedError
from dbayes.models.trees.export import to_dict, to_json, to_text
from dbayes.models.trees.grow import TreeGrower, fit_local
from dbayes.models.trees.prune import collapse, compact, prune_tree
from dbayes.models.trees.schema import (
    DEFAULT_MAX_EXACT_VALUES,
    TreeSchema,
    encode_frame,
    numeric_grid,
    numeric_value_counts,
)
from dbayes.models.trees.splits import Criterion
from dbayes.models.trees.tree import J48_SMALL, Entries, flatten, route

__all__ = ["C45", "TreeClassifierBase"]


class TreeClassifierBase:
    """Shared fit/predict of C4.5 and Credal-C4.5; subclasses give :meth:`_criterion`."""

    _param_names: tuple = ()

    def get_params(self, deep: bool = True) -> dict:
        return {k: getattr(self, k) for k in self._param_names}

    def set_params(self, **params):
        for k, v in params.items():
            if k not in self._param_names:
                raise ValueError(f"invalid parameter {k!r} for {type(self).__name__}")
            setattr(self, k, v)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def _criterion(self) -> Criterion:
        raise NotImplementedError

    @property
    def resolution(self) -> int:
        """The number of distinct values above which numeric attributes get quantile thresholds."""
        return DEFAULT_MAX_EXACT_VALUES if self.max_exact_values is None else int(self.max_exact_values)

    def check_params(self) -> None:
        """Raise :class:`JobError` naming the parameter when a value is not valid (called before any work)."""
        name = type(self).__name__
        number = (int, float)
        cf = self.confidence
        if isinstance(cf, bool) or not isinstance(cf, number) or not 0 < cf <= 0.5:
            raise JobError(f"{name}: confidence must be a number in (0, 0.5] (J48 -C), got {cf!r}")
        m = self.min_leaf
        if isinstance(m, bool) or not isinstance(m, number) or m < 0:
            raise JobError(f"{name}: min_leaf must be a number >= 0 (J48 -M), got {m!r}")
        for key in ("unpruned", "subtree_raising"):
            if not isinstance(getattr(self, key), bool):
                raise JobError(f"{name}: {key} must be true or false, got {getattr(self, key)!r}")
        v = self.max_exact_values
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 2):
            raise JobError(f"{name}: max_exact_values must be an integer >= 2, got {v!r}")

    # ------------------------------------------------------------------ fit
    def fit(self, X: pd.DataFrame, y, sample_weight=None):
        """Grow and prune the tree on a DataFrame of attributes and the class labels ``y``.

        Nominal attributes are ``category`` (or string/bool) columns, numeric ones number columns with NaN
        for missing.  Rows whose class is missing are dropped (J48's ``deleteWithMissingClass``).
        ``sample_weight`` gives fractional instance weights (default 1).
        """
        self.check_params()
        if not isinstance(X, pd.DataFrame):
            X = pd.DataFrame(X)
        y = pd.Series(y, index=X.index) if not isinstance(y, pd.Series) else y.set_axis(X.index)
        if len(y) != len(X):
            raise DataError(f"X has {len(X)} rows but y has {len(y)}")
        keep = y.notna().to_numpy()
        if isinstance(y.dtype, pd.CategoricalDtype):
            classes = list(y.cat.categories)
        else:
            classes = sorted(y[keep].unique(), key=lambda v: (str(type(v)), v))
        if len(classes) == 0:
            raise DataError("no training row has a class")
        X, y = X[keep], y[keep]
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)[keep]
        schema = TreeSchema.from_frame(X, classes)
        X_num, X_nom = encode_frame(X, schema)
        y_codes = pd.Categorical(y.astype(object), categories=classes).codes.astype(np.int64)
        counts = numeric_value_counts(X_num, w)
        grids = tuple(numeric_grid(v, c, self.resolution, f) for v, c, f in counts)
        block = (X_num, X_nom, y_codes, w)
        grower = self.make_grower(schema, grids, len(y))
        fit_local(block, grower=grower)
        return self.finish(grower, block)

    def make_grower(self, schema: TreeSchema, grids, n_train: int) -> TreeGrower:
        """The :class:`~dbayes.models.trees.grow.TreeGrower` with this estimator's parameters.

        This is the distributed engine's entry point: it makes the grids in a first pass
        (:func:`~dbayes.models.trees.schema.numeric_value_counts`, ``merge_value_counts``, ``numeric_grid``),
        runs the level loop (``grower.state()`` broadcast, ``split_statistics`` mapped over the partitions
        and summed, ``grower.split_level``), then calls :meth:`finish`.
        """
        return TreeGrower(schema, grids, n_train, min_leaf=self.min_leaf, criterion=self._criterion())

    def finish(self, grower: TreeGrower, block=None):
        """Collapse and prune the grown tree and make the estimator ready to predict.

        ``block = (X_num, X_nom, y, w)`` are the training rows, needed for subtree raising only
        (:mod:`dbayes.models.trees.prune`).
        """
        nodes = grower.nodes
        collapse(nodes)
        if not self.unpruned:
            prune_tree(
                nodes,
                confidence=self.confidence,
                subtree_raising=self.subtree_raising,
                block=block,
                schema=grower.schema,
            )
        self.schema_ = grower.schema
        self.grids_ = grower.grids
        self.classes_ = np.array(grower.schema.classes, dtype=object)
        self.nodes_ = compact(nodes)
        self._prepare_prediction()
        return self

    def _prepare_prediction(self):
        nodes = self.nodes_
        C = len(self.classes_)
        parent = np.full(len(nodes), -1)
        for i, nd in enumerate(nodes):
            for c in nd.children:
                parent[c] = i
        empty = np.array([(not nd.is_split) and abs(nd.dist.sum()) < J48_SMALL for nd in nodes])
        pred = np.zeros((len(nodes), C))
        for i, nd in enumerate(nodes):
            tot = nd.dist.sum()
            if empty[i] and parent[i] >= 0:
                pdist = nodes[parent[i]].dist
                pred[i] = pdist / pdist.sum() if pdist.sum() > 0 else 0.0
            elif tot > 0:
                pred[i] = nd.dist / tot
        self._flat = flatten(nodes, self.schema_)
        self._empty = empty
        self._pred = pred

    # -------------------------------------------------------------- predict
    def _check_fitted(self):
        if not hasattr(self, "nodes_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        """Class probabilities (J48's ``distributionForInstance``): the leaf class distributions, a row
        with a missing test value going down every non-empty branch with the branch's training share."""
        self._check_fitted()
        if not isinstance(X, pd.DataFrame):
            X = pd.DataFrame(X)
        X_num, X_nom = encode_frame(X, self.schema_)
        n, C = len(X), len(self.classes_)
        ent = route(self._flat, X_num, X_nom, Entries.at_root(np.ones(n)), skip=self._empty)
        proba = np.zeros((n, C))
        for c in range(C):
            proba[:, c] = np.bincount(ent.rows, weights=ent.w * self._pred[ent.node, c], minlength=n)
        s = proba.sum(axis=1, keepdims=True)
        return np.divide(proba, s, out=np.full_like(proba, 1.0 / C), where=s > 0)

    def predict_log_proba(self, X: pd.DataFrame) -> np.ndarray:
        """Natural log of :meth:`predict_proba` (``-inf`` for a class a leaf never saw)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """The most probable class of each row (first class on ties)."""
        self._check_fitted()
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    # ---------------------------------------------------------------- shape
    @property
    def tree_size(self) -> int:
        """Number of nodes (J48's "Size of the tree")."""
        self._check_fitted()
        return len(self.nodes_)

    @property
    def n_leaves(self) -> int:
        """Number of leaves (J48's "Number of Leaves")."""
        self._check_fitted()
        return sum(1 for nd in self.nodes_ if not nd.is_split)

    def to_text(self) -> str:
        """The tree printed as J48 prints it: the test along each path, leaves ``class (weight/errors)``."""
        self._check_fitted()
        return to_text(self.nodes_, self.schema_, title=self._title())

    def to_dict(self) -> dict:
        self._check_fitted()
        return to_dict(self.nodes_, self.schema_)

    def to_json(self, **kwargs) -> str:
        """The tree as JSON: nested nodes with class weights, attribute, threshold and branch conditions."""
        self._check_fitted()
        return to_json(self.nodes_, self.schema_, **kwargs)

    def _title(self) -> str:
        return "J48 unpruned tree" if self.unpruned else "J48 pruned tree"


class C45(TreeClassifierBase):
    """C4.5 decision tree, Weka J48's defaults.

    Parameters
    ----------
    confidence : float, default 0.25
        pruning confidence (J48 ``-C``), at most 0.5.
    min_leaf : int, default 2
        minimum weight in at least two branches (J48 ``-M``).
    unpruned : bool, default False
        skip error-based pruning (the tree is still collapsed, as J48 3.6 does).
    subtree_raising : bool, default True
        consider replacing a node by its largest branch while pruning.
    max_exact_values : int, optional
        numeric attributes with more distinct training values use this many quantile thresholds
        (:mod:`dbayes.models.trees.schema`); default: the job's ``max_exact_values`` when run in a job, else
        ``DEFAULT_MAX_EXACT_VALUES`` (65,536, the job's default).

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    >>> C45().fit(X, ["a", "a", "a", "b", "b", "b"]).predict(pd.DataFrame({"x": [1.5, 5.5]})).tolist()
    ['a', 'b']
    """

    _param_names = ("confidence", "min_leaf", "unpruned", "subtree_raising", "max_exact_values")

    def __init__(
        self,
        *,
        confidence=0.25,
        min_leaf=2,
        unpruned=False,
        subtree_raising=True,
        max_exact_values=None,
    ):
        self.confidence = confidence
        self.min_leaf = min_leaf
        self.unpruned = unpruned
        self.subtree_raising = subtree_raising
        self.max_exact_values = max_exact_values

    def _criterion(self) -> Criterion:
        return Criterion(None)
