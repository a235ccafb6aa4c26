"""The errors dbayes raises for bad input.

Every error a user can cause is a :class:`DbayesError` whose message names the file, column or option at
fault. The CLI prints the message alone and exits with status 2; nothing is written before input is checked.
"""

from __future__ import annotations

__all__ = ["DbayesError", "DataError", "JobError", "NotFittedError"]


class DbayesError(Exception):
    """Bad input: the message names the file, column or option at fault."""

    exit_status = 2


class DataError(DbayesError, ValueError):
    """A dataset that cannot be read or used as given."""


class JobError(DbayesError, ValueError):
    """A job file, classifier name or parameter that is not valid."""


class NotFittedError(DbayesError, AttributeError):
    """A model used before ``fit``."""
