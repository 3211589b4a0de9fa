// Package nodediag is node diagnosis from metrics for one application:
// per stage the abnormal nodes with their outlier metrics (HybridTune,
// Ren et al., arXiv:1711.07639, §3.3.3 and §3.3.4, through
// internal/anomaly on internal/correlate's stage matrices), and over the
// application the culprit nodes (Ganesha, Pan et al. 2009, §4.3, through
// internal/peer, with clusterlens's workload-aware peers and attribution
// telling culprits from the innocent peers they disturbed). The results
// are finding.Finding values with node scope and the numbers behind them
// (docs/FINDINGS.md), and a Result the report draws (docs/REPORT.md).
package nodediag
