"""LWNB (k=50, linear kernel) vs Weka 3.6 LWL -U 0 -K 50 around NaiveBayes, 10-fold CV.

Same folds as Weka (bench/_weka_cv.py reproduces Weka's randomize/stratify with seed 1) and
the same Fayyad-Irani MDL discretization inside each training fold. Weka's figures are read
from a CSV written by ../shared/tools/run_weka.py --classifiers LWNB50 (run it first).

    python bench/compare_weka_lwnb.py --weka bench/weka_lwnb50.csv
    python bench/compare_weka_lwnb.py --weka ../shared/reference/weka.csv --classifier LWNB --k 0 \
        --max-rows 6000 --out bench/lwnb_all_vs_weka.csv
"""

import argparse
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _weka_cv import code_fold, load, weka_cv_folds  # noqa: E402

from dbayes.models.lwnb import LWNB  # noqa: E402


def cv_accuracy(name, make_model, folds=10, seed=1):
    df, y, C = load(name)
    correct = 0
    for test_idx in weka_cv_folds(y, folds, seed):
        mask = np.ones(len(y), bool)
        mask[test_idx] = False
        train_idx = np.nonzero(mask)[0]
        Xtr, Xte, cards = code_fold(df, y, train_idx, test_idx, C)
        model = make_model().fit(None, SimpleNamespace(X=Xtr, y=y[train_idx], cards=cards, n_classes=C))
        correct += int((model.predict(Xte) == y[test_idx]).sum())
    return 100.0 * correct / len(y)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weka", default="bench/weka_lwnb50.csv")
    ap.add_argument("--classifier", default="LWNB50")
    ap.add_argument("--k", type=int, default=50, help="neighbours; 0 = all (Weka -K -1, classifier LWNB)")
    ap.add_argument("--max-rows", type=int, default=None, help="skip datasets with more rows")
    ap.add_argument("--out", default="bench/lwnb_vs_weka.csv")
    args = ap.parse_args()
    ref = pd.read_csv(args.weka, comment="#")
    ref = ref[(ref.classifier == args.classifier) & (ref.status == "ok")]
    rows = []
    k = args.k if args.k > 0 else None
    for name, acc_weka, n_rows in zip(ref.dataset, ref.accuracy_pct, ref.n_instances, strict=False):
        if args.max_rows and n_rows > args.max_rows:
            continue
        t = time.perf_counter()
        acc = cv_accuracy(name, lambda: LWNB(k=k))
        rows.append((name, acc, acc_weka, acc - acc_weka, time.perf_counter() - t))
        diff, secs = acc - acc_weka, rows[-1][4]
        line = f"{name:16s} dbayes {acc:7.3f}  weka {acc_weka:7.3f}  diff {diff:+7.3f}  ({secs:.1f}s)"
        print(line, flush=True)
    out = pd.DataFrame(rows, columns=["dataset", "dbayes_lwnb", "weka_lwl_nb", "diff_pp", "seconds"])
    n_ok, worst = (out.diff_pp.abs() <= 2).sum(), out.diff_pp.abs().max()
    print(f"\nwithin 2 pp: {n_ok} / {len(out)};  max |diff| {worst:.3f}")
    out.to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
