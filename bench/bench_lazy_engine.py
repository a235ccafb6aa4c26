"""Lazy models through the engine (issue 4): 10-fold CV of LAWNB and LWNB on Adult and Letter on a 2-worker
LocalCluster, wall time and test instances per second, next to Weka's LWL (K = 50, linear kernel, naive Bayes)
measured in the same run.

    python bench/bench_lazy_engine.py [--weka] [--neighbours broadcast|topk]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import cv_bench  # noqa: E402
from bench_tan_family import weka  # noqa: E402

ROWS = {"adult": 48842, "letter": 20000}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", default=str(Path(tempfile.gettempdir()) / "dbayes-bench"))
    ap.add_argument("--weka", action="store_true")
    ap.add_argument("--weka-timeout", type=int, default=1800)
    args = ap.parse_args()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    sets = {"lawnb": [{"name": "lawnb"}], "lwnb": [{"name": "lwnb"}]}
    rows = cv_bench({"adult": "adult", "letter": "letter"}, sets, workdir)
    wk = weka({"adult": "adult", "letter": "letter"}, "LWNB50", workdir, args.weka_timeout) if args.weka else []
    (workdir / "bench_lazy_engine.json").write_text(json.dumps({"cv": rows, "weka": wk}, indent=1, default=str))
    w = {r["dataset"]: r for r in wk}
    print("# lazy models: 10-fold CV on a 2-worker LocalCluster")
    print("dataset  classifier  seconds  instances/s  accuracy  weka_LWL_K50_s")
    for r in rows:
        wr = w.get(r["dataset"])
        ws = f"{wr['wall_s']:.1f}" if wr and wr["status"] == "ok" else "-"
        acc = list(r["accuracy"].values())[0]
        print(
            f"{r['dataset']:8s} {r['classifiers']:10s} {r['wall_s']:8.2f} {ROWS[r['dataset']] / r['wall_s']:11.0f} "
            f"{100 * acc:8.2f} {ws:>14}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
