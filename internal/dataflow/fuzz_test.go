package dataflow

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary text to the specification parser: it must never
// panic, errors must be one line starting with the file name, and what it
// accepts must be internally consistent.
func FuzzParse(f *testing.F) {
	for _, name := range BuiltinNames() {
		b, _ := builtinFS.ReadFile("specs/" + name + ".flow")
		f.Add(b)
	}
	f.Add([]byte(minimal))
	f.Add([]byte("Vertex Mapping:\n  x: Task Pool = map (M); Phase = map; Thread Group Pool = a + b (2)\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse("fuzz", bytes.NewReader(b))
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "fuzz:") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q is not one line starting with the file name", msg)
			}
			return
		}
		if len(s.Vertices) == 0 || len(s.EdgeMappings) != len(s.Edges) {
			t.Fatalf("accepted spec with %d vertices, %d edges, %d edge mappings", len(s.Vertices), len(s.Edges), len(s.EdgeMappings))
		}
		for _, m := range s.VertexMappings {
			if phaseIndex(m.TaskPool, m.Phase) < 0 {
				t.Fatalf("accepted mapping %+v of a phase outside its pool", m)
			}
		}
	})
}
