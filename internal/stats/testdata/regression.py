# Reference values for IRLS and NNLS (internal/stats/regression_ref_test.go):
# statsmodels' RLM and scipy.optimize.nnls. Reads the Go test's JSON
# (argv[1]) and prints JSON.
import json
import sys
import warnings

import numpy as np
import statsmodels.api as sm
from scipy.optimize import nnls

warnings.simplefilter("ignore")
inp = json.load(open(sys.argv[1]))
out = {"irls": [], "nnls": []}


def mat(m):
    return np.array(m["X"], dtype=float).reshape(m["N"], m["D"])


for case in inp["irls"]:
    X, y = mat(case["x"]), np.array(case["y"], dtype=float)
    norm = sm.robust.norms.TukeyBiweight() if case["norm"] == "bisquare" else sm.robust.norms.HuberT()
    r = sm.RLM(y, X, M=norm).fit(maxiter=1000, tol=1e-13, conv="coefs", scale_est="mad")
    out["irls"].append({"coef": list(r.params), "weights": list(r.weights)})

for case in inp["nnls"]:
    A, b = mat(case["a"]), np.array(case["b"], dtype=float)
    x, rnorm = nnls(A, b)
    out["nnls"].append({"x": list(x), "rnorm": rnorm})

json.dump(out, sys.stdout)
