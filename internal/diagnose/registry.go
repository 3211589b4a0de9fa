package diagnose

import (
	"fmt"
	"slices"
	"sync"
)

// Detector finds one kind of problem.
type Detector interface {
	// Name is the detector's stable id; its findings carry it as Finding.ID.
	Name() string
	// Title is a short human name.
	Title() string
	// Source cites the paper or tool (and its section or file) followed.
	Source() string
	// DefaultParams returns the detector's typed Params with their defaults.
	DefaultParams() any
	// Detect examines the input with params, which must be of the type
	// DefaultParams returns (or a pointer to it); nil means the defaults.
	Detect(in *Input, params any) ([]Finding, error)
}

var (
	mu        sync.Mutex
	detectors = map[string]Detector{}
)

// Register adds a detector; detectors call it from init(). A name
// registered twice is refused with an error and the first registration stays.
func Register(d Detector) error {
	mu.Lock()
	defer mu.Unlock()
	if _, ok := detectors[d.Name()]; ok {
		return fmt.Errorf("register detector %q: already registered", d.Name())
	}
	detectors[d.Name()] = d
	return nil
}

// Detectors returns the registered detectors in name order.
func Detectors() []Detector {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Detector, 0, len(detectors))
	for _, d := range detectors {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b Detector) int {
		switch {
		case a.Name() < b.Name():
			return -1
		case a.Name() > b.Name():
			return 1
		}
		return 0
	})
	return out
}

// Lookup returns the detector registered under name.
func Lookup(name string) (Detector, bool) {
	mu.Lock()
	defer mu.Unlock()
	d, ok := detectors[name]
	return d, ok
}

// Func adapts a function with typed parameters P to a Detector.
type Func[P any] struct {
	ID, Heading, Cite string
	Defaults          P
	Fn                func(in *Input, p P) []Finding
}

// Name implements Detector.
func (f Func[P]) Name() string { return f.ID }

// Title implements Detector.
func (f Func[P]) Title() string { return f.Heading }

// Source implements Detector.
func (f Func[P]) Source() string { return f.Cite }

// DefaultParams implements Detector.
func (f Func[P]) DefaultParams() any { return f.Defaults }

// Detect implements Detector; it stamps every finding with the detector's
// id, title and source where the function left them empty.
func (f Func[P]) Detect(in *Input, params any) ([]Finding, error) {
	p := f.Defaults
	switch v := params.(type) {
	case nil:
	case P:
		p = v
	case *P:
		if v != nil {
			p = *v
		}
	default:
		return nil, fmt.Errorf("detector %s: params of type %T, want %T", f.ID, params, f.Defaults)
	}
	fs := f.Fn(in, p)
	for i := range fs {
		if fs[i].ID == "" {
			fs[i].ID = f.ID
		}
		if fs[i].Title == "" {
			fs[i].Title = f.Heading
		}
		if fs[i].Source == "" {
			fs[i].Source = f.Cite
		}
	}
	return fs, nil
}

// mustRegister registers a built-in detector from init(); a duplicate name
// among the built-ins is caught by TestRegistry, so the error is dropped here.
func mustRegister(d Detector) { _ = Register(d) }
