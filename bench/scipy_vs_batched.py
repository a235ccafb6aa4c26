"""Per-instance scipy L-BFGS-B against the batched optimiser on LAWNB's problems (adult fold 0).

python bench/scipy_vs_batched.py --rows 1024
"""

import argparse
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from scipy.optimize import minimize

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_lazy import code_folds  # noqa: E402

from dbayes.models._lbfgs import minimize_box_batched  # noqa: E402
from dbayes.models.lawnb import LAWNB  # noqa: E402
from dbayes.models.neighbours import neighbour_rows_block  # noqa: E402
from dbayes.models.wanbia import weighted_nb_ncll  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default="adult")
    ap.add_argument("--rows", type=int, default=1024)
    args = ap.parse_args()
    Xtr, ytr, Xte, yte, cards, C = code_folds(args.dataset)[0]
    model = LAWNB().fit(None, SimpleNamespace(X=Xtr, y=ytr, cards=cards, n_classes=C))
    X = Xte[: args.rows]
    ids = model.neighbours(X)
    X_nb, y_nb, found = neighbour_rows_block(ids, model.X_, model.y_, np.arange(len(ytr)))
    log_prior, log_cond = model._local_tables(X_nb, y_nb, found)
    L = model._gather(log_cond, X_nb, found)
    N = np.zeros(y_nb.shape + (C,))
    np.put_along_axis(N, y_nb[:, :, None], found[:, :, None].astype(float), axis=2)
    B, d = X.shape

    def fun_grad(w, rows):
        return weighted_nb_ncll(w, log_prior[rows], L[rows], N[rows])

    t = time.perf_counter()
    res = minimize_box_batched(fun_grad, np.ones((B, d)), 0.0, 1.0)
    t_batch = time.perf_counter() - t
    t = time.perf_counter()
    f_ref = np.empty(B)
    for b in range(B):

        def fun(w, b=b):
            f, g = weighted_nb_ncll(w[None], log_prior[b : b + 1], L[b : b + 1], N[b : b + 1])
            return f[0], g[0]

        f_ref[b] = minimize(fun, np.ones(d), jac=True, method="L-BFGS-B", bounds=[(0, 1)] * d).fun
    t_scipy = time.perf_counter() - t
    gap = (res.fun - f_ref) / np.maximum(1.0, np.abs(f_ref))
    print(
        f"{args.dataset}: {B} problems; batched {t_batch:.2f}s ({1e3 * t_batch / B:.2f} ms each), "
        f"scipy one call per row {t_scipy:.2f}s ({1e3 * t_scipy / B:.2f} ms each), "
        f"ratio {t_scipy / t_batch:.1f}x"
    )
    print(f"relative objective gap batched - scipy: max {gap.max():.2e}, min {gap.min():.2e}")


if __name__ == "__main__":
    main()
