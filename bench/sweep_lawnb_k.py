"""LAWNB accuracy against the neighbourhood size k (10-fold CV, Weka's folds and MDL).

The paper (Zhang et al. 2018, sec. 3.3, fig. 2) sweeps k and finds LAWNB prefers small
neighbourhoods; this sweep chose the default k of dbayes.models.lawnb.LAWNB.

    python bench/sweep_lawnb_k.py --k 10 20 30 50 100 --out bench/lawnb_k_sweep.csv
"""

import argparse
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from compare_weka_lwnb import cv_accuracy  # noqa: E402

from dbayes.models.lawnb import LAWNB  # noqa: E402

DATASETS = [
    "sonar",
    "autos",
    "glass",
    "ionosphere",
    "diabetes",
    "audiology",
    "zoo",
    "hypothyroid",
    "anneal.orig",
    "vehicle",
    "heart-statlog",
    "credit-a",
    "lymph",
    "vote",
    "breast-w",
    "iris",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", nargs="+", type=int, default=[10, 20, 30, 50, 100])
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--out", default="bench/lawnb_k_sweep.csv")
    args = ap.parse_args()
    rows = []
    for name in args.datasets:
        accs = {k: cv_accuracy(name, lambda k=k: LAWNB(k=k)) for k in args.k}
        rows.append(dict(dataset=name, **{f"k={k}": a for k, a in accs.items()}))
        print(name, " ".join(f"{a:6.2f}" for a in accs.values()), flush=True)
    out = pd.DataFrame(rows).set_index("dataset")
    out.loc["mean"] = out.mean()
    out.loc["wins"] = (out.iloc[:-1].rank(axis=1, ascending=False) == 1).sum()
    print(out.round(2).to_string())
    out.to_csv(args.out)


if __name__ == "__main__":
    main()
