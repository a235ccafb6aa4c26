"""Tests of dbayes.evaluate.stats: against SciPy, exact binomial sums, direct formulas written here, and
Demsar (2006)'s worked example (Table 6: AUC of four C4.5 variants on 14 data sets)."""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from dbayes.errors import DataError, DbayesError
from dbayes.evaluate import stats

# --------------------------------------------------------------------------------------------- fixtures

# Demsar (2006), Table 6: AUC, rows = data sets, columns C4.5, C4.5+m, C4.5+cf, C4.5+m+cf, as printed
# (three decimals). On "voting" the paper ranks C4.5+cf (0.975) 2nd and C4.5+m+cf (0.975) 3rd, a tie
# broken by digits the table does not print; DEMSAR_VOTING_TIE_BROKEN restores that order.
DEMSAR_NAMES = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DEMSAR_DATASETS = [
    "adult (sample)",
    "breast cancer",
    "breast cancer wisconsin",
    "cmc",
    "ionosphere",
    "iris",
    "liver disorders",
    "lung cancer",
    "lymphography",
    "mushroom",
    "primary tumor",
    "rheum",
    "voting",
    "wine",
]
DEMSAR_AUC = np.array(
    [
        [0.763, 0.768, 0.771, 0.798],
        [0.599, 0.591, 0.590, 0.569],
        [0.954, 0.971, 0.968, 0.967],
        [0.628, 0.661, 0.654, 0.657],
        [0.882, 0.888, 0.886, 0.898],
        [0.936, 0.931, 0.916, 0.931],
        [0.661, 0.668, 0.609, 0.685],
        [0.583, 0.583, 0.563, 0.625],
        [0.775, 0.838, 0.866, 0.875],
        [1.000, 1.000, 1.000, 1.000],
        [0.940, 0.962, 0.965, 0.962],
        [0.619, 0.666, 0.614, 0.669],
        [0.972, 0.981, 0.975, 0.975],
        [0.957, 0.978, 0.946, 0.970],
    ]
)
# The ranks printed in parentheses in Table 6.
DEMSAR_RANKS = np.array(
    [
        [4, 3, 2, 1],
        [1, 2, 3, 4],
        [4, 1, 2, 3],
        [4, 1, 3, 2],
        [4, 2, 3, 1],
        [1, 2.5, 4, 2.5],
        [3, 2, 4, 1],
        [2.5, 2.5, 4, 1],
        [4, 3, 2, 1],
        [2.5, 2.5, 2.5, 2.5],
        [4, 2.5, 1, 2.5],
        [3, 2, 4, 1],
        [4, 1, 2, 3],
        [3, 1, 4, 2],
    ]
)


@pytest.fixture
def demsar():
    auc = pd.DataFrame(DEMSAR_AUC.copy(), index=DEMSAR_DATASETS, columns=DEMSAR_NAMES)
    auc.loc["voting", "C4.5+cf"] = 0.9751  # the paper's order on voting (see above)
    return auc


def _exact_binomial_tail(k_from: int, k_to: int, n: int) -> float:
    return sum(math.comb(n, i) for i in range(k_from, k_to + 1)) / 2**n


# ------------------------------------------------------------------------------------ win/loss/sign test


def test_win_loss_draw_counts_at_precision():
    a = [10.004, 12.0, 15.5, 9.0, 3.333]
    b = [10.001, 12.5, 15.0, 9.0, 3.334]
    assert stats.win_loss_draw(a, b, precision=2) == stats.WinLossDraw(1, 1, 3)
    assert stats.win_loss_draw(a, b) == stats.WinLossDraw(2, 2, 1)
    assert stats.win_loss_draw(a, b, lower_is_better=False) == stats.WinLossDraw(2, 2, 1)
    assert stats.win_loss_draw([1, 2], [2, 1], lower_is_better=False).wins == 1


@pytest.mark.parametrize(
    "wins, losses", [(0, 0), (1, 0), (0, 1), (5, 5), (12, 3), (3, 12), (20, 9), (17, 13), (0, 30), (100, 70)]
)
def test_sign_test_equals_exact_binomial_sums_and_scipy(wins, losses):
    n = wins + losses
    greater = stats.sign_test(wins, losses, 4, alternative="greater")
    less = stats.sign_test(wins, losses, 4, alternative="less")
    two = stats.sign_test(wins, losses, 4, alternative="two-sided")
    if n == 0:
        assert greater.p_value == less.p_value == two.p_value == 1.0
        return
    p_ge = _exact_binomial_tail(wins, n, n)
    p_le = _exact_binomial_tail(0, wins, n)
    assert greater.p_value == pytest.approx(p_ge, rel=1e-12)
    assert less.p_value == pytest.approx(p_le, rel=1e-12)
    assert two.p_value == pytest.approx(min(1.0, 2 * min(p_ge, p_le)), rel=1e-12)
    assert greater.p_value == pytest.approx(st.binomtest(wins, n, 0.5, alternative="greater").pvalue)
    assert less.p_value == pytest.approx(st.binomtest(wins, n, 0.5, alternative="less").pvalue)
    assert two.p_value == pytest.approx(st.binomtest(wins, n, 0.5).pvalue)
    assert greater.n == n and greater.draws == 4


def test_sign_test_draws_split_evenly_as_demsar():
    # Demsar 3.1.2: ties split evenly, one ignored when odd: 10 wins, 4 losses, 5 draws -> 12 vs 6.
    result = stats.sign_test(10, 4, 5, alternative="greater", draws_mode="split")
    assert result.n == 18
    assert result.p_value == pytest.approx(_exact_binomial_tail(12, 18, 18))
    with pytest.raises(DbayesError):
        stats.sign_test(1, 2, alternative="one-sided")
    with pytest.raises(DbayesError):
        stats.sign_test(-1, 2)


# ---------------------------------------------------------------------------------------------- Wilcoxon


def _brute_force_signed_rank(d):
    """Rank |d| by hand (average ranks for ties) and sum the ranks of positive differences."""
    d = [x for x in d if x != 0]
    order = sorted(range(len(d)), key=lambda i: abs(d[i]))
    ranks = [0.0] * len(d)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and abs(d[order[j + 1]]) == abs(d[order[i]]):
            j += 1
        for m in range(i, j + 1):
            ranks[order[m]] = (i + j) / 2 + 1
        i = j + 1
    r_plus = sum(r for r, x in zip(ranks, d, strict=True) if x > 0)
    r_minus = sum(r for r, x in zip(ranks, d, strict=True) if x < 0)
    return r_plus, r_minus, ranks, d


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_wilcoxon_exact_matches_scipy_and_enumeration(seed, alternative):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=11)
    b = a + rng.normal(0.4, 1.0, size=11)
    ours = stats.wilcoxon_signed_rank(a, b, alternative=alternative)
    ref = st.wilcoxon(a, b, alternative=alternative, method="exact")
    assert ours.method == "exact"
    assert ours.statistic == pytest.approx(ref.statistic)
    assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    r_plus, r_minus, ranks, _ = _brute_force_signed_rank(list(a - b))
    assert (ours.r_plus, ours.r_minus) == pytest.approx((r_plus, r_minus))
    # Enumerating all 2**11 sign patterns gives the same one-sided tail.
    sums = [sum(r for r, s in zip(ranks, signs, strict=True) if s) for signs in product((0, 1), repeat=len(ranks))]
    p_ge = np.mean([s >= r_plus for s in sums])
    if alternative == "greater":
        assert ours.p_value == pytest.approx(p_ge)


@pytest.mark.parametrize("zero_method", ["wilcox", "zsplit"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_wilcoxon_asymptotic_with_ties_matches_scipy(zero_method, alternative):
    rng = np.random.default_rng(7)
    a = np.round(rng.uniform(0.6, 0.9, size=30), 2)
    b = np.round(a + rng.normal(0.01, 0.03, size=30), 2)
    assert np.any(a == b)  # zero differences present
    for correction in (False, True):
        ours = stats.wilcoxon_signed_rank(
            a, b, alternative=alternative, zero_method=zero_method, method="asymptotic", correction=correction
        )
        ref = st.wilcoxon(
            a, b, alternative=alternative, zero_method=zero_method, method="asymptotic", correction=correction
        )
        assert ours.statistic == pytest.approx(ref.statistic)
        assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-9)


def test_wilcoxon_auto_with_ties_small_n_is_the_permutation_test_of_scipy():
    a = np.array([0.80, 0.75, 0.90, 0.66, 0.70, 0.81, 0.93, 0.55, 0.60])
    b = np.array([0.78, 0.77, 0.86, 0.66, 0.68, 0.79, 0.90, 0.57, 0.52])
    for alternative in ("two-sided", "greater", "less"):
        ours = stats.wilcoxon_signed_rank(a, b, alternative=alternative)
        ref = st.wilcoxon(a, b, alternative=alternative)  # scipy's auto: permutation for n <= 13 with ties
        assert ours.method == "permutation"
        assert ours.statistic == pytest.approx(ref.statistic)
        assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-9)


def test_wilcoxon_boundaries():
    same = stats.wilcoxon_signed_rank([1, 2, 3], [1, 2, 3])
    assert same.p_value == 1.0 and same.statistic == 0.0
    with pytest.raises(DbayesError):
        stats.wilcoxon_signed_rank([1, 2], [1, 2, 3])
    with pytest.raises(DbayesError):
        stats.wilcoxon_signed_rank([1, 2, 2], [0, 1, 1], method="exact")  # ties: not exact


# --------------------------------------------------------------------------------------------- t-tests


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_paired_t_test_matches_scipy(alternative):
    rng = np.random.default_rng(3)
    a = rng.uniform(0.7, 0.9, size=100)
    b = a - rng.normal(0.01, 0.03, size=100)
    ours = stats.paired_t_test(a, b, alternative=alternative)
    ref = st.ttest_rel(a, b, alternative=alternative)
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    assert ours.df == 99 and not ours.corrected


def test_corrected_resampled_t_test_direct_formula():
    rng = np.random.default_rng(11)
    r, k, n_train, n_test = 10, 10, 900, 100
    a = rng.uniform(0.7, 0.9, size=r * k)
    b = a - rng.normal(0.01, 0.03, size=r * k)
    ours = stats.corrected_resampled_t_test(a, b, n_train=n_train, n_test=n_test)
    d = a - b
    mean = sum(d) / len(d)
    var = sum((x - mean) ** 2 for x in d) / (len(d) - 1)
    t = mean / math.sqrt(var * (1 / (k * r) + n_test / n_train))
    p = 2 * st.t.sf(abs(t), r * k - 1)
    assert ours.statistic == pytest.approx(t, rel=1e-12)
    assert ours.p_value == pytest.approx(p, rel=1e-10)
    assert ours.variance_factor == pytest.approx(1 / 100 + 100 / 900)
    # The correction only widens the variance: |t| shrinks, p grows.
    plain = stats.paired_t_test(a, b)
    assert abs(ours.statistic) < abs(plain.statistic) and ours.p_value > plain.p_value
    one = stats.corrected_resampled_t_test(a, b, n_train=n_train, n_test=n_test, alternative="greater")
    assert one.p_value == pytest.approx(st.t.sf(t, r * k - 1))
    # Per-fold sizes: the ratio of the means.
    per_fold = stats.corrected_resampled_t_test(a, b, n_train=[899, 901] * 50, n_test=[101, 99] * 50)
    assert per_fold.statistic == pytest.approx(t)


def test_t_test_boundaries():
    assert stats.paired_t_test([0.8, 0.9], [0.8, 0.9]).p_value == 1.0
    const = stats.paired_t_test([0.5, 0.5, 0.5], [0.25, 0.25, 0.25])
    assert const.statistic == math.inf and const.p_value == 0.0
    assert stats.paired_t_test([0.5, 0.5, 0.5], [0.25, 0.25, 0.25], alternative="less").p_value == 1.0
    with pytest.raises(DbayesError):
        stats.paired_t_test([0.5], [0.4])
    with pytest.raises(DbayesError):
        stats.corrected_resampled_t_test([0.5, 0.6], [0.4, 0.3], n_train=0, n_test=10)
    with pytest.raises(DbayesError):
        stats.paired_t_test([0.5, np.nan], [0.4, 0.3])


# ------------------------------------------------------------------------------- Demsar's worked example


def test_demsar_ranks_friedman_and_iman_davenport(demsar):
    ranks = stats.rank_scores(demsar)
    np.testing.assert_array_equal(ranks.to_numpy(), DEMSAR_RANKS)
    result = stats.friedman_test(demsar)
    np.testing.assert_allclose(result.average_ranks.to_numpy(), [3.143, 2.000, 2.893, 1.964], atol=5e-4)
    assert list(result.average_ranks.index) == DEMSAR_NAMES
    assert round(result.statistic, 2) == 9.28
    assert round(result.iman_davenport, 2) == 3.69
    assert (result.n_datasets, result.n_classifiers) == (14, 4)
    # "The critical value of F(3, 39) for alpha = 0.05 is 2.85, so we reject the null-hypothesis."
    assert st.f.isf(0.05, 3, 39) == pytest.approx(2.85, abs=5e-3)
    assert result.ff_p_value < 0.05
    assert result.ff_p_value == pytest.approx(st.f.sf(result.iman_davenport, 3, 39))
    assert result.p_value == pytest.approx(st.chi2.sf(result.statistic, 3))


def test_demsar_ranks_with_the_printed_voting_tie(demsar):
    # The table as printed ties C4.5+cf and C4.5+m+cf on voting: ranks move by 0.5 / 14.
    printed = pd.DataFrame(DEMSAR_AUC, columns=DEMSAR_NAMES)
    ranks = stats.average_ranks(printed)
    np.testing.assert_allclose(ranks.to_numpy(), [44 / 14, 28 / 14, 41 / 14, 27 / 14])


def test_demsar_nemenyi_critical_difference(demsar):
    assert stats.nemenyi_critical_value(4, 0.05) == pytest.approx(2.569, abs=5e-4)
    assert stats.nemenyi_critical_value(4, 0.10) == pytest.approx(2.291, abs=5e-4)
    # The common bug: the studentized range quantile itself (3.633), not divided by sqrt(2).
    assert stats.nemenyi_critical_value(4, 0.05) == pytest.approx(
        st.studentized_range.ppf(0.95, 4, np.inf) / math.sqrt(2)
    )
    assert round(stats.critical_difference(4, 14, 0.05), 2) == 1.25
    assert round(stats.critical_difference(4, 14, 0.10), 2) == 1.12
    # Bonferroni-Dunn: q_0.05 = 2.394 for 4 classifiers; the paper truncates 1.168 to 1.16.
    assert stats.critical_difference(4, 14, 0.05, test="bonferroni-dunn") == pytest.approx(
        2.394 * math.sqrt(20 / 84), abs=1e-3
    )
    result = stats.nemenyi_test(demsar, alpha=0.05)
    assert round(result.critical_difference, 2) == 1.25
    # "even the difference between the best and the worst performing algorithm is already smaller"
    assert (result.p_values.to_numpy() > 0.05).all()
    # At p = 0.10: C4.5 worse than C4.5+m and C4.5+m+cf; C4.5+cf undecided (Fig. 1a: two groups).
    cd10 = stats.critical_difference(4, 14, 0.10)
    assert stats.nemenyi_cliques(result.average_ranks, cd10) == [
        ["C4.5+m+cf", "C4.5+m", "C4.5+cf"],
        ["C4.5+cf", "C4.5"],
    ]
    p = stats.nemenyi_test(demsar, alpha=0.10).p_values
    assert p.loc["C4.5", "C4.5+m"] < 0.10 and p.loc["C4.5", "C4.5+m+cf"] < 0.10
    assert p.loc["C4.5", "C4.5+cf"] > 0.10
    assert stats.nemenyi_cliques(result.average_ranks, result.critical_difference) == [
        ["C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"]
    ]


def test_demsar_holm_against_c45(demsar):
    table = stats.holm_test(demsar, "C4.5", alpha=0.05)
    assert list(table.index) == ["C4.5+m+cf", "C4.5+m", "C4.5+cf"]
    np.testing.assert_allclose(table["z"], [2.416, 2.342, 0.512], atol=2e-3)
    # The paper prints 0.607 for z = 0.512, whose two-tailed normal p is 0.6086: atol 2e-3.
    np.testing.assert_allclose(table["p_value"], [0.016, 0.019, 0.607], atol=2e-3)
    np.testing.assert_allclose(table["alpha_step"], [0.05 / 3, 0.025, 0.05])
    assert list(table["rejected"]) == [True, True, False]


# ------------------------------------------------------------------------- ranks, Friedman, Nemenyi, Holm


def _brute_force_nemenyi_p(r_i, r_j, k, n):
    return st.studentized_range.sf(abs(r_i - r_j) / math.sqrt(k * (k + 1) / (6 * n)) * math.sqrt(2), k, np.inf)


@pytest.mark.parametrize("seed", range(3))
def test_friedman_matches_scipy_with_tie_correction(seed):
    rng = np.random.default_rng(seed)
    scores = np.round(rng.uniform(0.6, 0.9, size=(12, 5)), 1)  # coarse values: many ties
    ours = stats.friedman_test(scores, tie_correction=True)
    ref = st.friedmanchisquare(*scores.T)
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    # Without ties both formulas agree.
    smooth = rng.uniform(size=(9, 4))
    assert stats.friedman_test(smooth).statistic == pytest.approx(st.friedmanchisquare(*smooth.T).statistic)


def test_ranks_direction_and_ties():
    errors = pd.DataFrame({"a": [0.1, 0.2], "b": [0.2, 0.2], "c": [0.3, 0.1]})
    ranks = stats.rank_scores(errors, higher_is_better=False)
    np.testing.assert_array_equal(ranks.to_numpy(), [[1, 2, 3], [2.5, 2.5, 1]])
    np.testing.assert_array_equal(stats.rank_scores(errors).to_numpy(), [[3, 2, 1], [1.5, 1.5, 3]])


def test_friedman_boundaries():
    tied = stats.friedman_test(np.ones((5, 3)))
    assert tied.statistic == 0.0 and tied.p_value == 1.0 and tied.iman_davenport == 0.0
    perfect = stats.friedman_test(np.tile([3.0, 2.0, 1.0], (6, 1)))
    assert perfect.statistic == pytest.approx(6 * 2)  # chi2_F = N(k-1)
    assert perfect.iman_davenport == math.inf and perfect.ff_p_value == 0.0
    with pytest.raises(DbayesError):
        stats.friedman_test(np.array([[1.0, np.nan], [2.0, 3.0]]))
    with pytest.raises(DbayesError):
        stats.friedman_test(np.ones((4, 1)))


def test_nemenyi_p_values_against_direct_formula():
    rng = np.random.default_rng(5)
    scores = pd.DataFrame(rng.uniform(size=(20, 5)), columns=list("abcde"))
    result = stats.nemenyi_test(scores, alpha=0.05)
    ranks = stats.average_ranks(scores)
    for i, j in product("abcde", repeat=2):
        expected = 1.0 if i == j else _brute_force_nemenyi_p(ranks[i], ranks[j], 5, 20)
        assert result.p_values.loc[i, j] == pytest.approx(expected, rel=1e-9, abs=1e-12)
    # p < alpha exactly when the rank difference exceeds the CD.
    significant = result.p_values.to_numpy() < 0.05
    beyond_cd = result.rank_differences.to_numpy() > result.critical_difference
    np.testing.assert_array_equal(significant, beyond_cd)


def test_pairwise_z_tests_order_and_thresholds():
    ranks = pd.Series({"a": 1.2, "b": 2.0, "c": 2.9, "d": 3.9})
    table = stats.pairwise_z_tests(ranks, 30, alpha=0.05)
    assert list(table["i"]) == [6, 5, 4, 3, 2, 1]
    assert table["p_value"].is_monotonic_increasing
    se = math.sqrt(4 * 5 / (6 * 30))
    first = table.iloc[0]
    assert first["algorithms"] == "a vs. d"
    assert first["z"] == pytest.approx(2.7 / se)
    assert first["p_value"] == pytest.approx(2 * st.norm.sf(2.7 / se))
    assert (table["nemenyi_alpha"] == 0.05 / 6).all()
    np.testing.assert_allclose(table["holm_alpha"], 0.05 / table["i"])


def test_holm_step_down_against_direct_loop():
    rng = np.random.default_rng(9)
    for _ in range(20):
        p = rng.uniform(0, 0.06, size=6)
        out = stats.holm(p, alpha=0.05)
        order = np.argsort(p)
        rejected = np.zeros(6, dtype=bool)
        for step, idx in enumerate(order):
            if p[idx] <= 0.05 / (6 - step):
                rejected[idx] = True
            else:
                break
        np.testing.assert_array_equal(out["rejected"].to_numpy(), rejected)
        # Adjusted p-values reject the same hypotheses.
        np.testing.assert_array_equal(out["adjusted_p"].to_numpy() <= 0.05, rejected)
    with pytest.raises(DbayesError):
        stats.holm_test(pd.DataFrame(np.eye(3), columns=list("abc")), "z")


# ----------------------------------------------------------------------------------- metrics-frame tables


def _metrics(
    seed=0,
    datasets=("d1", "d2", "d3", "d4", "d5"),
    classifiers=("nb", "tan", "aode"),
    noises=(0.0, 0.2),
    repeats=2,
    folds=3,
):
    rng = np.random.default_rng(seed)
    rows = []
    for d_i, dataset in enumerate(datasets):
        for noise in noises:
            for c_i, name in enumerate(classifiers):
                for repeat in range(repeats):
                    for fold in range(folds):
                        acc = float(np.clip(0.7 + 0.03 * c_i - 0.2 * noise + 0.01 * d_i + rng.normal(0, 0.02), 0, 1))
                        rows.append(
                            dict(
                                dataset=dataset,
                                classifier=name,
                                noise=noise,
                                repeat=repeat,
                                fold=fold,
                                n_test=40 + fold,
                                n_train=80,
                                accuracy=acc,
                                error=1 - acc,
                                log_loss=0.4,
                                train_seconds=0.1 * (c_i + 1),
                                test_seconds=0.01,
                            )
                        )
    return pd.DataFrame(rows)


def test_dataset_scores_are_means_over_folds_and_repeats():
    metrics = _metrics()
    table = stats.dataset_scores(metrics, "accuracy", where={"noise": 0.2})
    assert list(table.columns) == ["nb", "tan", "aode"]
    rows = metrics[(metrics.dataset == "d3") & (metrics.classifier == "tan") & (metrics.noise == 0.2)]
    assert table.loc["d3", "tan"] == pytest.approx(sum(rows.accuracy) / 6)
    with pytest.raises(DataError, match="noise"):
        stats.dataset_scores(metrics)
    with pytest.raises(DataError, match="lacks"):
        stats.dataset_scores(metrics.drop(columns="accuracy"))


def test_wld_table_counts_and_sign_test():
    metrics = _metrics()
    table = stats.wld_table(metrics, "aode", precision=2, where={"noise": 0.0})
    errors = stats.dataset_scores(metrics, "error", where={"noise": 0.0}) * 100
    for other in ("nb", "tan"):
        wins = sum(round(x, 2) < round(y, 2) for x, y in zip(errors["aode"], errors[other], strict=True))
        losses = sum(round(x, 2) > round(y, 2) for x, y in zip(errors["aode"], errors[other], strict=True))
        assert (table.loc[other, "win"], table.loc[other, "loss"]) == (wins, losses)
        assert table.loc[other, "draw"] == 5 - wins - losses
        n = wins + losses
        expected = _exact_binomial_tail(max(wins, losses), n, n)
        assert table.loc[other, "p"] == pytest.approx(expected)


def test_error_accuracy_and_rank_tables():
    metrics = _metrics()
    err = stats.error_table(metrics, where={"noise": 0.0})
    assert err.loc["Mean", ("nb", "error")] == pytest.approx(err[("nb", "error")].drop("Mean").mean())
    # time = mean (train + test) seconds per fold x 3 folds
    assert err.loc["d1", ("tan", "time")] == pytest.approx(3 * 0.21)
    acc = stats.accuracy_table(metrics)
    per_dataset = stats.dataset_scores(metrics, "accuracy", where={"noise": 0.2}) * 100
    assert acc.loc["aode", (0.2, "mean")] == pytest.approx(per_dataset["aode"].mean())
    assert acc.loc["aode", (0.2, "sd")] == pytest.approx(per_dataset["aode"].std(ddof=1))
    ranks = stats.friedman_rank_table(metrics)
    expected = stats.friedman_test(stats.dataset_scores(metrics, where={"noise": 0.0}))
    assert ranks.loc["chi2_F", 0.0] == pytest.approx(expected.statistic)
    assert ranks.loc["aode", 0.0] == pytest.approx(expected.average_ranks["aode"])


def test_ttest_tables_pair_folds():
    metrics = _metrics()
    detail = stats.ttest_by_dataset(metrics, "aode", test="paired", where={"noise": 0.0})
    rows = metrics[(metrics.noise == 0.0) & (metrics.dataset == "d2")]
    a = rows[rows.classifier == "aode"].sort_values(["repeat", "fold"]).accuracy.to_numpy()
    b = rows[rows.classifier == "nb"].sort_values(["repeat", "fold"]).accuracy.to_numpy()
    got = detail[(detail.dataset == "d2") & (detail.classifier == "nb")].iloc[0]
    assert got["p_value"] == pytest.approx(st.ttest_rel(a, b).pvalue)
    corrected = stats.ttest_by_dataset(metrics, "aode", test="corrected", where={"noise": 0.0})
    got = corrected[(corrected.dataset == "d2") & (corrected.classifier == "nb")].iloc[0]
    ref = stats.corrected_resampled_t_test(a, b, n_train=80, n_test=41)
    assert got["p_value"] == pytest.approx(ref.p_value)
    counts = stats.ttest_wtl_table(metrics, "aode", where={"noise": 0.0})
    assert list(counts.index) == ["nb", "tan"] and list(counts.columns) == ["win", "tie", "loss"]
    assert (counts.sum(axis=1) == 5).all()
    assert counts.loc["nb", "win"] == (corrected[corrected.classifier == "nb"].outcome == "win").sum()


def test_vary_table_and_console_summary():
    metrics = _metrics()
    table = stats.vary_table(metrics, "noise")
    assert list(table.index) == [0.0, 0.2]
    assert table.loc[0.2, "nb"] == pytest.approx(stats.dataset_scores(metrics, where={"noise": 0.2})["nb"].mean())
    text = stats.format_summary(metrics)
    lines = text.splitlines()
    assert lines[0].split() == ["dataset", "noise", "nb", "tan", "aode"]
    assert len(lines) == 2 + 5 * 2 + 1
    assert len({len(line) for line in lines[:-1]}) == 1  # fixed width
    cell = (metrics.dataset == "d1") & (metrics.noise == 0.0) & (metrics.classifier == "nb")
    nb = metrics[cell].error * 100
    assert f"{nb.mean():.2f} +- {nb.std():.2f}" in lines[2]
