package diagnose

import "github.com/clusterlens/clusterlens/internal/model"

// DefaultDrElephantMapperGCParams are Mapper GC's defaults
// (GenericGCHeuristic.java).
var DefaultDrElephantMapperGCParams = drDefaultGCParams

func init() {
	mustRegister(Func[DrElephantGCParams]{
		ID:       "drelephant-mapper-gc",
		Heading:  "Mapper garbage collection (Dr. Elephant)",
		Cite:     drSource + "app/com/linkedin/drelephant/mapreduce/heuristics/MapperGCHeuristic.java and GenericGCHeuristic.java",
		Defaults: DefaultDrElephantMapperGCParams,
		Fn:       drMapperGC,
	})
}

// drMapperGC is Dr. Elephant's MapperGCHeuristic (app/com/linkedin/drelephant/mapreduce/heuristics/MapperGCHeuristic.java): GenericGCHeuristic over
// the map tasks.
func drMapperGC(in *Input, p DrElephantGCParams) []Finding { return drGC(in, p, model.StageMap) }
