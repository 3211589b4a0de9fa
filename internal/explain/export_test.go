package explain

// The evaluations, for the external tests that run them with the node
// model the commands use (package driver imports explain).
var (
	EvalSimulator = evalSimulator
	EvalFlowbench = evalFlowbench
	AtScale       = explainAtScale
)
