"""Decision trees on raw attributes: C4.5 (Weka's J48) and Credal-C4.5 (seed 003).

Modules: :mod:`impurity` (entropy, IDM upper entropy), :mod:`schema` (attributes, numeric grids),
:mod:`tree` (nodes, routing with fractional instances), :mod:`stats` (per-level split statistics, additive
over blocks), :mod:`splits` (criteria, attribute evaluation), :mod:`grow` (level-by-level growth),
:mod:`prune` (collapse, error-based pruning, subtree raising), :mod:`export` (text, JSON),
:mod:`c45` and :mod:`credal` (estimators).
"""

from dbayes.models.trees.c45 import C45
from dbayes.models.trees.credal import CredalC45
from dbayes.models.trees.grow import TreeGrower, fit_local
from dbayes.models.trees.impurity import entropy, max_entropy_distribution, upper_entropy
from dbayes.models.trees.schema import NumericGrid, TreeSchema
from dbayes.models.trees.splits import Criterion
from dbayes.models.trees.stats import GrowerState, SplitStats, add_stats, split_statistics

__all__ = ["C45", "CredalC45", "TreeGrower", "fit_local", "entropy", "upper_entropy",
           "max_entropy_distribution", "NumericGrid", "TreeSchema", "Criterion", "GrowerState",
           "SplitStats", "add_stats", "split_statistics"]
