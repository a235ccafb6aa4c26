"""Comparisons of several classifiers over several data sets: ranks, Friedman, Nemenyi and Holm.

Input is a scores table: one row per data set, one column per classifier (a DataFrame, or an array with
``names``). Rank 1 is the best classifier on a data set; ties get the average of the ranks they span.

References
----------
.. [1] J. Demsar, "Statistical comparisons of classifiers over multiple data sets", JMLR 7 (2006), 1-30,
   sec. 3.2.2 (Friedman, Iman-Davenport, Nemenyi, Bonferroni-Dunn, Holm) and 3.2.4 (CD diagrams).
.. [2] S. Garcia and F. Herrera, "An extension on 'Statistical comparisons of classifiers over multiple
   data sets' for all pairwise comparisons", JMLR 9 (2008): the unadjusted z-test p-values of the
   pairwise table in seed 003 (Tables 3-4), where Nemenyi rejects p <= alpha / (k(k-1)/2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as _st

from dbayes.errors import DbayesError

__all__ = [
    "FriedmanResult",
    "NemenyiResult",
    "rank_scores",
    "average_ranks",
    "friedman_test",
    "nemenyi_critical_value",
    "critical_difference",
    "nemenyi_test",
    "nemenyi_cliques",
    "pairwise_z_tests",
    "holm",
    "holm_test",
]


def _scores_frame(scores, names=None) -> pd.DataFrame:
    frame = scores.copy() if isinstance(scores, pd.DataFrame) else pd.DataFrame(np.asarray(scores, float))
    if names is not None:
        frame.columns = list(names)
    frame = frame.astype(np.float64)
    if frame.isna().to_numpy().any():
        raise DbayesError("the scores table has missing values; every classifier needs a score on every data set")
    if frame.shape[1] < 2 or frame.shape[0] < 1:
        raise DbayesError(f"need at least 2 classifiers and 1 data set, got shape {frame.shape}")
    return frame


def rank_scores(scores, *, higher_is_better: bool = True, names=None) -> pd.DataFrame:
    """Rank the classifiers on each data set: 1 = best, ties share the average rank (Demsar, sec. 3.2.2).

    Parameters
    ----------
    scores : DataFrame or array_like, shape (N data sets, k classifiers)
    higher_is_better : bool
        True for accuracy or AUC, False for error.
    names : sequence of str, optional
        Classifier names for an array input.
    """
    frame = _scores_frame(scores, names)
    values = -frame.to_numpy() if higher_is_better else frame.to_numpy()
    return pd.DataFrame(_st.rankdata(values, axis=1), index=frame.index, columns=frame.columns)


def average_ranks(scores, *, higher_is_better: bool = True, names=None) -> pd.Series:
    """Average rank of each classifier over the data sets (column means of :func:`rank_scores`)."""
    ranks = rank_scores(scores, higher_is_better=higher_is_better, names=names).mean(axis=0)
    ranks.name = "average rank"
    return ranks


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman's test (``statistic`` = chi2_F) with the Iman-Davenport F_F and the average ranks.

    ``ff_p_value`` is from F with (k - 1, (k - 1)(N - 1)) degrees of freedom; ``p_value`` from chi2 with
    k - 1.
    """

    statistic: float
    p_value: float
    iman_davenport: float
    ff_p_value: float
    average_ranks: pd.Series
    n_datasets: int
    n_classifiers: int
    tie_correction: bool


def friedman_test(scores, *, higher_is_better: bool = True, names=None, tie_correction: bool = False) -> FriedmanResult:
    """Friedman test with the Iman-Davenport correction (Demsar 2006, eq. for chi2_F and F_F).

    ``chi2_F = 12N / (k(k+1)) [sum_j R_j^2 - k(k+1)^2/4]`` and ``F_F = (N-1) chi2_F / (N(k-1) - chi2_F)``.

    Parameters
    ----------
    tie_correction : bool
        False (Demsar's formula, used by the papers): no correction for tied ranks. True divides chi2_F by
        ``1 - sum(t^3 - t) / (N (k^3 - k))`` over all tie groups, as SciPy's ``friedmanchisquare`` does.

    Returns
    -------
    FriedmanResult
        Boundary cases: chi2_F = 0 gives p = 1 and F_F = 0; chi2_F = N(k-1) (every data set ranks the
        classifiers identically and the F_F denominator vanishes) gives F_F = inf and its p-value 0.

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"a": [0.80, 0.71, 0.93], "b": [0.82, 0.70, 0.95], "c": [0.85, 0.75, 0.96]})
    >>> result = friedman_test(acc)
    >>> result.average_ranks.round(3).tolist(), round(result.statistic, 3)
    ([2.667, 2.333, 1.0], 4.667)
    """
    ranks = rank_scores(scores, higher_is_better=higher_is_better, names=names)
    n, k = ranks.shape
    mean_ranks = ranks.mean(axis=0)
    mean_ranks.name = "average rank"
    chi2 = 12.0 * n / (k * (k + 1)) * (float(np.sum(mean_ranks.to_numpy() ** 2)) - k * (k + 1) ** 2 / 4.0)
    chi2 = max(chi2, 0.0)  # rounding can leave -1e-15 when all ranks are equal
    if tie_correction:
        ties = 0.0
        for row in ranks.to_numpy():
            _, t = np.unique(row, return_counts=True)
            ties += float(np.sum(t**3 - t))
        denominator = 1.0 - ties / (n * (k**3 - k))
        chi2 = chi2 / denominator if denominator > 0 else 0.0
    p_chi2 = float(_st.chi2.sf(chi2, k - 1))
    ff_den = n * (k - 1) - chi2
    if n < 2:
        ff, p_ff = math.nan, math.nan
    elif ff_den <= 1e-12 * n * k:
        ff, p_ff = math.inf, 0.0
    else:
        ff = (n - 1) * chi2 / ff_den
        p_ff = float(_st.f.sf(ff, k - 1, (k - 1) * (n - 1)))
    return FriedmanResult(chi2, p_chi2, ff, p_ff, mean_ranks, n, k, tie_correction)


def nemenyi_critical_value(k: int, alpha: float = 0.05) -> float:
    """q_alpha of the Nemenyi test: the studentized range quantile (k groups, infinite df) over sqrt(2).

    Demsar (2006) Table 5(a): q_0.05 = 2.569 and q_0.10 = 2.291 for k = 4.
    """
    if k < 2:
        raise DbayesError(f"the Nemenyi test needs at least 2 classifiers, got {k}")
    if not 0.0 < alpha < 1.0:
        raise DbayesError(f"alpha must lie in (0, 1), got {alpha}")
    return float(_st.studentized_range.ppf(1.0 - alpha, k, np.inf) / math.sqrt(2.0))


def critical_difference(k: int, n: int, alpha: float = 0.05, *, test: str = "nemenyi") -> float:
    """Critical difference of average ranks, ``q_alpha sqrt(k(k+1) / (6N))`` (Demsar 2006).

    ``test="nemenyi"`` uses :func:`nemenyi_critical_value`; ``test="bonferroni-dunn"`` uses the two-tailed
    normal quantile at ``alpha / (k - 1)`` (Table 5(b)), for comparisons with a control.
    """
    if test == "nemenyi":
        q = nemenyi_critical_value(k, alpha)
    elif test == "bonferroni-dunn":
        q = float(_st.norm.isf(alpha / (2.0 * (k - 1))))
    else:
        raise DbayesError(f"test must be 'nemenyi' or 'bonferroni-dunn', got {test!r}")
    return q * math.sqrt(k * (k + 1) / (6.0 * n))


@dataclass(frozen=True)
class NemenyiResult:
    """Nemenyi post-hoc test: the pairwise p-values (k x k, diagonal 1) and the critical difference."""

    p_values: pd.DataFrame
    rank_differences: pd.DataFrame
    average_ranks: pd.Series
    critical_difference: float
    q_alpha: float
    alpha: float
    n_datasets: int


def nemenyi_test(scores, *, alpha: float = 0.05, higher_is_better: bool = True, names=None) -> NemenyiResult:
    """Nemenyi's all-pairs test on the average ranks (Demsar 2006, sec. 3.2.2).

    The p-value of a pair is ``P(Q > |R_i - R_j| sqrt(2) / SE)``, Q studentized range with k groups and
    infinite degrees of freedom, ``SE = sqrt(k(k+1) / (6N))``; a pair differs at level alpha exactly when
    ``|R_i - R_j| >= CD``.
    """
    ranks = average_ranks(scores, higher_is_better=higher_is_better, names=names)
    n = _scores_frame(scores, names).shape[0]
    k = ranks.size
    se = math.sqrt(k * (k + 1) / (6.0 * n))
    r = ranks.to_numpy()
    diff = np.abs(r[:, None] - r[None, :])
    p = _st.studentized_range.sf(diff * math.sqrt(2.0) / se, k, np.inf)
    p = np.clip(np.where(diff == 0, 1.0, p), 0.0, 1.0)
    labels = ranks.index
    q = nemenyi_critical_value(k, alpha)
    return NemenyiResult(
        pd.DataFrame(p, index=labels, columns=labels),
        pd.DataFrame(diff, index=labels, columns=labels),
        ranks,
        q * se,
        q,
        alpha,
        n,
    )


def nemenyi_cliques(average_ranks: pd.Series, cd: float) -> list[list[str]]:
    """Maximal groups of classifiers whose average ranks all lie within less than ``cd`` of each other.

    These are the thick bars of the CD diagram (Demsar 2006, Fig. 1a). Classifiers are taken in order of
    rank; groups of one are left out; a group contained in another is left out.
    """
    order = average_ranks.sort_values(kind="mergesort")
    names, r = list(order.index), order.to_numpy()
    cliques: list[list[str]] = []
    last_end = -1
    for i in range(len(r)):
        j = i
        while j + 1 < len(r) and r[j + 1] - r[i] < cd:
            j += 1
        if j > i and j > last_end:
            cliques.append(names[i : j + 1])
            last_end = j
    return cliques


def pairwise_z_tests(average_ranks: pd.Series, n_datasets: int, *, alpha: float = 0.05) -> pd.DataFrame:
    """All k(k-1)/2 pairwise z-tests on average ranks, ordered as in seed 003 Tables 3-4.

    ``z = (R_i - R_j) / sqrt(k(k+1)/(6N))`` and the unadjusted two-tailed p-value; rows are sorted by p
    and numbered i = m .. 1 (m = k(k-1)/2). Nemenyi's procedure rejects the hypotheses with
    ``p <= alpha / m`` (column ``nemenyi_alpha``); Holm's step-down threshold ``alpha / i`` is shown too.
    """
    k = average_ranks.size
    se = math.sqrt(k * (k + 1) / (6.0 * n_datasets))
    names = list(average_ranks.index)
    rows = []
    for a in range(k):
        for b in range(a + 1, k):
            ra, rb = float(average_ranks.iloc[a]), float(average_ranks.iloc[b])
            z = abs(ra - rb) / se
            rows.append((f"{names[a]} vs. {names[b]}", names[a], names[b], ra - rb, z, float(2.0 * _st.norm.sf(z))))
    frame = pd.DataFrame(rows, columns=["algorithms", "first", "second", "rank_difference", "z", "p_value"])
    frame = frame.sort_values("p_value", kind="mergesort").reset_index(drop=True)
    m = len(frame)
    frame.insert(0, "i", np.arange(m, 0, -1))
    frame["nemenyi_alpha"] = alpha / m
    frame["nemenyi_reject"] = frame["p_value"] <= alpha / m
    frame["holm_alpha"] = alpha / frame["i"]
    return frame


def holm(p_values, *, alpha: float = 0.05) -> pd.DataFrame:
    """Holm's step-down procedure (Holm 1979; Demsar 2006, sec. 3.2.2).

    The m p-values are sorted, p_(1) <= ... <= p_(m); p_(i) is compared with ``alpha / (m - i + 1)``,
    starting at the smallest; at the first hypothesis not rejected, it and all later ones are retained.

    Parameters
    ----------
    p_values : Series or array_like

    Returns
    -------
    DataFrame
        In the input order, columns ``p_value``, ``step`` (1 = most significant), ``alpha_step`` (the
        threshold of that step), ``adjusted_p`` (``max_{j<=i} min(1, (m-j+1) p_(j))``) and ``rejected``.
    """
    p = p_values if isinstance(p_values, pd.Series) else pd.Series(np.asarray(p_values, dtype=float))
    m = p.size
    order = np.argsort(p.to_numpy(), kind="mergesort")
    sorted_p = p.to_numpy()[order]
    thresholds = alpha / (m - np.arange(m))
    passed = sorted_p <= thresholds
    n_rejected = m if passed.all() else int(np.argmin(passed))
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * sorted_p))
    step = np.empty(m, dtype=int)
    step[order] = np.arange(1, m + 1)
    out = pd.DataFrame({"p_value": p.to_numpy(), "step": step}, index=p.index)
    out["alpha_step"] = thresholds[step - 1]
    out["adjusted_p"] = adjusted[step - 1]
    out["rejected"] = step <= n_rejected
    return out


def holm_test(scores, control: str, *, alpha: float = 0.05, higher_is_better: bool = True, names=None) -> pd.DataFrame:
    """Compare every classifier with ``control`` by z-tests on average ranks, Holm-adjusted.

    ``z = (R_control - R_i) / sqrt(k(k+1)/(6N))``; two-tailed p-values; then :func:`holm`. Rows are in
    step order (most significant first), as in Demsar (2006)'s worked example.
    """
    frame = _scores_frame(scores, names)
    ranks = average_ranks(frame, higher_is_better=higher_is_better)
    if control not in ranks.index:
        raise DbayesError(f"control classifier {control!r} is not among {list(ranks.index)}")
    n, k = frame.shape
    se = math.sqrt(k * (k + 1) / (6.0 * n))
    others = ranks.drop(control)
    z = (ranks[control] - others) / se
    p = pd.Series(2.0 * _st.norm.sf(np.abs(z.to_numpy())), index=others.index)
    out = holm(p, alpha=alpha)
    out.insert(0, "z", z)
    out.insert(0, "average_rank", others)
    out.index.name = "classifier"
    return out.sort_values("step")
