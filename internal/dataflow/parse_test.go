package dataflow

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

const minimal = `Input: a
Output: b
Vertices: x, y
Edges: x -> y
Vertex Mapping:
  x: Task Pool = map; Phase = map
  y: Task Pool = reduce; Phase = reduce
Edge Mapping:
  x -> y: Type = sequential; Location = remote; Cardinality = M:N
`

// TestParseHive loads a user specification modelled on the paper's Figure 21.
func TestParseHive(t *testing.T) {
	s, err := ParseFile(filepath.Join("testdata", "hive.flow"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "hive-groupby" || len(s.Vertices) != 11 || len(s.Edges) != 10 || len(s.VertexMappings) != 12 {
		t.Fatalf("hive: name %q, %d vertices, %d edges, %d vertex mappings; want hive-groupby, 11, 10, 12",
			s.Name, len(s.Vertices), len(s.Edges), len(s.VertexMappings))
	}
	if m := s.Mappings("merge"); len(m) != 2 || m[1].ThreadGroupPool[1] != "LocalFSMerger" || m[1].ThreadGroupCard != "1" {
		t.Errorf("merge mappings %+v", m)
	}
	if m, ok := s.EdgeMapping("spill", "copier"); !ok || m.Location != Remote {
		t.Errorf("spill -> copier mapping %+v", m)
	}
}

// TestParseErrors checks that each mistake gives one line naming the file,
// the line and what was expected.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
	}{
		{"no colon", "Input a\n", "f:1: expected a section"},
		{"unknown section", "Inputs: a\n", "f:1: expected Name, Input"},
		{"duplicate input", "Input: a\nInput: b\n", "f:2: duplicate \"input\" (first on line 1)"},
		{"empty input", "Input:\n", "f:1: expected a description after \"input:\""},
		{"bad vertex", "Vertices: a, 9b\n", "f:1: expected a vertex name"},
		{"bad edge", "Edges: a b\n", "f:1: expected an edge \"from -> to\""},
		{"dangling arrow", "Edges: a ->\n", "f:1: expected a vertex name in edge"},
		{"indented first", "  x: Task Pool = map\n", "f:1: expected a section such as"},
		{"mapping on header", "Vertex Mapping: x\n", "f:1: expected nothing after"},
		{"no equals", "Vertex Mapping:\n  x: Task Pool map\n", "f:2: expected \"Key = value\""},
		{"unknown key", "Vertex Mapping:\n  x: Pool = map\n", "f:2: unknown key \"pool\""},
		{"unknown pool", "Vertex Mapping:\n  x: Task Pool = mapper; Phase = map\n", "f:2: unknown task pool \"mapper\""},
		{"unknown phase", "Vertex Mapping:\n  x: Task Pool = map; Phase = mop\n", "f:2: unknown phase \"mop\""},
		{"phase of other pool", "Vertex Mapping:\n  x: Task Pool = map; Phase = reduce\n", "f:2: phase reduce is not recorded for task pool map (its phases: map, spill, merge)"},
		{"no phase", "Vertex Mapping:\n  x: Task Pool = map\n", "f:2: expected \"Phase = ...\""},
		{"bad cardinality", "Vertex Mapping:\n  x: Task Pool = map (0); Phase = map\n", "f:2: expected a cardinality"},
		{"phase cardinality", "Vertex Mapping:\n  x: Task Pool = map; Phase = map (2)\n", "f:2: Phase takes no cardinality"},
		{"duplicate key", "Vertex Mapping:\n  x: Phase = map; Phase = map\n", "f:2: duplicate key \"phase\""},
		{"bad edge type", "Edge Mapping:\n  x -> y: Type = streaming; Location = local\n", "f:2: unknown edge type \"streaming\""},
		{"bad location", "Edge Mapping:\n  x -> y: Type = pipelined; Location = here\n", "f:2: unknown endpoint location \"here\""},
		{"bad edge cardinality", "Edge Mapping:\n  x -> y: Type = pipelined; Location = local; Cardinality = 1-1\n", "f:2: expected a cardinality \"source:destination\""},
		{"missing section", "Input: a\nOutput: b\n", "f:2: expected a \"vertices\" section"},
		{"undeclared edge end", strings.Replace(minimal, "x -> y\n", "x -> z\n", 1), "f:4: edge x -> z: vertex \"z\" is not declared"},
		{"self edge", strings.Replace(minimal, "Edges: x -> y\n", "Edges: x -> y, y -> y\n", 1), "f:4: edge y -> y: a vertex cannot feed itself"},
		{"cycle", strings.Replace(minimal, "Edges: x -> y\n", "Edges: x -> y -> x\n", 1), "f:4: the edges form a cycle"},
		{"unmapped vertex", strings.Replace(minimal, "  y: Task Pool = reduce; Phase = reduce\n", "", 1), "f:5: vertex \"y\" has no vertex mapping"},
		{"unmapped edge", strings.Replace(minimal, "  x -> y: Type = sequential; Location = remote; Cardinality = M:N\n", "", 1), "f:8: edge x -> y has no edge mapping"},
		{"undeclared mapping", minimal + "Vertex Mapping:\n", "f:10: duplicate \"vertex mapping\" (first on line 5)"},
		{"twice mapped", strings.Replace(minimal, "  y: Task", "  x: Task Pool = map; Phase = map\n  y: Task", 1), "f:7: vertex x is mapped to task pool map, phase map twice"},
		{"long line", "Input: " + strings.Repeat("a", maxLineBytes+1) + "\n", "f:1: line longer than"},
	} {
		_, err := Parse("f", strings.NewReader(c.text))
		if err == nil {
			t.Errorf("%s: no error, want %q", c.name, c.want)
			continue
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%s: error %v is not a *SyntaxError", c.name, err)
		}
		if msg := err.Error(); !strings.HasPrefix(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q, want prefix %q on one line", c.name, msg, c.want)
		}
	}
	if _, err := Parse("f", strings.NewReader(minimal)); err != nil {
		t.Errorf("minimal spec: %v", err)
	}
}

// TestValidateBuiltInCode checks specifications built in code.
func TestValidateBuiltInCode(t *testing.T) {
	s := &Spec{Name: "code", Input: "a", Output: "b", Vertices: []string{"x"},
		VertexMappings: []VertexMapping{{Vertex: "x", TaskPool: Pool(200), Phase: Map}}}
	if err := s.Validate(); err == nil || !strings.HasPrefix(err.Error(), "code:0: vertex x: phase \"map\" is not recorded") {
		t.Errorf("bad pool: %v", err)
	}
	if _, err := Reconstruct(handmadeSpark(), Options{Spec: s}); err == nil {
		t.Error("Reconstruct accepted an invalid specification")
	}
	s.VertexMappings[0].TaskPool = PoolSpark
	s.VertexMappings[0].Phase = Compute
	if err := s.Validate(); err != nil {
		t.Errorf("valid specification: %v", err)
	}
	if _, err := Reconstruct(handmadeSpark(), Options{Spec: s}); err != nil {
		t.Errorf("Reconstruct with a one-vertex specification: %v", err)
	}
	s.Input = ""
	if err := s.Validate(); err == nil {
		t.Error("specification without Input validated")
	}
}
