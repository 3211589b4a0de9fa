package mapreduce

import (
	"fmt"
	"sort"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// attemptView is what both readers must agree on for one task attempt.
type attemptView struct {
	job            string
	kind           model.StageKind
	index, attempt int32
	rack, host     string
	launch, finish int64
	status         model.TaskStatus
}

// attemptViews flattens apps into attempts keyed by job and attempt identity.
func attemptViews(apps []*model.App) map[string]attemptView {
	out := map[string]attemptView{}
	for _, app := range apps {
		eachTask(app, func(st *model.Stage, t *model.Task) {
			v := attemptView{job: app.ID, kind: st.Kind, index: t.Index, attempt: t.Attempt,
				rack: app.Host(t.Rack), host: app.Host(t.Host), launch: t.Launch, finish: t.Finish, status: t.Status}
			out[fmt.Sprintf("%s/%v/%d/%d", app.ID, st.Kind, t.Index, t.Attempt)] = v
		})
	}
	return out
}

// TestLegacyAgreesWithRumen decodes the JobTracker history that Hadoop's own
// Rumen (HadoopLogsAnalyzer, 0.21) turned into job-tracker-logs-trace-output,
// once with ReadLegacy and once, through Rumen's output, with ReadRumen, and
// requires the same jobs, attempts, hosts, times and outcomes.
//
// Documented differences, all on Rumen's side, which the comparison allows:
//
//   - An attempt whose start record is missing (the history has only its
//     finish line) has startTime -1 in Rumen; both readers then give Launch 0.
//   - Rumen takes hosts only from HOSTNAME, so an attempt that has a start
//     line but no finish line has no hostName in Rumen, while ReadLegacy uses
//     the TRACKER_NAME host of the start line. The comparison skips the host
//     of attempts still running in the legacy model.
//
// The same holds for truncated-job-tracker-log and Rumen's
// truncated-trace-output.
func TestLegacyAgreesWithRumen(t *testing.T) {
	const dir = "hadoop-mapreduce-0.21/src/test/tools/data/rumen/small-trace-test/"
	for _, c := range []struct{ history, trace string }{
		{"sample-job-tracker-logs.gz", "job-tracker-logs-trace-output.gz"},
		{"truncated-job-tracker-log", "truncated-trace-output"},
	} {
		t.Run(c.history, func(t *testing.T) { agree(t, dir+c.history, dir+c.trace) })
	}
}

func agree(t *testing.T, history, trace string) {
	legacy, err := ReadLegacy(openLog(t, history), history)
	if err != nil {
		t.Fatal(err)
	}
	var rumen []*model.App
	if err := ReadRumen(openLog(t, trace), trace,
		func(a *model.App) error { rumen = append(rumen, a); return nil }); err != nil {
		t.Fatal(err)
	}

	ids := func(apps []*model.App) (s []string) {
		for _, a := range apps {
			s = append(s, a.ID)
		}
		return s
	}
	if fmt.Sprint(ids(legacy)) != fmt.Sprint(ids(rumen)) {
		t.Fatalf("jobs: legacy %v, rumen %v", ids(legacy), ids(rumen))
	}
	for i := range legacy {
		l, r := legacy[i], rumen[i]
		if l.User != r.User || l.Jobs[0].Submitted != r.Jobs[0].Submitted || l.End != r.End || l.Complete != r.Complete ||
			l.Jobs[0].Status != r.Jobs[0].Status {
			t.Errorf("%s: legacy user %q submit %d end %d complete %v %v; rumen %q %d %d %v %v", l.ID,
				l.User, l.Jobs[0].Submitted, l.End, l.Complete, l.Jobs[0].Status,
				r.User, r.Jobs[0].Submitted, r.End, r.Complete, r.Jobs[0].Status)
		}
	}

	lv, rv := attemptViews(legacy), attemptViews(rumen)
	if len(lv) != len(rv) {
		t.Errorf("attempts: legacy %d, rumen %d", len(lv), len(rv))
	}
	var keys []string
	for k := range lv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	hosts := map[string]bool{}
	noStart, running := 0, 0
	for _, k := range keys {
		a, ok := rv[k]
		l := lv[k]
		if !ok {
			t.Errorf("%s: in the legacy history only", k)
			continue
		}
		if l.status == model.TaskRunning {
			running++
			l.rack, l.host = a.rack, a.host // Rumen has no host without a finish record
		}
		if l.launch == 0 {
			noStart++
		}
		if l != a {
			t.Errorf("%s:\n legacy %+v\n rumen  %+v", k, l, a)
		}
		if a.host != "" {
			hosts[a.rack+"/"+a.host] = true
		}
	}
	for k := range rv {
		if _, ok := lv[k]; !ok {
			t.Errorf("%s: in the Rumen trace only", k)
		}
	}
	t.Logf("agreement: %d jobs, %d attempts, %d host locations; %d attempts without a start record, %d without a finish record",
		len(legacy), len(lv), len(hosts), noStart, running)
}
