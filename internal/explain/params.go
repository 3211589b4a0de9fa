package explain

// Params tune the comparison and the decomposition. DefaultParams are the
// values docs/EXPLAIN.md's evaluation was tuned with (simulator seeds
// 100–119, never the reported ones).
type Params struct {
	// Usual is how many of the job's most recent comparable runs (finished,
	// succeeded, started before the run) make its usual time; MinUsual the
	// fewest with which a run is judged at all.
	Usual    int
	MinUsual int
	// Spread is how many robust standard deviations (1.4826 × the median
	// absolute deviation of the usual runs' durations) a run may be off
	// the median and still be usual; MinChange the least relative
	// difference ever reported (a job whose runs never vary is not slower
	// for 1%).
	Spread    float64
	MinChange float64
	// MinShare is the least share of the difference a cause must explain
	// to be listed; the smaller ones join the unexplained rest.
	MinShare float64
	// ElasticityPrior weighs the prior per-byte elasticity of 1 (task time
	// proportional to data) against the usual runs' own, in units of the
	// sum of squared log-size deviations (a job whose input never varies
	// keeps 1).
	ElasticityPrior float64
	// NodeZ and NodeSlowdown: a node is slower than its own history when
	// its tasks ran at least NodeSlowdown times what was expected of them
	// with a z-score of at least NodeZ.
	NodeZ        float64
	NodeSlowdown float64
	// Stable is the share of the usual runs that must agree on a setting's
	// value for a different value to be a changed configuration (settings
	// that vary from run to run are not).
	Stable float64
}

// DefaultParams are Params' defaults.
var DefaultParams = Params{
	Usual: 20, MinUsual: 5,
	Spread: 3, MinChange: 0.15,
	MinShare:        0.05,
	ElasticityPrior: 0.5,
	NodeZ:           3, NodeSlowdown: 1.2,
	Stable: 0.8,
}
