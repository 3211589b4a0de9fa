package diagnose

import (
	"fmt"
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Options choose and tune detectors.
type Options struct {
	// Only runs just these detectors (nil: all).
	Only []string
	// Skip leaves these detectors out.
	Skip []string
	// Params holds a detector's Params (value or pointer) by detector name;
	// detectors not listed use their defaults.
	Params map[string]any
	// MinSeverity drops findings below it (the zero value keeps all).
	MinSeverity Severity
	// NodeModel expects each node's task durations from a model learned
	// from other runs (nil: none; straggler-nodes then compares nodes with
	// their peers alone).
	NodeModel NodeModel
	// Impact grades the findings' impacts (the zero value: the defaults).
	Impact ImpactLimits
}

// Validate reports unknown detector names and parameters of the wrong type.
func Validate(opts Options) error {
	names := append(append([]string(nil), opts.Only...), opts.Skip...)
	for n := range opts.Params {
		names = append(names, n)
	}
	for _, n := range names {
		if _, ok := Lookup(n); !ok {
			return fmt.Errorf("unknown detector %q", n)
		}
	}
	for n, p := range opts.Params {
		d, _ := Lookup(n)
		if _, err := d.Detect(probeInput, p); err != nil {
			return err
		}
	}
	return nil
}

// probeInput is an empty input used to check parameter types; detectors
// find nothing in it.
var probeInput = NewInput(&model.App{})

// Run diagnoses app with every selected detector; each finding's severity
// follows from its impact on the run, the findings of one cause are folded
// under it, and the list is ranked by impact (settle). A detector whose
// parameters have the wrong type is skipped (Validate reports it).
func Run(app *model.App, opts Options) []Finding {
	return RunInput(NewInput(app), opts)
}

// RunInput is Run on a prepared Input, so analyses already computed for it
// (the workload, the what-if) are reused.
func RunInput(in *Input, opts Options) []Finding {
	defer shareRecords(in.App)()
	if opts.NodeModel != nil && in.NodeModel == nil {
		in.NodeModel = opts.NodeModel
	}
	in.impactLimits = opts.Impact
	var all []Finding
	for _, d := range Detectors() {
		if opts.Only != nil && !slices.Contains(opts.Only, d.Name()) || slices.Contains(opts.Skip, d.Name()) {
			continue
		}
		fs, err := d.Detect(in, opts.Params[d.Name()])
		if err != nil {
			continue
		}
		all = append(all, fs...)
	}
	var out []Finding
	for _, f := range settle(in, all, in.limits()) {
		if f.Severity >= opts.MinSeverity {
			out = append(out, f)
		}
	}
	return out
}
