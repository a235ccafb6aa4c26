"""TAN-family benchmark (issue 3): 10-fold CV time of semi-lazy TAN and SuperParent TAN as ratios to TAN's, and
AODE's time next to Weka's AODE, measured in the same run.

    python bench/bench_tan_family.py [--rows 10000000] [--workdir /tmp/dbayes-bench] [--weka] [--weka-big]

Each classifier runs alone (its own job: all its passes counted) on a 2-worker LocalCluster started once.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import cv_bench, make_data, run_weka  # noqa: E402


def weka(datasets: dict[str, str], classifiers: str, workdir: Path, timeout: int) -> list[dict]:
    w = run_weka(datasets, classifiers, workdir, timeout)
    return [] if w.empty else w[["dataset", "classifier", "status", "accuracy_pct", "wall_s"]].to_dict("records")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--workdir", default=str(Path(tempfile.gettempdir()) / "dbayes-bench"))
    ap.add_argument("--weka", action="store_true")
    ap.add_argument("--weka-big", action="store_true")
    ap.add_argument("--weka-timeout", type=int, default=3600)
    ap.add_argument("--no-big", action="store_true", help="skip the sampled rows")
    args = ap.parse_args()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    sets = {
        "tan": [{"name": "tan"}],
        "semilazy-tan": [{"name": "semilazy-tan"}],
        "sp-tan": [{"name": "sp-tan"}],
        "aode": [{"name": "aode"}],
    }
    data = {"adult": "adult", "letter": "letter"}
    rows = cv_bench(data, sets, workdir)
    if not args.no_big:
        big = workdir / f"adult-{args.rows}.parquet"
        make_data(big, args.rows)
        rows += cv_bench({"sampled": str(big)}, {"tan": sets["tan"], "aode": sets["aode"]}, workdir)
    wk = []
    if args.weka or args.weka_big:
        wd = dict(data)
        if args.weka_big and not args.no_big:
            wd["sampled"] = str(workdir / f"adult-{args.rows}.parquet")
        wk = weka(wd, "TAN,AODE", workdir, args.weka_timeout)
    report = {"cv": rows, "weka": wk}
    (workdir / "bench_tan_family.json").write_text(json.dumps(report, indent=1, default=str))
    t = {(r["dataset"], r["classifiers"]): r["wall_s"] for r in rows}
    w = {(r["dataset"], r["classifier"]): r for r in wk}
    print("# TAN family: 10-fold CV wall seconds (2-worker LocalCluster)")
    print("dataset  classifier      seconds  ratio_to_tan  weka_s  weka/dbayes")
    for (d, c), s in t.items():
        ratio = s / t[(d, "tan")] if (d, "tan") in t else float("nan")
        wr = w.get((d, c.upper())) if c in ("tan", "aode") else None
        ws = wr["wall_s"] if wr and wr["status"] == "ok" else None
        print(f"{d:8s} {c:14s} {s:8.2f} {ratio:12.2f} {ws if ws else '-':>7} {f'{ws / s:.1f}x' if ws else '-':>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
