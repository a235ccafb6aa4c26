"""Split criteria and the evaluation of the attributes at the open nodes, as Weka's J48 does it.

:func:`evaluate_nominal` and :func:`evaluate_numeric` evaluate one attribute at one node and read like
J48's ``C45Split``; :func:`evaluate_level` does the same for every attribute and open node of a level in a
few vectorised passes (it is what the grower uses; the tests check it against the per-node functions).

C4.5 (Quinlan 1993; Weka ``C45Split``, ``InfoGainSplitCrit``, ``GainRatioSplitCrit``):

- info gain on the instances with a known value, times the known fraction ``1 - u``
  (``InfoGainSplitCrit.splitCritValue``); a weighted gain within ``1e-6`` of 0 counts as 0;
- gain ratio = gain / split info, the split info counting the unknown instances as one more branch
  (``GainRatioSplitCrit.splitEnt``);
- nominal attributes: one branch per declared value; valid when at least two branches have
  ``min_leaf`` weight (``Distribution.check``);
- numeric attributes: binary split ``x <= t``; candidate cuts between adjacent distinct values more than
  ``1e-5`` apart, each side at least ``minSplit = clip(0.1 * known / C, min_leaf, 25)``; at least
  ``2 * minSplit`` instances with a known value; the best cut by info gain (J48 keeps the first candidate
  that beats the best so far by more than ``1e-6``), then the MDL correction ``gain -= log2(#cuts) / N``
  (``N`` the node's weight) and the split is dropped if that is ``<= 0``;
- the threshold is the largest training value ``<=`` the midpoint of the cut (``C45Split.setSplitPoint``).

Credal-C4.5 (seed 003, sec. 3) replaces the info gain by the imprecise info gain

    IIG_D(C, X) = H*(K_D(C)) - sum_i P_D(X = x_i) H*(K_D(C | X = x_i))

with everything else (known fraction, MDL correction, split info denominator of IIGR, minimum sizes) as
in C4.5, so that ``s = 0`` is C4.5.  How the paper's implementation treated the known fraction and the MDL
correction is not said in the seed ("numeric attributes and missing values as in C4.5, using here the IIG
criterion"); applying C4.5's treatment unchanged is our reading.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dbayes.models.trees.impurity import (
    imprecise_value_distribution,
    upper_entropy,
    xlog2x,
)
from dbayes.models.trees.tree import J48_SMALL

__all__ = [
    "Criterion",
    "SplitCandidate",
    "evaluate_nominal",
    "evaluate_numeric",
    "evaluate_level",
    "evaluate_levels",
    "LevelEvaluation",
    "set_split_point",
    "split_info",
    "MIN_GAP",
]

#: J48 only cuts between adjacent sorted values when ``v_next > v + 1e-5`` (``C45Split``).
MIN_GAP = 1e-5
#: J48 caps the minimum split size of a numeric attribute at 25 instances (``C45Split``).
MAX_MIN_SPLIT = 25.0


def _sum_last(x: np.ndarray) -> np.ndarray:
    """``x.sum(axis=-1)``; over fewer than 8 items as sequential adds (the order of NumPy's own reduction
    there), which is much faster on many short rows (two classes, two branches)."""
    n = x.shape[-1]
    if n >= 8 or n == 0:
        return x.sum(axis=-1)
    out = x[..., 0].copy()
    for c in range(1, n):
        out += x[..., c]
    return out


@dataclass(frozen=True)
class Criterion:
    """Info gain (``s is None``: C4.5) or imprecise info gain with IDM parameter ``s`` (Credal-C4.5)."""

    s: float | None = None

    def node_term(self, per_class: np.ndarray) -> np.ndarray:
        """The parent's part of the gain, from its class weights (known values) ``(..., C)``: ``N H(C)``
        in J48's ``L(N) - sum_c L(n_c)`` form for C4.5, ``H*(K_D(C))`` for Credal-C4.5."""
        per_class = np.asarray(per_class, dtype=np.float64)
        if self.s is None:
            return xlog2x(_sum_last(per_class)) - _sum_last(xlog2x(per_class))
        return upper_entropy(per_class, self.s)

    def gain(self, bags: np.ndarray, total: float, per_class=None, node_term=None) -> np.ndarray:
        """Gain of branches ``bags`` ``(..., B, C)`` (known values only) at a node of weight ``total``.

        Returns the per-instance gain in bits times the known fraction, 0 where the weighted gain is
        within ``1e-6`` of 0 (J48 ``InfoGainSplitCrit.splitCritValue``).  ``per_class`` (the class weights
        of the known values, J48's ``bags.perClass``) and its :meth:`node_term` may be given when many
        candidate splits of one node are scored; by default they are summed from ``bags``.
        """
        bags = np.asarray(bags, dtype=np.float64)
        per_class = bags.sum(axis=-2) if per_class is None else np.asarray(per_class, dtype=np.float64)
        known = _sum_last(per_class)
        node_term = self.node_term(per_class) if node_term is None else node_term
        total = np.broadcast_to(np.asarray(total, dtype=np.float64), known.shape)
        known_rate = np.divide(known, total, out=np.zeros_like(known), where=total > 0)  # 1 - unknownRate
        if self.s is None:
            per_bag = _sum_last(bags)
            new_ent = _sum_last(_sum_last(xlog2x(bags)) - xlog2x(per_bag)) * -1.0
            numerator = known_rate * (node_term - new_ent)
        else:
            s = self.s
            h_bags = upper_entropy(bags, s)
            p_d = imprecise_value_distribution(bags.sum(axis=-1), bags, s)
            iig = node_term - (p_d * h_bags).sum(axis=-1)
            numerator = known_rate * known * iig
        zero = np.abs(numerator) < J48_SMALL
        out = np.divide(numerator, known, out=np.zeros_like(numerator), where=known > 0)
        return np.where(zero, 0.0, out)


def split_info(per_bag: np.ndarray, total: float) -> np.ndarray:
    """C4.5's split information in bits, with the unknown weight ``total - known`` as one more branch."""
    per_bag = np.asarray(per_bag, dtype=np.float64)
    known = per_bag.sum(axis=-1)
    unknown = np.maximum(total - known, 0.0)
    ent = (xlog2x(np.float64(total)) - xlog2x(per_bag).sum(axis=-1) - xlog2x(unknown)) / total
    return np.where(known > J48_SMALL, ent, 0.0)


def _ratio(gain, per_bag, total):
    info = split_info(per_bag, total)
    return np.where(
        np.abs(info * total) < J48_SMALL, 0.0, np.divide(gain, info, out=np.zeros_like(info), where=info != 0)
    )


@dataclass(frozen=True)
class SplitCandidate:
    """The best split of one attribute at one node: ``valid`` as J48's ``checkModel()``."""

    attr: int
    valid: bool
    gain: float = 0.0
    gain_ratio: float = 0.0
    bags: np.ndarray | None = None  # (B, C) class weights per branch, known values only
    threshold: float = float("nan")


def evaluate_nominal(
    attr: int, value_class: np.ndarray, total: float, min_leaf: float, criterion: Criterion
) -> SplitCandidate:
    """Multiway split on a nominal attribute; ``value_class`` ``(V + 1, C)`` with the missing slot last."""
    bags = value_class[:-1]
    per_bag = bags.sum(axis=1)
    if len(bags) < 2 or np.count_nonzero(min_leaf - per_bag < J48_SMALL) <= 1:  # Distribution.check(minNoObj)
        return SplitCandidate(attr, False)
    gain = float(criterion.gain(bags, total))
    return SplitCandidate(attr, True, gain, float(_ratio(gain, per_bag, total)), bags)


def _first_beating(gains: np.ndarray) -> int:
    """J48's scan: keep a candidate when it beats the best so far (starting at 0) by more than 1e-6."""
    prev_max = np.concatenate([[-np.inf], np.maximum.accumulate(gains)[:-1]])
    best, chosen = 0.0, -1
    for j in np.flatnonzero(gains > prev_max):  # only running records can be chosen
        if gains[j] - best > J48_SMALL:
            best, chosen = gains[j], j
    return chosen


def evaluate_numeric(
    attr: int,
    grid,
    cells: np.ndarray,
    cell_class: np.ndarray,
    n_known_rows: int,
    total: float,
    min_leaf: float,
    criterion: Criterion,
) -> SplitCandidate:
    """Binary split on a numeric attribute from its class weights per grid cell at the node.

    ``cells`` (sorted) and ``cell_class`` ``(k, C)`` are the non-empty cells; ``n_known_rows`` the number
    of instances with a known value; ``total`` the node's weight, missing values included.
    """
    C = cell_class.shape[1]
    per_class = cell_class.sum(axis=0)
    known = per_class.sum()
    min_split = 0.1 * known / C
    if min_split - min_leaf < J48_SMALL:
        min_split = float(min_leaf)
    elif min_split - MAX_MIN_SPLIT > J48_SMALL:
        min_split = MAX_MIN_SPLIT
    if 2 * min_split - n_known_rows > J48_SMALL or len(cells) < 2:
        return SplitCandidate(attr, False)
    values = grid.values[cells]
    left = np.cumsum(cell_class, axis=0)[:-1]  # cut after cell j
    left_w = left.sum(axis=1)
    right_w = known - left_w
    ok = (values[:-1] + MIN_GAP < values[1:]) & (min_split - left_w < J48_SMALL) & (min_split - right_w < J48_SMALL)
    n_cuts = int(ok.sum())
    if n_cuts == 0:
        return SplitCandidate(attr, False)
    idx = np.flatnonzero(ok)
    bags = np.stack([left[idx], per_class - left[idx]], axis=1)
    gains = criterion.gain(bags, total, per_class)
    pick = _first_beating(gains)
    best = gains[pick] if pick >= 0 else 0.0
    gain = best - np.log2(n_cuts) / total  # MDL correction
    if gain < J48_SMALL:  # Utils.smOrEq(gain, 0)
        return SplitCandidate(attr, False)
    j = idx[pick]
    lo, hi = values[j], values[j + 1]
    if grid.exact:
        mid = (lo + hi) / 2
        if mid == hi:
            mid = lo
        threshold = set_split_point(grid, mid)
    else:
        threshold = float(lo)  # the cell's upper edge, an observed value
    split_bags = bags[pick]
    return SplitCandidate(
        attr, True, float(gain), float(_ratio(gain, split_bags.sum(axis=1), total)), split_bags, threshold
    )


def set_split_point(grid, mid: float) -> float:
    """J48's ``C45Split.setSplitPoint``: the largest training value ``<= mid``.

    J48 scans the training rows in order and takes a value when it is ``<= mid`` (``Utils.smOrEq``) and
    exceeds the one kept so far by more than ``1e-6`` (``Utils.gr``); with the first-row index of each
    distinct value (``grid.first_seen``) the same scan is replayed over the distinct values in data order,
    so values within 1e-6 of each other resolve as in J48.  Without it, the largest value is taken.
    """
    n_le = int(np.searchsorted(grid.values, mid + J48_SMALL, side="left"))
    if n_le == 0:
        return -np.finfo(np.float64).max
    top = float(grid.values[n_le - 1])
    if grid.first_seen is None or n_le == 1 or top - grid.values[n_le - 2] > J48_SMALL:
        return top  # the scan keeps the largest value whenever it stands apart from the others
    cand = grid.values[:n_le][np.argsort(grid.first_seen[:n_le], kind="stable")]
    prev_max = np.concatenate([[-np.inf], np.maximum.accumulate(cand)[:-1]])
    kept = -np.finfo(np.float64).max
    for v in cand[cand > prev_max]:  # only running records can be kept
        if v - kept > J48_SMALL:
            kept = v
    return float(kept)


@dataclass(frozen=True)
class LevelEvaluation:
    """Every attribute's best split at every open node of a level: arrays ``(K, A)`` and, per attribute,
    what :meth:`split_of` needs to rebuild the chosen split."""

    valid: np.ndarray
    gain: np.ndarray
    ratio: np.ndarray
    detail: tuple | None  # numeric search, per segment: chosen cut's left weights (S, C), lo, hi, per_class (S, C)
    n_nodes: int
    seg_base: int = 0  # this level's segments are seg_base + j * K + k (several trees evaluated together)

    def split_of(self, stats, schema, grids, k: int, a: int):
        """``(bags (B, C), threshold)`` of attribute ``a``'s best split at node ``k``."""
        j = schema.cols[a]
        if schema.kinds[a] == "nominal":
            return stats.nominal[j][k][:-1], float("nan")
        left, lo, hi, per_class = self.detail
        sg = self.seg_base + j * self.n_nodes + k
        bags = np.stack([left[sg], per_class[sg] - left[sg]])
        grid = grids[j]
        if grid.exact:
            mid = (lo[sg] + hi[sg]) / 2
            if mid == hi[sg]:
                mid = lo[sg]
            return bags, set_split_point(grid, mid)
        return bags, float(lo[sg])


def _level_nominal(A, total, min_leaf, criterion):
    bags = A[:, :-1, :]
    if bags.shape[1] < 2:  # fewer than two declared values: never a split
        zero = np.zeros(len(total))
        return zero.astype(bool), zero, zero
    per_bag = _sum_last(bags)
    valid = np.count_nonzero(min_leaf - per_bag < J48_SMALL, axis=1) > 1
    gain = criterion.gain(bags, total)
    ratio = _ratio_rows(gain, per_bag, total)
    return valid, np.where(valid, gain, 0.0), np.where(valid, ratio, 0.0)


def _ratio_rows(gain, per_bag, total):
    """Gain ratio for rows of branch weights ``per_bag`` ``(n, B)`` with node weights ``total`` ``(n,)``."""
    known = _sum_last(per_bag)
    unknown = np.maximum(total - known, 0.0)
    info_w = xlog2x(total) - _sum_last(xlog2x(per_bag)) - xlog2x(unknown)  # split info times total
    info_w = np.where(known > J48_SMALL, info_w, 0.0)
    info = np.divide(info_w, total, out=np.zeros_like(info_w), where=total > 0)
    return np.where(np.abs(info_w) < J48_SMALL, 0.0, np.divide(gain, info, out=np.zeros_like(info), where=info != 0))


def _segmented_cumsum(W: np.ndarray, firsts: np.ndarray) -> np.ndarray:
    """Running sums of the rows of ``W`` restarting at each segment start ``firsts``, each segment summed on
    its own from its first row (as J48 shifts instances one by one), so a segment's sums do not depend on
    the segments before it: segments of similar length are padded into a matrix, a few cumsums in all.
    (With integer weights one cumsum over all segments is exact, and the caller uses that.)"""
    n = len(W)
    out = np.empty_like(W)
    lengths = np.diff(np.r_[firsts, n])
    bucket = np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.int64)
    for b in np.unique(bucket):
        segs = np.flatnonzero(bucket == b)
        L = int(lengths[segs].max())
        pos = np.arange(L)[None, :]
        idx = firsts[segs][:, None] + pos
        mask = pos < lengths[segs][:, None]
        M = np.zeros((len(segs), L, W.shape[1]))
        M[mask] = W[idx[mask]]
        out[idx[mask]] = np.cumsum(M, axis=1)[mask]
    return out


def _level_numeric(seg, values, W, n_rows, total, min_leaf, criterion):
    """C4.5's numeric split search for many (attribute, node) segments at once.

    ``seg`` (sorted) and ``values`` give each non-empty grid cell's segment and value, ``W`` its class
    weights; ``n_rows`` and ``total`` are per segment (instances with a known value, node weight).
    """
    S, C = len(total), W.shape[1]
    nothing = (np.zeros((S, C)), np.full(S, np.nan), np.full(S, np.nan), np.zeros((S, C)))
    empty = (np.zeros(S, bool), np.zeros(S), np.zeros(S), nothing)
    if len(seg) == 0:
        return empty
    row_w = _sum_last(W)
    known = np.bincount(seg, weights=row_w, minlength=S)
    per_class = np.zeros((S, C))
    firsts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
    per_class[seg[firsts]] = np.add.reduceat(W, firsts, axis=0)
    empty = empty[:3] + (nothing[:3] + (per_class,),)
    if len(seg) < 2:
        return empty
    min_split = 0.1 * known / C
    min_split = np.where(
        min_split - min_leaf < J48_SMALL,
        float(min_leaf),
        np.where(min_split - MAX_MIN_SPLIT > J48_SMALL, MAX_MIN_SPLIT, min_split),
    )
    seg_ok = 2 * min_split - n_rows <= J48_SMALL
    # class weights left of the cut after cell i (within its segment); with integer weights one cumsum is
    # exact, and the (n, C) rows are formed for the candidate cuts only
    integer = np.array_equal(W, np.floor(W)) and W.sum() < 2.0**52
    seg_pos = np.repeat(np.arange(len(firsts)), np.diff(np.r_[firsts, len(seg)]))
    if integer:
        cum = np.cumsum(W, axis=0)
        before = np.concatenate([np.zeros((1, C)), cum[firsts[1:] - 1]])
        cum_w = np.cumsum(row_w)
        left_w = (cum_w - np.r_[0.0, cum_w[firsts[1:] - 1]][seg_pos])[:-1]
    else:
        left_all = _segmented_cumsum(W, firsts)
        left_w = _sum_last(left_all)[:-1]
    ss = seg[:-1]
    right_w = known[ss] - left_w
    ok = (
        (ss == seg[1:])
        & (values[:-1] + MIN_GAP < values[1:])
        & seg_ok[ss]
        & (min_split[ss] - left_w < J48_SMALL)
        & (min_split[ss] - right_w < J48_SMALL)
    )
    idx = np.flatnonzero(ok)
    if len(idx) == 0:
        return empty
    s_ok = ss[idx]
    n_cuts = np.bincount(s_ok, minlength=S)
    left_ok = cum[idx] - before[seg_pos[idx]] if integer else left_all[idx]
    bags = np.stack([left_ok, per_class[s_ok] - left_ok], axis=1)
    g = criterion.gain(bags, total[s_ok], per_class[s_ok], criterion.node_term(per_class)[s_ok])
    # J48's scan per segment: the first cut beating the best so far by more than 1e-6.  When a single
    # cut lies within 1e-6 of the segment's maximum the scan ends on it; otherwise replay the scan.
    seg_start = np.flatnonzero(np.r_[True, s_ok[1:] != s_ok[:-1]])
    seg_id = s_ok[seg_start]
    seg_max = np.full(S, -np.inf)
    seg_max[seg_id] = np.maximum.reduceat(g, seg_start)
    near = g >= seg_max[s_ok] - J48_SMALL
    n_near = np.bincount(s_ok[near], minlength=S)
    pick = np.full(S, -1, dtype=np.int64)
    single = near & (n_near[s_ok] == 1)
    pick[s_ok[single]] = np.flatnonzero(single)
    seg_end = np.r_[seg_start[1:], len(s_ok)]
    for s0, s1, sid in zip(seg_start, seg_end, seg_id, strict=True):
        if n_near[sid] > 1:
            p = _first_beating(g[s0:s1])
            pick[sid] = s0 + p if p >= 0 else -1
    best = np.where(pick >= 0, g[np.maximum(pick, 0)], 0.0)
    has = n_cuts > 0
    gain = np.where(has, best - np.log2(np.maximum(n_cuts, 1)) / np.where(total > 0, total, 1.0), 0.0)
    valid = has & (pick >= 0) & (gain >= J48_SMALL)
    p = np.maximum(pick, 0)
    chosen = np.where(valid[:, None, None], bags[p], 0.0)
    ratio = _ratio_rows(gain, _sum_last(chosen), total)
    # per segment: the chosen cut's left class weights and the values either side of it
    lo, hi = np.where(valid, values[:-1][idx][p], np.nan), np.where(valid, values[1:][idx][p], np.nan)
    detail = (np.where(valid[:, None], left_ok[p], 0.0), lo, hi, per_class)
    return valid, np.where(valid, gain, 0.0), np.where(valid, ratio, 0.0), detail


#: The numeric search handles at most about this many (segment, cell) rows at a time (bounds its memory).
NUMERIC_CHUNK = 1 << 21


def _level_numeric_chunked(seg, values, W, n_rows, total, min_leaf, criterion):
    """:func:`_level_numeric` over runs of whole segments of at most about ``NUMERIC_CHUNK`` cells each (the
    segments are independent), so that a level of a tree grown on millions of rows stays within memory."""
    S = len(total)
    if len(seg) <= NUMERIC_CHUNK:
        return _level_numeric(seg, values, W, n_rows, total, min_leaf, criterion)
    bounds, pos = [0], 0  # segment ranges [bounds[i], bounds[i + 1]) of about NUMERIC_CHUNK cells
    while pos + NUMERIC_CHUNK < len(seg):
        nxt = max(int(seg[pos + NUMERIC_CHUNK]), bounds[-1] + 1)
        bounds.append(nxt)
        pos = int(np.searchsorted(seg, nxt))
    bounds.append(S)
    parts = []
    for s0, s1 in zip(bounds[:-1], bounds[1:], strict=True):
        c0, c1 = np.searchsorted(seg, [s0, s1])
        parts.append(
            _level_numeric(seg[c0:c1] - s0, values[c0:c1], W[c0:c1], n_rows[s0:s1], total[s0:s1], min_leaf, criterion)
        )
    v, g, r = (np.concatenate([p[i] for p in parts]) for i in range(3))
    detail = tuple(np.concatenate([p[3][i] for p in parts]) for i in range(4))
    return v, g, r, detail


def evaluate_level(stats, schema, grids, min_leaf: float, criterion: Criterion) -> LevelEvaluation:
    """Vectorised :func:`evaluate_nominal` / :func:`evaluate_numeric` for all open nodes of a level.

    All numeric attributes are searched in one pass, each (attribute column ``j``, node ``k``) pair being
    the segment ``j * K + k``.
    """
    return evaluate_levels([(stats, grids)], schema, min_leaf, criterion)[0]


def evaluate_levels(levels: list, schema, min_leaf: float, criterion: Criterion) -> list[LevelEvaluation]:
    """:func:`evaluate_level` for the current levels of several trees (``levels``: ``(stats, grids)`` per
    tree; one schema and criterion), in one vectorised pass over all their open nodes: the engine grows the
    trees of every fold together, and many small trees cost little more than one."""
    Ks = [st.class_w.shape[0] for st, _ in levels]
    node_off = np.cumsum([0] + Ks)
    Kt = int(node_off[-1])
    A = schema.n_attributes
    total = np.concatenate([st.class_w.sum(axis=1) for st, _ in levels])
    valid = np.zeros((Kt, A), dtype=bool)
    gain = np.zeros((Kt, A))
    ratio = np.zeros((Kt, A))
    by_card: dict[int, list] = {}
    for a in schema.nominal:  # attributes with the same number of values are evaluated together
        by_card.setdefault(len(schema.values[a]), []).append(a)
    for attrs in by_card.values():
        stack = np.concatenate([st.nominal[schema.cols[a]] for a in attrs for st, _ in levels])  # (n_a*Kt, V+1, C)
        v, g, r = _level_nominal(stack, np.tile(total, len(attrs)), min_leaf, criterion)
        valid[:, attrs], gain[:, attrs] = v.reshape(len(attrs), Kt).T, g.reshape(len(attrs), Kt).T
        ratio[:, attrs] = r.reshape(len(attrs), Kt).T
    numeric = schema.numeric
    d = len(numeric)
    detail = None
    seg_base = [0] * len(levels)
    if numeric:
        segs, vals, ws, n_rows, totals = [], [], [], [], []
        for t, (st, grids) in enumerate(levels):
            K = Ks[t]
            seg_base[t] = d * int(node_off[t])
            seg, cell = np.divmod(st.num_key, st.stride)  # seg = j * K + k
            offsets = np.cumsum([0] + [len(g.values) for g in grids])
            all_values = np.concatenate([np.asarray(g.values, dtype=np.float64) for g in grids])
            segs.append(seg_base[t] + seg)
            vals.append(all_values[offsets[seg // K] + cell] if len(seg) else np.zeros(0))
            ws.append(st.num_w)
            n_rows.append(st.num_rows.T.ravel())
            totals.append(np.tile(total[node_off[t] : node_off[t + 1]], d))
        v, g, r, detail = _level_numeric_chunked(
            np.concatenate(segs),
            np.concatenate(vals),
            np.concatenate(ws),
            np.concatenate(n_rows),
            np.concatenate(totals),
            min_leaf,
            criterion,
        )
        cols = [schema.cols[a] for a in numeric]
        for t in range(len(levels)):
            lo, hi, K = seg_base[t], seg_base[t] + d * Ks[t], Ks[t]
            rows = slice(node_off[t], node_off[t + 1])
            valid[rows, numeric] = v[lo:hi].reshape(d, K)[cols].T
            gain[rows, numeric] = g[lo:hi].reshape(d, K)[cols].T
            ratio[rows, numeric] = r[lo:hi].reshape(d, K)[cols].T
    return [
        LevelEvaluation(
            valid[node_off[t] : node_off[t + 1]],
            gain[node_off[t] : node_off[t + 1]],
            ratio[node_off[t] : node_off[t + 1]],
            detail,
            Ks[t],
            seg_base[t],
        )
        for t in range(len(levels))
    ]
