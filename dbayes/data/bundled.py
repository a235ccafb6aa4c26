"""The UCI datasets shipped with dbayes as package data (see ``dbayes/datasets/README.md``)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from dbayes.errors import DataError

__all__ = ["bundled_names", "bundled_path"]


def _root() -> Path:
    return Path(str(resources.files("dbayes.datasets")))


def bundled_names() -> list[str]:
    """Short names of the bundled datasets, sorted."""
    return sorted(p.stem for p in _root().glob("*.parquet"))


def bundled_path(name: str) -> Path:
    """Path of the bundled dataset ``name`` (e.g. ``"adult"``)."""
    path = _root() / f"{name}.parquet"
    if not path.is_file():
        raise DataError(
            f"dataset {name!r} is neither a bundled dataset nor an existing path; bundled: {', '.join(bundled_names())}"
        )
    return path
