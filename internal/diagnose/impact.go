package diagnose

import (
	"cmp"
	"slices"

	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/perfmodel"
)

// Impact and its grading are package finding's.
type (
	Impact       = finding.Impact
	ImpactLimits = finding.ImpactLimits
	Setting      = finding.Setting
)

// DefaultImpactLimits grade impacts unless Options.Impact says otherwise.
var DefaultImpactLimits = finding.DefaultImpactLimits

// plan is the replay plan of the application's workload and its
// self-check, computed once; ok is false when there is no workload to
// replay (no finished task) or the replay fails.
func (in *Input) plan() (*perfmodel.Plan, perfmodel.SelfCheck, bool) {
	if !in.planDone {
		in.planDone = true
		if w, err := in.Workload(); err == nil {
			p := perfmodel.NewPlan(w)
			if c, err := p.Check(); err == nil {
				in.pl, in.check = p, c
			}
		}
	}
	return in.pl, in.check, in.pl != nil
}

// wallMs is the application's recorded wall time: the workload's window
// when there is one (it spans every task), else the application's.
func (in *Input) wallMs() int64 {
	if w, err := in.Workload(); err == nil {
		return w.Duration()
	}
	if in.App.End > in.App.Start && in.App.Start > 0 {
		return in.App.End - in.App.Start
	}
	return 0
}

// coreMsOffered is the core time the executors offered over the run.
func (in *Input) coreMsOffered() int64 {
	if e, err := in.Efficiency(); err == nil {
		return e.CoreMsAvailable
	}
	return 0
}

// newImpact states wallMs and coreMs saved as an Impact with its shares.
func (in *Input) newImpact(wallMs, coreMs int64, method, basis string) *Impact {
	im := &Impact{WallMs: max(0, wallMs), CoreMs: max(0, coreMs), Method: method, Basis: basis}
	if w := in.wallMs(); w > 0 {
		im.Share = float64(im.WallMs) / float64(w)
	}
	if c := in.coreMsOffered(); c > 0 {
		im.CoreShare = float64(im.CoreMs) / float64(c)
	}
	return im
}

// replayed is the impact of a problem as the replay without it measures it
// (perfmodel.Plan.Without), nil when the application cannot be replayed.
func (in *Input) replayed(e perfmodel.Edit, basis string) *Impact {
	p, c, ok := in.plan()
	if !ok {
		return nil
	}
	s, err := p.Without(e)
	if err != nil {
		return nil
	}
	im := in.newImpact(s.WallMs, s.CoreMs, finding.MethodReplay, basis)
	im.ModelError = c.ModelError
	return im
}

// replayedStage is replayed for an edit of stage si's attempts alone: the
// stage replayed by itself bounds what the run saves (perfmodel's
// StageAlone), and when that bound is too small for a moderate impact the
// run is not replayed: the impact is the bound, said to be one.
func (in *Input) replayedStage(si int, e perfmodel.Edit, basis string, l ImpactLimits) *Impact {
	p, c, ok := in.plan()
	if !ok || si < 0 {
		return nil
	}
	rec, ed := p.StageAlone(si, e)
	w, _ := in.Workload()
	var core int64
	if e.Duration != nil {
		for k, d := range w.Stages[si].Durations {
			core += d - max(0, min(d, e.Duration(si, k, d)))
		}
		core *= int64(max(1, w.TaskCPUs))
	}
	bound := in.newImpact(rec-ed, core, MethodReplay, basis+"; at most what the stage saves replayed alone")
	bound.ModelError = c.ModelError
	if l.Grade(*bound) < Moderate {
		return bound
	}
	return in.replayed(e, basis)
}

// measured is an impact the log records directly.
func (in *Input) measured(wallMs, coreMs int64, basis string) *Impact {
	return in.newImpact(wallMs, coreMs, finding.MethodMeasured, basis)
}

// wlStage is the index in the workload of stage id, -1 when it has no
// finished task there.
func (in *Input) wlStage(id int32) int {
	w, err := in.Workload()
	if err != nil {
		return -1
	}
	i, ok := slices.BinarySearchFunc(w.Stages, id, func(s perfmodel.Stage, id int32) int { return cmp.Compare(s.ID, id) })
	if !ok {
		return -1
	}
	return i
}

// stageMedianMs is the median duration of a workload stage's successful
// attempts (0 for none).
func stageMedianMs(s *perfmodel.Stage) float64 {
	var ok []float64
	for k, d := range s.Durations {
		if k >= len(s.Failed) || !s.Failed[k] {
			ok = append(ok, float64(d))
		}
	}
	return median(ok)
}

// capTasks is an edit that shortens the listed attempts of stage si (all
// its successful ones when ids is nil) to at most capMs.
func capTasks(si int, ids map[int64]bool, capMs int64, w *perfmodel.Workload) perfmodel.Edit {
	s := &w.Stages[si]
	return perfmodel.Edit{Duration: func(stage, k int, d int64) int64 {
		if stage != si || ids != nil && (k >= len(s.TaskIDs) || !ids[s.TaskIDs[k]]) || ids == nil && k < len(s.Failed) && s.Failed[k] {
			return d
		}
		return min(d, capMs)
	}}
}

// tailImpact is the impact of the listed attempts of a stage running
// longer than capMs: the replay with them cut to it.
func (in *Input) tailImpact(stageID int32, ids map[int64]bool, capMs int64, basis string) *Impact {
	si := in.wlStage(stageID)
	w, err := in.Workload()
	if si < 0 || err != nil {
		return nil
	}
	return in.replayedStage(si, capTasks(si, ids, capMs, w), basis, in.limits())
}

// limits are the impact limits the run grades with.
func (in *Input) limits() ImpactLimits {
	if in.impactLimits == (ImpactLimits{}) {
		return DefaultImpactLimits
	}
	return in.impactLimits
}

// grade sets a finding's severity from its impact: the impact's grade, at
// least Low (the detector found it), and at most Low when its impact could
// not be measured. The detector's own grade stays as RuleSeverity.
func grade(f *Finding, l ImpactLimits) {
	f.RuleSeverity = f.Severity
	if f.Impact == nil {
		f.Severity = min(f.Severity, Low)
		return
	}
	f.Severity = max(Low, l.Grade(*f.Impact))
	if v, ok := evidenceOf(f, "uncertain"); ok && v > 0 {
		f.Severity = Low // the detector is not sure of its premise
	}
}

// taskHosts maps the ids of app's task attempts to their hosts.
func taskHostsByID(app *model.App) map[int64]uint32 {
	m := map[int64]uint32{}
	for _, st := range app.Stages {
		for i := range st.Tasks {
			m[st.Tasks[i].ID] = st.Tasks[i].Host
		}
	}
	return m
}

// Impact methods of package finding.
const (
	MethodReplay   = finding.MethodReplay
	MethodMeasured = finding.MethodMeasured
	MethodEstimate = finding.MethodEstimate
)

// nodeImpact is the impact of a slow node: the replay with every attempt
// it ran divided by its slowness.
func (in *Input) nodeImpact(host uint32, slowness float64, basis string) *Impact {
	w, err := in.Workload()
	if err != nil || slowness <= 1 {
		return nil
	}
	hosts := in.hostsByTask()
	return in.replayed(perfmodel.Edit{Duration: func(si, k int, d int64) int64 {
		s := &w.Stages[si]
		if k < len(s.TaskIDs) && hosts[s.TaskIDs[k]] == host {
			return int64(float64(d) / slowness)
		}
		return d
	}}, basis)
}

// hostsByTask maps task attempt ids to hosts, computed once.
func (in *Input) hostsByTask() map[int64]uint32 {
	if in.taskHosts == nil {
		in.taskHosts = taskHostsByID(in.App)
	}
	return in.taskHosts
}

// replayedKeep is the impact of losing executors: the replay with the lost
// ones living to the end and the attempts that died with them never run.
func (in *Input) replayedKeep(w *perfmodel.Workload, lost map[string]bool, died map[int64]bool, basis string) *Impact {
	return in.replayed(perfmodel.Edit{
		Keep: func(id string) bool { return lost[id] },
		Duration: func(si, k int, d int64) int64 {
			if s := &w.Stages[si]; k < len(s.TaskIDs) && died[s.TaskIDs[k]] {
				return 0
			}
			return d
		},
	}, basis)
}
