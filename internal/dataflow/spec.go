package dataflow

import "fmt"

// Spec is a dataflow specification (HiTune §4): the dataflow graph of an
// application (Input, Output, Vertices, Edges) and how it maps onto the
// execution (Vertex Mapping, Edge Mapping). docs/DATAFLOW.md gives the
// text syntax; Parse reads it and Builtin returns the embedded ones.
type Spec struct {
	Name     string
	Input    string // what the dataflow reads, free text
	Output   string // what it writes, free text
	Vertices []string
	Edges    []Edge
	// VertexMappings map vertices to task pools and phases; a vertex may
	// have several (one per task pool it runs in).
	VertexMappings []VertexMapping
	// EdgeMappings give every edge its type, endpoint location and cardinality.
	EdgeMappings []EdgeMapping
}

// Edge is a directed edge of the dataflow graph: data flows From → To.
type Edge struct {
	From, To string
	Line     int // line of the specification that declared it
}

// String writes the edge as in specifications.
func (e Edge) String() string { return e.From + " -> " + e.To }

// Cardinality is how many instances an execution unit has: a positive
// integer, or a symbol (a letter such as N or M, or *) for "many, known only
// at run time". The zero value means unspecified.
type Cardinality string

// VertexMapping maps a vertex onto the execution (HiTune §4, Figure 8):
// the task pool whose attempts run it, the recorded phase of those attempts
// that it occupies, and, optionally, the thread, thread pool or thread group
// pool inside the task that executes it, each with its cardinality.
type VertexMapping struct {
	Vertex       string
	TaskPool     Pool
	TaskPoolCard Cardinality // task attempts in the pool, usually a symbol
	Phase        Phase
	// Thread is a single named thread (for example SpillThread).
	Thread string
	// ThreadPool is a pool of identical threads (for example MapOutputCopier),
	// ThreadPoolCard of them per task.
	ThreadPool     string
	ThreadPoolCard Cardinality
	// ThreadGroupPool is a pool of groups of distinct threads (for example
	// InMemFSMergeThread and LocalFSMerger), ThreadGroupCard groups per task.
	ThreadGroupPool []string
	ThreadGroupCard Cardinality
	Line            int
}

// EdgeType is how data moves along an edge.
type EdgeType uint8

// Edge types.
const (
	EdgeUnknown EdgeType = iota
	// Pipelined: the destination consumes data while the source produces it.
	Pipelined
	// Sequential: the destination starts after the source has finished.
	Sequential
)

// String returns the edge type's name as written in specifications.
func (t EdgeType) String() string {
	switch t {
	case Pipelined:
		return "pipelined"
	case Sequential:
		return "sequential"
	}
	return ""
}

// Location is where an edge's endpoints lie relative to each other.
type Location uint8

// Endpoint locations.
const (
	LocationUnknown Location = iota
	// Local: source and destination run in the same task attempt.
	Local
	// Remote: data crosses task attempts and, usually, nodes (a shuffle).
	Remote
)

// String returns the location's name as written in specifications.
func (l Location) String() string {
	switch l {
	case Local:
		return "local"
	case Remote:
		return "remote"
	}
	return ""
}

// EdgeMapping maps an edge onto data movement (HiTune §4): its type, the
// location of its endpoints and its cardinality (source:destination
// instances, for example 1:1 or M:N).
type EdgeMapping struct {
	Edge        Edge
	Type        EdgeType
	Location    Location
	Cardinality [2]Cardinality
	Line        int
}

// Mappings returns the vertex mappings of vertex v.
func (s *Spec) Mappings(v string) []VertexMapping {
	var out []VertexMapping
	for _, m := range s.VertexMappings {
		if m.Vertex == v {
			out = append(out, m)
		}
	}
	return out
}

// EdgeMapping returns the mapping of edge from → to.
func (s *Spec) EdgeMapping(from, to string) (EdgeMapping, bool) {
	for _, m := range s.EdgeMappings {
		if m.Edge.From == from && m.Edge.To == to {
			return m, true
		}
	}
	return EdgeMapping{}, false
}

// Pools lists the task pools the specification maps vertices onto, in order.
func (s *Spec) Pools() []Pool {
	var seen [numPools]bool
	var out []Pool
	for _, m := range s.VertexMappings {
		if m.TaskPool < numPools && !seen[m.TaskPool] {
			seen[m.TaskPool] = true
			out = append(out, m.TaskPool)
		}
	}
	return out
}

// SyntaxError is a problem in a specification, with where it is.
type SyntaxError struct {
	File string
	Line int
	What string
}

// Error is "file:line: what".
func (e *SyntaxError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.What) }
