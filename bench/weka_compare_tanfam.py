"""Accuracy of the TAN-family models next to Weka 3.6's (10-fold CV, MDL discretization inside each fold).

The folds are Weka's own (``-x 10 -s 1``): java.util.Random(1), ``Instances.randomize``, ``stratify`` and
``testCV`` replicated below, so both sides test on the same rows. Each fold's numeric attributes are cut by
``dbayes.data.discretize.mdl_cut_points`` on that fold's training rows. Weka's figures come from
../shared/reference/weka.csv (classifiers NB, TAN, AODE, WAODE; mode cv).

usage: PYTHONPATH=. python bench/weka_compare_tanfam.py [--models nb,tan,aode,waode] [--time] [dataset ...]
(extra models: tan-f (Friedman TAN), semilazy-tan, sp-tan, hocp-tan, lazy-tan, lazy-tan-all)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from dbayes.counts import TableLayout, count_tables
from dbayes.data.bundled import bundled_path
from dbayes.data.discretize import apply_cut_points, mdl_cut_points, value_histogram
from dbayes.evaluate.weka_folds import weka_folds
from dbayes.models.aode import AODE, WAODE
from dbayes.models.base import TrainingRows
from dbayes.models.nb import NaiveBayes
from dbayes.models.tan import TAN

WEKA_CSV = Path(__file__).resolve().parents[2] / "shared/reference/weka.csv"
DEFAULT = [
    "adult",
    "letter",
    "iris",
    "labor",
    "haberman",
    "new-thyroid",
    "zoo",
    "glass",
    "wine",
    "ecoli",
    "lymph",
    "hepatitis",
    "balance-scale",
    "heart-statlog",
    "heart-h",
    "heart-c",
    "autos",
    "primary-tumor",
    "diabetes",
    "breast-w",
    "vote",
    "colic",
    "tic-tac-toe",
    "credit-a",
    "car",
    "ionosphere",
    "sonar",
    "dermatology",
    "cmc",
    "audiology",
    "vehicle",
    "solar-flare",
    "credit-g",
    "soybean",
    "postoperative",
    "tae",
    "liver-disorders",
    "lung-cancer",
    "sponge",
    "promoters",
]


def load(name: str):
    df = pd.read_parquet(bundled_path(name))
    df = df[df["class"].notna()].reset_index(drop=True)
    y = df["class"].cat.codes.to_numpy().astype(np.int64)
    C = len(df["class"].cat.categories)
    cols = [c for c in df.columns if c != "class"]
    return df, cols, y, C


def code_fold(df, cols, y, C, train_mask):
    """Coded X of all rows with the cut points learned on the training rows; cards."""
    Xs, cards = [], []
    for c in cols:
        s = df[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            V = len(s.cat.categories)
            codes = s.cat.codes.to_numpy().astype(np.int64)
            codes[codes < 0] = V
        else:
            x = s.to_numpy(dtype=np.float64, na_value=np.nan)
            v, cnt = value_histogram(x[train_mask], y[train_mask], C)
            cuts = mdl_cut_points(v, cnt) if len(v) else np.zeros(0)
            codes = apply_cut_points(x, cuts)
            V = len(cuts) + 1
        Xs.append(codes)
        cards.append(V)
    X = np.asfortranarray(np.column_stack(Xs)) if Xs else np.zeros((len(df), 0), dtype=np.int64, order="F")
    return X, tuple(cards)


MODELS = {
    "nb": lambda: NaiveBayes(),
    "tan": lambda: TAN(smoothing="weka"),
    "aode": lambda: AODE(),
    "waode": lambda: WAODE(),
}
WEKA_NAME = {"nb": "NB", "tan": "TAN", "aode": "AODE", "waode": "WAODE"}


def extra_models():
    from dbayes.models.hocp_tan import HOCPTAN
    from dbayes.models.lazy_tan import LazyTAN
    from dbayes.models.semilazy_tan import SemiLazyTAN
    from dbayes.models.sp_tan import SuperParentTAN

    return {
        "tan-f": lambda: TAN(),
        "semilazy-tan": lambda: SemiLazyTAN(),
        "sp-tan": lambda: SuperParentTAN(),
        "hocp-tan": lambda: HOCPTAN(),
        "lazy-tan": lambda: LazyTAN(variant="class"),
        "lazy-tan-all": lambda: LazyTAN(variant="all"),
    }


def cv(name: str, models: list[str]):
    df, cols, y, C = load(name)
    fold = weka_folds(y)
    correct = {m: 0 for m in models}
    secs = {m: np.zeros(3) for m in models}  # counting, fit, predict
    for f in range(10):
        test = fold == f
        X, cards = code_fold(df, cols, y, C, ~test)
        for m in models:
            model = MODELS[m]()
            t0 = time.perf_counter()
            tables = count_tables(X[~test], y[~test], TableLayout(C, cards, pairs=model.needs_pairs))
            rows = TrainingRows(X[~test], y[~test], cards, C) if model.needs_rows else None
            t1 = time.perf_counter()
            model.fit(tables, rows)
            t2 = time.perf_counter()
            pred = model.predict(np.asfortranarray(X[test]))
            secs[m] += [t1 - t0, t2 - t1, time.perf_counter() - t2]
            correct[m] += int((pred == y[test]).sum())
    return {m: 100.0 * correct[m] / len(y) for m in models}, secs


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("datasets", nargs="*")
    ap.add_argument("--models", default="nb,tan,aode,waode")
    ap.add_argument("--time", action="store_true", help="print count/fit/predict seconds (sum over the 10 folds)")
    args = ap.parse_args(argv)
    try:
        MODELS.update(extra_models())
    except ImportError:
        pass
    models = args.models.split(",")
    weka = pd.read_csv(WEKA_CSV)
    weka = weka[weka["mode"] == "cv"].set_index(["dataset", "classifier"])["accuracy_pct"]
    names = args.datasets or DEFAULT
    head = f"{'dataset':16s}" + "".join(f"{m:>22s}" for m in models)
    print(head + "   (accuracy %: ours / weka / ours - weka)")
    for name in names:
        acc, secs = cv(name, models)
        line = f"{name:16s}"
        for m in models:
            w = weka.get((name, WEKA_NAME.get(m, "")), np.nan)
            line += f"  {acc[m]:6.2f}/{w:6.2f}/{acc[m] - w:+5.2f}"
        print(line, flush=True)
        if args.time:
            for m in models:
                c, f, p = secs[m]
                print(
                    f"    {m:14s} count {c:7.3f}s  fit {f:7.3f}s  predict {p:7.3f}s"
                    f"  fit+predict {f + p:7.3f}s"
                    f"  total {c + f + p:7.3f}s",
                    flush=True,
                )


if __name__ == "__main__":
    sys.exit(main())
