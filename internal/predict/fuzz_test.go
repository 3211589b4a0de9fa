package predict

import (
	"math"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// FuzzReadRunsCSV: any input gives runs or an error, never a panic, and
// the runs it gives are usable by the models.
func FuzzReadRunsCSV(f *testing.F) {
	for _, s := range []string{"#Cores,Input Fraction, Time (s)\n32,0.125,7.9\n4,0.0156,4.7\n", "Nodes,Runtime\n4,846235\n8,531000\n",
		"machines,data,runtime\n1,2\n", "\"a\nb\",runtime\n", "nodes,runtime\n4,1e400\n", "nodes,runtime\n4,NaN\n",
		"nodes,runtime_s\n4,10\n4,12\n", "nodes,Time [hrs]\n4,10\n16,3\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tab, err := ReadRunsCSV(strings.NewReader(s), "fuzz.csv")
		if err != nil {
			return
		}
		if err := checkPoints(tab.Points); err != nil {
			t.Fatalf("runs read from %q are unusable: %v", s, err)
		}
		e, err := FromRuns(tab, 8, 1, ChoiceOptions{})
		if err == nil && !(e.Lower <= e.Value && e.Value <= e.Upper && e.Lower > 0 && !math.IsInf(e.Upper, 0)) {
			t.Fatalf("runs %q at 8 machines: %g (%g–%g), want a positive estimate inside a finite interval", s, e.Value, e.Lower, e.Upper)
		}
	})
}

// FuzzReadSpeedTable: any input gives a table of positive speeds or an error.
func FuzzReadSpeedTable(f *testing.F) {
	f.Add(`{"m5": {"cpu": 1, "disk": 200, "network": 1000}}`)
	f.Add(`{"m5": {"cpu": -1}}`)
	f.Fuzz(func(t *testing.T, s string) {
		tab, err := ReadSpeedTable(strings.NewReader(s), "fuzz.json")
		if err != nil {
			return
		}
		for c, rs := range tab {
			for r, v := range rs {
				if !(v > 0) {
					t.Fatalf("class %q %s speed %g accepted", c, r, v)
				}
			}
		}
	})
}

// FuzzSpeculationOf: any speculation settings in a log give a usable rule:
// a quantile in (0, 1], a positive multiplier and a positive, finite
// interval.
func FuzzSpeculationOf(f *testing.F) {
	for _, s := range []string{"100ms", "1s", "2min", "NaN", "inf", "-3", "1e400s", "0.9"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, interval, number string) {
		app := &model.App{Engine: model.Spark}
		app.Env.Spark = [][2]string{{"spark.speculation", "true"}, {"spark.speculation.interval", interval},
			{"spark.speculation.quantile", number}, {"spark.speculation.multiplier", number}}
		s := SpeculationOf(app).withDefaults()
		if !(s.Quantile > 0 && s.Quantile <= 1) || !(s.Multiplier > 0) || !(s.IntervalMs > 0) ||
			math.IsInf(s.Multiplier, 0) || math.IsInf(s.IntervalMs, 0) {
			t.Fatalf("interval %q, number %q: %+v", interval, number, s)
		}
	})
}

// FuzzReadJobRuns: any input gives job rows with a positive scale-out and
// a usable duration, or an error; the rows answer or refuse a question.
func FuzzReadJobRuns(f *testing.F) {
	head := "ID|APP_ID|STARTED_AT|FINISHED_AT|APP_EVENT_ID|JOB_ID|STARTED_AT|FINISHED_AT|DURATION_MS|SCALE_OUT\n"
	for _, s := range []string{head + "1|GBT|2021-07-04 19:22:18.08|2021-07-04 19:36:51.115|1|0|2021-07-04 19:22:18.08|2021-07-04 19:22:18.901|821|36\n",
		head + "1|A|x|x|1|0|x|x|0|4\n2|A|x|x|2|0|x|x|10|8\n", head + "1|A|x|x|1|0|x|x|-3|4\n", head + "1|A|x|x|1|0|x|x|3|0\n",
		"ID,APP_ID,JOB_ID,DURATION_MS,SCALE_OUT\n1,A,0,5,4\n", head + "1|A\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		jobs, err := ReadJobRuns(strings.NewReader(s), "fuzz.csv")
		if err != nil {
			return
		}
		for _, j := range jobs {
			if !(j.ScaleOut > 0) || !(j.DurationMs >= 0) || math.IsInf(j.DurationMs, 0) || math.IsInf(j.ScaleOut, 0) {
				t.Fatalf("row %+v read from %q", j, s)
			}
		}
		if err := checkPoints(JobPoints(jobs, jobs[0].Job)); err != nil {
			t.Fatalf("points of %q unusable: %v", s, err)
		}
		_, _ = RemainingAt(jobs, 0, 8, ChoiceOptions{})
	})
}
