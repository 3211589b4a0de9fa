package nodediag

import "github.com/clusterlens/clusterlens/internal/peer"

// separateFaults undoes peer.Attribute's episode rule for a node whose
// own fault cannot be its culprit's doing: the rule keeps one culprit per
// episode of indictments because a network fault disturbs every node that
// exchanges data with the faulty one (docs/PEER.md), but a CPU or disk
// hog slows its own node's tasks. A victim whose culprit's resource is
// cpu or disk and whose own evidence names the other of the two is a
// second fault in the same episode and is made a culprit again. (Ganesha
// assumes one fault at a time; the demo scenario injects a CPU hog and a
// disk hog at once.) This is clusterlens nodediag's rule, not peer's.
func separateFaults(v []peer.Verdict) {
	res := map[string]string{}
	for _, x := range v {
		res[x.Host] = x.Resource
	}
	for i := range v {
		x := &v[i]
		if x.Role == "culprit" || x.VictimOf == "" {
			continue
		}
		c := res[x.VictimOf]
		if (c == "cpu" || c == "disk") && (x.Resource == "cpu" || x.Resource == "disk") && x.Resource != c {
			x.Role, x.VictimOf = "culprit", ""
		}
	}
}
