package diagnose

import "github.com/clusterlens/clusterlens/internal/model"

// DefaultDrElephantMapperSkewParams are Mapper Skew's defaults
// (GenericSkewHeuristic.java).
var DefaultDrElephantMapperSkewParams = drDefaultSkewParams

func init() {
	mustRegister(Func[DrElephantSkewParams]{
		ID:       "drelephant-mapper-skew",
		Heading:  "Mapper skew (Dr. Elephant)",
		Cite:     drSource + "app/com/linkedin/drelephant/mapreduce/heuristics/MapperSkewHeuristic.java and GenericSkewHeuristic.java",
		Defaults: DefaultDrElephantMapperSkewParams,
		Fn:       drMapperSkew,
	})
}

// drMapperSkew is Dr. Elephant's MapperSkewHeuristic (app/com/linkedin/drelephant/mapreduce/heuristics/MapperSkewHeuristic.java): GenericSkewHeuristic
// over the map tasks' input bytes (HDFS_BYTES_READ).
func drMapperSkew(in *Input, p DrElephantSkewParams) []Finding {
	return drSkew(in, p, drSkewMeasure{kind: model.StageMap, bytes: func(t *mrTask) int64 { return t.hdfsRead }, what: "input (HDFS bytes read)"})
}
