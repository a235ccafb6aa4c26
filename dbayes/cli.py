"""``dbayes run | report | import | sample``: the command line.

Bad input ends with one line naming the file, column or option at fault and exit status 2, and writes nothing.
"""

from __future__ import annotations

import argparse
import logging
import sys
import warnings
from pathlib import Path

from dbayes.errors import DbayesError

__all__ = ["main"]


def _auto_vary(metrics, vary: str | None) -> str | None:
    """The protocol column a job varied besides noise (``test_limit``), when the user named none."""
    if vary is None and "test_limit" in metrics.columns and metrics["test_limit"].nunique() > 1:
        return "test_limit"
    return vary


def _summary(metrics, baseline: str | None = None, vary: str | None = None, test: str = "corrected") -> str:
    """The run's summary: the paper-style tables of ``dbayes.evaluate.report`` as text."""
    from dbayes.evaluate.report import render_text, summary_tables

    vary = _auto_vary(metrics, vary)
    return render_text(summary_tables(metrics, baseline=baseline, vary=vary, test=test))


def cmd_run(args: argparse.Namespace) -> int:
    from dbayes.engine import run_job, runtime
    from dbayes.job import load_job

    job = load_job(args.job)
    out = Path(args.out or job.out or Path("results") / job.name)
    with runtime(args.scheduler, n_workers=args.workers) as rt:
        if rt.dashboard:
            print(f"Dask dashboard: {rt.dashboard}", file=sys.stderr)
        result = run_job(job, out, rt)
        _keep_job_file(Path(args.job), out)
    if result.units_skipped:
        print(f"{result.units_skipped} unit(s) already done were skipped", file=sys.stderr)
    print(_summary(result.metrics, job.classifiers[0].label))
    print(
        f"\n{result.units_done} unit(s) computed in {result.seconds:.1f} s; metrics in {out / 'metrics'}, "
        f"predictions in {out / 'predictions'}"
    )
    return 0


def _keep_job_file(job_file: Path, out: Path) -> None:
    """A copy of the job beside its results (provenance; ``dbayes report`` takes the baseline from it)."""
    tmp = out / ".tmp-job.toml"
    tmp.write_bytes(job_file.read_bytes())
    tmp.replace(out / "job.toml")


def _job_baseline(root: Path) -> str | None:
    """The first classifier label of the job whose results are in ``root`` (None when unknown)."""
    from dbayes.job import load_job

    try:
        return load_job(root / "job.toml").classifiers[0].label
    except DbayesError:
        return None


def _complete_datasets(metrics, root: Path):
    """The metrics of the datasets whose every unit of the job in ``root`` is there, and the names of the
    others (an interrupted or still running job): means over a part of a dataset's folds, and rank tests over
    datasets missing some classifiers, would mislead."""
    from dbayes.job import load_job

    try:
        job = load_job(root / "job.toml")
    except DbayesError:
        return metrics, []
    per_dataset = len(job.classifiers) * len(job.noise) * len(job.test_limit) * job.repeats * job.folds
    counts = metrics.groupby("dataset").size()
    partial = sorted(str(d) for d, n in counts.items() if n < per_dataset)
    absent = [Path(d).stem for d in job.datasets if Path(d).stem not in set(map(str, counts.index))]
    return metrics[~metrics["dataset"].isin(partial)], partial + [f"{d} (no result)" for d in absent]


def cmd_report(args: argparse.Namespace) -> int:
    from dbayes.engine.results import ResultStore
    from dbayes.evaluate.report import write_report

    root = Path(args.results)
    metrics = ResultStore(root).read_metrics()
    if metrics.empty:
        raise DbayesError(f"{root}: no results (expected Parquet files in {root / 'metrics'})")
    if not args.partial:
        metrics, partial = _complete_datasets(metrics, root)
        if partial:
            print(
                f"dbayes: note: {len(partial)} dataset(s) of {root / 'job.toml'} are not complete and are left out "
                f"(--partial keeps them): {', '.join(partial)}",
                file=sys.stderr,
            )
        if metrics.empty:
            raise DbayesError(f"{root}: no dataset has all its results yet (--partial reports what is there)")
    out = Path(args.out or root / "report")
    if args.baseline is None:
        args.baseline = _job_baseline(root)
    if args.baseline and args.baseline not in set(metrics["classifier"]):
        raise DbayesError(
            f"--baseline {args.baseline}: no such classifier label in {root} "
            f"(labels: {', '.join(sorted(set(metrics['classifier'])))})"
        )
    if args.vary and args.vary not in metrics.columns:
        raise DbayesError(f"--vary {args.vary}: no such column in the metrics of {root}")
    paths = write_report(metrics, out, baseline=args.baseline, vary=_auto_vary(metrics, args.vary), test=args.test)
    print(_summary(metrics, args.baseline, args.vary, args.test))
    print(f"\nreport: {paths.html} and {paths.markdown}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from dbayes.data.arff import read_arff, read_csv_dataset
    from dbayes.errors import DataError

    src = Path(args.source)
    if not src.is_file():
        raise DataError(f"{src}: no such file")
    out = Path(args.out)
    if out.exists() and not args.force:
        raise DataError(f"{out}: already exists (use --force to replace it)")
    suffix = src.suffix.lower()
    if suffix == ".arff":
        frame = read_arff(src, args.class_column)
    elif suffix in (".csv", ".txt"):
        frame = read_csv_dataset(src, args.class_column)
    else:
        raise DataError(f"{src}: unknown format {suffix!r}; dbayes imports .arff and .csv files")
    tmp = out.with_name(f".tmp-{out.name}")
    frame.to_parquet(tmp, index=False)
    tmp.replace(out)
    print(f"{out}: {len(frame)} rows, {frame.shape[1] - 1} attributes, {frame['class'].nunique()} classes")
    return 0


def cmd_sample(args: argparse.Namespace) -> int:
    from dbayes.engine import runtime
    from dbayes.engine.sample import sample_dataset

    with runtime(args.scheduler, n_workers=args.workers):
        n = sample_dataset(args.source, args.rows, args.out, rows_per_part=args.rows_per_part, seed=args.seed)
    print(f"{args.out}: {n} rows sampled from a TAN fitted to {args.source}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dbayes", description="Bayesian-network classifiers evaluated at scale on Dask.")
    p.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = p.add_subparsers(dest="command", required=True)
    sched = dict(
        default="local",
        help="'local' (an embedded LocalCluster, the default), 'synchronous', 'threads', 'processes', "
        "or the address of a running scheduler (tcp://host:8786)",
    )

    r = sub.add_parser("run", help="run a job file (datasets x classifiers x protocol)")
    r.add_argument("job", help="the job's TOML file, e.g. jobs/adult_letter.toml")
    r.add_argument("--scheduler", **sched)
    r.add_argument("--workers", type=int, default=None, help="workers of the local cluster (default: cores)")
    r.add_argument("--out", help="output directory (default: the job's 'out', else results/NAME)")
    r.set_defaults(func=cmd_run)

    rp = sub.add_parser("report", help="write a Markdown and HTML report of a job's results")
    rp.add_argument("results", help="a job's output directory")
    rp.add_argument("--baseline", help="classifier label the others are compared with")
    rp.add_argument("--vary", help="parameter column to plot accuracy against (default: noise, when it varies)")
    rp.add_argument(
        "--test",
        choices=["corrected", "paired"],
        default="corrected",
        help="per-dataset test for R x k CV: Nadeau-Bengio's corrected resampled t-test (default) or "
        "the plain paired t-test over folds (seed 004's)",
    )
    rp.add_argument(
        "--partial",
        action="store_true",
        help="also report datasets whose results are not all there (by default they are left out and named)",
    )
    rp.add_argument("--out", help="report directory (default: RESULTS/report)")
    rp.set_defaults(func=cmd_report)

    im = sub.add_parser("import", help="convert an ARFF or CSV file into the Parquet convention")
    im.add_argument("source", help="FILE.arff or FILE.csv")
    im.add_argument("out", help="OUT.parquet")
    im.add_argument("--class-column", help="the class attribute (default: the last column)")
    im.add_argument("--force", action="store_true", help="replace OUT if it exists")
    im.set_defaults(func=cmd_import)

    sp = sub.add_parser("sample", help="write N rows sampled from a TAN fitted to a dataset")
    sp.add_argument("--from", dest="source", required=True, help="bundled name or Parquet path")
    sp.add_argument("--rows", type=int, required=True, help="number of rows")
    sp.add_argument("--rows-per-part", type=int, default=1_000_000, help="rows per Parquet part file")
    sp.add_argument("--seed", type=int, default=1)
    sp.add_argument("--scheduler", **sched)
    sp.add_argument("--workers", type=int, default=None)
    sp.add_argument("out", help="output directory of Parquet parts")
    sp.set_defaults(func=cmd_sample)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")
    with warnings.catch_warnings():
        warnings.simplefilter("default", UserWarning)
        original = warnings.formatwarning
        warnings.formatwarning = lambda message, category, *rest, **kw: f"dbayes: warning: {message}\n"
        try:
            return args.func(args)
        except DbayesError as exc:
            print(f"dbayes: error: {' '.join(str(exc).split())}", file=sys.stderr)
            return exc.exit_status
        except KeyboardInterrupt:
            print("dbayes: interrupted; finished units are kept, rerun the same command to resume", file=sys.stderr)
            return 130
        finally:
            warnings.formatwarning = original


if __name__ == "__main__":
    sys.exit(main())
