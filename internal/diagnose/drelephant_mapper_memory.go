package diagnose

import "github.com/clusterlens/clusterlens/internal/model"

// DefaultDrElephantMapperMemoryParams are Mapper Memory's defaults
// (GenericMemoryHeuristic.java).
var DefaultDrElephantMapperMemoryParams = drDefaultMemoryParams

func init() {
	mustRegister(Func[DrElephantMemoryParams]{
		ID:       "drelephant-mapper-memory",
		Heading:  "Mapper memory (Dr. Elephant)",
		Cite:     drSource + "app/com/linkedin/drelephant/mapreduce/heuristics/MapperMemoryHeuristic.java and GenericMemoryHeuristic.java",
		Defaults: DefaultDrElephantMapperMemoryParams,
		Fn:       drMapperMemory,
	})
}

// drMapperMemory is Dr. Elephant's MapperMemoryHeuristic (app/com/linkedin/drelephant/mapreduce/heuristics/MapperMemoryHeuristic.java): GenericMemoryHeuristic
// over the map tasks with the container size mapreduce.map.memory.mb.
func drMapperMemory(in *Input, p DrElephantMemoryParams) []Finding {
	return drMemory(in, p, model.StageMap, "mapreduce.map.memory.mb")
}
