"""Core benchmark (issue 2): the counting kernel, the counting pass on a cluster, and 10-fold CV of NB and TAN,
each next to a reference measured in the same run.

    python bench/bench_core.py [--rows 10000000] [--workdir /tmp/dbayes-bench] [--weka] [--weka-big]

1. Kernel: all class, attribute and pair counts of N Adult-shaped rows (codes already in memory), one thread:
   dbayes's kernel (numba; and the NumPy fallback) against the C reference "C stream" of
   shared/reference/limits.md, compiled from bench/c_reference/count_stream.c and run on the same codes.
2. Counting pass: the engine's pass (decode Parquet partitions, code, count, tree-sum) over the N rows on a
   LocalCluster with 1 and with 2 single-threaded workers.
3. 10-fold CV of NB and TAN on Adult, Letter and the N sampled rows on a 2-worker LocalCluster (started once,
   its start-up not counted), with the peak memory of each worker; Weka 3.6 on the same datasets through
   shared/tools/run_weka.py (--weka; --weka-big adds the N rows, which takes Weka many minutes).
The N rows are made once with ``dbayes sample --from adult`` and kept in --workdir.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
C_STREAM_LIMITS_MD = 12.6e6  # limits.md's figure for "C stream", Adult-shaped (for context; the ratio uses ours)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def best_of(fn, repeat=3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def make_data(path: Path, rows: int) -> None:
    if path.exists():
        return
    log(f"sampling {rows:,} Adult-shaped rows into {path} ...")
    from dbayes.engine import runtime
    from dbayes.engine.sample import sample_dataset

    with runtime("local", n_workers=2):
        sample_dataset("adult", rows, path)


def coded_rows(path: Path):
    """The N rows coded with MDL bins fitted on all of them (the kernel's input)."""
    import dask

    from dbayes.counts import TableLayout
    from dbayes.data.encode import Coding, encode_partition
    from dbayes.engine.cv import _discretize
    from dbayes.engine.datasets import open_dataset
    from dbayes.evaluate.partition import RoundPlan
    from dbayes.job import parse_job

    data = open_dataset(str(path))
    parts = data.frame.to_delayed()
    C = data.schema.n_classes
    job = parse_job({"datasets": [str(path)], "classifiers": [{"name": "nb"}], "discretize_scope": "global"}, "bench")
    plan = RoundPlan(
        data.schema,
        Coding(data.schema, {}),
        2,
        1,
        0,
        0.0,
        np.zeros((len(parts), C), dtype=np.int64),
        data.row_starts(),
        "global",
    )
    with dask.config.set(scheduler="threads"):
        cuts = {n: c[0] for n, c in _discretize(data, job, parts, dask.delayed(plan, traverse=False), 2).items()}
        coding = Coding(data.schema, cuts)
        blocks = dask.compute(*[dask.delayed(encode_partition)(p, coding) for p in parts])
    X = np.asfortranarray(np.concatenate([b[0] for b in blocks]))
    y = np.concatenate([b[1] for b in blocks])
    return X, y, TableLayout(C, coding.cards), coding


def kernel_bench(X, y, layout, workdir: Path) -> dict:
    from dbayes.counts import count_block, kernel_name
    from dbayes.counts.kernels import count_block_numpy

    n = len(y)
    out = {"rows": n, "attributes": X.shape[1], "cells": layout.size, "kernel": kernel_name()}
    count_block(X[:1000], y[:1000], layout)  # compile
    t = best_of(lambda: count_block(X, y, layout))
    out["dbayes_rows_per_s"] = n / t
    fold = (np.arange(n) % 10).astype(np.int64)
    count_block(X[:1000], y[:1000], layout, fold[:1000], 10)
    t = best_of(lambda: count_block(X, y, layout, fold, 10))
    out["dbayes_10fold_rows_per_s"] = n / t
    m = min(n, 2_000_000)
    t = best_of(lambda: count_block_numpy(X[:m], y[:m].astype(np.int64), layout, None, 1), repeat=1)
    out["numpy_rows_per_s"] = m / t
    # the C reference on the same codes (pair tables, as limits.md measures)
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc:
        exe = workdir / "count_stream"
        subprocess.run([cc, "-O2", "-o", str(exe), str(ROOT / "bench/c_reference/count_stream.c")], check=True)
        Xc = np.ascontiguousarray(X.T).astype(np.uint8)
        # the C kernel counts only the known-value cells of each pair: give it the codes with missing as V_i
        (workdir / "codes.bin").write_bytes(Xc.tobytes())
        (workdir / "classes.bin").write_bytes(y.astype(np.uint8).tobytes())
        slots = [str(int(s)) for s in layout.slots]
        rates = []
        for _ in range(3):
            r = subprocess.run(
                [
                    str(exe),
                    str(n),
                    str(X.shape[1]),
                    str(layout.n_classes),
                    str(workdir / "codes.bin"),
                    str(workdir / "classes.bin"),
                    *slots,
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            rates.append(float(r.stdout.split()[0]))
        out["c_stream_rows_per_s"] = max(rates)
        out["ratio_to_c_stream"] = out["dbayes_rows_per_s"] / out["c_stream_rows_per_s"]
        out["ratio_10fold_to_c_stream"] = out["dbayes_10fold_rows_per_s"] / out["c_stream_rows_per_s"]
    out["ratio_to_limits_md_c_stream"] = out["dbayes_rows_per_s"] / C_STREAM_LIMITS_MD
    return out


def counting_pass(path: Path, coding, workers: int) -> dict:
    import dask

    from dbayes.counts import TableLayout
    from dbayes.engine import runtime
    from dbayes.engine.cv import tree_sum
    from dbayes.engine.datasets import open_dataset
    from dbayes.evaluate.folds import class_offsets
    from dbayes.evaluate.partition import RoundPlan, partition_counts

    with runtime("local", n_workers=workers) as rt:
        data = open_dataset(str(path))
        data.frame = data.frame.persist()
        parts = data.frame.to_delayed()
        plan = RoundPlan(
            data.schema, coding, 10, 1, 0, 0.0, class_offsets(data.partition_class_counts()), data.row_starts(), "fold"
        )
        layout = TableLayout(data.schema.n_classes, coding.cards)

        def once():
            dask.compute(tree_sum([dask.delayed(partition_counts)(p, i, plan, layout) for i, p in enumerate(parts)]))

        once()  # compile the kernel in every worker
        t = best_of(once)
        rt.client.cancel(data.frame)
    return {"workers": workers, "seconds": t, "rows_per_s": data.n_rows / t}


def cv_bench(datasets: dict[str, str], classifier_sets: dict[str, list], workdir: Path) -> list[dict]:
    from dbayes.engine import run_job, runtime
    from dbayes.job import parse_job

    rows = []
    with runtime("local", n_workers=2) as rt:
        # warm the workers (numba compilation of the kernels) on a small job, not counted
        warm = parse_job(
            {"name": "warm", "datasets": ["iris"], "classifiers": [{"name": "nb"}, {"name": "tan"}]}, "warm"
        )
        run_job(warm, workdir / "warm", rt, report=lambda s: None)
        for dname, source in datasets.items():
            for setname, clfs in classifier_sets.items():
                job = parse_job(
                    {
                        "name": f"{dname}-{setname}",
                        "datasets": [source],
                        "folds": 10,
                        "seed": 1,
                        "classifiers": clfs,
                        "save_predictions": dname != "sampled",
                    },
                    "bench",
                )
                out = workdir / f"cv-{dname}-{setname}"
                shutil.rmtree(out, ignore_errors=True)
                rt.client.run(_reset_peak)
                t0 = time.perf_counter()
                res = run_job(job, out, rt, report=lambda s: log(f"  {s}"))
                wall = time.perf_counter() - t0
                peaks = rt.client.run(_peak_rss)
                acc = res.metrics.groupby("classifier")["accuracy"].mean().round(4).to_dict()
                rows.append(
                    {
                        "dataset": dname,
                        "classifiers": setname,
                        "wall_s": wall,
                        "accuracy": acc,
                        "peak_worker_rss_gib": max(peaks.values()) / 2**30,
                    }
                )
                log(
                    f"{dname} {setname}: {wall:.2f} s, accuracy {acc}, peak worker RSS "
                    f"{rows[-1]['peak_worker_rss_gib']:.2f} GiB"
                )
    return rows


def _reset_peak():
    # Linux: writing 5 to clear_refs resets the peak RSS (VmHWM) of this process
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def _peak_rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def run_weka(datasets: dict[str, str], classifiers: str, workdir: Path, timeout: int) -> pd.DataFrame:
    """Weka 3.6 through shared/tools/run_weka.py on each dataset (bundled name or Parquet path), in this run."""
    tool = SHARED / "tools/run_weka.py"
    if not tool.exists() or not shutil.which("java"):
        log("Weka not run: shared/tools/run_weka.py or java not found (apt-get install weka)")
        return pd.DataFrame()
    out = workdir / f"weka-{classifiers.replace(',', '-')}.csv"
    out.unlink(missing_ok=True)
    for name, source in datasets.items():
        path = source if Path(source).exists() else str(ROOT / "dbayes/datasets" / f"{source}.parquet")
        log(f"Weka {classifiers} on {name} ...")
        cmd = [sys.executable, str(tool), path, "--classifiers", classifiers, "--out", str(out)]
        subprocess.run([*cmd, "--timeout", str(timeout), "--xmx", "12g"], check=False, capture_output=True)
    return pd.read_csv(out) if out.exists() else pd.DataFrame()


def weka_bench(datasets: dict[str, str], workdir: Path, timeout: int) -> pd.DataFrame:
    return run_weka(datasets, "NB,TAN", workdir, timeout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--workdir", default=str(Path(tempfile.gettempdir()) / "dbayes-bench"))
    ap.add_argument("--weka", action="store_true", help="run Weka on Adult and Letter in the same run")
    ap.add_argument("--weka-big", action="store_true", help="also run Weka on the sampled rows")
    ap.add_argument("--weka-timeout", type=int, default=3600)
    ap.add_argument("--skip", default="", help="comma list of parts to skip: kernel,pass,cv")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    big = workdir / f"adult-{args.rows}.parquet"
    make_data(big, args.rows)
    report: dict = {"rows": args.rows, "cpu_count": os.cpu_count()}
    X, y, layout, coding = coded_rows(big)
    if "kernel" not in skip:
        report["kernel"] = kernel_bench(X, y, layout, workdir)
        log(json.dumps(report["kernel"], indent=1))
    del X, y
    if "pass" not in skip:
        report["counting_pass"] = [counting_pass(big, coding, w) for w in (1, 2)]
        log(json.dumps(report["counting_pass"], indent=1))
    if "cv" not in skip:
        sets = {"nb": [{"name": "nb"}], "tan": [{"name": "tan"}], "nb-tan": [{"name": "nb"}, {"name": "tan"}]}
        report["cv"] = cv_bench({"adult": "adult", "letter": "letter", "sampled": str(big)}, sets, workdir)
    if args.weka or args.weka_big:
        wd = {"adult": "adult", "letter": "letter"}
        if args.weka_big:
            wd["sampled"] = str(big)
        w = weka_bench(wd, workdir, args.weka_timeout)
        if not w.empty:
            report["weka"] = w[["dataset", "classifier", "status", "accuracy_pct", "wall_s"]].to_dict("records")
    (workdir / "bench_core.json").write_text(json.dumps(report, indent=1, default=str))
    print(format_report(report))
    return 0


def format_report(r: dict) -> str:
    lines = [f"# dbayes core benchmark ({r['rows']:,} Adult-shaped rows, {r['cpu_count']} cores)"]
    k = r.get("kernel")
    if k:
        lines += [
            "",
            f"kernel ({k['kernel']}, one thread, {k['attributes']} attributes, {k['cells']:,} cells):",
            f"  dbayes           {k['dbayes_rows_per_s'] / 1e6:6.2f} M rows/s"
            + (f"   ratio to C stream (same run) {k['ratio_to_c_stream']:.2f}" if "ratio_to_c_stream" in k else ""),
            f"  dbayes, 10 folds {k['dbayes_10fold_rows_per_s'] / 1e6:6.2f} M rows/s"
            + (f"   ratio {k['ratio_10fold_to_c_stream']:.2f}" if "ratio_10fold_to_c_stream" in k else ""),
            f"  NumPy fallback   {k['numpy_rows_per_s'] / 1e6:6.2f} M rows/s",
        ]
        if "c_stream_rows_per_s" in k:
            lines.append(f"  C stream         {k['c_stream_rows_per_s'] / 1e6:6.2f} M rows/s (limits.md: 12.6)")
    for p in r.get("counting_pass", []):
        lines.append(
            f"counting pass, {p['workers']} worker(s): {p['seconds']:.2f} s = {p['rows_per_s'] / 1e6:.2f} M rows/s"
        )
    weka = {(w["dataset"], w["classifier"]): w for w in r.get("weka", [])}
    if r.get("cv"):
        lines += [
            "",
            "10-fold CV wall seconds (2-worker LocalCluster):",
            "dataset  classifiers  dbayes_s  weka_s  ratio  peak_GiB",
        ]
        for c in r["cv"]:
            wk = None
            if c["classifiers"] in ("nb", "tan"):
                w = weka.get((c["dataset"], c["classifiers"].upper()))
                wk = w["wall_s"] if w and w.get("status") == "ok" else None
            elif c["classifiers"] == "nb-tan":
                a, b = weka.get((c["dataset"], "NB")), weka.get((c["dataset"], "TAN"))
                if a and b and a.get("status") == b.get("status") == "ok":
                    wk = a["wall_s"] + b["wall_s"]
            ratio = f"{wk / c['wall_s']:.1f}x" if wk else "-"
            lines.append(
                f"{c['dataset']:8s} {c['classifiers']:12s} {c['wall_s']:8.2f} {wk if wk else '-':>7} {ratio:>6} "
                f"{c['peak_worker_rss_gib']:8.2f}"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
