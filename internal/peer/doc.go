// Package peer is Ganesha's black-box peer diagnosis (Pan, Tan, Kavulya,
// Gandhi, Narasimhan, "Ganesha: Black-Box Diagnosis of MapReduce Systems",
// SIGMETRICS Perform. Eval. Rev. 37(3), 2009, §4), offline and online.
//
// Training (§4.1): vectors of the 14 OS metrics Ganesha samples per node
// and second (Table 1; model.NodeMetricNames[:14], or those a source
// records) from fault-free runs are normalised (log1p and z-score: not in
// the paper), clustered by k-means with restarts (the least distortion
// kept) for K chosen by the elbow rule (the paper's K = 7 by the same
// rule, its footnote 2) and modelled by a Gaussian mixture fitted by EM
// from the k-means centres (full, regularised covariances, equal priors as
// the paper enforces); the result is a versioned, reusable Profile.
//
// Deployment (§4.1): each vector is labelled with its most likely mixture
// component, or "unknown" when no component explains it;
// each node keeps a histogram of its labels over a window with exponential
// decay; nodes are compared by the square root of the Jensen–Shannon
// divergence between their histograms; a node farther than a threshold from
// more than half of its peers raises an alarm for that window; an
// exponentially weighted count of alarms above a threshold indicts it.
//
// Beyond Ganesha (Attribute): the application logs say which tasks ran
// where and when; an indicted node whose anomaly only shows while its tasks
// exchange data with another indicted node is that node's victim, not a
// culprit, and each culprit's affected resource (CPU, disk, network, or a
// hung node) is named with the metric evidence.
package peer
