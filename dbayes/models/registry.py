"""Classifiers by registry name, as job files name them."""

from __future__ import annotations

import inspect

from dbayes.errors import JobError
from dbayes.models.base import Model
from dbayes.models.nb import NaiveBayes
from dbayes.models.tan import TAN

__all__ = ["REGISTRY", "make_model", "register"]

REGISTRY: dict[str, type[Model]] = {}


def register(cls: type[Model]) -> type[Model]:
    REGISTRY[cls.name] = cls
    return cls


for _cls in (NaiveBayes, TAN):
    register(_cls)


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
    model.check_params()
    return model
