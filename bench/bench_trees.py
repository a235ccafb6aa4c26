"""Tree benchmark (issue 5): time to build one C4.5 tree on all of Adult and on N sampled Adult-shaped rows with
1 and 2 workers, next to J48's build time on Adult measured in the same run.

    python bench/bench_trees.py [--rows 10000000] [--workdir /tmp/dbayes-bench] [--weka]

The tree is grown by the engine (one split-statistics reduction per level over the partitions); the figure is the
fit time of a resubstitution job (all rows train one tree), without the cluster's start-up.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import SHARED, log, make_data  # noqa: E402


def one_tree(source: str, workers: int, workdir: Path, classifier: dict) -> dict:
    from dbayes.engine import run_job, runtime
    from dbayes.job import parse_job

    job = parse_job(
        {
            "name": "tree",
            "datasets": [source],
            "resubstitution": True,
            "discretize": "none",
            "save_predictions": False,
            "classifiers": [classifier],
        },
        "bench",
    )
    out = workdir / f"tree-{Path(source).stem}-{workers}"
    with runtime("local", n_workers=workers) as rt:
        shutil.rmtree(out, ignore_errors=True)
        t0 = time.perf_counter()
        res = run_job(job, out, rt, report=lambda s: log(f"  {s}"))
        wall = time.perf_counter() - t0
    m = res.metrics.iloc[0]
    return {
        "dataset": Path(source).stem,
        "workers": workers,
        "fit_seconds": float(m["train_seconds"]),
        "job_seconds": wall,
        "tree_size": int(m["tree_size"]),
        "training_accuracy": float(m["accuracy"]),
    }


def j48_build_time(workdir: Path) -> dict | None:
    tool = SHARED / "tools/run_weka.py"
    if not tool.exists() or not shutil.which("java"):
        return None
    out = workdir / "weka_j48.csv"
    out.unlink(missing_ok=True)
    adult = Path(__file__).resolve().parents[1] / "dbayes/datasets/adult.parquet"
    subprocess.run(
        [sys.executable, str(tool), str(adult), "--classifiers", "J48", "--timing-only", "--out", str(out)],
        check=False,
        capture_output=True,
    )
    import pandas as pd

    if not out.exists():
        return None
    r = pd.read_csv(out).iloc[-1]
    return {"weka_train_s": float(r["weka_train_s"]), "wall_s": float(r["wall_s"]), "status": r["status"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--workdir", default=str(Path(tempfile.gettempdir()) / "dbayes-bench"))
    ap.add_argument("--weka", action="store_true")
    ap.add_argument("--no-big", action="store_true")
    ap.add_argument("--part", type=int, default=None, help="grow on one part file of the sampled rows only")
    args = ap.parse_args()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    rows = [one_tree("adult", w, workdir, {"name": "c45"}) for w in (1, 2)]
    if not args.no_big:
        big = workdir / f"adult-{args.rows}.parquet"
        make_data(big, args.rows)
        source = str(big) if args.part is None else str(big / f"part-{args.part:05d}.parquet")
        rows += [one_tree(source, w, workdir, {"name": "c45", "max_exact_values": 4096}) for w in (1, 2)]
    j48 = j48_build_time(workdir) if args.weka else None
    (workdir / "bench_trees.json").write_text(json.dumps({"trees": rows, "j48_adult": j48}, indent=1))
    print("# one C4.5 tree on all rows (engine, LocalCluster)")
    for r in rows:
        print(
            f"{r['dataset']:28s} workers={r['workers']}  fit {r['fit_seconds']:7.2f} s  (job {r['job_seconds']:.1f} s, "
            f"{r['tree_size']} nodes, training accuracy {100 * r['training_accuracy']:.2f}%)"
        )
    if j48:
        print(f"J48 on adult, same run: build {j48['weka_train_s']:.2f} s (whole CLI call {j48['wall_s']:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
