package diagnose

import "github.com/clusterlens/clusterlens/internal/finding"

// The findings vocabulary of package finding, under the short names the
// detectors of this package use.
type (
	Finding   = finding.Finding
	Severity  = finding.Severity
	Limits    = finding.Limits
	Scope     = finding.Scope
	ScopeKind = finding.ScopeKind
	Evidence  = finding.Evidence
)

// Severities and scope kinds of package finding.
const (
	None     = finding.None
	Low      = finding.Low
	Moderate = finding.Moderate
	Severe   = finding.Severe
	Critical = finding.Critical

	ScopeApplication = finding.ScopeApplication
	ScopeJob         = finding.ScopeJob
	ScopeStage       = finding.ScopeStage
	ScopeNode        = finding.ScopeNode
	ScopeTask        = finding.ScopeTask
	ScopeQuery       = finding.ScopeQuery
)

// graded is evidence graded against limits when larger is worse.
func graded(name string, v float64, unit string, l Limits) Evidence {
	return Evidence{Name: name, Value: v, Unit: unit, Compare: ">=", Limits: l[:]}
}

// gate is evidence compared against a single threshold that must be met.
func gate(name string, v float64, unit, compare string, threshold float64) Evidence {
	return Evidence{Name: name, Value: v, Unit: unit, Compare: compare, Limits: []float64{threshold}}
}

// fact is context evidence.
func fact(name string, v float64, unit string) Evidence {
	return Evidence{Name: name, Value: v, Unit: unit}
}
