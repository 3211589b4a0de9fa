// Package correlate joins node samples with the task, stage and job windows
// of an application, per host: HybridTune's spatio-temporal correlation
// (Ren et al., HybridTune/BDTune, §3.1: task-resource, stage-resource and
// job-resource correlation).
//
// A sample stamped t describes the interval (t-Δ, t] of its host (Δ the
// sampling interval). With a clock-skew tolerance s between the hosts'
// clocks and the logs', a sample belongs to a window [start, end] on its
// host when (t-Δ-s, t+s] overlaps it. Frames holds the samples of each host
// as dense rows of the canonical metrics (model.NodeMetricNames); New
// matches the application's hosts to the samples' hosts (MatchHosts) and
// indexes each host's windows; a sorted sweep assigns every sample row to
// the task, stage and job windows open at its time in O(windows + samples +
// assignments). From the assignment it builds the per (stage, host) metric
// matrices HybridTune's abnormal-node detection compares by cosine
// similarity (StageMatrix) and per-task and per-stage resource profiles
// (Profile: how CPU-, disk- or network-bound each was). docs/CORRELATE.md
// describes the rules and what was measured.
package correlate
