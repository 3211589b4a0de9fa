package dataflow

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/clusterlens/clusterlens/internal/model"
)

//go:embed specs/*.flow
var builtinFS embed.FS

// ErrUnknownSpec is returned for a built-in specification name that does not exist.
var ErrUnknownSpec = errors.New("unknown dataflow specification")

var builtins = sync.OnceValues(func() (map[string]*Spec, error) {
	entries, err := builtinFS.ReadDir("specs")
	if err != nil {
		return nil, fmt.Errorf("read built-in specifications: %w", err)
	}
	out := map[string]*Spec{}
	for _, e := range entries {
		b, err := builtinFS.ReadFile("specs/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("read built-in specification: %w", err)
		}
		s, err := Parse("specs/"+e.Name(), bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		if s.Name == "" {
			s.Name = strings.TrimSuffix(e.Name(), ".flow")
		}
		out[s.Name] = s
	}
	return out, nil
})

// BuiltinNames lists the embedded specifications: "hadoop" (HiTune's
// Figure 8) and "spark".
func BuiltinNames() []string {
	m, _ := builtins()
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Builtin returns an embedded specification by name. Callers must not
// modify it.
func Builtin(name string) (*Spec, error) {
	m, err := builtins()
	if err != nil {
		return nil, err
	}
	s, ok := m[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (built-in: %s)", ErrUnknownSpec, name, strings.Join(BuiltinNames(), ", "))
	}
	return s, nil
}

// BuiltinFor returns the embedded specification for an engine: "spark" for
// Spark, "hadoop" for MapReduce.
func BuiltinFor(e model.Engine) (*Spec, error) {
	if e == model.MapReduce {
		return Builtin("hadoop")
	}
	return Builtin("spark")
}
