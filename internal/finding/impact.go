package finding

import (
	"fmt"
	"time"
)

// Impact is what a problem cost the run it was found in: the wall-clock
// time and the core time the run would have saved without it, measured on
// the run itself.
type Impact struct {
	// WallMs is the wall-clock time saved; CoreMs the core time
	// (core-milliseconds) saved, or held idle for nothing.
	WallMs int64 `json:"wallMs"`
	CoreMs int64 `json:"coreMs"`
	// Share is WallMs over the run's wall time; CoreShare is CoreMs over
	// the core time the run's executors offered.
	Share     float64 `json:"share"`
	CoreShare float64 `json:"coreShare"`
	// Method says how it was measured: MethodReplay, MethodMeasured or
	// MethodEstimate.
	Method string `json:"method"`
	// ModelError is the replay's self-check (the replay at the recorded
	// configuration against the recorded run) when Method is MethodReplay.
	ModelError float64 `json:"modelError,omitempty"`
	// Basis says in a few words what was taken away (or measured).
	Basis string `json:"basis"`
}

// Impact methods.
const (
	// MethodReplay: the run replayed without the problem against the
	// replay at the recorded configuration (perfmodel.Plan.Without).
	MethodReplay = "replay"
	// MethodMeasured: time the log records directly (the driver alone,
	// executors held idle, a shuffle after the last map).
	MethodMeasured = "measured"
	// MethodEstimate: time the log does not record, estimated with a stated
	// assumption (the time spent spilling to disk).
	MethodEstimate = "estimate"
)

// ImpactLimits grade an impact. A severity needs both a share of the run
// and an absolute cost: the grade is the lower of the share's grade and the
// higher of the wall time's and the core time's grades, so that a problem
// eating most of a few-second test application stays low and a few minutes
// of a day-long job stay low too. A cost in core time alone (executors
// held idle, more executors than the work needed) grades by its share of
// the core time and its core time, at most Severe.
type ImpactLimits struct {
	Share  Limits // of the run's wall time
	WallMs Limits // ms
	CoreMs Limits // core-ms
	// CoreShare (of the core time offered) and CostCoreMs grade a cost in
	// core time alone.
	CoreShare  Limits
	CostCoreMs Limits
}

// DefaultImpactLimits are clusterlens's: 1% / 5% / 15% / 30% of the run,
// and at least 1 s / 1 min / 2 min / 5 min of wall time or 0.1 / 1 / 4 / 16
// core-hours; a cost in core time alone needs 2% / 10% / 25% / 50% of the
// core time offered and 0.25 / 2 / 10 / 40 core-hours.
var DefaultImpactLimits = ImpactLimits{
	Share:      Limits{0.01, 0.05, 0.15, 0.30},
	WallMs:     Limits{1_000, 60_000, 120_000, 300_000},
	CoreMs:     Limits{360_000, 3_600_000, 14_400_000, 57_600_000},
	CoreShare:  Limits{0.02, 0.10, 0.25, 0.50},
	CostCoreMs: Limits{900_000, 7_200_000, 36_000_000, 144_000_000},
}

// Grade is the severity of an impact (None when it is too small to matter).
func (l ImpactLimits) Grade(im Impact) Severity {
	abs := max(l.WallMs.Ascending(float64(im.WallMs)), l.CoreMs.Ascending(float64(im.CoreMs)))
	sev := min(l.Share.Ascending(im.Share), abs)
	cost := min(l.CoreShare.Ascending(im.CoreShare), l.CostCoreMs.Ascending(float64(im.CoreMs)), Severe)
	return max(sev, cost)
}

// Setting is one configuration change a recommendation asks for, built from
// the run's own configuration: Key is the property, Value what to set it
// to, Current what the run had ("" when it was not set).
type Setting struct {
	Key     string `json:"key"`
	Value   string `json:"value"`
	Current string `json:"current,omitempty"`
}

// Sentence says what the problem cost in one sentence, for the renderers:
// "It cost 1m5s of wall time (12% of the run) and 0.40 core-hours
// (replayed without it, the replay 0.3% off the recorded run: …)."
func (im *Impact) Sentence() string {
	if im == nil {
		return ""
	}
	var parts []string
	if im.WallMs > 0 {
		parts = append(parts, fmt.Sprintf("%s of wall time (%.0f%% of the run)", Millis(im.WallMs), 100*im.Share))
	}
	if im.CoreMs > 0 {
		parts = append(parts, fmt.Sprintf("%.2f core-hours", float64(im.CoreMs)/3.6e6))
	}
	if len(parts) == 0 {
		return "It cost the run nothing measurable (" + im.Basis + ")."
	}
	how := "measured"
	switch im.Method {
	case MethodReplay:
		how = fmt.Sprintf("replayed without it, the replay %.1f%% off the recorded run", 100*im.ModelError)
	case MethodEstimate:
		how = "estimated"
	}
	s := "It cost " + parts[0]
	if len(parts) > 1 {
		s += " and " + parts[1]
	}
	return s + " (" + how + ": " + im.Basis + ")."
}

// Millis formats milliseconds as a rounded duration ("4m12s", "850ms"),
// as findings' summaries and evidence write them.
func Millis(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.String()
}
