package predict

import (
	"fmt"
	"math"
	"strings"
)

// note says what the replays gave.
func (r *Replayed) note() string {
	spec := "off"
	if r.Spec.On {
		spec = fmt.Sprintf("on (quantile %g, multiplier %g, every %g ms)", r.Spec.Quantile, r.Spec.Multiplier, r.Spec.IntervalMs)
	}
	return fmt.Sprintf("%d replays of the predicted tasks, speculative execution %s: median %.0f ms, %.0f%% of them within %.0f–%.0f ms", r.Runs, spec, r.MedianMs, 100*r.Level, r.LowMs, r.HighMs)
}

// Estimate is a predicted completion time with its lower and upper bound.
type Estimate struct {
	// Method is how it was made: "history" (a model fitted on past runs
	// alone), "icpe13" (MapReduce platform and job profiles with ARIA's
	// bounds) or "spark-stages" (Spark stage profiles replayed).
	Method string `json:"method"`
	// Model is the model used (ernest, kernel, optimistic, power, amdahl, pchip, flat,
	// pooled; or the method's own).
	Model string `json:"model"`
	// Machines and Data are what was asked for (Data in the runs' unit;
	// bytes from logs and the history).
	Machines float64 `json:"machines"`
	Data     float64 `json:"data"`
	// Value, Lower and Upper are in Unit ("ms" unless a CSV said another).
	Value float64 `json:"estimate"`
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
	Unit  string  `json:"unit"`
	// Level is the interval's intended coverage (history: its
	// calibration's; 0 for ARIA's bounds, which are bounds).
	Level float64 `json:"level,omitempty"`
	// Extrapolated is set when the question lies outside what the model
	// was fitted on; the interval is then widened (Notes say by how much).
	Extrapolated bool `json:"extrapolated"`
	// Uncalibrated is set when too few configurations were held out to
	// calibrate the interval: a rule of thumb, wider (history only).
	Uncalibrated bool     `json:"uncalibrated,omitempty"`
	Notes        []string `json:"notes,omitempty"`
	// Choice is the model choice behind a "history" estimate; Next the
	// run that would help this question most.
	Choice *Choice     `json:"choice,omitempty"`
	Next   *Suggestion `json:"nextRun,omitempty"`
}

// FromRuns predicts the runtime on machines for data from a table of past
// runs: Choose picks the model, which is fitted on every run; the interval
// is the choice's calibrated one (Calibration) at opt.Level (default 0.9).
// It answers whenever one candidate can be fitted, labelled uncalibrated
// when no configuration could be held out; it refuses (a *TooFewError
// naming the run that would help) only when none can.
func FromRuns(t *RunTable, machines, data float64, opt ChoiceOptions) (*Estimate, error) {
	if !(machines > 0) || !(data > 0) {
		return nil, fmt.Errorf("predict for %g machines and data %g: both must be positive", machines, data)
	}
	c, err := Choose(t.Points, machines, data, opt)
	if err != nil {
		return nil, err
	}
	v, ok := c.Model.Predict(machines, data)
	if !ok {
		// The next best scored candidate with an answer.
		best := math.Inf(1)
		for name, m := range c.fitted {
			if s, scored := c.Scores[name]; scored && s < best && name != c.Name {
				if w, ok2 := m.Predict(machines, data); ok2 {
					best, v, ok = s, w, true
					c.Name, c.Model = name, m
				}
			}
		}
	}
	if !ok {
		return nil, fmt.Errorf("%s: no positive runtime at %s machines and data %s", c.Name, Plain(machines), Plain(data))
	}
	v = linearBound(c.Model, c.Range, machines, data, v)
	e := &Estimate{Method: "history", Model: c.Name, Machines: machines, Data: data, Value: v, Unit: t.Unit, Choice: c,
		Level: c.Calibration.Level}
	e.Lower, e.Upper, e.Extrapolated = c.Interval(v, machines, data)
	switch {
	case c.Name == "flat" && c.Split == SplitNone:
		e.Notes = append(e.Notes, "flat: one configuration fits no curve; the estimate is its runs' typical time (their median weighted by 1/runtime), the interval reaches from it to linear scaling")
	case c.Name == "flat":
		e.Notes = append(e.Notes, "flat: no curve through the machines validated better than the runs' typical time (their median weighted by 1/runtime), which is the estimate at any cluster size")
	}
	if e.Extrapolated {
		span := PlainSpan(c.Range.MinMachines, c.Range.MaxMachines) + " machines"
		if c.Range.MaxData > c.Range.MinData*(1+dataTol) {
			span += " and data " + PlainSpan(c.Range.MinData, c.Range.MaxData)
		}
		e.Notes = append(e.Notes, fmt.Sprintf("extrapolated: the runs span %s, the question lies %s times beyond them; the interval grows with the distance",
			span, Plain(math.Exp(c.Range.Outside(machines, data)))))
	}
	cal := c.Calibration
	if cal.Method == "conformal" {
		e.Notes = append(e.Notes, fmt.Sprintf("%.0f%% interval calibrated on %d held-out runs (%s cross-validation along %s, residuals of %s); it held %.0f%% of %d held-out runs when calibrated without their split",
			100*cal.Level, cal.Residuals, c.Split, c.Axis, strings.Join(cal.Models, ", "), 100*cal.Coverage, cal.CoverageRuns))
		if cal.Effective < float64(cal.Residuals)-0.5 {
			e.Notes = append(e.Notes, fmt.Sprintf("the interval counts the %d held-out runs as %s independent ones: the runs of one configuration err together",
				cal.Residuals, Plain(math.Round(cal.Effective))))
		}
		if cal.ByClass && cal.Class == "" {
			e.Notes = append(e.Notes, "calibrated on the held-out runs without a class only: runs of a class (such as after-rescale) stray differently")
		} else if cal.ByClass {
			e.Notes = append(e.Notes, fmt.Sprintf("calibrated on the held-out runs of class %s only", cal.Class))
		} else if cal.Class != "" {
			e.Notes = append(e.Notes, fmt.Sprintf("asked for a run of class %s: fewer than %d held-out runs of it, calibrated on every class's", cal.Class, MinResiduals(cal.Level)))
		}
		if cal.Few {
			e.Notes = append(e.Notes, fmt.Sprintf("only %d held-out run(s), fewer than the %d a %.0f%% interval needs: the interval also spans the fitted models' estimates, widened by %.0f%% per doubling beyond the runs",
				cal.Residuals, MinResiduals(cal.Level), 100*cal.Level, 100*DefaultWidening))
		}
		if cal.Noise > 0 {
			e.Notes = append(e.Notes, fmt.Sprintf("the interval reaches at least a factor %s either side of the estimate: the spread of one run around its configuration's median runtime at %.0f%%",
				Plain(math.Round(100*math.Exp(cal.Noise))/100), 100*cal.Level))
		}
	} else {
		e.Uncalibrated = true
		e.Notes = append(e.Notes, fmt.Sprintf("uncalibrated: %d configuration(s) leave none to hold out; the interval spans the fitted models' estimates and, beyond the runs' machines, linear scaling from the nearest, widened by %.0f%% per doubling beyond the runs (at least %.0f%%)",
			c.Configurations, 100*DefaultWidening, 100*DefaultWidening))
	}
	e.Next = NextRun(t.Points, machines, data)
	return e, nil
}

// Estimate states a MapReduce prediction: the replays' median
// (EstimatorReplay) or ARIA's average (EstimatorARIA), between ARIA's lower
// and upper bound.
func (p *MRPrediction) Estimate(inputBytes float64, slots Slots) *Estimate {
	e := &Estimate{Method: "icpe13", Model: "icpe13+aria", Machines: float64(slots.Map), Data: inputBytes,
		Value: p.Bounds.Avg, Lower: p.Bounds.Low, Upper: p.Bounds.High, Unit: "ms"}
	e.Notes = append(e.Notes, fmt.Sprintf("%d maps on %d map slots, %d reduces on %d reduce slots", p.Maps, slots.Map, p.Reduces, slots.Reduce))
	if r := p.Replayed; r != nil {
		e.Model, e.Value = "icpe13+replay", r.MedianMs
		e.Notes = append(e.Notes, r.note(), fmt.Sprintf("ARIA's estimate (T_avg): %.0f ms", p.Bounds.Avg))
	}
	if len(p.Extrapolated) > 0 {
		e.Extrapolated = true
		e.Notes = append(e.Notes, fmt.Sprintf("extrapolated: the %s part's data per task lies outside the microbenchmarks' (%.2f in ln units); the bounds are widened",
			strings.Join(p.Extrapolated, " and "), p.Outside))
	}
	return e
}

// Estimate states a Spark prediction: the replays' median (EstimatorReplay)
// or the what-if replay of the scaled recorded durations
// (EstimatorWhatIf), between ARIA's bounds over the stage DAG.
func (p *SparkPrediction) Estimate(inputBytes float64, executors int) *Estimate {
	e := &Estimate{Method: "spark-stages", Model: "stage-profiles+whatif", Machines: float64(executors), Data: inputBytes,
		Value: p.EstimateMs, Lower: p.Bounds.Low, Upper: p.Bounds.High, Unit: "ms"}
	e.Notes = append(e.Notes, fmt.Sprintf("%d task slots", p.Slots))
	if r := p.Replayed; r != nil && !p.SameWork {
		e.Model = "stage-profiles+replay"
		e.Notes = append(e.Notes, r.note(), fmt.Sprintf("the recorded durations scaled and replayed once (what-if): %.0f ms", p.WhatIfMs))
	} else if r != nil {
		e.Notes = append(e.Notes, "the recorded work on other executors: the what-if replay (as analyze's what-if); "+r.note())
	}
	c := p.SelfCheck
	e.Notes = append(e.Notes, fmt.Sprintf("self-check: the replay at the recorded configuration gives %.0f ms against %.0f ms recorded (%.1f%% off)",
		float64(c.ModelMs), float64(c.RecordedMs), 100*c.ModelError))
	if len(p.Extrapolated) > 0 {
		e.Extrapolated = true
		ids := make([]string, len(p.Extrapolated))
		for i, id := range p.Extrapolated {
			ids[i] = fmt.Sprint(id)
		}
		e.Notes = append(e.Notes, fmt.Sprintf("extrapolated: the tasks of stage %s would process more bytes each than any recorded (%.2f in ln units); the bounds are widened",
			strings.Join(ids, ", "), p.Outside))
	}
	return e
}
