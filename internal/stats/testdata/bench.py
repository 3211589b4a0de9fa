# Times scikit-learn's GaussianMixture on the data the Go side test wrote,
# single-threaded (the test sets OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1).
# argv: raw float64 data file, JSON with n, d, k, iters, initial mixture.
import json
import sys
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.mixture import GaussianMixture

warnings.simplefilter("ignore")
cfg = json.load(open(sys.argv[2]))
n, d, k = cfg["n"], cfg["d"], cfg["k"]
X = np.fromfile(sys.argv[1], dtype="<f8").reshape(n, d)
w0 = np.array(cfg["weights"])
mu0 = np.array(cfg["means"]).reshape(k, d)
cov0 = np.array(cfg["covs"]).reshape(k, d, d)


class GivenStart(GaussianMixture):
    """GaussianMixture that starts from the given parameters without the
    k-means (or any) responsibilities pass, so only EM is timed."""

    def _initialize_parameters(self, X, random_state):
        self.weights_ = self.weights_init
        self.means_ = self.means_init
        self.precisions_cholesky_ = np.array([np.linalg.cholesky(p) for p in self.precisions_init])


gm = GivenStart(k, covariance_type="full", tol=0, max_iter=cfg["iters"], n_init=1, reg_covar=cfg["reg"],
                weights_init=w0, means_init=mu0, precisions_init=np.linalg.inv(cov0))
t0, c0 = time.perf_counter(), time.process_time()
gm.fit(X)
fit, fit_cpu = time.perf_counter() - t0, time.process_time() - c0

best, best_cpu = float("inf"), float("inf")
for _ in range(cfg["predict_reps"]):
    t0, c0 = time.perf_counter(), time.process_time()
    labels = gm.predict(X)
    best, best_cpu = min(best, time.perf_counter() - t0), min(best_cpu, time.process_time() - c0)
km = KMeans(n_clusters=k, init=mu0, n_init=1, algorithm="lloyd", max_iter=cfg["kmeans_iters"], tol=0)
c0 = time.process_time()
km.fit(X)
km_cpu = time.process_time() - c0

json.dump({"kmeans_cpu": km_cpu, "kmeans_iters": int(km.n_iter_), "kmeans_inertia": float(km.inertia_),
           "fit_seconds": fit, "fit_cpu": fit_cpu, "iters": int(gm.n_iter_), "lower_bound": float(gm.lower_bound_),
           "predict_seconds": best, "predict_cpu": best_cpu, "labels_head": labels[:1000].tolist()}, sys.stdout)
