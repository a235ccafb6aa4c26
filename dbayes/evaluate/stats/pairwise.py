"""Comparisons of two classifiers: counts of wins, the sign test, Wilcoxon and t-tests.

Every function takes plain arrays (one value per data set, or one per fold) and returns a frozen dataclass.
The distributions come from SciPy; the statistics are computed here, so that the tests can check them
against SciPy's own implementations.

References
----------
.. [1] J. Demsar, "Statistical comparisons of classifiers over multiple data sets", JMLR 7 (2006), 1-30,
   sec. 3.1 (sign test, Wilcoxon signed-ranks test).
.. [2] C. Nadeau and Y. Bengio, "Inference for the generalization error", Machine Learning 52 (2003),
   239-281, sec. 4 (corrected resampled t-test).
.. [3] Seed 000 (Wang, Webb, Zheng), Table 4: WIN/LOSS/DRAW "measured to two decimal places" with a binomial
   sign test; seed 004 (Zhang et al.): two-tailed paired t-test at 0.05 over 10x10 CV folds.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

from dbayes.errors import DbayesError

__all__ = [
    "WinLossDraw",
    "SignTestResult",
    "WilcoxonResult",
    "TTestResult",
    "win_loss_draw",
    "sign_test",
    "wilcoxon_signed_rank",
    "paired_t_test",
    "corrected_resampled_t_test",
]

_ALTERNATIVES = ("two-sided", "greater", "less")


def _check_alternative(alternative: str) -> None:
    if alternative not in _ALTERNATIVES:
        raise DbayesError(f"alternative must be one of {_ALTERNATIVES}, got {alternative!r}")


def _paired(a, b) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise DbayesError(f"paired samples must have the same length, got {a.size} and {b.size}")
    if np.isnan(a).any() or np.isnan(b).any():
        raise DbayesError("paired samples contain NaN; drop the incomplete pairs first")
    return a, b


@dataclass(frozen=True)
class WinLossDraw:
    """Counts of data sets where ``a`` beats, loses to and ties with ``b``."""

    wins: int
    losses: int
    draws: int


def win_loss_draw(a, b, *, precision: int | None = None, lower_is_better: bool = True) -> WinLossDraw:
    """Count wins, losses and draws of ``a`` against ``b``, one pair per data set.

    Parameters
    ----------
    a, b : array_like
        One score per data set for each classifier (same order).
    precision : int or None
        Number of decimals the scores are rounded to before comparing (seed 000 compares errors in
        percent "to two decimal places": ``precision=2`` on percentages). ``None`` compares exactly.
    lower_is_better : bool
        True for errors (``a`` wins where it is lower), False for accuracies.

    Returns
    -------
    WinLossDraw
    """
    a, b = _paired(a, b)
    if precision is not None:
        a, b = np.round(a, precision), np.round(b, precision)
    better = a < b if lower_is_better else a > b
    worse = a > b if lower_is_better else a < b
    wins, losses = int(better.sum()), int(worse.sum())
    return WinLossDraw(wins, losses, a.size - wins - losses)


@dataclass(frozen=True)
class SignTestResult:
    """Binomial sign test on win/loss counts; ``n`` is the number of non-draws used."""

    wins: int
    losses: int
    draws: int
    n: int
    p_value: float
    alternative: str


def sign_test(
    wins: int, losses: int, draws: int = 0, *, alternative: str = "two-sided", draws_mode: str = "ignore"
) -> SignTestResult:
    """Binomial sign test of wins against losses, under H0 that both are equiprobable.

    Parameters
    ----------
    wins, losses, draws : int
        Counts, e.g. from :func:`win_loss_draw`.
    alternative : {"two-sided", "greater", "less"}
        "greater": P(W >= wins), the probability of the observed number of wins or more (seed 000 Table 4's
        one-tailed p when the nominated algorithm wins more); "less": P(W <= wins); "two-sided":
        ``min(1, 2 min(P(W >= wins), P(W <= wins)))``. W ~ Binomial(n, 1/2).
    draws_mode : {"ignore", "split"}
        "ignore" (seed 000, Webb's convention): draws are dropped, n = wins + losses. "split" (Demsar 2006,
        sec. 3.1.2): draws are shared evenly between wins and losses; one is dropped when their number is
        odd.

    Returns
    -------
    SignTestResult
        With ``n = 0`` (all draws) the p-value is 1.

    Examples
    --------
    >>> round(sign_test(12, 3, alternative="greater").p_value, 4)  # P(W >= 12), W ~ Bin(15, 1/2)
    0.0176
    """
    _check_alternative(alternative)
    if min(wins, losses, draws) < 0:
        raise DbayesError("win, loss and draw counts must be non-negative")
    n_wins, n_losses = int(wins), int(losses)
    if draws_mode == "split":
        n_wins += draws // 2
        n_losses += draws // 2
    elif draws_mode != "ignore":
        raise DbayesError(f"draws_mode must be 'ignore' or 'split', got {draws_mode!r}")
    n = n_wins + n_losses
    if n == 0:
        p = 1.0
    else:
        p_ge = float(_st.binom.sf(n_wins - 1, n, 0.5))
        p_le = float(_st.binom.cdf(n_wins, n, 0.5))
        p = {"greater": p_ge, "less": p_le, "two-sided": min(1.0, 2.0 * min(p_ge, p_le))}[alternative]
    return SignTestResult(int(wins), int(losses), int(draws), n, p, alternative)


@dataclass(frozen=True)
class WilcoxonResult:
    """Wilcoxon signed-ranks test; ``statistic`` is min(R+, R-) (Demsar's T), ``z`` is NaN when exact."""

    r_plus: float
    r_minus: float
    statistic: float
    n: int
    z: float
    p_value: float
    method: str
    alternative: str


def _signed_rank_null_counts(n: int) -> np.ndarray:
    """Number of the 2**n sign patterns of ranks 1..n giving each rank sum R+ = 0 .. n(n+1)/2."""
    counts = np.zeros(n * (n + 1) // 2 + 1, dtype=np.float64)
    counts[0] = 1.0
    for rank in range(1, n + 1):
        counts[rank:] = counts[rank:] + counts[:-rank].copy()
    return counts


def wilcoxon_signed_rank(
    a, b, *, alternative: str = "two-sided", zero_method: str = "wilcox", method: str = "auto", correction: bool = False
) -> WilcoxonResult:
    """Wilcoxon signed-ranks test of the differences ``a - b`` (Demsar 2006, sec. 3.1.3).

    Parameters
    ----------
    a, b : array_like
        Paired scores, one pair per data set.
    alternative : {"two-sided", "greater", "less"}
        "greater": the differences ``a - b`` tend to be positive.
    zero_method : {"wilcox", "zsplit"}
        "wilcox" drops zero differences; "zsplit" ranks them and adds half of their rank sum to each of
        R+ and R- (Demsar's recommendation).
    method : {"auto", "exact", "permutation", "asymptotic"}
        "exact": the null distribution of R+ over the 2**n sign patterns of ranks 1..n (valid only without
        ties or zeros); "permutation": every sign pattern of the actual ranks enumerated (n <= 20);
        "asymptotic": normal approximation with the tie-corrected variance
        ``n(n+1)(2n+1)/24 - sum(t^3 - t)/48``. "auto" chooses exact without ties and zeros for n <= 50,
        permutation with ties or zeros for n <= 13, else asymptotic (as SciPy does).
    correction : bool
        Continuity correction of 0.5 in the asymptotic z.

    Returns
    -------
    WilcoxonResult
        With no non-zero difference left the p-value is 1 and the statistic 0.
    """
    _check_alternative(alternative)
    a, b = _paired(a, b)
    d = a - b
    if zero_method == "wilcox":
        d = d[d != 0]
    elif zero_method != "zsplit":
        raise DbayesError(f"zero_method must be 'wilcox' or 'zsplit', got {zero_method!r}")
    n = d.size
    if n == 0 or not np.any(d != 0):
        return WilcoxonResult(0.0, 0.0, 0.0, n, math.nan, 1.0, "none", alternative)
    ranks = _st.rankdata(np.abs(d))
    zero_half = ranks[d == 0].sum() / 2.0
    r_plus = float(ranks[d > 0].sum() + zero_half)
    r_minus = float(ranks[d < 0].sum() + zero_half)
    _, tie_sizes = np.unique(np.abs(d), return_counts=True)
    has_ties = bool(np.any(tie_sizes > 1)) or bool(np.any(d == 0))
    if method == "auto":
        method = "exact" if not has_ties and n <= 50 else "permutation" if n <= 13 else "asymptotic"
    z = math.nan
    if method == "exact":
        if has_ties:
            raise DbayesError("the exact Wilcoxon distribution needs no ties and no zero differences")
        counts = _signed_rank_null_counts(n)
        cdf = np.cumsum(counts) / counts.sum()
        k = int(round(r_plus))
        p_le = float(cdf[k])
        p_ge = float(1.0 - cdf[k - 1]) if k > 0 else 1.0
    elif method == "permutation":
        if n > 20:
            raise DbayesError("the permutation Wilcoxon test enumerates 2**n patterns; use n <= 20")
        signs = np.array(list(itertools.product((0.0, 1.0), repeat=n)))
        nonzero = d != 0
        sums = signs[:, nonzero] @ ranks[nonzero] + zero_half
        # A relative tolerance keeps sums that equal r_plus up to rounding on the right side.
        tol = 1e-12 * max(1.0, r_plus)
        p_ge = float(np.mean(sums >= r_plus - tol))
        p_le = float(np.mean(sums <= r_plus + tol))
    elif method == "asymptotic":
        mean = n * (n + 1) / 4.0
        var = n * (n + 1) * (2 * n + 1) / 24.0 - np.sum(tie_sizes**3 - tie_sizes) / 48.0
        z = (r_plus - mean) / math.sqrt(var)
        if correction:
            shift = {"greater": 1.0, "less": -1.0}.get(alternative, math.copysign(1.0, z) if z else 0.0)
            z -= shift * 0.5 / math.sqrt(var)
        p_ge = float(_st.norm.sf(z))
        p_le = float(_st.norm.cdf(z))
    else:
        raise DbayesError(f"unknown Wilcoxon method {method!r}")
    p = {"greater": p_ge, "less": p_le, "two-sided": min(1.0, 2.0 * min(p_ge, p_le))}[alternative]
    statistic = min(r_plus, r_minus) if alternative == "two-sided" else r_plus
    return WilcoxonResult(r_plus, r_minus, statistic, n, z, p, method, alternative)


@dataclass(frozen=True)
class TTestResult:
    """A paired t-test: ``mean_difference`` of ``a - b``, its ``statistic`` t with ``df`` degrees of freedom.

    ``variance_factor`` is what multiplies the sample variance of the differences: ``1/J`` for the plain
    test, ``1/J + n_test/n_train`` for Nadeau and Bengio's corrected test (J differences).
    """

    mean_difference: float
    statistic: float
    df: int
    p_value: float
    variance_factor: float
    alternative: str
    corrected: bool


def _t_test(d: np.ndarray, factor: float, alternative: str, corrected: bool) -> TTestResult:
    j = d.size
    if j < 2:
        raise DbayesError(f"a paired t-test needs at least 2 paired values, got {j}")
    mean = float(d.mean())
    var = float(d.var(ddof=1))
    df = j - 1
    if var == 0.0:
        # Decided boundary: identical differences. No difference at all is no evidence (t = 0, p = 1); a
        # constant non-zero difference is taken as certain (t = +-inf, p = 0 in its direction).
        if mean == 0.0:
            t, p_ge, p_le = 0.0, 1.0, 1.0
        else:
            t = math.copysign(math.inf, mean)
            p_ge, p_le = (0.0, 1.0) if mean > 0 else (1.0, 0.0)
    else:
        t = mean / math.sqrt(var * factor)
        p_ge, p_le = float(_st.t.sf(t, df)), float(_st.t.cdf(t, df))
    p = {"greater": p_ge, "less": p_le, "two-sided": min(1.0, 2.0 * min(p_ge, p_le))}[alternative]
    return TTestResult(mean, t, df, p, factor, alternative, corrected)


def paired_t_test(a, b, *, alternative: str = "two-sided") -> TTestResult:
    """Student's paired t-test on ``a - b`` (seed 004: two-tailed at 0.05 over the 10x10 CV folds).

    t = mean(d) / sqrt(s^2 / J) with J - 1 degrees of freedom, s^2 the sample variance (ddof 1). Over
    overlapping training sets this test is too liberal; see :func:`corrected_resampled_t_test`.
    """
    _check_alternative(alternative)
    a, b = _paired(a, b)
    return _t_test(a - b, 1.0 / a.size, alternative, corrected=False)


def corrected_resampled_t_test(a, b, *, n_train, n_test, alternative: str = "two-sided") -> TTestResult:
    """Nadeau and Bengio's corrected resampled t-test for r x k cross-validation (ref. [2], eq. of sec. 4).

    With J = r k paired fold scores and differences d_j,
    ``t = mean(d) / sqrt((1/J + n_test/n_train) s^2)`` on J - 1 degrees of freedom. This is the test of
    Weka's ``PairedCorrectedTTester``.

    Parameters
    ----------
    a, b : array_like
        Paired fold scores (same repeat and fold at the same position).
    n_train, n_test : int or array_like
        Training and test set sizes; with one value per fold the ratio of the means is used.
    """
    _check_alternative(alternative)
    a, b = _paired(a, b)
    n_train = float(np.mean(n_train))
    n_test = float(np.mean(n_test))
    if n_train <= 0 or n_test <= 0:
        raise DbayesError("n_train and n_test must be positive")
    return _t_test(a - b, 1.0 / a.size + n_test / n_train, alternative, corrected=True)
