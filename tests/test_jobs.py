"""Every job file in jobs/ is valid: its options, classifiers, parameters and datasets."""

from pathlib import Path

import pytest

from dbayes.data.bundled import bundled_names
from dbayes.job import load_job

JOBS = sorted((Path(__file__).resolve().parents[1] / "jobs").glob("*.toml"))


@pytest.mark.parametrize("path", JOBS, ids=[p.stem for p in JOBS])
def test_job_file_is_valid(path):
    job = load_job(path)
    assert job.name == path.stem
    missing = [d for d in job.datasets if d not in bundled_names()]
    assert not missing, f"{path.name} names datasets that are not bundled: {missing}"


def test_there_are_jobs():
    assert {"adult_letter", "semilazy_tan", "hocp_tan", "credal_noise"} <= {p.stem for p in JOBS}
