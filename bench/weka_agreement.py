"""Accuracy of dbayes next to Weka 3.6's on the bundled datasets (10-fold CV, MDL inside each fold).

    python bench/weka_agreement.py [--weka-csv ../shared/reference/weka.csv] [--classifiers nb,tan-weka,tan]
                                   [--seeds 1] [--datasets adult,letter,...] [--out weka_agreement.csv]

Weka's figures come from a CSV in the format of ``shared/tools/run_weka.py`` (columns dataset, classifier, mode,
accuracy_pct); ours are computed in this run. Folds differ from Weka's, so on small datasets part of any gap is
fold choice: ``--seeds 1,2,3`` shows how far our own accuracy moves between fold seeds.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

import dask
import pandas as pd

from dbayes.data.bundled import bundled_names
from dbayes.engine import run_job
from dbayes.engine.results import ResultStore
from dbayes.job import parse_job

CLASSIFIERS = {
    "nb": ({"name": "nb"}, "NB"),
    "tan-weka": ({"name": "tan", "label": "tan-weka", "smoothing": "weka"}, "TAN"),
    "tan": ({"name": "tan", "label": "tan"}, "TAN"),
    "aode": ({"name": "aode"}, "AODE"),
    "waode": ({"name": "waode"}, "WAODE"),
    "c45": ({"name": "c45"}, "J48"),
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--weka-csv", default=str(Path(__file__).resolve().parents[1].parent / "shared/reference/weka.csv"))
    ap.add_argument("--classifiers", default="nb,tan-weka,tan")
    ap.add_argument("--datasets", default="")
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--out", default="weka_agreement.csv")
    ap.add_argument("--workdir", default="/tmp/dbayes-weka-agreement")
    ap.add_argument(
        "--fold-assignment",
        default="weka",
        choices=["weka", "hash"],
        help="'weka': Weka's own folds, so every difference is the algorithm's (default); "
        "'hash': dbayes's partition-local stratified folds",
    )
    args = ap.parse_args()
    weka = pd.read_csv(args.weka_csv)
    weka = weka[(weka["mode"] == "cv") & (weka["status"] == "ok")]
    names = args.datasets.split(",") if args.datasets else [d for d in bundled_names() if d in set(weka["dataset"])]
    clfs = args.classifiers.split(",")
    rows = []
    for seed in [int(s) for s in args.seeds.split(",")]:
        for name in names:
            job = parse_job(
                {
                    "name": f"agree-{name}-{seed}",
                    "datasets": [name],
                    "folds": 10,
                    "seed": seed,
                    "classifiers": [CLASSIFIERS[c][0] for c in clfs],
                    "save_predictions": False,
                    "fold_assignment": args.fold_assignment,
                },
                "weka_agreement",
            )
            out = Path(args.workdir) / f"{name}-s{seed}-{args.fold_assignment}"
            shutil.rmtree(out, ignore_errors=True)
            t0 = time.perf_counter()
            with dask.config.set(scheduler="synchronous"):
                run_job(job, out, None, report=lambda s: None)
            m = ResultStore(out).read_metrics()
            # pooled over folds, as Weka reports it: correct predictions / test rows
            m["correct"] = m["accuracy"] * m["n_test"]
            g = m.groupby("classifier")
            acc = g["correct"].sum() / g["n_test"].sum() * 100
            for c in clfs:
                wk = weka[(weka.dataset == name) & (weka.classifier == CLASSIFIERS[c][1])]["accuracy_pct"]
                rows.append(
                    {
                        "dataset": name,
                        "seed": seed,
                        "classifier": c,
                        "dbayes": acc[c],
                        "weka": float(wk.iloc[0]) if len(wk) else float("nan"),
                    }
                )
            print(f"{name} seed {seed}: {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    df = pd.DataFrame(rows)
    df["diff"] = df["dbayes"] - df["weka"]
    df.to_csv(args.out, index=False)
    piv = df.groupby(["dataset", "classifier"])[["dbayes", "weka", "diff"]].mean().unstack("classifier")
    pd.set_option("display.width", 200)
    print(piv.round(2).to_string())
    for c in clfs:
        d = df[df.classifier == c].groupby("dataset")["diff"].mean().abs()
        equal, near, n = int((d < 1e-9).sum()), int((d <= 0.5).sum()), int(d.notna().sum())
        adult, letter = d.get("adult", float("nan")), d.get("letter", float("nan"))
        print(
            f"{c}: equal on {equal}, within 0.5 points on {near}/{n} datasets; mean |diff| {d.mean():.2f}; "
            f"adult {adult:.2f}, letter {letter:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
