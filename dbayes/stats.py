"""``dbayes.stats``: statistical comparison of classifiers (sign, Wilcoxon, t-tests, Friedman, Nemenyi, Holm).

The functions live in :mod:`dbayes.evaluate.stats`; this module is their public address.
"""

from dbayes.evaluate import stats as _stats

__all__ = list(_stats.__all__)
globals().update({_name: getattr(_stats, _name) for _name in __all__})
