// Package anomaly finds abnormal nodes and their outlier metrics, after
// HybridTune (Ren, Cheng, He, Wang, Luo, Zhan: "HybridTune: Spatio-temporal
// Data and Model Driven Performance Diagnosis for Big Data Systems",
// arXiv:1711.07639, §4 data-driven diagnosis, Algorithms 4 and 5).
//
// Algorithm 4 (AbnormalNodes) compares the nodes that ran one stage: each
// node's vector of per-metric values, min-max normalised per metric across
// the nodes, is compared by cosine similarity with every other node's, and
// a node whose average similarity is below a threshold is abnormal.
//
// Algorithm 5 (OutlierMetrics) names the metrics that make a node stand
// out: PCA keeps the principal metrics, each metric's series becomes one
// value (its mean or its dominant FFT amplitude), the values are min-max
// normalised across the nodes, and a metric is an outlier on a node by the
// magnitude test (its value is orders of magnitude off the others') or the
// two-class distance test (the node falls in a small class whose
// representative point is farther than d_min from the other class's).
//
// StageNodes is Algorithm 4 for one stage on like-for-like inputs
// (correlate.StageViews: synonyms dropped, a run-wide scale per metric,
// network sends left out where the host serves shuffle data), plus a
// check of the stage's own tasks' shuffle fetch and write rates per host,
// which tells a lossy node from the peers it slows.
//
// ScoreAgainstNormal is Algorithm 5 for one machine without peers (the SMD
// data set): the peers are the machine's own points in a normal period.
//
// The package takes plain inputs (host names, metric names, a
// [host][metric] matrix or [host][metric] series), so any source can feed it:
// correlate's per-stage matrices, the simulator, or a data set. docs/ANOMALY.md
// gives the method, the parameters and the measured accuracy.
package anomaly
