package dataflow

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxLineBytes bounds one line of a specification.
const maxLineBytes = 64 << 10

// section is the part of a specification a line belongs to.
type section uint8

const (
	secNone section = iota
	secVertices
	secEdges
	secVertexMapping
	secEdgeMapping
)

// parser holds the state of one Parse.
type parser struct {
	file    string
	spec    *Spec
	sec     section
	lineNo  int
	headers map[string]int // top-level keys seen, with their line
}

// Parse reads a dataflow specification in the syntax of docs/DATAFLOW.md
// (HiTune §4). name identifies the input in errors, which read
// "name:line: what was expected". The specification is validated: every
// name must be declared, the graph acyclic, every vertex and edge mapped.
func Parse(name string, r io.Reader) (*Spec, error) {
	p := &parser{file: name, spec: &Spec{}, headers: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLineBytes)
	for sc.Scan() {
		p.lineNo++
		if err := p.line(sc.Text()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			p.lineNo++
			return nil, p.errf("line longer than %d bytes", maxLineBytes)
		}
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if err := validate(p.spec, p.file, p.headers); err != nil {
		return nil, err
	}
	return p.spec, nil
}

// ParseFile reads a specification from a file. A specification without a
// Name line is named after the file, without its extension.
func ParseFile(path string) (*Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open dataflow specification: %w", err)
	}
	defer f.Close()
	s, err := Parse(path, f)
	if err != nil {
		return nil, err
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return s, nil
}

func (p *parser) errf(format string, args ...any) error {
	return &SyntaxError{File: p.file, Line: p.lineNo, What: fmt.Sprintf(format, args...)}
}

// line parses one line.
func (p *parser) line(raw string) error {
	if i := strings.IndexByte(raw, '#'); i >= 0 {
		raw = raw[:i]
	}
	text := strings.TrimSpace(raw)
	if text == "" {
		return nil
	}
	if raw[0] == ' ' || raw[0] == '\t' {
		return p.entry(text)
	}
	key, rest, ok := strings.Cut(text, ":")
	if !ok {
		return p.errf("expected a section such as \"Vertices:\", found %q", clip(text))
	}
	key = normKey(key)
	rest = strings.TrimSpace(rest)
	if prev, dup := p.headers[key]; dup && key != "vertices" && key != "edges" {
		return p.errf("duplicate %q (first on line %d)", key, prev)
	}
	p.headers[key] = p.lineNo
	p.sec = secNone
	switch key {
	case "name":
		if !isIdent(rest) {
			return p.errf("expected a name of letters, digits, '_', '.' or '-' after \"Name:\", found %q", clip(rest))
		}
		p.spec.Name = rest
	case "input", "output":
		if rest == "" {
			return p.errf("expected a description after %q", key+":")
		}
		if key == "input" {
			p.spec.Input = rest
		} else {
			p.spec.Output = rest
		}
	case "vertices":
		p.sec = secVertices
		return p.entry(rest)
	case "edges":
		p.sec = secEdges
		return p.entry(rest)
	case "vertex mapping", "edge mapping":
		if rest != "" {
			return p.errf("expected nothing after %q; entries go on the indented lines below", key+":")
		}
		p.sec = secVertexMapping
		if key == "edge mapping" {
			p.sec = secEdgeMapping
		}
	default:
		return p.errf("expected Name, Input, Output, Vertices, Edges, Vertex Mapping or Edge Mapping, found %q", clip(key))
	}
	return nil
}

// entry parses text belonging to the current section.
func (p *parser) entry(text string) error {
	switch p.sec {
	case secVertices:
		for _, v := range strings.Split(text, ",") {
			if v = strings.TrimSpace(v); v == "" {
				continue
			}
			if !isIdent(v) {
				return p.errf("expected a vertex name of letters, digits, '_', '.' or '-', found %q", clip(v))
			}
			p.spec.Vertices = append(p.spec.Vertices, v)
		}
	case secEdges:
		for _, e := range strings.Split(text, ",") {
			if e = strings.TrimSpace(e); e == "" {
				continue
			}
			edges, err := p.chain(e)
			if err != nil {
				return err
			}
			p.spec.Edges = append(p.spec.Edges, edges...)
		}
	case secVertexMapping:
		return p.vertexMapping(text)
	case secEdgeMapping:
		return p.edgeMapping(text)
	default:
		return p.errf("expected a section such as \"Vertices:\" before indented text %q", clip(text))
	}
	return nil
}

// chain parses "a -> b -> c" into its edges.
func (p *parser) chain(text string) ([]Edge, error) {
	parts := strings.Split(text, "->")
	if len(parts) < 2 {
		return nil, p.errf("expected an edge \"from -> to\", found %q", clip(text))
	}
	var out []Edge
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
		if !isIdent(parts[i]) {
			return nil, p.errf("expected a vertex name in edge %q, found %q", clip(text), clip(parts[i]))
		}
		if i > 0 {
			out = append(out, Edge{From: parts[i-1], To: parts[i], Line: p.lineNo})
		}
	}
	return out, nil
}

// fields splits "K = V (card); K = V" into keys, values and cardinalities.
func (p *parser) fields(text, what string) (keys, values []string, cards []Cardinality, err error) {
	for _, f := range strings.Split(text, ";") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return nil, nil, nil, p.errf("expected \"Key = value\" in %s, found %q", what, clip(f))
		}
		k, v = normKey(k), strings.TrimSpace(v)
		for _, seen := range keys {
			if seen == k {
				return nil, nil, nil, p.errf("duplicate key %q in %s", k, what)
			}
		}
		var card Cardinality
		if strings.HasSuffix(v, ")") {
			open := strings.LastIndexByte(v, '(')
			if open < 0 {
				return nil, nil, nil, p.errf("expected \"(\" before \")\" in %q", clip(v))
			}
			card = Cardinality(strings.TrimSpace(v[open+1 : len(v)-1]))
			if !card.valid() {
				return nil, nil, nil, p.errf("expected a cardinality (a positive integer, a letter such as N, or *), found %q", clip(string(card)))
			}
			v = strings.TrimSpace(v[:open])
		}
		if v == "" {
			return nil, nil, nil, p.errf("expected a value after %q in %s", k+" =", what)
		}
		keys, values, cards = append(keys, k), append(values, v), append(cards, card)
	}
	return keys, values, cards, nil
}

// vertexMapping parses "vertex: Task Pool = map (M); Phase = map; ...".
func (p *parser) vertexMapping(text string) error {
	name, rest, ok := strings.Cut(text, ":")
	name = strings.TrimSpace(name)
	if !ok || !isIdent(name) {
		return p.errf("expected \"vertex: Task Pool = pool; Phase = phase\", found %q", clip(text))
	}
	keys, values, cards, err := p.fields(rest, "the mapping of vertex "+name)
	if err != nil {
		return err
	}
	m := VertexMapping{Vertex: name, Line: p.lineNo}
	for i, k := range keys {
		v, c := values[i], cards[i]
		switch k {
		case "task pool":
			if m.TaskPool = ParsePool(v); m.TaskPool == PoolNone {
				return p.errf("unknown task pool %q (want spark, map, reduce, setup or cleanup)", clip(v))
			}
			m.TaskPoolCard = c
		case "phase":
			if c != "" {
				return p.errf("Phase takes no cardinality")
			}
			if m.Phase = ParsePhase(v); m.Phase == PhaseNone {
				return p.errf("unknown phase %q (want one of %s)", clip(v), strings.Join(phaseNames[1:], ", "))
			}
		case "thread":
			if c != "" {
				return p.errf("Thread takes no cardinality; use Thread Pool for several")
			}
			if !isIdent(v) {
				return p.errf("expected a thread name, found %q", clip(v))
			}
			m.Thread = v
		case "thread pool":
			if !isIdent(v) {
				return p.errf("expected a thread pool name, found %q", clip(v))
			}
			m.ThreadPool, m.ThreadPoolCard = v, c
		case "thread group pool":
			for _, t := range strings.Split(v, "+") {
				if t = strings.TrimSpace(t); !isIdent(t) {
					return p.errf("expected thread names joined by '+', found %q", clip(v))
				}
				m.ThreadGroupPool = append(m.ThreadGroupPool, t)
			}
			m.ThreadGroupCard = c
		default:
			return p.errf("unknown key %q in vertex mapping (want Task Pool, Phase, Thread, Thread Pool or Thread Group Pool)", clip(k))
		}
	}
	if m.TaskPool == PoolNone {
		return p.errf("expected \"Task Pool = ...\" in the mapping of vertex %s", name)
	}
	if m.Phase == PhaseNone {
		return p.errf("expected \"Phase = ...\" in the mapping of vertex %s", name)
	}
	if phaseIndex(m.TaskPool, m.Phase) < 0 {
		return p.errf("phase %s is not recorded for task pool %s (its phases: %s)", m.Phase, m.TaskPool, phaseList(m.TaskPool))
	}
	p.spec.VertexMappings = append(p.spec.VertexMappings, m)
	return nil
}

// edgeMapping parses "a -> b: Type = pipelined; Location = local; Cardinality = 1:1".
func (p *parser) edgeMapping(text string) error {
	head, rest, ok := strings.Cut(text, ":")
	if !ok {
		return p.errf("expected \"from -> to: Type = ...; Location = ...\", found %q", clip(text))
	}
	edges, err := p.chain(strings.TrimSpace(head))
	if err != nil {
		return err
	}
	if len(edges) != 1 {
		return p.errf("expected one edge \"from -> to\" before ':', found %q", clip(head))
	}
	keys, values, cards, err := p.fields(rest, "the mapping of edge "+edges[0].String())
	if err != nil {
		return err
	}
	m := EdgeMapping{Edge: edges[0], Line: p.lineNo}
	for i, k := range keys {
		v := strings.ToLower(values[i])
		if cards[i] != "" {
			return p.errf("%s takes no parenthesized cardinality; use \"Cardinality = 1:N\"", k)
		}
		switch k {
		case "type":
			switch v {
			case "pipelined":
				m.Type = Pipelined
			case "sequential":
				m.Type = Sequential
			default:
				return p.errf("unknown edge type %q (want pipelined or sequential)", clip(values[i]))
			}
		case "location":
			switch v {
			case "local":
				m.Location = Local
			case "remote":
				m.Location = Remote
			default:
				return p.errf("unknown endpoint location %q (want local or remote)", clip(values[i]))
			}
		case "cardinality":
			from, to, ok := strings.Cut(values[i], ":")
			m.Cardinality = [2]Cardinality{Cardinality(strings.TrimSpace(from)), Cardinality(strings.TrimSpace(to))}
			if !ok || !m.Cardinality[0].valid() || !m.Cardinality[1].valid() {
				return p.errf("expected a cardinality \"source:destination\" such as 1:1 or M:N, found %q", clip(values[i]))
			}
		default:
			return p.errf("unknown key %q in edge mapping (want Type, Location or Cardinality)", clip(k))
		}
	}
	if m.Type == EdgeUnknown {
		return p.errf("expected \"Type = pipelined|sequential\" in the mapping of edge %s", m.Edge)
	}
	if m.Location == LocationUnknown {
		return p.errf("expected \"Location = local|remote\" in the mapping of edge %s", m.Edge)
	}
	p.spec.EdgeMappings = append(p.spec.EdgeMappings, m)
	return nil
}

// normKey lower-cases a key and collapses its inner spaces.
func normKey(k string) string { return strings.ToLower(strings.Join(strings.Fields(k), " ")) }

// isIdent reports whether s is a name: a letter or '_' first, then
// letters, digits, '_', '.' or '-'.
func isIdent(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '.' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// valid reports whether c is a positive integer, a letter or "*".
func (c Cardinality) valid() bool {
	if c == "*" || len(c) == 1 && (c[0] >= 'A' && c[0] <= 'Z' || c[0] >= 'a' && c[0] <= 'z') {
		return true
	}
	if c == "" || len(c) > 9 || c[0] == '0' {
		return false
	}
	for i := 0; i < len(c); i++ {
		if c[i] < '0' || c[i] > '9' {
			return false
		}
	}
	return true
}

// phaseList names a pool's phases for messages.
func phaseList(p Pool) string {
	var names []string
	for _, ph := range Layout(p) {
		names = append(names, ph.String())
	}
	return strings.Join(names, ", ")
}

// clip shortens text quoted in errors so that a message stays one line.
func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
