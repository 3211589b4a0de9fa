# Reference values for gradient boosting (internal/stats/gboost_ref_test.go):
# scikit-learn's GradientBoostingRegressor. Reads the Go test's JSON
# (argv[1]) and prints JSON: each case's predictions at its rows.
import json
import sys

import numpy as np
from sklearn.ensemble import GradientBoostingRegressor

inp = json.load(open(sys.argv[1]))
out = []


def mat(m):
    return np.array(m["X"], dtype=float).reshape(m["N"], m["D"])


for case in inp:
    X, y = mat(case["x"]), np.array(case["y"], dtype=float)
    w = np.array(case["w"], dtype=float) if case["w"] else None
    r = GradientBoostingRegressor(learning_rate=case["rate"], n_estimators=case["trees"], max_depth=case["depth"], random_state=0)
    r.fit(X, y, sample_weight=w)
    out.append(list(r.predict(X)))

json.dump(out, sys.stdout)
