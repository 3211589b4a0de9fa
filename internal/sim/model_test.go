package sim

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/mapreduce"
	"github.com/clusterlens/clusterlens/internal/model"
)

// TestModelAsDecoded writes simulated applications with the encoders and
// decodes them: the model read back must equal the simulated one (host and
// rack indexes aside, which depend on reading order), metrics included, so
// the simulator follows the decoders' conventions.
func TestModelAsDecoded(t *testing.T) {
	for _, name := range []string{"speculation", "hang", "dynamic", "demo", "hung-task", "straggler"} {
		res, err := Simulate(mustNamed(t, name), 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, app := range res.Apps {
			back := decode(t, app)
			opts := []cmp.Option{
				cmpopts.IgnoreUnexported(model.Stage{}, model.Task{}, model.Arena{}),
				cmpopts.IgnoreFields(model.App{}, "Quality", "Source", "LastUpdated", "Hosts"),
				cmpopts.IgnoreFields(model.Task{}, "Host", "Rack"),
				cmpopts.EquateEmpty(),
			}
			if d := cmp.Diff(app, back, opts...); d != "" {
				t.Errorf("%s %s: decoded model differs (-simulated +decoded):\n%.3000s", name, app.ID, d)
				continue
			}
			var m1, m2 model.TaskMetrics
			for si, st := range app.Stages {
				bs := back.Stages[si]
				for i := range st.Tasks {
					a, b := &st.Tasks[i], &bs.Tasks[i]
					if app.Hosts[a.Host] != back.Hosts[b.Host] || app.Hosts[a.Rack] != back.Hosts[b.Rack] {
						t.Errorf("%s %s: task %d host %s/%s, decoded %s/%s", name, app.ID, a.ID,
							app.Hosts[a.Host], app.Hosts[a.Rack], back.Hosts[b.Host], back.Hosts[b.Rack])
					}
					st.TaskMetrics(i, &m1)
					bs.TaskMetrics(i, &m2)
					if m1 != m2 {
						for k := range m1 {
							if m1[k] != m2[k] {
								t.Errorf("%s %s: stage %d task %d %v = %d, decoded %d", name, app.ID, st.ID, a.ID, model.Metric(k), m1[k], m2[k])
							}
						}
					}
				}
			}
		}
	}
}

// decode writes app in its format and reads it back.
func decode(t *testing.T, app *model.App) *model.App {
	t.Helper()
	var buf bytes.Buffer
	if app.Engine == model.Spark {
		if err := eventlog.Write(&buf, app); err != nil {
			t.Fatal(err)
		}
		back, err := eventlog.Read(app.ID, bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		return back
	}
	if err := mapreduce.WriteJhist(&buf, app); err != nil {
		t.Fatal(err)
	}
	back, err := mapreduce.ReadJhist(bytes.NewReader(buf.Bytes()), app.ID)
	if err != nil {
		t.Fatal(err)
	}
	var conf bytes.Buffer
	if err := mapreduce.WriteConf(&conf, app.Conf); err != nil {
		t.Fatal(err)
	}
	kv, err := mapreduce.ReadConf(&conf)
	if err != nil {
		t.Fatal(err)
	}
	mapreduce.ApplyConf(back, kv)
	return back
}

// TestExecutorPeaks checks Spark executor metric peaks: set for every
// executor that ran tasks, heap within the executor's memory, total GC time
// equal to its tasks' GC time.
func TestExecutorPeaks(t *testing.T) {
	res, err := Simulate(mustNamed(t, "clean"), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, app := range res.Apps {
		if app.Engine != model.Spark {
			continue
		}
		gc := map[uint32]int64{}
		var m model.TaskMetrics
		for _, st := range app.Stages {
			for i := range st.Tasks {
				st.TaskMetrics(i, &m)
				gc[st.Tasks[i].Executor] += m[model.JVMGCTime]
			}
		}
		for k, g := range gc {
			x := app.Executors[k]
			heap := x.Peak.Values[model.ExecutorMetricIndex("JVMHeapMemory")]
			total := x.Peak.Values[model.ExecutorMetricIndex("TotalGCTime")]
			if !x.Peak.Set || heap <= 0 || heap > int64(memPerCore)*int64(x.Cores) || total != g {
				t.Errorf("%s executor %s: heap %d, GC %d (tasks %d)", app.ID, x.ID, heap, total, g)
			}
		}
	}
}
