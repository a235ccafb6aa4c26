"""Statistical comparison of classifiers (re-exported as ``dbayes.stats``).

- :mod:`.pairwise`: two classifiers: win/loss/draw counts, the binomial sign test, the Wilcoxon
  signed-ranks test, the paired t-test and Nadeau and Bengio's corrected resampled t-test.
- :mod:`.ranks`: several classifiers over several data sets: average ranks, Friedman with the
  Iman-Davenport correction, Nemenyi (p-values, critical difference, cliques), Holm against a control.
- :mod:`.tables`: the papers' tables computed from a metrics DataFrame, and the console summary.

Reference: J. Demsar, "Statistical comparisons of classifiers over multiple data sets", JMLR 7 (2006).
"""

from .pairwise import (
    SignTestResult,
    TTestResult,
    WilcoxonResult,
    WinLossDraw,
    corrected_resampled_t_test,
    paired_t_test,
    sign_test,
    wilcoxon_signed_rank,
    win_loss_draw,
)
from .ranks import (
    FriedmanResult,
    NemenyiResult,
    average_ranks,
    critical_difference,
    friedman_test,
    holm,
    holm_test,
    nemenyi_cliques,
    nemenyi_critical_value,
    nemenyi_test,
    pairwise_z_tests,
    rank_scores,
)
from .tables import (
    REQUIRED_COLUMNS,
    accuracy_table,
    check_metrics,
    classifier_order,
    dataset_scores,
    dataset_summary,
    error_table,
    format_summary,
    friedman_rank_table,
    nemenyi_pvalue_table,
    nemenyi_table,
    select,
    time_table,
    ttest_by_dataset,
    ttest_wtl_table,
    vary_table,
    wld_table,
)

__all__ = [
    "SignTestResult",
    "TTestResult",
    "WilcoxonResult",
    "WinLossDraw",
    "corrected_resampled_t_test",
    "paired_t_test",
    "sign_test",
    "wilcoxon_signed_rank",
    "win_loss_draw",
    "FriedmanResult",
    "NemenyiResult",
    "average_ranks",
    "critical_difference",
    "friedman_test",
    "holm",
    "holm_test",
    "nemenyi_cliques",
    "nemenyi_critical_value",
    "nemenyi_test",
    "pairwise_z_tests",
    "rank_scores",
    "REQUIRED_COLUMNS",
    "accuracy_table",
    "check_metrics",
    "classifier_order",
    "dataset_scores",
    "dataset_summary",
    "error_table",
    "format_summary",
    "friedman_rank_table",
    "nemenyi_pvalue_table",
    "nemenyi_table",
    "select",
    "time_table",
    "ttest_by_dataset",
    "ttest_wtl_table",
    "vary_table",
    "wld_table",
]
