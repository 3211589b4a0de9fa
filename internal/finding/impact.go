package finding

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
	Share     Limits // of the run's wall time
	WallMs    Limits // ms
	CoreMs    Limits // core-ms
	CoreShare Limits // of the core time offered, for costs in core time alone
}

// DefaultImpactLimits are clusterlens's: 1% / 5% / 15% / 30% of the run,
// and at least 1 s / 30 s / 2 min / 5 min of wall time or 1 core-minute /
// a quarter, one and four core-hours.
var DefaultImpactLimits = ImpactLimits{
	Share:     Limits{0.01, 0.05, 0.15, 0.30},
	WallMs:    Limits{1_000, 30_000, 120_000, 300_000},
	CoreMs:    Limits{60_000, 900_000, 3_600_000, 14_400_000},
	CoreShare: Limits{0.02, 0.10, 0.25, 0.50},
}

// Grade is the severity of an impact (None when it is too small to matter).
func (l ImpactLimits) Grade(im Impact) Severity {
	abs := max(l.WallMs.Ascending(float64(im.WallMs)), l.CoreMs.Ascending(float64(im.CoreMs)))
	sev := min(l.Share.Ascending(im.Share), abs)
	cost := min(l.CoreShare.Ascending(im.CoreShare), l.CoreMs.Ascending(float64(im.CoreMs)), Severe)
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
