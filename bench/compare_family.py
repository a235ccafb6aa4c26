"""Accuracy of LAWNB, LWNB and WANBIA side by side (10-fold CV, Weka's folds and MDL).

Cf. the seed's Table 2 (LAWNB vs LWNB, WANBIA, TAN, AODE, WAODE on 20 UCI datasets; the
paper reports 10 x 10-fold CV, this is one run of 10-fold CV with seed 1).

    python bench/compare_family.py --out bench/family_accuracy.csv
"""

import argparse
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from compare_weka_lwnb import cv_accuracy  # noqa: E402
from sweep_lawnb_k import DATASETS  # noqa: E402

from dbayes.models.lawnb import LAWNB  # noqa: E402
from dbayes.models.lwnb import LWNB  # noqa: E402
from dbayes.models.wanbia import WANBIA  # noqa: E402

MODELS = {"LAWNB(k=30)": LAWNB, "LWNB(k=50)": LWNB, "WANBIA": WANBIA}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--out", default="bench/family_accuracy.csv")
    args = ap.parse_args()
    rows = []
    for name in args.datasets:
        rows.append(dict(dataset=name, **{m: cv_accuracy(name, cls) for m, cls in MODELS.items()}))
        cells = (f"{v:8.2f}" if isinstance(v, float) else f"{v:14s}" for v in rows[-1].values())
        print(" ".join(cells), flush=True)
    out = pd.DataFrame(rows).set_index("dataset")
    out.loc["mean"] = out.mean()
    print(out.round(2).to_string())
    out.to_csv(args.out)


if __name__ == "__main__":
    main()
