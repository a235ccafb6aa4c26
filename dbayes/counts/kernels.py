"""Counting kernels: one pass over a block of coded rows fills the count tables of every fold.

``count_block`` is the hot path of training. It is a pure function of arrays (no Dask) with two
implementations that give identical integers:

* a compiled loop (numba, the ``fast`` extra), one pass per attribute pair with the combined
  (fold, class, value_i) index computed once per attribute, as the C reference in
  ``shared/reference/limits.md`` ("row blocks with the combined code");
* a NumPy fallback that does the same with ``np.bincount`` on the combined index.
"""

from __future__ import annotations

import importlib.util
import logging
import os

import numpy as np

from dbayes.counts.tables import CountTables, TableLayout

__all__ = ["count_block", "count_tables", "HAVE_NUMBA", "kernel_name"]

log = logging.getLogger(__name__)

#: blocks smaller than this are counted with NumPy: loading the compiled kernel costs a process about 2 s
NUMBA_MIN_ROWS = 100_000

HAVE_NUMBA = importlib.util.find_spec("numba") is not None and not os.environ.get("DBAYES_NO_NUMBA")
_compiled = None


def kernel_name(n_rows: int = NUMBA_MIN_ROWS) -> str:
    """The kernel ``count_block`` uses for a block of ``n_rows`` rows."""
    return "numba" if HAVE_NUMBA and n_rows >= NUMBA_MIN_ROWS else "numpy"


def _check(X: np.ndarray, y: np.ndarray, layout: TableLayout, fold: np.ndarray | None, n_folds: int) -> None:
    if X.ndim != 2 or X.shape[1] != layout.n_attributes:
        raise ValueError(f"X must have shape (n, {layout.n_attributes}), got {X.shape}")
    if y.shape != (X.shape[0],):
        raise ValueError("y must have one class code per row")
    if fold is not None and fold.shape != y.shape:
        raise ValueError("fold must have one fold id per row")


def _count_numpy(X, y, layout: TableLayout, fold, n_folds: int) -> np.ndarray:
    size = layout.size
    C = layout.n_classes
    slots = layout.slots
    out = np.zeros((n_folds, size), dtype=np.int64)
    flat = out.reshape(-1)
    base = fold.astype(np.int64) * size if fold is not None else np.zeros(len(y), dtype=np.int64)
    fy = base // size * C + y  # (fold, class) index
    flat[: n_folds * size] += np.bincount(base + y, minlength=n_folds * size)[: n_folds * size]
    d = layout.n_attributes
    cols = [np.asarray(X[:, i], dtype=np.int64) for i in range(d)]
    for i in range(d):
        si = int(slots[i])
        fyx = fy * si + cols[i]  # (fold, class, value_i)
        o = int(layout.attr_offsets[i])
        block = np.bincount(fyx, minlength=n_folds * C * si).reshape(n_folds, C * si)
        out[:, o : o + C * si] += block
        if not layout.pairs:
            continue
        for j in range(i + 1, d):
            sj = int(slots[j])
            o = int(layout.pair_offsets[i, j])
            idx = fyx * sj + cols[j]
            block = np.bincount(idx, minlength=n_folds * C * si * sj).reshape(n_folds, C * si * sj)
            out[:, o : o + C * si * sj] += block
    return out


def _numba_kernel():  # pragma: no cover - exercised when numba is installed
    """The compiled kernel (numba is imported and the kernel loaded on first use)."""
    global _compiled
    if _compiled is not None:
        return _compiled
    import numba

    @numba.njit(cache=True, nogil=True)
    def _count_numba(X, y, fold, n_folds, size, C, slots, attr_off, pair_off, pairs):  # pragma: no cover
        n, d = X.shape
        out = np.zeros(n_folds * size, dtype=np.int64)
        B = 2048  # rows per block: the combined indices below stay in L1
        base = np.empty(B, dtype=np.int64)  # fold * size
        fyx = np.empty(B, dtype=np.int64)  # (class, value_i) index inside a pair table
        for start in range(0, n, B):
            stop = min(start + B, n)
            m = stop - start
            for r in range(m):
                base[r] = fold[start + r] * size
                out[base[r] + y[start + r]] += 1
            for i in range(d):
                si = slots[i]
                oi = attr_off[i]
                for r in range(m):
                    v = y[start + r] * si + X[start + r, i]
                    fyx[r] = v
                    out[base[r] + oi + v] += 1
                if not pairs:
                    continue
                for j in range(i + 1, d):
                    sj = slots[j]
                    oij = pair_off[i, j]
                    for r in range(m):
                        out[base[r] + oij + fyx[r] * sj + X[start + r, j]] += 1
        return out

    _compiled = _count_numba
    return _compiled


def count_block(
    X: np.ndarray,
    y: np.ndarray,
    layout: TableLayout,
    fold: np.ndarray | None = None,
    n_folds: int = 1,
) -> np.ndarray:
    """Count one block of coded rows into ``(n_folds, layout.size)`` int64 tables.

    Parameters
    ----------
    X : integer array ``(n, d)``, value codes with missing = ``V_i`` (Fortran order is fastest).
    y : integer array ``(n,)`` of class codes.
    layout : the tables to fill.
    fold : optional integer array ``(n,)``: the fold each row belongs to; row ``r`` is counted in
        ``out[fold[r]]``. Without it every row goes to fold 0.
    n_folds : number of folds (rows of the result).
    """
    X = np.asarray(X)
    y = np.asarray(y)
    _check(X, y, layout, fold, n_folds)
    if len(y) == 0:
        return layout.empty(n_folds)
    if HAVE_NUMBA and len(y) >= NUMBA_MIN_ROWS:
        return count_block_numba(X, y, layout, fold, n_folds)
    return _count_numpy(X, y.astype(np.int64), layout, fold, n_folds)


def count_block_numba(X, y, layout: TableLayout, fold=None, n_folds: int = 1) -> np.ndarray:
    """The compiled kernel, whatever the block's size (needs numba)."""
    f = np.zeros(len(y), dtype=np.int64) if fold is None else np.asarray(fold, dtype=np.int64)
    return _numba_kernel()(
        np.asarray(X),
        np.asarray(y, dtype=np.int64),
        f,
        n_folds,
        layout.size,
        layout.n_classes,
        layout.slots,
        layout.attr_offsets,
        layout.pair_offsets,
        layout.pairs,
    ).reshape(n_folds, layout.size)


def count_tables(X: np.ndarray, y: np.ndarray, layout: TableLayout) -> CountTables:
    """The :class:`CountTables` of one block of rows."""
    return CountTables(layout, count_block(X, y, layout)[0])


# numpy version kept importable for the equality tests and the benchmark
count_block_numpy = _count_numpy
