package diagnose

import "github.com/clusterlens/clusterlens/internal/model"

// DefaultDrElephantMapperTimeParams are Mapper Time's defaults
// (MapperTimeHeuristic.java).
var DefaultDrElephantMapperTimeParams = drDefaultTimeParams

func init() {
	mustRegister(Func[DrElephantTimeParams]{
		ID:       "drelephant-mapper-time",
		Heading:  "Mapper time (Dr. Elephant)",
		Cite:     drSource + "app/com/linkedin/drelephant/mapreduce/heuristics/MapperTimeHeuristic.java",
		Defaults: DefaultDrElephantMapperTimeParams,
		Fn:       drMapperTime,
	})
}

// drMapperTime is Dr. Elephant's MapperTimeHeuristic
// (app/com/linkedin/drelephant/mapreduce/heuristics/MapperTimeHeuristic.java) over the map tasks.
func drMapperTime(in *Input, p DrElephantTimeParams) []Finding { return drTime(in, p, model.StageMap) }
