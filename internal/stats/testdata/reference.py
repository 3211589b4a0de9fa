# Reference values for internal/stats tests, from scikit-learn, numpy and
# scipy. Reads the JSON written by the Go test (argv[1]) and prints JSON.
import json
import sys
import warnings

import numpy as np
from scipy.spatial.distance import jensenshannon
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA
from sklearn.metrics.pairwise import cosine_similarity
from sklearn.mixture import GaussianMixture
from sklearn.preprocessing import MinMaxScaler

warnings.simplefilter("ignore")
inp = json.load(open(sys.argv[1]))
out = {}


def mat(m):
    return np.array(m["X"], dtype=float).reshape(m["N"], m["D"])


g = inp["gmm"]
X = mat(g["x"])
k, d = g["k"], X.shape[1]
w0 = np.array(g["weights"])
mu0 = mat(g["means"])
cov0 = np.array(g["covs"]).reshape(k, d, d)
out["gmm"] = []
for iters in g["iters"]:
    gm = GaussianMixture(k, covariance_type="full", tol=0, max_iter=iters, n_init=1,
                         reg_covar=g["reg"], weights_init=w0, means_init=mu0,
                         precisions_init=np.linalg.inv(cov0), random_state=0)
    gm.fit(X)
    out["gmm"].append({
        "iters": int(gm.n_iter_), "lower_bound": float(gm.lower_bound_),
        "weights": gm.weights_.tolist(), "means": gm.means_.ravel().tolist(),
        "covs": gm.covariances_.ravel().tolist(), "score": float(gm.score(X)),
        "labels": gm.predict(X).tolist(), "samples": gm.score_samples(X).tolist(),
    })

# End to end from each side's own k-means start on well-separated data.
f = inp["fit"]
X = mat(f["x"])
gm = GaussianMixture(f["k"], covariance_type="full", tol=f["tol"], max_iter=f["max_iter"], random_state=0).fit(X)
order = np.argsort(gm.means_[:, 1])  # column 1 separates the clusters
out["fit"] = {"score": float(gm.score(X)), "means": gm.means_[order].ravel().tolist(),
              "weights": gm.weights_[order].tolist()}

# EqualPriors has no scikit-learn switch: a separate textbook EM with the
# weights held at 1/K, densities from scipy.stats.multivariate_normal.
e = inp["equal"]
X = mat(e["x"])
k, d = e["k"], X.shape[1]
means, covs = mat(e["means"]), np.array(e["covs"]).reshape(k, d, d)
w = np.full(k, 1.0 / k)
eps = np.finfo(float).eps
for _ in range(e["iters"]):
    logp = np.stack([np.log(w[j]) + multivariate_normal(means[j], covs[j]).logpdf(X) for j in range(k)], axis=1)
    ll = logsumexp(logp, axis=1)
    resp = np.exp(logp - ll[:, None])
    nk = resp.sum(axis=0) + 10 * eps
    means = resp.T @ X / nk[:, None]
    covs = np.stack([((resp[:, j, None] * (X - means[j])).T @ (X - means[j])) / nk[j] + e["reg"] * np.eye(d) for j in range(k)])
out["equal"] = {"lower_bound": float(ll.mean()), "means": means.ravel().tolist(), "covs": covs.ravel().tolist()}

km = inp["kmeans"]
X = mat(km["x"])
c0 = mat(km["centers"])
m = KMeans(n_clusters=c0.shape[0], init=c0, n_init=1, algorithm="lloyd", max_iter=300, tol=1e-4).fit(X)
pp = KMeans(n_clusters=c0.shape[0], init="k-means++", n_init=10, algorithm="lloyd", random_state=0).fit(X)
out["kmeans"] = {"inertia": float(m.inertia_), "iters": int(m.n_iter_), "labels": m.labels_.tolist(),
                 "centers": m.cluster_centers_.ravel().tolist(), "pp_inertia": float(pp.inertia_)}

p = inp["pca"]
X = mat(p["x"])
out["pca"] = []
for ccr in p["ccr"]:
    model = PCA(n_components=ccr if ccr < 1 else None, svd_solver="full").fit(X)
    out["pca"].append({"n": int(model.n_components_), "components": model.components_.ravel().tolist(),
                       "variance": model.explained_variance_.tolist(), "ratio": model.explained_variance_ratio_.tolist(),
                       "mean": model.mean_.tolist(), "transform": model.transform(X[:10]).ravel().tolist()})

out["fft"] = []
for re_, im in zip(inp["fft"]["re"], inp["fft"]["im"]):
    f = np.fft.fft(np.array(re_) + 1j * np.array(im))
    out["fft"].append({"re": f.real.tolist(), "im": f.imag.tolist()})

out["minmax"] = [MinMaxScaler().fit_transform(np.array(v, dtype=float)[:, None])[:, 0].tolist() for v in inp["minmax"]]
out["cosine"] = [float(cosine_similarity(np.array([a]), np.array([b]))[0, 0]) for a, b in inp["cosine"]]
out["js"] = [float(jensenshannon(np.array(a), np.array(b))) for a, b in inp["js"]]
json.dump(out, sys.stdout)
