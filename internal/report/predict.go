package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/predict"
)

// PredictText writes a prediction for a person (`predict`).
func PredictText(w io.Writer, o *predict.Answer) {
	est := o.Estimate
	fmt.Fprintf(w, "estimate %s (%s .. %s)  model %s", Measure(est.Value, est.Unit), Measure(est.Lower, est.Unit), Measure(est.Upper, est.Unit), est.Model)
	if est.Extrapolated {
		fmt.Fprint(w, "  EXTRAPOLATED")
	}
	fmt.Fprintln(w)
	if est.Uncalibrated {
		fmt.Fprintln(w, "UNCALIBRATED: too few configurations to hold any out; the interval is a rule of thumb")
	}
	if c := est.Choice; c != nil {
		fmt.Fprintf(w, "fitted on %d runs (%s), %s machines", c.Runs, count(c.Configurations, "configuration"), predict.PlainSpan(c.Range.MinMachines, c.Range.MaxMachines))
		if c.Split != predict.SplitNone {
			fmt.Fprintf(w, "; %s cross-validation along %s, mean relative error:", c.Split, c.Axis)
		}
		for _, m := range predict.Candidates {
			if v, ok := c.Scores[m]; ok {
				fmt.Fprintf(w, " %s %.1f%%", m, 100*v)
			}
		}
		fmt.Fprintln(w)
		for _, m := range predict.Candidates {
			if why, ok := c.Unfit[m]; ok {
				fmt.Fprintf(w, "  %s not used: %s\n", m, strings.TrimPrefix(why, m+": "))
			}
		}
	}
	if n := est.Next; n != nil {
		fmt.Fprintf(w, "the run that would help most: %s machines", predict.Plain(n.Machines))
		if est.Choice != nil && est.Choice.Range.MaxData > est.Choice.Range.MinData {
			fmt.Fprintf(w, " with data %s", predict.Plain(n.Data))
		}
		fmt.Fprintf(w, " (%s)\n", n.Why)
	}
	if p := o.Profile; p != nil {
		fmt.Fprintf(w, "job profile %q from %d run(s): %.0f maps of %s, map selectivity %.3f, reduce selectivity %.3f, map function %.4f ms/record, reduce function %.4f ms/record; phase boundaries from %v\n",
			p.Name, p.Runs, p.Maps, Measure(p.SplitBytes, "B"), p.MapSelectivity, p.ReduceSelectivity, p.MapFnMsPerRecord, p.ReduceFnMsPerRecord, p.Sources)
	}
	if m := o.MapReduce; m != nil {
		d := m.Durations
		fmt.Fprintf(w, "per task: map %s (longest %s), shuffle %s, reduce %s; ARIA low %s, avg %s, high %s\n",
			Measure(d.Map.Avg, "ms"), Measure(d.Map.Max, "ms"), Measure(d.Shuffle.Avg, "ms"), Measure(d.Reduce.Avg, "ms"),
			Measure(m.Bounds.Low, "ms"), Measure(m.Bounds.Avg, "ms"), Measure(m.Bounds.High, "ms"))
	}
	if s := o.Spark; s != nil {
		for _, st := range s.Stages {
			fmt.Fprintf(w, "  stage %-4d %6d tasks of %s  %s .. %s\n", st.ID, st.Tasks, Measure(st.AvgMs, "ms"), Measure(st.Low, "ms"), Measure(st.High, "ms"))
		}
	}
	for _, n := range est.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	if d := o.Deadline; d != nil {
		switch {
		case d.Slots != nil:
			fmt.Fprintf(w, "deadline: %d map and %d reduce slots (estimate %s, up to %s)\n", d.Slots.Map, d.Slots.Reduce, Measure(d.Estimate.Value, "ms"), Measure(d.Estimate.Upper, "ms"))
		case d.Executors > 0:
			fmt.Fprintf(w, "deadline: %d executors (estimate %s, up to %s)\n", d.Executors, Measure(d.Estimate.Value, "ms"), Measure(d.Estimate.Upper, "ms"))
		default:
			fmt.Fprintf(w, "deadline: %g machines (estimate %s, up to %s)\n", d.Machines, Measure(d.Estimate.Value, d.Estimate.Unit), Measure(d.Estimate.Upper, d.Estimate.Unit))
		}
	}
}

// Measure is a value in its unit: times as durations (ms, s, min, h),
// bytes with a binary unit, anything else as a plain number with its
// unit.
func Measure(v float64, unit string) string {
	if d, ok := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "min": time.Minute, "h": time.Hour}[unit]; ok {
		return time.Duration(v * float64(d)).Round(100 * time.Millisecond).String()
	}
	if unit == "B" {
		for _, u := range []struct {
			s string
			m float64
		}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
			if v >= u.m {
				return fmt.Sprintf("%.1f %s", v/u.m, u.s)
			}
		}
		return fmt.Sprintf("%.0f B", v)
	}
	return strings.TrimSpace(predict.Plain(v) + " " + unit)
}
