"""Runs Apache Otava's E-divisive means on series read from stdin, for otava_test.go.

Input: JSON {"alpha": float, "permutations": int, "series": [[float, ...], ...]}.
Output: JSON, one object per series: Otava's first candidate split of the whole series
(index and q-hat: deterministic) and the change points its permutation test keeps (index,
q-hat, p-value), as otava.analysis.compute_change_points_orig finds them, with the test's
permutation count and significance level set to ours.
"""
import json
import sys

import numpy as np
from otava.change_point_divisive.calculator import PairDistanceCalculator
from otava.change_point_divisive.detector import ChangePointDetector
from otava.change_point_divisive.significance_test import PermutationsSignificanceTester


def main():
    req = json.load(sys.stdin)
    out = []
    for k, series in enumerate(req["series"]):
        arr = np.array(series, dtype=np.float64)
        first = PairDistanceCalculator(arr).get_next_candidate([slice(0, None)])
        tester = PermutationsSignificanceTester(
            max_pvalue=req["alpha"], permutations=req["permutations"],
            calculator=PairDistanceCalculator, seed=k)
        points = ChangePointDetector(tester, PairDistanceCalculator).get_change_points(arr)
        out.append({
            "first": {"index": int(first.index), "q": float(first.qhat)},
            "changes": [{"index": int(p.index), "q": float(p.qhat), "pvalue": float(p.stats.pvalue)}
                        for p in points],
        })
    json.dump(out, sys.stdout)


main()
