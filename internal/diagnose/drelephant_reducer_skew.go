package diagnose

import "github.com/clusterlens/clusterlens/internal/model"

// DefaultDrElephantReducerSkewParams are Reducer Skew's defaults
// (GenericSkewHeuristic.java).
var DefaultDrElephantReducerSkewParams = drDefaultSkewParams

func init() {
	mustRegister(Func[DrElephantSkewParams]{
		ID:       "drelephant-reducer-skew",
		Heading:  "Reducer skew (Dr. Elephant)",
		Cite:     drSource + "app/com/linkedin/drelephant/mapreduce/heuristics/ReducerSkewHeuristic.java and GenericSkewHeuristic.java",
		Defaults: DefaultDrElephantReducerSkewParams,
		Fn:       drReducerSkew,
	})
}

// drReducerSkew is Dr. Elephant's ReducerSkewHeuristic (app/com/linkedin/drelephant/mapreduce/heuristics/ReducerSkewHeuristic.java): GenericSkewHeuristic
// over the reduce tasks' shuffle bytes (REDUCE_SHUFFLE_BYTES).
func drReducerSkew(in *Input, p DrElephantSkewParams) []Finding {
	return drSkew(in, p, drSkewMeasure{kind: model.StageReduce, bytes: func(t *mrTask) int64 { return t.shuffleBytes }, what: "shuffle input (REDUCE_SHUFFLE_BYTES)"})
}
