package dataflow

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Analysis is HiTune's dataflow-driven analysis of one application: its
// reconstruction and breakdowns. The analyze command calls Analyze and
// draws Timeline.
type Analysis struct {
	Reconstruction *Reconstruction `json:"-"`
	Breakdown      *Breakdown      `json:"breakdown"`
}

// Analyze reconstructs an application with the specification in opts (the
// engine's built-in one when nil) and computes its breakdowns.
func Analyze(app *model.App, opts Options) (*Analysis, error) {
	r, err := Reconstruct(app, opts)
	if err != nil {
		return nil, err
	}
	return &Analysis{Reconstruction: r, Breakdown: BuildBreakdown(r)}, nil
}

// Timeline lays the analysis out as HiTune's pipeline space-time diagram.
func (a *Analysis) Timeline(opts TimelineOptions) *Timeline {
	return BuildTimeline(a.Reconstruction, opts)
}

// LoadSpec returns the built-in specification called nameOrPath, or else
// parses the file at that path.
func LoadSpec(nameOrPath string) (*Spec, error) {
	if s, err := Builtin(nameOrPath); err == nil {
		return s, nil
	}
	if _, err := os.Stat(nameOrPath); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w %q: neither a built-in one (%s) nor a file", ErrUnknownSpec, nameOrPath,
			strings.Join(BuiltinNames(), ", "))
	}
	return ParseFile(nameOrPath)
}
