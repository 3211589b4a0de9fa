package dataflow

// Validate checks a specification built in code as Parse checks a parsed
// one; errors name the specification and, where known, the line.
func (s *Spec) Validate() error {
	headers := map[string]int{"vertices": 0, "edges": 0, "vertex mapping": 0, "edge mapping": 0}
	if s.Input != "" {
		headers["input"] = 0
	}
	if s.Output != "" {
		headers["output"] = 0
	}
	name := s.Name
	if name == "" {
		name = "specification"
	}
	return validate(s, name, headers)
}

// validate checks a parsed specification as a whole: required sections,
// unique declared names, an acyclic graph, and complete mappings.
func validate(s *Spec, file string, headers map[string]int) error {
	errAt := func(line int, what string, args ...any) error {
		p := &parser{file: file, lineNo: line}
		return p.errf(what, args...)
	}
	end := 0
	for _, l := range headers {
		end = max(end, l)
	}
	for _, req := range []string{"input", "output", "vertices", "edges", "vertex mapping", "edge mapping"} {
		if _, ok := headers[req]; !ok {
			return errAt(end, "expected a %q section; the specification has none", req)
		}
	}
	if len(s.Vertices) == 0 {
		return errAt(headers["vertices"], "expected at least one vertex")
	}
	index := make(map[string]int, len(s.Vertices))
	for i, v := range s.Vertices {
		if !isIdent(v) {
			return errAt(headers["vertices"], "vertex name %q is not letters, digits, '_', '.' or '-'", clip(v))
		}
		if _, dup := index[v]; dup {
			return errAt(headers["vertices"], "vertex %q declared twice", v)
		}
		index[v] = i
	}
	type pair struct{ a, b int }
	edges := make(map[pair]int, len(s.Edges))
	out := make([][]int, len(s.Vertices))
	indeg := make([]int, len(s.Vertices))
	for _, e := range s.Edges {
		a, okA := index[e.From]
		b, okB := index[e.To]
		switch {
		case !okA:
			return errAt(e.Line, "edge %s: vertex %q is not declared in Vertices", e, e.From)
		case !okB:
			return errAt(e.Line, "edge %s: vertex %q is not declared in Vertices", e, e.To)
		case a == b:
			return errAt(e.Line, "edge %s: a vertex cannot feed itself", e)
		}
		if _, dup := edges[pair{a, b}]; dup {
			return errAt(e.Line, "edge %s declared twice", e)
		}
		edges[pair{a, b}] = -1
		out[a] = append(out[a], b)
		indeg[b]++
	}
	if v, ok := cycle(out, indeg); ok {
		return errAt(headers["edges"], "the edges form a cycle through vertex %q; a dataflow graph is acyclic", s.Vertices[v])
	}
	mapped := make([]bool, len(s.Vertices))
	type slot struct {
		v     int
		pool  Pool
		phase Phase
	}
	seen := map[slot]bool{}
	for _, m := range s.VertexMappings {
		v, ok := index[m.Vertex]
		if !ok {
			return errAt(m.Line, "vertex mapping names %q, which is not declared in Vertices", m.Vertex)
		}
		if phaseIndex(m.TaskPool, m.Phase) < 0 {
			return errAt(m.Line, "vertex %s: phase %q is not recorded for task pool %q", m.Vertex, m.Phase, m.TaskPool)
		}
		k := slot{v, m.TaskPool, m.Phase}
		if seen[k] {
			return errAt(m.Line, "vertex %s is mapped to task pool %s, phase %s twice", m.Vertex, m.TaskPool, m.Phase)
		}
		seen[k] = true
		mapped[v] = true
	}
	for i, ok := range mapped {
		if !ok {
			return errAt(headers["vertex mapping"], "vertex %q has no vertex mapping", s.Vertices[i])
		}
	}
	for i, m := range s.EdgeMappings {
		a, okA := index[m.Edge.From]
		b, okB := index[m.Edge.To]
		j, ok := edges[pair{a, b}]
		if !okA || !okB || !ok {
			return errAt(m.Line, "edge mapping names %s, which is not declared in Edges", m.Edge)
		}
		if j >= 0 {
			return errAt(m.Line, "edge %s is mapped twice (first on line %d)", m.Edge, s.EdgeMappings[j].Line)
		}
		edges[pair{a, b}] = i
	}
	for _, e := range s.Edges {
		if edges[pair{index[e.From], index[e.To]}] < 0 {
			return errAt(headers["edge mapping"], "edge %s has no edge mapping", e)
		}
	}
	return nil
}

// cycle runs Kahn's algorithm; it reports a vertex on a cycle, if any.
func cycle(out [][]int, indeg []int) (int, bool) {
	deg := append([]int(nil), indeg...)
	queue := make([]int, 0, len(deg))
	for v, d := range deg {
		if d == 0 {
			queue = append(queue, v)
		}
	}
	done := 0
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		done++
		for _, w := range out[v] {
			if deg[w]--; deg[w] == 0 {
				queue = append(queue, w)
			}
		}
	}
	if done == len(deg) {
		return 0, false
	}
	for v, d := range deg {
		if d > 0 {
			return v, true
		}
	}
	return 0, false
}
