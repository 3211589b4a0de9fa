// Package peer is Ganesha's black-box peer diagnosis (Pan, Tan, Kavulya,
// Gandhi, Narasimhan, "Ganesha: Black-Box Diagnosis of MapReduce Systems",
// SIGMETRICS Perform. Eval. Rev. 37(3), 2009, §4), offline and online.
//
// Offline (Train): vectors of the 14 OS metrics Ganesha samples per node and
// second (model.NodeMetricNames[:14]) from fault-free runs are normalised,
// clustered by k-means (K by the elbow rule) and modelled by a Gaussian
// mixture fitted by EM (full, regularised covariances, optionally equal
// priors); the result is a versioned, reusable Profile.
//
// Deployment (Online, Detector): each vector is labelled with its most
// likely mixture component, or "unknown" when no component explains it;
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
