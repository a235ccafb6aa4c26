"""Entropies: Shannon entropy as J48 computes it, and the upper entropy H* of the imprecise Dirichlet model.

Everything here works on *weights* (fractional instance counts) in bits, and is vectorised over the leading
axes: ``counts`` has shape ``(..., C)``.

J48 (Weka's C4.5, ``EntropyBasedSplitCrit``) writes the entropy of a weight vector ``n`` with total ``N`` as
``(L(N) - sum_c L(n_c)) / N`` with ``L(x) = x log2 x`` and ``L(x) = 0`` for ``x < 1e-6``; :func:`xlog2x`
reproduces ``L`` so that C4.5's gains agree with Weka's to rounding.

The upper entropy follows Abellan (2006), "Uncertainty measures on probability intervals from the imprecise
Dirichlet model", Int. J. General Systems 35(5): for the IDM credal set

    K(C) = { p : n_c / (N + s) <= p_c <= (n_c + s) / (N + s) }      (seed 003, sec. 2)

the maximum-entropy distribution is obtained by sharing the extra mass ``s`` among the classes of smallest
count, raising them to a common level ("water filling").  For integer counts and ``s <= 1`` this is Abellan's
simple rule (share ``s`` equally among the classes of minimal count); for fractional counts (instances split
by missing values) or ``s > 1`` the level may have to rise past the next count, which the general water
filling does.  Both give the exact maximiser of the (strictly concave, symmetric) entropy over K(C).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "J48_LOG_FLOOR",
    "xlog2x",
    "entropy",
    "entropy_sorted",
    "max_entropy_distribution",
    "upper_entropy",
    "imprecise_value_distribution",
]

#: J48's ``logFunc`` treats any weight below this as zero (``EntropyBasedSplitCrit``).
J48_LOG_FLOOR = 1e-6


def xlog2x(x):
    """``x * log2(x)``, and 0 for ``x < 1e-6`` (J48's ``EntropyBasedSplitCrit.logFunc``)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.log2(x, out=np.zeros(x.shape), where=x >= J48_LOG_FLOOR)  # 0 below the floor: 0 * x = 0
    out *= x
    return out


def entropy(counts):
    """Shannon entropy in bits of the weight vectors ``counts`` (last axis), J48's formula.

    ``H(n) = (L(N) - sum_c L(n_c)) / N``; an empty vector (``N = 0``) has entropy 0.
    """
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum(axis=-1)
    num = xlog2x(total) - xlog2x(counts).sum(axis=-1)
    return np.divide(num, total, out=np.zeros_like(num), where=total > 0)


def entropy_sorted(counts):
    """:func:`entropy` computed on the counts sorted along the last axis.

    Two vectors that are permutations of each other then get bit-identical entropies, so that "the values of
    maximal conditional entropy" (the set B of seed 003, sec. 3) is decided by exact equality, without a
    tolerance.
    """
    return entropy(np.sort(np.asarray(counts, dtype=np.float64), axis=-1))


def _water_level(counts, s):
    """The level ``L`` with ``sum_c max(0, L - n_c) = s`` (``counts`` sorted ascending on the last axis)."""
    C = counts.shape[-1]
    k = np.arange(1, C + 1, dtype=np.float64)
    levels = (s + np.cumsum(counts, axis=-1)) / k  # level if the k smallest classes share s
    nxt = np.concatenate([counts[..., 1:], np.full(counts.shape[:-1] + (1,), np.inf)], axis=-1)
    ok = levels <= nxt  # the water does not reach the (k+1)-th count
    first = np.argmax(ok, axis=-1)  # ok[..., C-1] is always True
    return np.take_along_axis(levels, first[..., None], axis=-1)[..., 0]


def water_level(counts, s):
    """:func:`_water_level` of unsorted ``counts``, without sorting where it can.

    Usually the water stays among the smallest counts: when the ``k`` classes of the minimum count ``n``
    (integer weights) share ``s`` and ``(s + k n) / k`` does not reach the next larger count, that is the level
    (the value the sorted computation gives, bit for bit: its running sum of ``k`` equal integers is ``k n``).
    Only the other rows are sorted.
    """
    counts = np.asarray(counts, dtype=np.float64)
    shape, C = counts.shape[:-1], counts.shape[-1]
    if C == 0:
        return np.zeros(shape)
    rows = counts.reshape(-1, C)
    n = rows.min(axis=-1)
    at_min = rows == n[:, None]
    k = at_min.sum(axis=-1).astype(np.float64)
    nxt = np.where(at_min, np.inf, rows).min(axis=-1)
    level = (s + n * k) / k
    fast = (level <= nxt) & (n < 2.0**40) & (np.floor(rows) == rows).all(axis=-1)
    if not fast.all():
        slow = ~fast
        level[slow] = _water_level(np.sort(rows[slow], axis=-1), s)
    return level.reshape(shape)


def max_entropy_distribution(counts, s):
    """The maximum-entropy distribution of the IDM credal set K(C) (Abellan 2006), shape like ``counts``.

    ``p_c = max(n_c, L) / (N + s)`` where the level ``L`` shares the extra mass ``s`` among the smallest
    counts.  With ``s = 0`` this is the relative frequency ``n / N``.  An all-zero ``counts`` with ``s > 0``
    gives the uniform distribution; with ``s = 0`` it gives zeros.
    """
    counts = np.asarray(counts, dtype=np.float64)
    if s < 0:
        raise ValueError(f"the IDM parameter s must be >= 0, got {s}")
    total = counts.sum(axis=-1) + s
    if s == 0:
        filled = counts
    else:
        level = water_level(counts, s)
        filled = np.maximum(counts, level[..., None])
    return np.divide(filled, total[..., None], out=np.zeros_like(filled), where=total[..., None] > 0)


def upper_entropy(counts, s):
    """Upper entropy ``H*(K(C)) = max { H(p) : p in K(C) }`` in bits (seed 003, sec. 2; Abellan 2006).

    Computed in J48's form ``(L(N + s) - sum_c L(m_c)) / (N + s)`` on the water-filled weights ``m_c``, so
    that with ``s = 0`` it is exactly :func:`entropy`.
    """
    counts = np.asarray(counts, dtype=np.float64)
    if s < 0:
        raise ValueError(f"the IDM parameter s must be >= 0, got {s}")
    if s == 0:
        return entropy(counts)
    level = water_level(counts, s)
    filled = np.maximum(counts, level[..., None])
    total = counts.sum(axis=-1) + s
    return (xlog2x(total) - xlog2x(filled).sum(axis=-1)) / total


def imprecise_value_distribution(value_counts, class_counts_per_value, s):
    """The distribution P_D on the values of an attribute (seed 003, sec. 3), last axis = values.

    Among the distributions of the IDM credal set K_D(X) it is the one maximising
    ``sum_i P(X = x_i) H(C | X = x_i)``: the mass ``s`` goes in equal shares to the set
    ``B = { x_j : H(C | X = x_j) = max_i H(C | X = x_i) }`` of values of maximal conditional entropy,

        P_D(x_i) = (n_{x_i} + s/m) / (N + s)   if x_i in B,
        P_D(x_i) = n_{x_i} / (N + s)           if x_i not in B,       m = |B|.

    The transcription of the seed lost the "not in" of the second case (it reads "if x_i B if x_i B"); the
    cases above are restored from Mantas & Abellan (2014), Expert Systems with Applications 41, where P_D is
    defined the same way.  The seed writes plain ``H`` (not ``H*``) in the definition of B, and we follow
    it: B is decided on the precise conditional entropies.  Values with no instance have ``H = 0``.

    Parameters
    ----------
    value_counts : array (..., V)
        ``n_{x_i}``, the weight of each value.
    class_counts_per_value : array (..., V, C)
        class weights of each value.
    s : float
        IDM parameter.
    """
    value_counts = np.asarray(value_counts, dtype=np.float64)
    if value_counts.shape[-1] == 0:
        return value_counts.copy()
    h = entropy_sorted(class_counts_per_value)
    in_b = h == h.max(axis=-1, keepdims=True)
    m = in_b.sum(axis=-1, keepdims=True)
    total = value_counts.sum(axis=-1, keepdims=True) + s
    share = np.where(in_b, s / m, 0.0)
    return np.divide(value_counts + share, total, out=np.zeros_like(value_counts), where=total > 0)
