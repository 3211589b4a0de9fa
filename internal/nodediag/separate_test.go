package nodediag

import (
	"testing"

	"github.com/clusterlens/clusterlens/internal/peer"
)

// TestSeparateFaults: a disk "victim" of a CPU culprit is a second fault;
// victims of a network culprit, and victims naming their culprit's own
// resource or hang, stay victims.
func TestSeparateFaults(t *testing.T) {
	v := []peer.Verdict{
		{Host: "a", Role: "culprit", Resource: "cpu"},
		{Host: "b", Role: "victim", VictimOf: "a", Resource: "disk"},
		{Host: "c", Role: "victim", VictimOf: "a", Resource: "cpu"},
		{Host: "d", Role: "victim", VictimOf: "a", Resource: "hang"},
		{Host: "n", Role: "culprit", Resource: "network"},
		{Host: "e", Role: "victim", VictimOf: "n", Resource: "disk"},
	}
	separateFaults(v)
	want := map[string]string{"a": "culprit", "b": "culprit", "c": "victim", "d": "victim", "n": "culprit", "e": "victim"}
	for _, x := range v {
		if x.Role != want[x.Host] {
			t.Errorf("%s: %s, want %s", x.Host, x.Role, want[x.Host])
		}
		if x.Role == "culprit" && x.VictimOf != "" {
			t.Errorf("%s: culprit still victim of %s", x.Host, x.VictimOf)
		}
	}
}
