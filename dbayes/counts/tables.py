"""Count tables: the mergeable state every Bayesian classifier here is fitted from.

All tables of one layout live in a single flat ``int64`` vector, so that adding the tables of two partitions,
or subtracting a test fold from the total, is one exact NumPy operation (see ``docs/architecture.md``).
Along each attribute axis the last slot (index ``V_i``) counts missing values.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

__all__ = ["TableLayout", "CountTables"]


@dataclass(frozen=True)
class TableLayout:
    """Shapes and offsets of the tables for ``n_classes`` classes and attributes with ``cards`` values.

    ``pairs`` says whether the (class, value_i, value_j) tables of every attribute pair ``i < j`` are kept.
    """

    n_classes: int
    cards: tuple[int, ...]
    pairs: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(int(v) for v in self.cards))
        if self.n_classes < 1:
            raise ValueError("a layout needs at least one class")

    @property
    def n_attributes(self) -> int:
        return len(self.cards)

    @cached_property
    def slots(self) -> np.ndarray:
        """``V_i + 1`` for each attribute: its values and the missing slot."""
        return np.asarray(self.cards, dtype=np.int64) + 1

    @cached_property
    def attr_offsets(self) -> np.ndarray:
        """Offset of ``attr(i)`` in the flat vector (the class counts come first)."""
        sizes = self.n_classes * self.slots
        return self.n_classes + np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)

    @cached_property
    def pair_offsets(self) -> np.ndarray:
        """``(d, d)`` array: offset of ``pair(i, j)`` for ``i < j``; -1 elsewhere."""
        d = self.n_attributes
        off = np.full((d, d), -1, dtype=np.int64)
        if not self.pairs:
            return off
        pos = self.n_classes + int((self.n_classes * self.slots).sum())
        for i in range(d):
            for j in range(i + 1, d):
                off[i, j] = pos
                pos += self.n_classes * int(self.slots[i] * self.slots[j])
        return off

    @cached_property
    def size(self) -> int:
        base = self.n_classes + int((self.n_classes * self.slots).sum())
        if not self.pairs:
            return base
        s = self.slots
        pair_cells = (np.sum(s) ** 2 - np.sum(s**2)) // 2
        return base + self.n_classes * int(pair_cells)

    @cached_property
    def pair_list(self) -> np.ndarray:
        """``(P, 2)`` attribute pairs ``(i, j)``, ``i < j``, in storage order."""
        d = self.n_attributes
        return np.array([(i, j) for i in range(d) for j in range(i + 1, d)], dtype=np.int64).reshape(-1, 2)

    @cached_property
    def pair_cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """For every cell of the pair region, in storage order: its pair number and its (c, a, b) indices.

        Lets per-pair statistics be computed for all pairs at once (``np.bincount`` over pair numbers)
        instead of a Python loop over d(d-1)/2 pairs.
        """
        pl = self.pair_list
        if not self.pairs or len(pl) == 0:
            e = np.empty(0, dtype=np.int64)
            return e, e, e, e
        si = self.slots[pl[:, 0]]
        sj = self.slots[pl[:, 1]]
        sizes = self.n_classes * si * sj
        idx = np.int32 if int(sizes.sum()) < 2**31 else np.int64
        pid = np.repeat(np.arange(len(pl), dtype=idx), sizes)
        local = np.arange(int(sizes.sum()), dtype=idx) - np.repeat((np.cumsum(sizes) - sizes).astype(idx), sizes)
        si, sj = si.astype(idx), sj.astype(idx)
        sjc = sj[pid]
        b = local % sjc
        rest = local // sjc
        sic = si[pid]
        a = rest % sic
        c = rest // sic
        return pid, c, a, b

    @property
    def pair_start(self) -> int:
        """Offset of the first pair table in the flat vector."""
        return self.n_classes + int((self.n_classes * self.slots).sum())

    def empty(self, n_folds: int | None = None) -> np.ndarray:
        shape = (self.size,) if n_folds is None else (n_folds, self.size)
        return np.zeros(shape, dtype=np.int64)


class CountTables:
    """Class, (class, attribute value) and (class, value_i, value_j) counts of one set of rows.

    Parameters
    ----------
    layout : TableLayout
    values : ndarray of int64, shape ``(layout.size,)``

    Examples
    --------
    >>> import numpy as np
    >>> from dbayes.counts import CountTables, TableLayout, count_tables
    >>> X = np.asfortranarray([[0, 1], [1, 1], [1, 2]])   # attribute 1's value 2 is "missing" (V_1 = 2)
    >>> t = count_tables(X, np.array([0, 1, 1]), TableLayout(2, (2, 2)))
    >>> t.class_counts.tolist(), t.attr(1)[1].tolist()
    ([1, 2], [0, 1, 1])
    """

    __slots__ = ("layout", "values")

    def __init__(self, layout: TableLayout, values: np.ndarray | None = None):
        self.layout = layout
        if values is None:
            values = layout.empty()
        values = np.asarray(values)
        if values.shape != (layout.size,) or values.dtype != np.int64:
            raise ValueError(f"count vector must be int64 of shape ({layout.size},), got {values.dtype} {values.shape}")
        self.values = values

    # -- views ----------------------------------------------------------------------------------------------
    @property
    def n_classes(self) -> int:
        return self.layout.n_classes

    @property
    def cards(self) -> tuple[int, ...]:
        return self.layout.cards

    @property
    def class_counts(self) -> np.ndarray:
        """Shape ``(C,)``: rows per class."""
        return self.values[: self.layout.n_classes]

    @property
    def n(self) -> int:
        """Number of rows counted."""
        return int(self.class_counts.sum())

    def attr(self, i: int) -> np.ndarray:
        """Shape ``(C, V_i + 1)``: rows per (class, value of attribute i); last column = missing."""
        lay = self.layout
        o = int(lay.attr_offsets[i])
        s = int(lay.slots[i])
        return self.values[o : o + lay.n_classes * s].reshape(lay.n_classes, s)

    def pair(self, i: int, j: int) -> np.ndarray:
        """Shape ``(C, V_i + 1, V_j + 1)``: rows per (class, value_i, value_j); ``pair(j, i)`` is its transpose."""
        lay = self.layout
        if not lay.pairs:
            raise ValueError("these tables were counted without attribute pairs")
        if i == j:
            raise ValueError("pair(i, j) needs two different attributes")
        if i > j:
            return self.pair(j, i).transpose(0, 2, 1)
        o = int(lay.pair_offsets[i, j])
        si, sj = int(lay.slots[i]), int(lay.slots[j])
        return self.values[o : o + lay.n_classes * si * sj].reshape(lay.n_classes, si, sj)

    # -- algebra --------------------------------------------------------------------------------------------
    def _check(self, other: CountTables) -> None:
        if not isinstance(other, CountTables) or other.layout != self.layout:
            raise ValueError("count tables of different layouts cannot be combined")

    def __add__(self, other: CountTables) -> CountTables:
        self._check(other)
        return CountTables(self.layout, self.values + other.values)

    def __sub__(self, other: CountTables) -> CountTables:
        self._check(other)
        return CountTables(self.layout, self.values - other.values)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, CountTables)
            and other.layout == self.layout
            and bool(np.array_equal(other.values, self.values))
        )

    def __repr__(self) -> str:
        lay = self.layout
        return f"CountTables(n={self.n}, classes={lay.n_classes}, attributes={len(lay.cards)}, pairs={lay.pairs})"

    def without_pairs(self) -> CountTables:
        """The class and attribute tables alone."""
        lay = TableLayout(self.layout.n_classes, self.layout.cards, pairs=False)
        return CountTables(lay, self.values[: lay.size].copy())

    def recode(self, maps: list[np.ndarray | None], cards: tuple[int, ...]) -> CountTables:
        """Merge value slots: ``maps[i][old_slot] = new_slot`` (None keeps attribute i as it is).

        Used to turn tables counted on the finest common bins of all folds into the tables of one fold's own
        discretization (the fold's cut points are a subset of the common ones), and to move missing values
        into a mode. Every cell moves by one vectorised index computation; sums stay exact int64.
        """
        old = self.layout
        lay = TableLayout(old.n_classes, cards, old.pairs)
        full = [
            np.arange(s, dtype=np.int64) if m is None else np.asarray(m, dtype=np.int64)
            for m, s in zip(maps, old.slots, strict=True)
        ]
        out = lay.empty()
        C = old.n_classes
        out[:C] = self.class_counts
        for i in range(len(cards)):
            si, ti = int(old.slots[i]), int(lay.slots[i])
            src = self.attr(i)
            dst = out[lay.attr_offsets[i] : lay.attr_offsets[i] + C * ti].reshape(C, ti)
            for a in range(si):
                dst[:, full[i][a]] += src[:, a]
        if lay.pairs and len(old.pair_list):
            pid, c, a, b = old.pair_cells
            pl = old.pair_list
            i, j = pl[pid, 0], pl[pid, 1]
            moff = np.concatenate([[0], np.cumsum(old.slots)[:-1]])
            flat_map = np.concatenate(full)
            na = flat_map[moff[i] + a]
            nb = flat_map[moff[j] + b]
            new_index = lay.pair_offsets[pl[:, 0], pl[:, 1]][pid] + (c * lay.slots[i] + na) * lay.slots[j] + nb
            np.add.at(out, new_index, self.values[old.pair_start :])
        return CountTables(lay, out)
