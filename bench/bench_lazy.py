"""10-fold CV wall time of LAWNB and LWNB on adult and letter, next to Weka's LWL in the same run.

Folds: Weka 3.6's (seed 1); discretization: Fayyad-Irani MDL inside each training fold
(bench/_weka_cv.py, over the package's MDL and Weka folds). The folds are coded first (timed
separately), then each model runs the ten folds on a process pool of ``--workers`` processes;
bench/bench_lazy_engine.py measures the same through the engine. Weka runs afterwards through
../shared/tools/run_weka.py (LWNB50 = LWL -U 0 -K 50 around NaiveBayes), one process.

    python bench/bench_lazy.py --datasets adult letter --weka
"""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one BLAS thread per worker process

import argparse  # noqa: E402
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _weka_cv import code_fold, load, weka_cv_folds  # noqa: E402

from dbayes.models.lawnb import LAWNB  # noqa: E402
from dbayes.models.lwnb import LWNB  # noqa: E402

_FOLDS = {}


def _run_fold(args):
    key, f, model_name, params = args
    Xtr, ytr, Xte, yte, cards, C = _FOLDS[key][f]
    model = {"lawnb": LAWNB, "lwnb": LWNB}[model_name](**params)
    t = time.perf_counter()
    model.fit(None, SimpleNamespace(X=Xtr, y=ytr, cards=cards, n_classes=C))
    pred = model.predict(Xte)
    return int((pred == yte).sum()), len(yte), time.perf_counter() - t


def code_folds(name):
    df, y, C = load(name)
    out = []
    for test_idx in weka_cv_folds(y):
        mask = np.ones(len(y), bool)
        mask[test_idx] = False
        tr = np.nonzero(mask)[0]
        Xtr, Xte, cards = code_fold(df, y, tr, test_idx, C)
        out.append((Xtr, y[tr], Xte, y[test_idx], cards, C))
    return out


def weka_time(name, classifier, timeout):
    from dbayes.data.bundled import bundled_path

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "w.csv"
        t = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                str(Path(__file__).resolve().parents[2] / "shared/tools/run_weka.py"),
                "--classifiers",
                classifier,
                "--timeout",
                str(timeout),
                "--out",
                str(out),
                str(bundled_path(name)),
            ],
            check=False,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - t
        if not out.exists():
            return None, wall, "no output"
        r = pd.read_csv(out, comment="#").iloc[-1]
        return r.accuracy_pct, r.wall_s, r.status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", nargs="+", default=["adult", "letter"])
    ap.add_argument("--models", nargs="+", default=["lawnb", "lwnb"])
    ap.add_argument("--lawnb-k", type=int, default=None)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--weka", action="store_true")
    ap.add_argument("--weka-timeout", type=int, default=900)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    rows = []
    for name in args.datasets:
        t = time.perf_counter()
        _FOLDS[name] = code_folds(name)
        t_code = time.perf_counter() - t
        n = sum(len(f[3]) for f in _FOLDS[name])
        print(f"[{name}] {n} rows; folds coded (MDL) in {t_code:.1f}s", flush=True)
        for model_name in args.models:
            params = {}
            if model_name == "lawnb" and args.lawnb_k:
                params["k"] = args.lawnb_k
            t = time.perf_counter()
            jobs = [(name, f, model_name, params) for f in range(10)]
            if args.workers > 1:
                with ProcessPoolExecutor(args.workers) as ex:  # fork: workers inherit _FOLDS
                    res = list(ex.map(_run_fold, jobs))
            else:
                res = [_run_fold(j) for j in jobs]
            wall = time.perf_counter() - t
            acc = 100.0 * sum(r[0] for r in res) / n
            cpu = sum(r[2] for r in res)
            rows.append(
                dict(
                    dataset=name,
                    system="dbayes",
                    model=model_name,
                    params=str(params),
                    accuracy_pct=acc,
                    wall_s=wall,
                    fold_seconds_sum=cpu,
                    instances_per_s=n / wall,
                    workers=args.workers,
                )
            )
            print(
                f"[{name}] {model_name:6s} acc {acc:7.3f}%  wall {wall:7.1f}s  ({n / wall:8.0f} inst/s; "
                f"sum of fold times {cpu:.1f}s)",
                flush=True,
            )
        if args.weka:
            acc, wall, status = weka_time(name, "LWNB50", args.weka_timeout)
            rows.append(
                dict(
                    dataset=name,
                    system="weka",
                    model="LWL-NB-K50",
                    params="",
                    accuracy_pct=acc,
                    wall_s=wall,
                    instances_per_s=(n / wall) if wall else None,
                    workers=1,
                    note=status,
                )
            )
            print(f"[{name}] weka LWL -U 0 -K 50 NB: acc {acc}  wall {wall:.1f}s  status {status}", flush=True)
    if args.out:
        pd.DataFrame(rows).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
