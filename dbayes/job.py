"""Job files: datasets x classifiers x protocol x output, as TOML (see ``jobs/`` and the README).

```toml
name = "adult_letter"
datasets = ["adult", "letter"]      # bundled short names or Parquet paths/URLs
folds = 10
repeats = 1
seed = 1
discretize = "mdl"                  # "mdl" | "equal-frequency" | "none"
discretize_scope = "fold"           # "fold" (default) | "global"
class_column = "class"
noise = [0.0]

[[classifiers]]
name = "tan"
label = "tan-n0-5"                  # optional; any other key is a parameter
n0 = 5
```
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib

from dbayes.errors import JobError
from dbayes.models.registry import make_model
from dbayes.models.trees.schema import DEFAULT_MAX_EXACT_VALUES

__all__ = ["Job", "ClassifierSpec", "load_job", "parse_job"]

DISCRETIZE = ("mdl", "equal-frequency", "none")
SCOPES = ("fold", "global")
#: "hash": seeded stratified folds each partition computes itself (the default, any size);
#: "weka": Weka 3.6's own folds for -x k -s seed+repeat (computed on the client; to compare with Weka exactly)
FOLD_ASSIGNMENTS = ("hash", "weka")
#: how lazy models (LAWNB, LWNB) reach the training rows: "broadcast" (the rows travel inside the fitted model),
#: "topk" (per-training-partition nearest-neighbour lists merged by a reduction), or "auto" (topk when the
#: coded training rows exceed 256 MiB)
NEIGHBOURS = ("auto", "broadcast", "topk")


@dataclass(frozen=True)
class ClassifierSpec:
    name: str
    label: str
    params: dict[str, Any] = field(default_factory=dict)

    def make(self):
        return make_model(self.name, **self.params)


@dataclass(frozen=True)
class Job:
    name: str
    datasets: tuple[str, ...]
    classifiers: tuple[ClassifierSpec, ...]
    folds: int = 10
    repeats: int = 1
    seed: int = 1
    discretize: str = "mdl"
    discretize_scope: str = "fold"
    bins: int = 10
    class_column: str = "class"
    noise: tuple[float, ...] = (0.0,)
    partitions: int | None = None
    save_predictions: bool = True
    max_exact_values: int = DEFAULT_MAX_EXACT_VALUES
    out: str | None = None
    resubstitution: bool = False
    fold_assignment: str = "hash"
    test_limit: tuple[int | None, ...] = (None,)
    neighbours: str = "auto"
    source: str = ""


_KEYS = {
    "name": str,
    "datasets": list,
    "classifiers": list,
    "folds": int,
    "repeats": int,
    "seed": int,
    "discretize": str,
    "discretize_scope": str,
    "bins": int,
    "class_column": str,
    "noise": list,
    "partitions": int,
    "save_predictions": bool,
    "max_exact_values": int,
    "out": str,
    "resubstitution": bool,
    "fold_assignment": str,
    "test_limit": list,
    "neighbours": str,
    "description": str,
}


def _fail(source: str, msg: str) -> JobError:
    return JobError(f"{source}: {msg}")


def parse_job(data: dict[str, Any], source: str = "job") -> Job:
    """Validate a job given as a dict (a parsed TOML file)."""
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise _fail(source, f"unknown option(s) {', '.join(map(repr, unknown))}; known: {', '.join(sorted(_KEYS))}")
    for key, typ in _KEYS.items():
        if key in data and not (isinstance(data[key], typ) and not (typ is int and isinstance(data[key], bool))):
            raise _fail(source, f"option {key!r} must be a {typ.__name__}, got {data[key]!r}")
    for key in ("datasets", "classifiers"):
        if not data.get(key):
            raise _fail(source, f"option {key!r} is required and must not be empty")
    name = data.get("name") or Path(source).stem
    if not re.fullmatch(r"[A-Za-z0-9_.\-]+", name):
        raise _fail(source, f"option 'name' may hold letters, digits, '_', '-' and '.', got {name!r}")
    datasets = data["datasets"]
    if not all(isinstance(d, str) and d for d in datasets):
        raise _fail(source, "option 'datasets' must be a list of dataset names or paths")
    if len(set(datasets)) != len(datasets):
        raise _fail(source, "option 'datasets' names a dataset twice")
    folds = data.get("folds", 10)
    if data.get("resubstitution"):
        folds = 1  # train and test on all rows: the training-set error of seed 000's Table 2
    elif folds < 2:
        raise _fail(source, f"option 'folds' must be at least 2, got {folds}")
    repeats = data.get("repeats", 1)
    if repeats < 1:
        raise _fail(source, f"option 'repeats' must be at least 1, got {repeats}")
    disc = data.get("discretize", "mdl")
    if disc not in DISCRETIZE:
        raise _fail(source, f"option 'discretize' must be one of {', '.join(DISCRETIZE)}, got {disc!r}")
    scope = data.get("discretize_scope", "fold")
    if scope not in SCOPES:
        raise _fail(source, f"option 'discretize_scope' must be one of {', '.join(SCOPES)}, got {scope!r}")
    bins = data.get("bins", 10)
    if bins < 2:
        raise _fail(source, f"option 'bins' must be at least 2, got {bins}")
    noise = data.get("noise", [0.0])
    if not noise or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in noise):
        raise _fail(source, "option 'noise' must be a list of fractions, e.g. [0.0, 0.1]")
    noise = tuple(float(x) for x in noise)
    if not all(0.0 <= x < 1.0 and math.isfinite(x) for x in noise):
        raise _fail(source, f"option 'noise' holds fractions in [0, 1), got {list(noise)}")
    fold_assignment = data.get("fold_assignment", "hash")
    if fold_assignment not in FOLD_ASSIGNMENTS:
        raise _fail(
            source, f"option 'fold_assignment' must be one of {', '.join(FOLD_ASSIGNMENTS)}, got {fold_assignment!r}"
        )
    test_limit = data.get("test_limit")
    if test_limit is None:
        test_limit = (None,)
    else:
        if not test_limit or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in test_limit):
            raise _fail(source, "option 'test_limit' must be a list of test-instance counts >= 0, e.g. [0, 100, 200]")
        test_limit = tuple(test_limit)
    neighbours = data.get("neighbours", "auto")
    if neighbours not in NEIGHBOURS:
        raise _fail(source, f"option 'neighbours' must be one of {', '.join(NEIGHBOURS)}, got {neighbours!r}")
    parts = data.get("partitions")
    if parts is not None and parts < 1:
        raise _fail(source, f"option 'partitions' must be at least 1, got {parts}")
    specs = []
    for k, entry in enumerate(data["classifiers"]):
        if not isinstance(entry, dict) or "name" not in entry:
            raise _fail(source, f"classifiers[{k}] needs a 'name' (e.g. name = \"nb\")")
        params = {key: v for key, v in entry.items() if key not in ("name", "label")}
        label = entry.get("label", entry["name"])
        if not isinstance(label, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]+", label):
            raise _fail(source, f"classifiers[{k}]: label may hold letters, digits, '_', '-' and '.', got {label!r}")
        try:
            make_model(entry["name"], **params)
        except JobError as exc:
            raise _fail(source, f"classifiers[{k}]: {exc}") from None
        specs.append(ClassifierSpec(entry["name"], label, params))
    labels = [s.label for s in specs]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise _fail(source, f"classifier label(s) used twice: {', '.join(dup)}; give each a distinct 'label'")
    return Job(
        name=name,
        datasets=tuple(datasets),
        classifiers=tuple(specs),
        folds=folds,
        repeats=repeats,
        seed=data.get("seed", 1),
        discretize=disc,
        discretize_scope=scope,
        bins=bins,
        class_column=data.get("class_column", "class"),
        noise=noise,
        partitions=parts,
        save_predictions=data.get("save_predictions", True),
        max_exact_values=data.get("max_exact_values", DEFAULT_MAX_EXACT_VALUES),
        out=data.get("out"),
        resubstitution=data.get("resubstitution", False),
        fold_assignment=fold_assignment,
        test_limit=test_limit,
        neighbours=neighbours,
        source=source,
    )


def load_job(path: str | Path) -> Job:
    """Read and validate a job file; every problem is a :class:`JobError` naming the file."""
    path = Path(path)
    if not path.is_file():
        raise JobError(f"{path}: job file not found")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise JobError(f"{path}: not a valid TOML job file: {exc}") from None
    return parse_job(data, str(path))
