"""Credal-C4.5 (Mantas & Abellan, seed 003): C4.5 with the imprecise info-gain ratio.

The split criterion is IIGR_D(C, X) = IIG_D(C, X) / H(X) (seed 003, sec. 3) with the imprecise info gain
computed on the IDM credal sets of parameter ``s`` (:mod:`dbayes.models.trees.impurity`,
:class:`dbayes.models.trees.splits.Criterion`).  Everything else is C4.5's (J48's): the "at least average
gain" filter (on IIG), the stopping rule alpha <= 0 (no attribute with positive IIGR), leaves labelled with
the most probable class, numeric attributes and missing values, collapse and pruning.  With ``s = 0`` the
tree is exactly C4.5's.

Decisions where the seed is silent or differs from J48 in form:

- the set M of Fig. 1, step 5 (``IIG > average IIG``) is applied as J48 applies C4.5's rule
  (``IIG >= average - 1e-3``, many-valued nominal attributes left out of the average), so that ``s = 0``
  reproduces J48 exactly;
- Fig. 1, step 9 removes the chosen attribute from L.  For a nominal attribute this changes nothing (its
  branches hold one known value each, so it can never split again); numeric attributes stay available,
  "as in C4.5" (sec. 3);
- the IIG of a numeric cut gets C4.5's MDL correction and the known-value fraction, as the info gain does;
- the IDM upper entropies are maximised exactly (water filling), also for fractional weights.

References
----------
C. J. Mantas, J. Abellan, "Credal decision trees in noisy domains", ESANN 2014 (seed 003).
C. J. Mantas, J. Abellan, "Credal-C4.5: Decision tree based on imprecise probabilities to classify noisy
data", Expert Systems with Applications 41 (2014).
J. Abellan, "Uncertainty measures on probability intervals from the imprecise Dirichlet model",
Int. J. General Systems 35(5), 2006.
"""

from __future__ import annotations

from dbayes.errors import JobError
from dbayes.models.trees.c45 import TreeClassifierBase
from dbayes.models.trees.splits import Criterion

__all__ = ["CredalC45"]


class CredalC45(TreeClassifierBase):
    """Credal-C4.5 decision tree with IDM parameter ``s`` (the paper uses s in {0.25, 0.5, 0.75, 1}).

    Parameters are those of :class:`~dbayes.models.trees.c45.C45` plus ``s >= 0``.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"x": [float(v) for v in range(12)]})
    >>> CredalC45(s=1.0).fit(X, list("aaaaaabbbbbb")).predict(pd.DataFrame({"x": [1.5, 10.5]})).tolist()
    ['a', 'b']
    """

    _param_names = ("s", "confidence", "min_leaf", "unpruned", "subtree_raising", "max_exact_values")

    def __init__(
        self,
        *,
        s=1.0,
        confidence=0.25,
        min_leaf=2,
        unpruned=False,
        subtree_raising=True,
        max_exact_values=None,
    ):
        self.s = s
        self.confidence = confidence
        self.min_leaf = min_leaf
        self.unpruned = unpruned
        self.subtree_raising = subtree_raising
        self.max_exact_values = max_exact_values

    def check_params(self) -> None:
        s = self.s
        if isinstance(s, bool) or not isinstance(s, int | float) or s < 0:
            raise JobError(f"CredalC45: s must be >= 0 (the IDM parameter, a number), got {s!r}")
        super().check_params()

    def _criterion(self) -> Criterion:
        if self.s < 0:
            raise ValueError(f"the IDM parameter s must be >= 0, got {self.s}")
        return Criterion(float(self.s))

    def _title(self) -> str:
        return f"Credal-C4.5 (s={self.s}) {'unpruned' if self.unpruned else 'pruned'} tree"
