"""Discretization of numeric attributes from class histograms: Fayyad-Irani MDL and equal frequency.

Every function here is pure and works on *value histograms*, so the engine can build the histograms as a
Dask reduction (:func:`value_histogram` per block, :func:`merge_histograms` to combine) and call the cut
point functions once on the merged result. A histogram of one numeric attribute is the pair

- ``values``: float64 ``(m,)``, the distinct finite values seen, strictly increasing;
- ``counts``: int64 ``(m, C)``, ``counts[i, c]`` = number of training rows with value ``values[i]`` and
  class ``c``. Rows with the attribute missing are not in the histogram.

The supervised method is Fayyad and Irani's recursive minimal-entropy partitioning with the MDL stopping
rule [1]_, reproduced exactly as Weka 3.6 implements it in
``weka.filters.supervised.attribute.Discretize`` with default options (MDL criterion of Fayyad & Irani,
not Kononenko's, not the "better encoding", not binarized). The points where Weka departs from, or makes
precise, the paper:

- a candidate cut lies between two adjacent *distinct* values, at their midpoint ``(v_i + v_{i+1}) / 2``;
- the best cut is the first candidate, left to right, whose class entropy (eq. 1 of [1]_) is strictly
  lower than the best so far, starting from the entropy of the whole subset; a cut with no gain is never
  taken;
- the MDL test (eq. 2-3 of [1]_, "Gain > log2(N - 1)/N + Delta/N") uses ``N`` = number of *instances* of
  the subset (so ``N - 1`` candidate positions even when values repeat) and ``k, k1, k2`` = numbers of
  classes *present* in the subset and in its two halves:
  ``Delta = log2(3**k - 2) - (k*Ent(S) - k1*Ent(S1) - k2*Ent(S2))``;
- a subset with fewer than two instances is not split; the left subset is split before the right one.

Exact ties between candidate cuts are common (few rows, many classes: e.g. spectrometer) and Weka breaks
them by whatever its floating-point sums give. To give the same cuts, the arithmetic follows Weka's order
of operations (``ContingencyTables.entropy`` and ``entropyConditionedOnRows``: ``n ln n`` terms added
class by class, row by row, divided by ``N ln 2`` at the end) and uses the same logarithm bits as Java's
``Math.log`` (correctly rounded, see :func:`_ln`). Each subset is first decided with ``np.log``; a decision
whose margins (best entropy to runner-up, to the subset's entropy, MDL gain to threshold) are within the
proven bound of the difference that ``np.log`` can make is redone with the correctly rounded logarithm.

Rows with a missing class must be removed before counting (Weka refuses missing class values here).

References
----------
.. [1] U. M. Fayyad and K. B. Irani, "Multi-interval discretization of continuous-valued attributes for
   classification learning", Proc. 13th IJCAI, pp. 1022-1027, 1993.
.. [2] I. H. Witten and E. Frank, *Data Mining: Practical Machine Learning Tools and Techniques*, Morgan
   Kaufmann (Weka 3.6, ``weka.filters.supervised.attribute.Discretize`` and
   ``weka.filters.unsupervised.attribute.Discretize -F``).
"""

from __future__ import annotations

import decimal
import functools
import math
from collections.abc import Callable, Iterable

import numpy as np

from dbayes.errors import DataError

__all__ = [
    "apply_cut_points",
    "bin_labels",
    "equal_frequency_cut_points",
    "mdl_cut_points",
    "merge_histograms",
    "value_histogram",
]


# ---------------------------------------------------------------------------------------------------
# Histograms
# ---------------------------------------------------------------------------------------------------


def value_histogram(x: np.ndarray, y: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Class histogram of one numeric attribute over one block of rows.

    Parameters
    ----------
    x : ndarray of float, shape (n,)
        Attribute values; NaN means missing and is left out of the histogram.
    y : ndarray of int, shape (n,)
        Class codes ``0 .. n_classes - 1`` (rows with a missing class must be removed beforehand).
    n_classes : int
        Number of classes ``C``.

    Returns
    -------
    values : ndarray of float64, shape (m,)
        Distinct non-missing values, strictly increasing.
    counts : ndarray of int64, shape (m, C)
        Number of rows per (value, class).

    Raises
    ------
    DataError
        If ``x`` holds an infinite value, ``x`` and ``y`` differ in length, or a class code is out of range.

    Examples
    --------
    >>> v, c = value_histogram(np.array([2.0, 1.0, np.nan, 2.0]), np.array([0, 1, 1, 1]), 2)
    >>> v.tolist(), c.tolist()
    ([1.0, 2.0], [[0, 1], [1, 1]])
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y)
    if x.ndim != 1 or y.shape != x.shape:
        raise DataError(f"value_histogram: x and y must be 1-D of the same length, got {x.shape} and {y.shape}")
    if n_classes < 1:
        raise DataError(f"value_histogram: n_classes must be at least 1, got {n_classes}")
    present = ~np.isnan(x)
    if np.isinf(x[present]).any():
        raise DataError("value_histogram: numeric attribute holds an infinite value")
    x, y = x[present], y[present].astype(np.int64, copy=False)
    if y.size and (y.min() < 0 or y.max() >= n_classes):
        raise DataError(f"value_histogram: class codes must lie in 0..{n_classes - 1}")
    values, inverse = np.unique(x, return_inverse=True)
    counts = np.zeros((values.size, n_classes), dtype=np.int64)
    np.add.at(counts, (inverse, y), 1)
    return values, counts


def merge_histograms(
    histograms: Iterable[tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray]:
    """Exact sum of value histograms (blocks of the same attribute, same classes).

    Parameters
    ----------
    histograms : iterable of (values, counts)
        Histograms as returned by :func:`value_histogram`; all ``counts`` have the same number of columns.

    Returns
    -------
    values, counts
        The histogram of the union of the blocks.

    Examples
    --------
    >>> a = (np.array([1.0, 3.0]), np.array([[1, 0], [0, 2]]))
    >>> b = (np.array([3.0, 4.0]), np.array([[1, 1], [0, 1]]))
    >>> v, c = merge_histograms([a, b])
    >>> v.tolist(), c.tolist()
    ([1.0, 3.0, 4.0], [[1, 0], [1, 3], [0, 1]])
    """
    histograms = list(histograms)
    if not histograms:
        raise DataError("merge_histograms: no histogram to merge")
    widths = {np.shape(c)[1] if np.ndim(c) == 2 else -1 for _, c in histograms}
    if len(widths) != 1 or -1 in widths:
        raise DataError(f"merge_histograms: counts must be 2-D with one common number of classes, got {widths}")
    n_classes = widths.pop()
    all_values = np.concatenate([np.asarray(v, dtype=np.float64) for v, _ in histograms])
    all_counts = np.concatenate([np.asarray(c, dtype=np.int64) for _, c in histograms], axis=0)
    values, inverse = np.unique(all_values, return_inverse=True)
    counts = np.zeros((values.size, n_classes), dtype=np.int64)
    np.add.at(counts, inverse, all_counts)
    return values, counts


def _check_histogram(values: np.ndarray, counts: np.ndarray, who: str) -> tuple[np.ndarray, np.ndarray]:
    values = np.asarray(values, dtype=np.float64)
    counts = np.asarray(counts)
    if values.ndim != 1 or counts.ndim != 2 or counts.shape[0] != values.size:
        raise DataError(f"{who}: need values (m,) and counts (m, C), got {values.shape} and {counts.shape}")
    if not np.isfinite(values).all() or (np.diff(values) <= 0).any():
        raise DataError(f"{who}: values must be finite and strictly increasing")
    if counts.dtype.kind not in "iu" or (counts.size and counts.min() < 0):
        raise DataError(f"{who}: counts must be non-negative integers")
    counts = counts.astype(np.int64, copy=False)
    seen = counts.sum(axis=1) > 0  # a value no row has is not a value Weka sees: it bounds no cut
    if not seen.all():
        values, counts = values[seen], counts[seen]
    return values, counts


# ---------------------------------------------------------------------------------------------------
# Weka's arithmetic (weka.core.ContingencyTables, weka.core.Utils)
# ---------------------------------------------------------------------------------------------------

_LN2 = 0.6931471805599453  # Weka's ContingencyTables.log2 / Utils.log2 constant: Math.log(2)


_DECIMAL = decimal.Context(prec=40)
# Extended precision is used to round np.log's result correctly; it must carry at least 64 mantissa bits
# (x86-64 Linux: 80-bit extended; aarch64 Linux: binary128). Elsewhere every value goes through Decimal.
_LONGDOUBLE_OK = np.finfo(np.longdouble).nmant >= 63
# Bound on the absolute error of r = x e^{-y} - 1 as an estimate of ln x - y: two roundings of about
# 2**-63 relative (expl, the product); the analysis gives 2**-61.4, the worst measured is 2**-62.95.
_REFINE_TOLERANCE = 2.0**-59


@functools.lru_cache(maxsize=65536)
def _ln_decimal(x: float) -> float:
    return float(_DECIMAL.ln(decimal.Decimal(x)))


def _ln(x: np.ndarray) -> np.ndarray:
    """Correctly rounded natural logarithm of positive float64 values.

    Weka computes every entropy from ``Math.log``; HotSpot's x86-64 ``Math.log`` returned the correctly
    rounded logarithm for every integer from 1 to 3,000,000 (checked bit for bit when this module was
    written), whereas ``np.log`` and the C library are off by one unit in the last place for a few of
    them (first at 19143). Entropies that tie exactly compare as in Weka only if the logarithms are the
    same bits, so ``y = np.log(x)`` is corrected in extended precision by ``r = x e^{-y} - 1 ~ ln x - y``,
    and the rare values (about 0.2 %) whose corrected value lies too close to a rounding boundary to decide
    are computed with ``decimal`` (40 significant digits).
    """
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return x.copy()
    u, inverse = np.unique(x, return_inverse=True)
    y = np.log(u)
    if _LONGDOUBLE_OK:
        yl = y.astype(np.longdouble)
        r = u.astype(np.longdouble) * np.exp(-yl) - 1  # ln x - y, to about 2**-62
        z = (yl + r).astype(np.float64)
        # ln x - z ~ (y - z) + r, exact but for r's error; z is ln x correctly rounded when that lies
        # inside (-half an ulp below z, half an ulp above z) by more than the error bound.
        off = (yl - z.astype(np.longdouble)) + r
        half_up = (np.nextafter(z, np.inf).astype(np.longdouble) - z) / 2
        half_down = (z - np.nextafter(z, -np.inf).astype(np.longdouble)) / 2
        unsure = (off > half_up - _REFINE_TOLERANCE) | (off < _REFINE_TOLERANCE - half_down)
    else:
        z, unsure = y, np.ones(u.shape, dtype=bool)
    for i in np.flatnonzero(unsure):
        z[i] = _ln_decimal(float(u[i]))
    return z[inverse].reshape(x.shape)


_Ln = Callable[[np.ndarray], np.ndarray]
# The fast logarithm tried first by mdl_cut_points (tests substitute a perturbed one).
_FAST_LN: _Ln = np.log


def _x_ln_x(n: np.ndarray, ln: _Ln = _ln) -> np.ndarray:
    """Weka's ``ContingencyTables.lnFunc``: ``n * ln(n)`` for ``n > 0``, else 0."""
    n = np.asarray(n, dtype=np.float64)
    out = np.zeros_like(n)
    pos = n > 0
    out[pos] = n[pos] * ln(n[pos])
    return out


# Up to this many instances, n ln n is tabulated once for n = 0..N (8 bytes per entry) and looked up.
_TABLE_MAX = 1 << 21


def _x_ln_x_for(n_total: int, ln: _Ln) -> Callable[[np.ndarray], np.ndarray]:
    """``_x_ln_x`` for integer counts ``0 <= n <= n_total``: a lookup table when that is small enough."""
    if n_total > _TABLE_MAX:
        return lambda n: _x_ln_x(n, ln)
    table = _x_ln_x(np.arange(n_total + 1, dtype=np.float64), ln)
    return lambda n: table[np.asarray(n).astype(np.int64)]


def _entropy(counts: np.ndarray, x_ln_x: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Weka's ``ContingencyTables.entropy`` (bits) of each row of ``counts`` (..., C), same float order.

    ``H = (-sum_j n_j ln n_j + N ln N) / (N ln 2)``, terms subtracted class by class; 0 when ``N = 0``.
    ``np.cumsum`` adds strictly left to right, like Weka's loop (a sum over the last axis could pair).
    """
    counts = np.asarray(counts)
    total = counts.sum(axis=-1)  # integers: exact in any order
    terms = x_ln_x(np.concatenate([counts, total[..., None]], axis=-1))
    acc = np.cumsum(-terms[..., :-1], axis=-1)[..., -1]
    with np.errstate(invalid="ignore", divide="ignore"):
        h = (acc + terms[..., -1]) / (total * _LN2)
    return np.where(total == 0, 0.0, h)  # Utils.eq(total, 0); totals are integers here


def _entropy_conditioned_on_rows(
    left: np.ndarray, right: np.ndarray, x_ln_x: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """Weka's ``ContingencyTables.entropyConditionedOnRows`` of the 2 x C tables ``[left; right]``.

    Class entropy after a binary split, eq. (1) of Fayyad & Irani, in bits:
    ``E = -(sum_ij n_ij ln n_ij - sum_i n_i ln n_i) / (N ln 2)``, accumulated left to right over
    ``n_00 ln n_00, ..., -n_0 ln n_0, n_10 ln n_10, ..., -n_1 ln n_1`` as Weka's loop does (``np.cumsum``
    is strictly sequential). ``left``/``right`` are (K, C) for K candidate cuts at once.
    """
    left = np.asarray(left)
    right = np.asarray(right)
    left_sum, right_sum = left.sum(axis=1), right.sum(axis=1)  # integers: exact
    terms = x_ln_x(np.concatenate([left, left_sum[:, None], right, right_sum[:, None]], axis=1))
    n_classes = left.shape[1]
    terms[:, n_classes] *= -1  # subtracting a term is adding its negation, bit for bit
    terms[:, -1] *= -1
    acc = np.cumsum(terms, axis=1)[:, -1]
    total = left_sum + right_sum
    with np.errstate(invalid="ignore", divide="ignore"):
        e = -acc / (total * _LN2)
    return np.where(total == 0, 0.0, e)


def _log2(x: float, ln: _Ln) -> float:
    """Weka's ``Utils.log2``: ``Math.log(x) / Math.log(2)``."""
    return float(ln(np.array([x]))[0]) / _LN2


def _fayyad_irani_test(
    prior: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    x_ln_x: Callable[[np.ndarray], np.ndarray],
    ln: _Ln,
) -> tuple[float, float]:
    """Both sides of the MDL test of Fayyad & Irani (1993), eq. (2)-(3), as Weka's ``FayyadAndIranisMDL``.

    The cut is accepted iff ``gain > threshold``: ``Gain(A, T; S) > (log2(N - 1) + Delta(A, T; S)) / N``,
    with ``Delta = log2(3**k - 2) - (k Ent(S) - k2 Ent(S2) - k1 Ent(S1))``; ``N`` counts instances and
    ``k, k1, k2`` the classes present in ``S, S1, S2``.
    """
    n = float(prior.sum())
    prior_entropy = float(_entropy(prior, x_ln_x))
    entropy = float(_entropy_conditioned_on_rows(left[None, :], right[None, :], x_ln_x)[0])
    gain = prior_entropy - entropy
    k = int((prior > 0).sum())
    k_left = int((left > 0).sum())
    k_right = int((right > 0).sum())
    entropy_left = float(_entropy(left, x_ln_x))
    entropy_right = float(_entropy(right, x_ln_x))
    delta = _log2(3.0**k - 2.0, ln) - (k * prior_entropy - k_right * entropy_right - k_left * entropy_left)
    return gain, (_log2(n - 1.0, ln) + delta) / n


def _split(
    prior: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    x_ln_x: Callable[[np.ndarray], np.ndarray],
    ln: _Ln,
) -> tuple[int | None, float]:
    """Weka's decision for one subset: the index of the accepted cut (or None), and its fragility.

    The fragility is the smallest of the margins the decision rests on: best entropy to runner-up (whose
    order picks the cut), best entropy to the subset's entropy (gain > 0), and, scaled down by the MDL
    test's sensitivity ``3k + 4`` to entropy errors, the MDL gain to its threshold.
    """
    candidate_entropy = _entropy_conditioned_on_rows(left, right, x_ln_x)
    prior_entropy = float(_entropy(prior, x_ln_x))
    t = int(np.argmin(candidate_entropy))  # the first minimum: Weka replaces the best on a strict '<' only
    best_entropy = float(candidate_entropy[t])
    margin = abs(prior_entropy - best_entropy)
    if candidate_entropy.size > 1:
        margin = min(margin, float(np.partition(candidate_entropy, 1)[1]) - best_entropy)
    if not (best_entropy < prior_entropy and prior_entropy - best_entropy > 0):  # Weka: gain <= 0
        return None, margin
    gain, threshold = _fayyad_irani_test(prior, left[t], right[t], x_ln_x, ln)
    margin = min(margin, abs(gain - threshold) / (3 * prior.size + 4))
    return (t if gain > threshold else None), margin


# ---------------------------------------------------------------------------------------------------
# Cut points
# ---------------------------------------------------------------------------------------------------


def mdl_cut_points(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Fayyad-Irani MDL cut points of one numeric attribute, exactly as Weka 3.6 computes them.

    Recursive minimal-entropy partitioning (Fayyad & Irani 1993, eq. 1) with the MDL stopping rule
    (eq. 2-3), evaluated on the value histogram; see the module docstring for Weka's conventions.
    All candidate cuts of a subset are evaluated in one vectorised pass over cumulative class counts.

    Parameters
    ----------
    values : ndarray of float64, shape (m,)
        Distinct finite values, strictly increasing.
    counts : ndarray of int, shape (m, C)
        Training rows per (value, class).

    Returns
    -------
    ndarray of float64
        Cut points, increasing; empty when the attribute is not split (one bin, Weka's ``'All'``).

    Examples
    --------
    >>> v = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    >>> c = np.array([[5, 0], [5, 0], [5, 0], [0, 5], [0, 5], [0, 5]])
    >>> mdl_cut_points(v, c).tolist()
    [3.5]
    """
    values, counts = _check_histogram(values, counts, "mdl_cut_points")
    n_total, n_classes = int(counts.sum()), counts.shape[1]
    # Each subset is decided with np.log first, and again with Java's correctly rounded logarithm
    # (_ln, slower) when a margin the decision rests on is within reach of the difference between the
    # two. For any entropy here that difference is at most (4C + 7) log2(N) 2**-52: the 2C + 2 terms
    # n ln n have magnitudes adding up to at most 2 N ln N; each term is off by at most 3 (np.log: one
    # ulp, then the product) plus 2 (correctly rounded) rounding units, each recursive sum by 2C + 1 more
    # per method; the sum is then divided by N ln 2. The margin kept is 2**8 times that.
    fast = _x_ln_x_for(n_total, _FAST_LN)
    exact = None
    reach = 2.0**8 * (4 * n_classes + 7) * math.log2(max(n_total, 2)) * 2.0**-52
    cuts: list[float] = []
    # Subsets are half-open ranges [a, b) of distinct values. The order in which they are processed does
    # not change the result: every cut of a left subset is below the subset's cut, every right one above.
    stack = [(0, values.size)]
    while stack:
        a, b = stack.pop()
        sub = counts[a:b]
        prior = sub.sum(axis=0)
        n = int(prior.sum())
        if n < 2 or b - a < 2:  # Weka: fewer than two instances; one distinct value: no candidate cut
            continue
        if np.count_nonzero(prior) < 2:  # one class: every entropy is exactly 0, no gain anywhere
            continue
        cum = np.cumsum(sub[:-1], axis=0)  # left class counts of the cut after value a + t
        left, right = cum, prior[None, :] - cum
        t, margin = _split(prior, left, right, fast, _FAST_LN)
        if not margin > reach:
            if exact is None:
                exact = _x_ln_x_for(n_total, _ln)
            t, _ = _split(prior, left, right, exact, _ln)
        if t is None:
            continue
        cuts.append((values[a + t] + values[a + t + 1]) / 2.0)
        stack.append((a + t + 1, b))
        stack.append((a, a + t + 1))
    return np.sort(np.asarray(cuts, dtype=np.float64))


def equal_frequency_cut_points(values: np.ndarray, counts_total: np.ndarray, n_bins: int) -> np.ndarray:
    """Equal-frequency cut points, as Weka 3.6's ``unsupervised.attribute.Discretize -F -B n_bins``.

    Weka's rule (``calculateCutPointsByEqualFrequencyBinning``): walk the distinct values in increasing
    order accumulating the count ``c`` of the current bin; the target size starts at
    ``f = N / n_bins``. At each boundary where ``c >= f``, cut at this boundary, unless the previous
    boundary (count ``c_prev``, not yet cut) was closer to the target (``f - c_prev < c - f``), in which
    case cut there instead and carry the remainder ``c - c_prev`` into the next bin. After each cut the
    target is re-spread over the bins left: ``f = (remaining + c) / (n_bins - cuts so far)``. At the end, if
    fewer than ``n_bins - 1`` cuts were made, one more is placed at the last boundary passed since the last
    cut. Cuts lie at midpoints of adjacent distinct values, so tied values are never separated and there
    may be fewer than ``n_bins`` bins.

    Parameters
    ----------
    values : ndarray of float64, shape (m,)
        Distinct finite values, strictly increasing.
    counts_total : ndarray of int, shape (m,)
        Rows per value (all classes), e.g. ``counts.sum(axis=1)`` of a class histogram.
    n_bins : int
        Number of bins wanted (at least 1).

    Returns
    -------
    ndarray of float64
        Cut points, increasing; at most ``n_bins - 1``.

    Examples
    --------
    >>> equal_frequency_cut_points(np.arange(1.0, 9.0), np.ones(8, dtype=np.int64), 4).tolist()
    [2.5, 4.5, 6.5]
    """
    if n_bins < 1:
        raise DataError(f"equal_frequency_cut_points: n_bins must be at least 1, got {n_bins}")
    counts_total = np.asarray(counts_total)
    values, _ = _check_histogram(values, counts_total.reshape(-1, 1), "equal_frequency_cut_points")
    w = counts_total.astype(np.float64).tolist()
    v = values.tolist()
    n_cuts_max = n_bins - 1
    remaining = math.fsum(w)  # exact: integer counts
    freq = remaining / n_bins
    cuts: list[float] = []
    counter = last = 0.0
    last_index = -1
    # Weka loops over sorted instances; per distinct value its counter grows by the value's weight and the
    # boundary test fires once, after the value's last instance. Instance weights are all 1 here, so adding
    # the whole count at once gives the same floats (sums of integers).
    for i in range(len(v) - 1):
        counter += w[i]
        remaining -= w[i]
        if counter >= freq:
            if freq - last < counter - freq and last_index != -1:
                cuts.append((v[last_index] + v[last_index + 1]) / 2.0)
                counter -= last
                last = counter
                last_index = i
            else:
                cuts.append((v[i] + v[i + 1]) / 2.0)
                counter = last = 0.0
                last_index = -1
            freq = (remaining + counter) / ((n_cuts_max + 1) - len(cuts))
        else:
            last_index = i
            last = counter
    if len(cuts) < n_cuts_max and last_index != -1:
        cuts.append((v[last_index] + v[last_index + 1]) / 2.0)
    return np.asarray(cuts[:n_cuts_max], dtype=np.float64)


# ---------------------------------------------------------------------------------------------------
# Applying cut points
# ---------------------------------------------------------------------------------------------------


def apply_cut_points(x: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """Bin codes of numeric values, Weka's convention; missing (NaN) gets the code ``len(cuts) + 1``.

    Bin ``j`` holds the values with ``cuts[j-1] < v <= cuts[j]`` (Weka's ``convertInstance``: the first
    ``j`` with ``v <= cuts[j]``), i.e. the code is the number of cuts strictly below ``v``. With
    ``V = len(cuts) + 1`` bins, missing is coded ``V`` (the dbayes convention "missing = V_i").

    Parameters
    ----------
    x : ndarray of float, shape (n,)
        Values, NaN for missing.
    cuts : ndarray of float64
        Increasing cut points.

    Returns
    -------
    ndarray of int64, shape (n,)

    Examples
    --------
    >>> apply_cut_points(np.array([1.0, 2.5, 3.0, np.nan]), np.array([2.5])).tolist()
    [0, 0, 1, 2]
    """
    x = np.asarray(x, dtype=np.float64)
    cuts = np.asarray(cuts, dtype=np.float64)
    if cuts.ndim != 1 or (np.diff(cuts) <= 0).any():
        raise DataError("apply_cut_points: cuts must be a 1-D increasing array")
    codes = np.searchsorted(cuts, x, side="left").astype(np.int64)
    codes[np.isnan(x)] = cuts.size + 1
    return codes


def _weka_double_to_string(value: float, digits: int) -> str:
    """Weka's ``Utils.doubleToString(value, digits)``: round half away from zero, drop trailing zeros."""
    scaled = value * 10.0**digits
    if not abs(scaled) < 9.223372036854776e18:
        return repr(value)
    q = int(scaled + 0.5) if scaled > 0 else -int(abs(scaled) + 0.5)
    sign = "-" if q < 0 else ""
    s = str(abs(q)).rjust(digits + 1, "0")
    whole, frac = s[:-digits] if digits else s, s[-digits:] if digits else ""
    frac = frac.rstrip("0")
    return f"{sign}{whole}.{frac}" if frac else f"{sign}{whole}"


def bin_labels(cuts: np.ndarray, precision: int = 6) -> list[str]:
    """Weka's names of the bins of a discretized attribute, e.g. ``'(-inf-30.5]'``.

    Weka 3.6 names the bins ``'(-inf-c0]'``, ``'(c0-c1]'``, ..., ``'(c_last-inf)'`` with the cut points
    printed by ``Utils.doubleToString(c, 6)``, quotes included in the value, and ``'All'`` when there is no
    cut.

    Examples
    --------
    >>> bin_labels(np.array([30.5, 45.5]))
    ["'(-inf-30.5]'", "'(30.5-45.5]'", "'(45.5-inf)'"]
    >>> bin_labels(np.array([]))
    ["'All'"]
    """
    cuts = np.asarray(cuts, dtype=np.float64)
    if cuts.size == 0:
        return ["'All'"]
    s = [_weka_double_to_string(float(c), precision) for c in cuts]
    labels = [f"'(-inf-{s[0]}]'"]
    labels += [f"'({lo}-{hi}]'" for lo, hi in zip(s[:-1], s[1:], strict=True)]
    labels.append(f"'({s[-1]}-inf)'")
    return labels
