"""Golden-file generator for tests/test_discretize.py (run by hand, never by pytest).

Writes ``tests/data/weka_discretize_golden.json``: Weka 3.6's own cut points, at full double precision,
of

- supervised MDL discretization (``weka.filters.supervised.attribute.Discretize``, default options:
  ``-R first-last``, Fayyad & Irani's MDL, class = last attribute) of every numeric attribute of every
  bundled dataset that has one, with Weka's bin names for a few datasets;
- equal-frequency discretization (``weka.filters.unsupervised.attribute.Discretize -F -B b``) of the same
  attributes, for b in EF_BINS;
- MDL on the training sets of a fixed 5-fold (2 for spectrometer) split of ten datasets;
- both, on synthetic single-attribute datasets made to contain tied values and exactly tied candidate
  entropies (mirror-symmetric class patterns), stored as histograms.

Each dataset is written as ARFF (class moved last, values printed with ``repr`` so Weka parses the same
doubles), then ``WekaDiscretizeGolden.java`` (next to this file) runs the filters and prints the cut points
as the hex of ``Double.doubleToRawLongBits``; JSON stores them as Python floats (``repr`` round-trips).

Usage (from the repository root; needs a JDK and Weka 3.6 at /usr/share/java/weka.jar)::

    python tests/golden/make_weka_golden.py [--weka-jar /usr/share/java/weka.jar]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import struct
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from dbayes.data.bundled import bundled_names, bundled_path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "data" / "weka_discretize_golden.json"
EF_BINS = (3, 10)
LABEL_DATASETS = ("iris", "diabetes", "glass", "adult", "credit-a", "vehicle", "letter")
N_SYNTHETIC = 300
# Training sets of a cross-validation-like split, as Weka discretizes inside each training fold:
# fold k of n holds the rows i with i * 7919 % n == k (reproducible without a random generator).
FOLD_DATASETS = {
    "iris": 5, "diabetes": 5, "glass": 5, "vehicle": 5, "credit-a": 5, "ecoli": 5, "wine": 5,
    "heart-statlog": 5, "segment": 5, "spectrometer": 2,
}  # fmt: skip


def training_rows(n_rows: int, n_folds: int, fold: int) -> np.ndarray:
    """Rows of the training set that leaves out ``fold`` (same rule in tests/test_discretize.py)."""
    return np.flatnonzero(np.arange(n_rows) * 7919 % n_folds != fold)


def _quote(s: str) -> str:
    return "'" + str(s).replace("\\", "\\\\").replace("'", "\\'") + "'"


def write_arff(df: pd.DataFrame, path: Path, name: str) -> list[str]:
    """Write ``df`` (class column ``class``) as ARFF with the class last; return the numeric columns."""
    cols = [c for c in df.columns if c != "class"] + ["class"]
    numeric = []
    lines = [f"@relation {_quote(name)}", ""]
    for c in cols:
        s = df[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            cats = ",".join(_quote(v) for v in s.cat.categories)
            lines.append(f"@attribute {_quote(c)} {{{cats}}}")
        else:
            numeric.append(c)
            lines.append(f"@attribute {_quote(c)} numeric")
    lines += ["", "@data"]
    columns = []
    for c in cols:
        s = df[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            columns.append(["?" if pd.isna(v) else _quote(v) for v in s.astype(object)])
        else:
            columns.append(["?" if np.isnan(v) else repr(float(v)) for v in s.to_numpy(dtype=np.float64)])
    lines += [",".join(row) for row in zip(*columns, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    return numeric


def synthetic_histograms(rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """Small histograms with repeated values and, for half of them, mirror-symmetric class patterns."""
    out = []
    for k in range(N_SYNTHETIC):
        n_classes = int(rng.integers(2, 5))
        m = int(rng.integers(2, 30))
        values = np.sort(rng.choice(np.arange(-20, 40) / 4.0, size=m, replace=False))
        scale = int(rng.choice([1, 3, 20]))
        counts = rng.integers(0, 4, size=(m, n_classes)) * rng.integers(1, scale + 1, size=(m, 1))
        if k % 2:  # mirror the class pattern (reversed order, classes 0 and 1 swapped): tied entropies
            half = counts[: (m + 1) // 2]
            mirror = half[::-1][:, [1, 0, *range(2, n_classes)]]
            counts = np.concatenate([half, mirror])[:m] if m % 2 == 0 else np.concatenate([half, mirror[1:]])
        if k % 7 == 0:  # pure blocks of one class: many exactly zero-entropy sides
            counts = np.zeros_like(counts)
            counts[np.arange(m), rng.integers(0, n_classes, size=m)] = rng.integers(1, 6, size=m)
        if k % 3 == 2:  # many classes, one or two rows per value (as in spectrometer): exact entropy ties
            n_classes = int(rng.integers(8, 49))
            counts = np.zeros((m, n_classes), dtype=np.int64)
            counts[np.arange(m), rng.integers(0, n_classes, size=m)] = 1
            counts[np.arange(m), rng.integers(0, n_classes, size=m)] += rng.integers(0, 2, size=m)
        counts[counts.sum(axis=1) == 0, 0] = 1
        out.append((values, counts.astype(np.int64)))
    return out


def histogram_frame(values: np.ndarray, counts: np.ndarray) -> pd.DataFrame:
    v, c = np.nonzero(counts)
    reps = counts[v, c]
    x = np.repeat(values[v], reps)
    y = np.repeat(c, reps)
    perm = np.random.default_rng(0).permutation(x.size)  # Weka must not depend on the row order
    n_classes = counts.shape[1]
    cls = pd.Categorical.from_codes(y[perm], categories=[f"c{j}" for j in range(n_classes)])
    return pd.DataFrame({"x": x[perm], "class": cls})


def run_weka(jar: str, files: list[Path], workdir: Path) -> list[list[str]]:
    classes = workdir / "classes"
    classes.mkdir(exist_ok=True)
    subprocess.run(["javac", "-cp", jar, "-d", str(classes), str(HERE / "WekaDiscretizeGolden.java")], check=True)
    cmd = ["java", "-Xmx2g", "-cp", f"{jar}:{classes}", "WekaDiscretizeGolden", ",".join(map(str, EF_BINS))]
    res = subprocess.run(cmd + [str(f) for f in files], capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"Weka failed:\n{res.stderr[-3000:]}")
    return [line.split("\t") for line in res.stdout.splitlines()]


def _floats(hexes: str) -> list[float]:
    return [struct.unpack(">d", bytes.fromhex(h.rjust(16, "0")))[0] for h in hexes.split(",") if h]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weka-jar", default="/usr/share/java/weka.jar")
    args = ap.parse_args()
    version = subprocess.run(
        ["java", "-cp", args.weka_jar, "weka.core.Version"], capture_output=True, text=True
    ).stdout.splitlines()[0]
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        files, numeric_of = [], {}
        for name in bundled_names():
            df = pd.read_parquet(bundled_path(name))
            if not any(df[c].dtype.kind == "f" for c in df.columns if c != "class"):
                continue
            f = tmp / f"{name}.arff"
            numeric_of[str(f)] = (name, write_arff(df, f, name), [c for c in df.columns if c != "class"])
            files.append(f)
        for name, n_folds in FOLD_DATASETS.items():
            df = pd.read_parquet(bundled_path(name))
            for fold in range(n_folds):
                f = tmp / f"{name}-train{fold}.arff"
                train = df.iloc[training_rows(len(df), n_folds, fold)].reset_index(drop=True)
                write_arff(train, f, f"{name}-train{fold}")
                numeric_of[str(f)] = ((name, fold), None, [c for c in df.columns if c != "class"])
                files.append(f)
        synth = synthetic_histograms(np.random.default_rng(20261129))
        for k, (v, c) in enumerate(synth):
            f = tmp / f"synthetic-{k}.arff"
            write_arff(histogram_frame(v, c), f, f"synthetic-{k}")
            numeric_of[str(f)] = (k, ["x"], ["x"])
            files.append(f)
        rows = run_weka(args.weka_jar, files, tmp)

    bundled: dict = {}
    folds: dict = {}
    synthetic = [{"values": v.tolist(), "counts": c.tolist(), "ef": {}} for v, c in synth]
    for row in rows:
        kind, file, index = row[0], row[1], int(row[2])
        key, _, attrs = numeric_of[file]
        attr = attrs[index]  # ARFF column order = frame order without the class
        if isinstance(key, int):
            entry = synthetic[key]
        elif isinstance(key, tuple):
            if kind != "MDL":
                continue
            folds.setdefault(key[0], {}).setdefault(str(key[1]), {})[attr] = _floats(row[3])
            continue
        else:
            entry = bundled.setdefault(key, {}).setdefault(attr, {"ef": {}})
        if kind == "MDL":
            entry["mdl"] = _floats(row[3])
            if key in LABEL_DATASETS:
                entry["labels"] = row[4].split("|")
        else:
            entry["ef"][row[3]] = _floats(row[4])

    golden = {
        "provenance": {
            "weka_version": version,
            "java": java,
            "date": dt.date.today().isoformat(),
            "mdl_filter": ("weka.filters.supervised.attribute.Discretize -R first-last (class = last attribute)"),
            "ef_filter": "weka.filters.unsupervised.attribute.Discretize -F -B <bins> -R first-last",
            "ef_bins": list(EF_BINS),
            "generator": ("python tests/golden/make_weka_golden.py (drives tests/golden/WekaDiscretizeGolden.java)"),
            "precision": "cut points are Weka's doubles, exact (read as raw bits, stored with repr)",
        },
        "bundled": bundled,
        "synthetic": synthetic,
        "folds": folds,
    }
    OUT.write_text(json.dumps(golden, separators=(",", ":")) + "\n")
    print(
        f"wrote {OUT} ({OUT.stat().st_size} bytes): {sum(map(len, bundled.values()))} bundled attributes "
        f"in {len(bundled)} datasets, {len(synthetic)} synthetic histograms"
    )


if __name__ == "__main__":
    main()
