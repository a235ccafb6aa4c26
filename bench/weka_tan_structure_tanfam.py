"""Reproducer for the lead: TAN(smoothing="weka") structure vs Weka 3.6 BayesNet/TAN, fold by fold.

Writes each fold's discretized training and test rows (Weka's own folds, our MDL cut points, which equal
Weka's) as ARFF, runs Weka's BayesNet TAN on them, parses the parents it prints (``-D``), and compares
them with ``dbayes.models.tan.weka_tan_parents``.

usage: PYTHONPATH=. python bench/weka_tan_structure_tanfam.py [dataset ...]   (default: zoo)
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import weka_compare_tanfam as B  # noqa: E402

from dbayes.counts import TableLayout, count_tables  # noqa: E402
from dbayes.models.tan import TAN  # noqa: E402

WEKA = [
    "java", "-cp", "/usr/share/java/weka.jar", "weka.classifiers.bayes.BayesNet", "-D",
    "-Q", "weka.classifiers.bayes.net.search.local.TAN", "--", "-S", "BAYES",
    "-E", "weka.classifiers.bayes.net.estimate.SimpleEstimator", "--", "-A", "0.5",
]  # fmt: skip


def write_arff(path, X, y, cards, C):
    with open(path, "w") as f:
        f.write("@relation r\n")
        for i, v in enumerate(cards):
            f.write(f"@attribute a{i} {{" + ",".join(f"v{j}" for j in range(v)) + "}\n")
        f.write("@attribute class {" + ",".join(f"c{j}" for j in range(C)) + "}\n@data\n")
        for r in range(len(y)):
            vals = ["?" if X[r, i] == cards[i] else f"v{X[r, i]}" for i in range(len(cards))]
            f.write(",".join(vals) + f",c{y[r]}\n")


def main(names):
    tmp = Path(tempfile.mkdtemp())
    for name in names:
        df, cols, y, C = B.load(name)
        fold = B.weka_folds(y)
        for f in range(10):
            test = fold == f
            X, cards = B.code_fold(df, cols, y, C, ~test)
            write_arff(tmp / "train.arff", X[~test], y[~test], cards, C)
            write_arff(tmp / "test.arff", X[test], y[test], cards, C)
            cmd = WEKA[:4] + ["-t", str(tmp / "train.arff"), "-T", str(tmp / "test.arff")] + WEKA[4:]
            out = subprocess.run(cmd, capture_output=True, text=True).stdout
            parents = {}
            for line in out.splitlines():
                m = re.match(r"^a(\d+)\(\d+\): (.*)$", line.strip())
                if m:
                    ps = [int(p[1:]) for p in m[2].split() if p.startswith("a")]
                    parents[int(m[1])] = ps[0] if ps else -1
            weka = [parents.get(i, -9) for i in range(len(cards))]
            ours = TAN(smoothing="weka").fit(count_tables(X[~test], y[~test], TableLayout(C, cards)))
            correct = int((ours.predict(X[test]) == y[test]).sum())
            m = re.search(r"=== Error on test data ===\s+Correctly Classified Instances\s+(\d+)", out)
            same = weka == ours.parents_.tolist()
            print(
                f"{name} fold {f}: {'same parents' if same else 'DIFFERENT parents'}"
                + ("" if same else f" weka {weka} ours {ours.parents_.tolist()}")
                + f"; correct on the test fold: ours {correct}, weka {m[1] if m else '?'}",
                flush=True,
            )


if __name__ == "__main__":
    main(sys.argv[1:] or ["zoo"])
