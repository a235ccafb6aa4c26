"""Decision trees on raw attributes: C4.5 (Weka's J48) and Credal-C4.5 (seed 003).

Estimators
----------
:class:`C45` (J48's defaults ``-C 0.25 -M 2``) and :class:`CredalC45` (parameter ``s`` of the imprecise
Dirichlet model), scikit-learn style: ``fit(X_df, y)``, ``predict``, ``predict_proba``, ``classes_``,
``get_params``/``set_params``, ``tree_size``, ``n_leaves``, ``to_text()`` (J48's printout), ``to_json()``.

Modules
-------
:mod:`~dbayes.models.trees.impurity` (entropy, IDM upper entropy H*, P_D), :mod:`~.schema` (attributes,
raw encoding, numeric grids), :mod:`~.tree` (nodes, routing with fractional instances), :mod:`~.stats`
(per-level split statistics, additive over blocks), :mod:`~.splits` (criteria, attribute evaluation),
:mod:`~.grow` (level-by-level growth), :mod:`~.prune` (collapse, error-based pruning, subtree raising),
:mod:`~.export` (text, JSON), :mod:`~.c45` and :mod:`~.credal` (estimators).

Distributed growth (what the engine runs)
-----------------------------------------
Every step below is a pure NumPy function; the engine maps them over partitions and reduces.

1. *Encode* each partition: ``schema = TreeSchema.from_frame(meta, classes)`` once, then per partition
   ``X_num, X_nom = encode_frame(part, schema)`` and ``block = (X_num, X_nom, y_codes, w)``.
2. *First pass (grids)*: ``numeric_value_counts(X_num, w, row_offset)`` per partition (``row_offset``: the
   partition's first global row index), reduced with ``merge_value_counts``; then, per numeric attribute,
   ``numeric_grid(values, counts, max_exact_values, first_seen)``.  An attribute with at most
   ``max_exact_values`` distinct values (default 65,536; a job's option or the classifier's parameter) gets
   an exact grid (C4.5's search is then exact);
   above that the candidate thresholds are ``max_exact_values`` weighted quantiles (observed values), and
   trees can differ from J48's where J48 would cut between two quantiles.
3. *Levels*: ``grower = model.make_grower(schema, grids, n_train)``; while ``not grower.done``:
   broadcast ``state = grower.state()`` (one ``Delayed``), ``stats = sum(split_statistics(block, state))``
   over the partitions (``SplitStats.__add__`` / ``add_stats``), then ``grower.split_level(stats)``.
   One pass over the data per level.  ``split_statistics`` routes the block from the root; a driver that
   keeps each partition's entries (``Entries``: row, node, weight) between levels moves them one step with
   ``tree.step`` and calls ``stats.frontier_statistics(block, state, entries, cells)`` instead, ``cells``
   being ``schema.grid_cells(X_num, grids)`` computed once (what the engine and ``fit_local`` do).
   Stats sums are exact for integer weights; fractional instances
   (missing values below a split) agree to rounding.
4. *Pruning*: ``model.finish(grower, block)``.  Collapse and error-based pruning need only the node
   distributions the grower kept; *subtree raising* also needs the training rows (J48 re-distributes a
   node's instances through its largest branch), so ``block`` must be the collected training rows.  An
   engine that cannot collect them can run with ``subtree_raising=False`` (no rows needed), or provide one
   pass per raising decision (route the node's rows through the branch, return the leaves' class weights).
"""

from dbayes.models.trees.c45 import C45
from dbayes.models.trees.credal import CredalC45
from dbayes.models.trees.grow import TreeGrower, fit_local
from dbayes.models.trees.impurity import entropy, max_entropy_distribution, upper_entropy
from dbayes.models.trees.schema import (
    NumericGrid,
    TreeSchema,
    encode_frame,
    merge_value_counts,
    numeric_grid,
    numeric_value_counts,
)
from dbayes.models.trees.splits import Criterion
from dbayes.models.trees.stats import GrowerState, SplitStats, add_stats, split_statistics

__all__ = [
    "C45",
    "CredalC45",
    "TreeGrower",
    "fit_local",
    "entropy",
    "upper_entropy",
    "max_entropy_distribution",
    "NumericGrid",
    "TreeSchema",
    "encode_frame",
    "numeric_value_counts",
    "merge_value_counts",
    "numeric_grid",
    "Criterion",
    "GrowerState",
    "SplitStats",
    "add_stats",
    "split_statistics",
]
