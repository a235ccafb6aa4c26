"""Accuracy against Weka 3.6 on real data (10-fold CV, supervised MDL discretization inside each fold).

Golden figures: Weka 3.6.14, `weka.classifiers.meta.FilteredClassifier -x 10 -s 1 -F
"weka.filters.supervised.attribute.Discretize -R first-last" -W weka.classifiers.bayes.NaiveBayes` (NB) and
`-W weka.classifiers.bayes.BayesNet -- -D -Q weka.classifiers.bayes.net.search.local.TAN -- -S BAYES -E
weka.classifiers.bayes.net.estimate.SimpleEstimator -- -A 0.5` (TAN), from shared/reference/weka.csv (run
2026-11-29 with shared/tools/run_weka.py). Our folds are not Weka's, so only datasets large enough for fold choice
to move accuracy by well under the tolerance are checked here; bench/weka_agreement.py compares all 53.
"""

import dask
import pytest

from dbayes.engine import run_job
from dbayes.job import parse_job

WEKA = {  # dataset: (NB %, TAN %)
    "adult": (84.07722861471684, 86.07141394701281),
    "letter": (74.06, 86.01),
    "hypothyroid": (98.2237539766702, 99.2576882290562),
    "splice": (95.36050156739812, 95.4858934169279),
    "segment": (91.2987012987013, 95.32467532467533),
    "pendigits": (87.7820232896652, 96.20633187772926),
}


@pytest.mark.weka
@pytest.mark.filterwarnings("ignore:.*dropped attribute")  # hypothyroid's TBG is missing in every row
@pytest.mark.parametrize("dataset", sorted(WEKA))
def test_nb_and_weka_tan_within_half_a_point_of_weka(tmp_path, dataset):
    job = parse_job(
        {
            "datasets": [dataset],
            "folds": 10,
            "seed": 1,
            "save_predictions": False,
            "classifiers": [{"name": "nb"}, {"name": "tan", "label": "tan-weka", "smoothing": "weka"}],
        },
        "weka-agreement",
    )
    with dask.config.set(scheduler="synchronous"):
        result = run_job(job, tmp_path, None, report=lambda s: None)
    acc = result.metrics.groupby("classifier")["accuracy"].mean() * 100
    nb, tan = WEKA[dataset]
    assert abs(acc["nb"] - nb) <= 0.5, (acc["nb"], nb)
    assert abs(acc["tan-weka"] - tan) <= 0.5, (acc["tan-weka"], tan)
