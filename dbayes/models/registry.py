"""Classifiers by registry name, as job files name them."""

from __future__ import annotations

import inspect

from dbayes.errors import JobError
from dbayes.models.aode import AODE, WAODE
from dbayes.models.base import Model
from dbayes.models.hocp_tan import HOCPTAN
from dbayes.models.lawnb import LAWNB
from dbayes.models.lazy_tan import LazyTAN
from dbayes.models.lwnb import LWNB
from dbayes.models.nb import NaiveBayes
from dbayes.models.semilazy_tan import SemiLazyTAN
from dbayes.models.sp_tan import SuperParentTAN
from dbayes.models.tan import TAN
from dbayes.models.trees import C45, CredalC45
from dbayes.models.wanbia import WANBIA

__all__ = ["REGISTRY", "make_model", "register"]

REGISTRY: dict[str, type] = {}


def register(cls: type, name: str | None = None) -> type:
    REGISTRY[name or cls.name] = cls
    return cls


for _cls in (NaiveBayes, TAN, SemiLazyTAN, HOCPTAN, SuperParentTAN, LazyTAN, AODE, WAODE, LAWNB, LWNB, WANBIA):
    register(_cls)
register(C45, "c45")
register(CredalC45, "credal-c45")


def make_model(name: str, **params) -> Model:
    """A new, unfitted classifier; unknown names and parameters raise :class:`JobError`."""
    try:
        cls = REGISTRY[name]
    except KeyError:
        raise JobError(f"unknown classifier {name!r}; known: {', '.join(sorted(REGISTRY))}") from None
    valid = [p.name for p in inspect.signature(cls.__init__).parameters.values() if p.kind == p.KEYWORD_ONLY]
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise JobError(
            f"classifier {name!r} has no parameter {', '.join(map(repr, unknown))} "
            f"(parameters: {', '.join(valid) or 'none'})"
        )
    try:
        model = cls(**params)
    except TypeError as exc:
        raise JobError(f"classifier {name!r}: {exc}") from None
    check = getattr(model, "check_params", None)
    if check is not None:
        check()
    return model
