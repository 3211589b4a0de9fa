package diagnose

import "github.com/clusterlens/clusterlens/internal/model"

// DefaultDrElephantReducerTimeParams are Reducer Time's defaults
// (ReducerTimeHeuristic.java).
var DefaultDrElephantReducerTimeParams = drDefaultTimeParams

func init() {
	mustRegister(Func[DrElephantTimeParams]{
		ID:       "drelephant-reducer-time",
		Heading:  "Reducer time (Dr. Elephant)",
		Cite:     drSource + "app/com/linkedin/drelephant/mapreduce/heuristics/ReducerTimeHeuristic.java",
		Defaults: DefaultDrElephantReducerTimeParams,
		Fn:       drReducerTime,
	})
}

// drReducerTime is Dr. Elephant's ReducerTimeHeuristic
// (app/com/linkedin/drelephant/mapreduce/heuristics/ReducerTimeHeuristic.java) over the reduce tasks.
func drReducerTime(in *Input, p DrElephantTimeParams) []Finding {
	return drTime(in, p, model.StageReduce)
}
