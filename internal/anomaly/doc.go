// Package anomaly finds abnormal nodes and their outlier metrics, after
// HybridTune (Ren, Cheng, He, Wang, Luo, Zhan: "HybridTune: Spatio-temporal
// Data and Model Driven Performance Diagnosis for Big Data Systems",
// arXiv:1711.07639, §3.3.3 and §3.3.4; docs/PAPERS.md checks every step
// against the paper's text).
//
// Abnormal nodes (AbnormalNodes, §3.3.3) compares the nodes that ran one
// stage: each node's vector of per-metric means (§3.2 (4)), normalised per
// metric across the nodes, is compared by cosine similarity (Equation 4)
// with every other node's, and a node whose average similarity to the
// others (Equation 5) is below the threshold σ is abnormal.
//
// Outlier metrics (OutlierMetrics, §3.3.4) names the metrics that make a
// node stand out: PCA keeps the principal metrics (cumulative contribution
// rate 0.95, §5.3.2), Algorithm 4 (the time-series transformation) turns
// each metric's series into one value (its mean, Formula 6, or a Fourier
// amplitude, Formula 7), Formula 8 normalises the values across the nodes,
// and Algorithm 5 flags a metric on a node by its magnitude test (the
// value is orders of magnitude off the others') or its distance test (the
// node falls in the smaller of two classes, farther than d_min from the
// larger class's representative point).
//
// StageNodes is the abnormal-node test for one stage on like-for-like inputs
// (correlate.StageViews: synonyms dropped, a run-wide scale per metric,
// network sends left out where the host serves shuffle data), plus a
// check of the stage's own tasks' shuffle fetch and write rates per host,
// which tells a lossy node from the peers it slows.
//
// ScoreAgainstNormal is Algorithms 4 and 5 for one machine without peers
// (the SMD data set): the larger class is the machine's own points in a
// normal period, the smaller one a window of its points.
//
// The package takes plain inputs (host names, metric names, a
// [host][metric] matrix or [host][metric] series), so any source can feed it:
// correlate's per-stage matrices, the simulator, or a data set. docs/ANOMALY.md
// gives the method, the parameters and the measured accuracy.
package anomaly
