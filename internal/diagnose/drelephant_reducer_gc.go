package diagnose

import "github.com/clusterlens/clusterlens/internal/model"

// DefaultDrElephantReducerGCParams are Reducer GC's defaults
// (GenericGCHeuristic.java).
var DefaultDrElephantReducerGCParams = drDefaultGCParams

func init() {
	mustRegister(Func[DrElephantGCParams]{
		ID:       "drelephant-reducer-gc",
		Heading:  "Reducer garbage collection (Dr. Elephant)",
		Cite:     drSource + "app/com/linkedin/drelephant/mapreduce/heuristics/ReducerGCHeuristic.java and GenericGCHeuristic.java",
		Defaults: DefaultDrElephantReducerGCParams,
		Fn:       drReducerGC,
	})
}

// drReducerGC is Dr. Elephant's ReducerGCHeuristic (app/com/linkedin/drelephant/mapreduce/heuristics/ReducerGCHeuristic.java): GenericGCHeuristic over
// the reduce tasks.
func drReducerGC(in *Input, p DrElephantGCParams) []Finding { return drGC(in, p, model.StageReduce) }
