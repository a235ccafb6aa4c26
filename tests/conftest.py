"""Unit tests run on Dask's synchronous scheduler; tests marked ``cluster`` start real clusters themselves."""

import dask
import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _synchronous_scheduler(request):
    if request.node.get_closest_marker("cluster"):
        yield
        return
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.fixture
def rng():
    return np.random.default_rng(20261129)


def random_codes(rng, n, cards, missing_rate=0.1):
    """Random coded rows (Fortran order) with missing = V_i at the given rate."""
    cols = []
    for v in cards:
        x = rng.integers(0, v, n)
        x[rng.random(n) < missing_rate] = v
        cols.append(x)
    return np.asfortranarray(np.stack(cols, axis=1))
