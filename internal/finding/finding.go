// Package finding is the vocabulary of diagnosis that the detectors
// (diagnose), the node diagnosis (nodediag), the run history and every
// presentation share: a Finding with its Severity on Dr. Elephant's scale,
// its Scope and the Evidence behind it. It imports nothing of the project.
package finding

// ScopeKind is what a finding is about.
type ScopeKind string

// Scope kinds.
const (
	ScopeApplication ScopeKind = "application"
	ScopeJob         ScopeKind = "job"
	ScopeStage       ScopeKind = "stage"
	ScopeNode        ScopeKind = "node"
	ScopeTask        ScopeKind = "task"
	// ScopeQuery names SQL executions by id ("3"), or one of their
	// operators ("3/7": execution 3, plan node 7).
	ScopeQuery ScopeKind = "query"
)

// Scope names the parts of the application a finding refers to: the
// application id, job ids, stage ids, host names or task ids.
type Scope struct {
	Kind ScopeKind `json:"kind"`
	IDs  []string  `json:"ids"`
}

// Evidence is one number behind a finding. With four Limits (low, moderate,
// severe, critical) the number was graded against them and decided the
// severity; with one it is a gate the number had to pass; without limits it
// is context. Compare says how the number was compared: ">=" when larger is
// worse, "<=" when smaller is worse.
type Evidence struct {
	Name    string    `json:"name"`
	Value   float64   `json:"value"`
	Unit    string    `json:"unit"` // ms, core-ms, ratio, share, count, executors, slots
	Compare string    `json:"compare,omitempty"`
	Limits  []float64 `json:"limits,omitempty"`
}

// Finding is one diagnosed problem.
type Finding struct {
	// ID is the detector's stable name, for example "driver-bound".
	ID    string `json:"id"`
	Title string `json:"title"`
	// Severity follows from the Impact (ImpactLimits.Grade); a finding
	// whose impact could not be measured is at most Low.
	Severity Severity `json:"severity"`
	// RuleSeverity is the grade of the detector's own rule (its evidence
	// with four limits, for example Dr. Elephant's thresholds), shown for
	// reference: it no longer sets the severity.
	RuleSeverity Severity `json:"ruleSeverity,omitempty"`
	Scope        Scope    `json:"scope"`
	// Summary says what was found, with its numbers, in one sentence.
	Summary string `json:"summary"`
	// Impact is what the problem cost the run (nil: not measurable).
	Impact   *Impact    `json:"impact,omitempty"`
	Evidence []Evidence `json:"evidence"`
	// Recommendation is what to change, when there is something concrete.
	Recommendation string `json:"recommendation,omitempty"`
	// Settings are the configuration changes the recommendation asks for.
	Settings []Setting `json:"settings,omitempty"`
	// Symptoms are findings this one explains (the same cause seen by other
	// detectors), folded under it.
	Symptoms []Finding `json:"symptoms,omitempty"`
	// Source cites the paper or tool the detector follows.
	Source string `json:"source"`
}
