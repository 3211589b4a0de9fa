package dataflow

import (
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// TestBuiltinSpecs checks that the embedded specifications parse and carry
// the paper's Figure 8 vertices for Hadoop and the History Server's task
// phases for Spark.
func TestBuiltinSpecs(t *testing.T) {
	for _, c := range []struct {
		engine   model.Engine
		name     string
		vertices []string
		pools    []Pool
	}{
		{model.MapReduce, "hadoop", []string{"map", "spill", "copier", "merge", "sort", "reduce"}, []Pool{PoolMap, PoolReduce}},
		{model.Spark, "spark", []string{"scheduler-delay", "deserialize", "shuffle-fetch-wait", "compute", "shuffle-write", "result-serialize", "getting-result"}, []Pool{PoolSpark}},
	} {
		s, err := BuiltinFor(c.engine)
		if err != nil {
			t.Fatal(err)
		}
		if s.Name != c.name {
			t.Errorf("engine %v: spec %q, want %q", c.engine, s.Name, c.name)
		}
		if len(s.Vertices) != len(c.vertices) {
			t.Fatalf("%s: vertices %v, want %v", c.name, s.Vertices, c.vertices)
		}
		for i := range c.vertices {
			if s.Vertices[i] != c.vertices[i] {
				t.Errorf("%s: vertex %d is %q, want %q", c.name, i, s.Vertices[i], c.vertices[i])
			}
		}
		if got := s.Pools(); len(got) != len(c.pools) || got[0] != c.pools[0] {
			t.Errorf("%s: pools %v, want %v", c.name, got, c.pools)
		}
		if len(s.EdgeMappings) != len(s.Edges) {
			t.Errorf("%s: %d edges, %d edge mappings", c.name, len(s.Edges), len(s.EdgeMappings))
		}
	}
	h, _ := Builtin("hadoop")
	m, ok := h.EdgeMapping("spill", "copier")
	if !ok || m.Location != Remote || m.Type != Sequential || m.Cardinality != [2]Cardinality{"M", "R"} {
		t.Errorf("hadoop spill -> copier mapping %+v, want sequential, remote, M:R", m)
	}
	cp := h.Mappings("copier")
	if len(cp) != 1 || cp[0].ThreadPool != "MapOutputCopier" || cp[0].ThreadPoolCard != "5" || cp[0].Phase != Shuffle {
		t.Errorf("hadoop copier mapping %+v", cp)
	}
	if mg := h.Mappings("merge"); len(mg) != 2 || len(mg[1].ThreadGroupPool) != 2 {
		t.Errorf("hadoop merge mappings %+v, want map-side and reduce-side with a thread group pool of 2", mg)
	}
	if _, err := Builtin("nope"); err == nil {
		t.Error("Builtin(nope) gave no error")
	}
}
