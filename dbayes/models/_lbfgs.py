"""Batched projected L-BFGS for many independent box-constrained problems at once.

LAWNB (Zhang et al. 2018, Algorithm 1) solves one small bound-constrained problem per test
instance. Calling ``scipy.optimize.minimize(method="L-BFGS-B")`` once per row costs about a
millisecond of Python overhead per call, so here all problems of a block advance together:
every array carries a leading problem axis, and problems that have converged drop out of the
active set.

Method
------
A two-metric projected quasi-Newton method (Bertsekas 1982; the L-BFGS variant of Schmidt,
Kim and Sra, "Projected Newton-type methods in machine learning", 2012, sec. 2.3):

1. Variables at a bound whose gradient pushes outward are *binding* and do not move.
2. The direction on the free variables is the L-BFGS two-loop recursion (Nocedal & Wright,
   *Numerical Optimization*, 2nd ed., Algorithm 7.4) applied to the gradient restricted to
   the free variables, with the initial scaling ``gamma = s'y / y'y`` of eq. (7.20).
3. Backtracking (halving) along the projection arc ``x(a) = P(x + a d)`` until the Armijo
   condition ``f(x(a)) <= f(x) + c1 g'(x(a) - x)`` holds.
4. A pair ``(s, y)`` enters the memory only when ``s'y > 0`` (curvature condition).

Stopping follows scipy's L-BFGS-B defaults (Zhu, Byrd, Lu, Nocedal 1997, as wrapped by
``scipy.optimize.minimize``): the projected gradient's largest component ``<= pgtol``
(``1e-5``), or a relative decrease ``(f_k - f_{k+1}) / max(|f_k|, |f_{k+1}|, 1) <= ftol``
(``factr * eps = 1e7 * 2.2e-16``).

For the convex objectives used here (the negative conditional log-likelihood of a weighted
naive Bayes is convex in the weights) this reaches the same minimum as scipy's L-BFGS-B;
``tests/test_lawnb.py`` checks it instance by instance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["BatchResult", "minimize_box_batched"]

#: scipy.optimize.minimize(method="L-BFGS-B") defaults.
SCIPY_PGTOL = 1e-5
SCIPY_FTOL = 1e7 * np.finfo(float).eps
#: Armijo sufficient-decrease constant (Nocedal & Wright, sec. 3.1: "c1 = 1e-4").
ARMIJO_C1 = 1e-4


@dataclass
class BatchResult:
    """Solutions of a batch of problems."""

    x: np.ndarray  #: (P, n) minimisers
    fun: np.ndarray  #: (P,) objective values at ``x``
    n_iter: np.ndarray  #: (P,) iterations used
    converged: np.ndarray  #: (P,) bool, stopped by pgtol/ftol rather than max_iter


def _projected_gradient(x, g, lower, upper):
    return x - np.clip(x - g, lower, upper)


def minimize_box_batched(
    fun_grad,
    x0,
    lower,
    upper,
    *,
    memory=10,
    max_iter=200,
    max_linesearch=30,
    pgtol=SCIPY_PGTOL,
    ftol=SCIPY_FTOL,
):
    """Minimise ``P`` independent functions of ``n`` variables inside a box.

    Parameters
    ----------
    fun_grad : callable ``(x, rows) -> (f, g)``
        ``x`` is ``(p, n)`` for the problems ``rows`` (indices into ``0..P-1``); returns
        their values ``(p,)`` and gradients ``(p, n)``.
    x0 : ndarray of shape (P, n)
        Starting points (projected into the box first).
    lower, upper : float or ndarray broadcastable to (P, n)
        Bounds.
    memory : int
        Number of (s, y) pairs kept (scipy's ``maxcor`` default is 10).
    max_iter : int
    max_linesearch : int
        Halvings tried before a problem is declared stuck (it then stops where it is).
    pgtol, ftol : float
        Stopping tolerances, scipy's defaults.

    Returns
    -------
    BatchResult
    """
    x = np.array(x0, dtype=float, copy=True)
    P, n = x.shape
    lower = np.broadcast_to(np.asarray(lower, dtype=float), (P, n))
    upper = np.broadcast_to(np.asarray(upper, dtype=float), (P, n))
    x = np.clip(x, lower, upper)
    all_rows = np.arange(P)
    f, g = fun_grad(x, all_rows)
    f = np.array(f, dtype=float)
    g = np.array(g, dtype=float)
    S = np.zeros((P, memory, n))
    Y = np.zeros((P, memory, n))
    rho = np.zeros((P, memory))
    n_pairs = np.zeros(P, dtype=np.int64)
    head = np.zeros(P, dtype=np.int64)  # slot the next pair goes to
    n_iter = np.zeros(P, dtype=np.int64)
    converged = np.zeros(P, dtype=bool)
    pg = _projected_gradient(x, g, lower, upper)
    converged |= np.abs(pg).max(axis=1, initial=0.0) <= pgtol
    active = ~converged

    for _ in range(max_iter):
        rows = np.nonzero(active)[0]
        if rows.size == 0:
            break
        xa, ga, la, ua = x[rows], g[rows], lower[rows], upper[rows]
        binding = ((xa <= la) & (ga > 0)) | ((xa >= ua) & (ga < 0))
        free = ~binding
        q = np.where(free, ga, 0.0)
        # two-loop recursion over the stored pairs, newest first
        m_used = n_pairs[rows]
        alphas = np.zeros((rows.size, memory))
        for t in range(memory):
            slot = (head[rows] - 1 - t) % memory
            use = t < m_used
            s_t = np.where(free, S[rows, slot], 0.0)
            y_t = np.where(free, Y[rows, slot], 0.0)
            a_t = np.where(use, rho[rows, slot] * np.einsum("pn,pn->p", s_t, q), 0.0)
            alphas[:, t] = a_t
            q -= a_t[:, None] * y_t
        newest = (head[rows] - 1) % memory
        y_new = np.where(free, Y[rows, newest], 0.0)
        s_new = np.where(free, S[rows, newest], 0.0)
        yy = np.einsum("pn,pn->p", y_new, y_new)
        sy = np.einsum("pn,pn->p", s_new, y_new)
        ok_gamma = (m_used > 0) & (yy > 0) & (sy > 0)
        gamma = np.where(ok_gamma, sy / np.where(ok_gamma, yy, 1.0), 1.0)
        r = gamma[:, None] * q
        for t in range(memory - 1, -1, -1):
            slot = (head[rows] - 1 - t) % memory
            use = t < m_used
            s_t = np.where(free, S[rows, slot], 0.0)
            y_t = np.where(free, Y[rows, slot], 0.0)
            b_t = rho[rows, slot] * np.einsum("pn,pn->p", y_t, r)
            r += np.where(use, alphas[:, t] - b_t, 0.0)[:, None] * s_t
        d = -r
        gd = np.einsum("pn,pn->p", ga, d)
        # not a descent direction (memory gone stale on the free set): restart as steepest
        bad = ~(gd < 0)
        if bad.any():
            d[bad] = -np.where(free[bad], ga[bad], 0.0)
            n_pairs[rows[bad]] = 0
        # first step of a fresh memory: scaled so that it moves at most a unit
        fresh = n_pairs[rows] == 0
        step = np.ones(rows.size)
        dnorm = np.abs(d).max(axis=1, initial=0.0)
        step[fresh] = np.minimum(1.0, 1.0 / np.maximum(dnorm[fresh], np.finfo(float).tiny))
        fa = f[rows]
        x_new = np.empty_like(xa)
        f_new = np.empty(rows.size)
        g_new = np.empty_like(ga)
        pending = np.arange(rows.size)
        accepted = np.zeros(rows.size, dtype=bool)
        for _ls in range(max_linesearch):
            if pending.size == 0:
                break
            trial = np.clip(xa[pending] + step[pending, None] * d[pending], la[pending], ua[pending])
            ft, gt = fun_grad(trial, rows[pending])
            decrease = np.einsum("pn,pn->p", ga[pending], trial - xa[pending])
            ok = ft <= fa[pending] + ARMIJO_C1 * decrease
            idx = pending[ok]
            x_new[idx], f_new[idx], g_new[idx] = trial[ok], ft[ok], gt[ok]
            accepted[idx] = True
            pending = pending[~ok]
            step[pending] *= 0.5
        n_iter[rows] += 1
        # problems whose line search failed stop at their current point
        stuck = rows[~accepted]
        active[stuck] = False
        acc = np.nonzero(accepted)[0]
        ra = rows[acc]
        s_vec = x_new[acc] - xa[acc]
        y_vec = g_new[acc] - ga[acc]
        sy = np.einsum("pn,pn->p", s_vec, y_vec)
        keep = sy > np.finfo(float).eps * np.einsum("pn,pn->p", y_vec, y_vec)
        rk = ra[keep]
        slot = head[rk]
        S[rk, slot] = s_vec[keep]
        Y[rk, slot] = y_vec[keep]
        rho[rk, slot] = 1.0 / sy[keep]
        head[rk] = (head[rk] + 1) % memory
        n_pairs[rk] = np.minimum(n_pairs[rk] + 1, memory)
        f_old = f[ra]
        x[ra], f[ra], g[ra] = x_new[acc], f_new[acc], g_new[acc]
        rel = (f_old - f[ra]) / np.maximum.reduce([np.abs(f_old), np.abs(f[ra]), np.ones(ra.size)])
        pg = _projected_gradient(x[ra], g[ra], lower[ra], upper[ra])
        done = (np.abs(pg).max(axis=1, initial=0.0) <= pgtol) | (rel <= ftol)
        converged[ra[done]] = True
        active[ra[done]] = False
    return BatchResult(x=x, fun=f, n_iter=n_iter, converged=converged)
