package diagnose

import "github.com/clusterlens/clusterlens/internal/model"

// DefaultDrElephantReducerMemoryParams are Reducer Memory's defaults
// (GenericMemoryHeuristic.java).
var DefaultDrElephantReducerMemoryParams = drDefaultMemoryParams

func init() {
	mustRegister(Func[DrElephantMemoryParams]{
		ID:       "drelephant-reducer-memory",
		Heading:  "Reducer memory (Dr. Elephant)",
		Cite:     drSource + "app/com/linkedin/drelephant/mapreduce/heuristics/ReducerMemoryHeuristic.java and GenericMemoryHeuristic.java",
		Defaults: DefaultDrElephantReducerMemoryParams,
		Fn:       drReducerMemory,
	})
}

// drReducerMemory is Dr. Elephant's ReducerMemoryHeuristic (app/com/linkedin/drelephant/mapreduce/heuristics/ReducerMemoryHeuristic.java): GenericMemoryHeuristic
// over the reduce tasks with the container size mapreduce.reduce.memory.mb.
func drReducerMemory(in *Input, p DrElephantMemoryParams) []Finding {
	return drMemory(in, p, model.StageReduce, "mapreduce.reduce.memory.mb")
}
