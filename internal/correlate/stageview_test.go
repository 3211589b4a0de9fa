package correlate

import (
	"math"
	"slices"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// attemptSpan is one attempt's span and host by the simulator's phases.
type attemptSpan struct {
	app        string
	stage      int32
	host       string
	start, end int64
}

// truthAttempts groups the phases into attempts.
func truthAttempts(ph []phase) []attemptSpan {
	type key struct {
		app            string
		stage, task, a int32
	}
	idx := map[key]int{}
	var out []attemptSpan
	for _, p := range ph {
		k := key{p.app, p.stage, p.task, p.att}
		i, ok := idx[k]
		if !ok {
			idx[k] = len(out)
			out = append(out, attemptSpan{p.app, p.stage, p.host, p.start, p.end})
			continue
		}
		out[i].start, out[i].end = min(out[i].start, p.start), max(out[i].end, p.end)
	}
	return out
}

// TestStageViewWorkAgainstPhases recomputes every (stage, host)'s own,
// application and foreign attempt-time by brute force over every sample
// row and every attempt of the simulator's phases (not the logs), with all
// applications given as Others, on a mix of every job class on both
// engines; the disk reads per running attempt (PerAttempt) the same way;
// and checks that the zero options give StageMatrices' means.
func TestStageViewWorkAgainstPhases(t *testing.T) {
	r := runSim(t, "", 1)
	atts := truthAttempts(r.phases)
	var checked, foreign int
	for _, app := range r.apps {
		spans := truthSpans(r.phases, app.ID)
		c := New(app, r.frames, Options{Others: r.apps})
		mats := c.StageMatrices()
		views := c.StageViews(StageOptions{})
		per := c.StageViews(StageOptions{PerAttempt: true})
		read := mats[0].Column("disk_read_bytes_per_s")
		for k := range c.Hosts() {
			m, f, iv := c.Host(k)
			s := c.SkewMs()
			for si, st := range app.Stages {
				w, ok := spans[m.Host][st.ID]
				v := &views[si]
				i, found := slices.BinarySearch(v.Hosts, m.Host)
				if ok != found {
					t.Fatalf("%s stage %d host %s: in view %v, ran there %v", app.ID, st.ID, m.Host, found, ok)
				}
				if !ok {
					continue
				}
				var own, other, forn, perRead float64
				rows := 0
				for row, ts := range f.Times {
					if !member(ts, iv, s, window{w[0], w[1], 0}) {
						continue
					}
					rows++
					running := 0
					for _, a := range atts {
						if a.host == m.Host && member(ts, iv, s, window{a.start, a.end, 0}) {
							running++
						}
					}
					perRead += float64(f.Value(row, model.NodeMetricIndex("disk_read_bytes_per_s"))) / float64(max(running, 1))
					for _, a := range atts {
						if a.host != m.Host || !member(ts, iv, s, window{a.start, a.end, 0}) {
							continue
						}
						switch {
						case a.app != app.ID:
							forn += float64(iv)
						case a.stage == st.ID:
							own += float64(iv)
						default:
							other += float64(iv)
						}
					}
				}
				got := v.Work[i]
				if got.OwnMs != own || got.AppMs != other || got.ForeignMs != forn || got.AllRows != rows || got.Rows != rows {
					t.Fatalf("%s stage %d host %s: work %+v, phases own %.0f app %.0f foreign %.0f rows %d", app.ID, st.ID, m.Host, got, own, other, forn, rows)
				}
				if want := own / (own + other + forn); math.Abs(got.Share-want) > 1e-12 {
					t.Fatalf("%s stage %d host %s: share %v, want %v", app.ID, st.ID, m.Host, got.Share, want)
				}
				if want := perRead / float64(rows); math.Abs(per[si].X[i][read]-want) > 1e-9*math.Max(1, want) {
					t.Fatalf("%s stage %d host %s: disk reads per attempt %v, phases %v", app.ID, st.ID, m.Host, per[si].X[i][read], want)
				}
				mi := slices.Index(mats[si].Hosts, m.Host)
				for j := range v.X[i] {
					a, b := v.X[i][j], mats[si].X[mi][j]
					if math.IsNaN(a) != math.IsNaN(b) || math.Abs(a-b) > 1e-9*math.Max(1, math.Abs(b)) {
						t.Fatalf("%s stage %d host %s metric %s: view %v, matrix %v", app.ID, st.ID, m.Host, v.Metrics[j], a, b)
					}
				}
				checked++
				if forn > 0 {
					foreign++
				}
			}
		}
	}
	t.Logf("%d (stage, host) pairs checked, %d with foreign work", checked, foreign)
	if checked < 100 || foreign < 10 {
		t.Fatalf("only %d pairs (%d with foreign work) checked", checked, foreign)
	}
}

// TestStageViewOptions checks each option against its definition: the
// synonyms left out, the scale a brute-force quantile over the run's rows,
// sends left out where some host served shuffle data (the parents' shuffle
// output per host recomputed), kept rows
// those where the stage's share reaches MinRowShare, and the task sums
// the stage's own task metrics.
func TestStageViewOptions(t *testing.T) {
	r := runSim(t, "", 1)
	var reduces int
	for _, app := range r.apps {
		c := New(app, r.frames, Options{Others: r.apps})
		base := c.StageViews(StageOptions{DropSynonyms: true})
		for _, name := range base[0].Metrics {
			if slices.Contains(synonyms[:], name) {
				t.Fatalf("%s: synonym %s kept", app.ID, name)
			}
		}
		scaled := c.StageViews(StageOptions{DropSynonyms: true, ScaleQuantile: 1})
		for j, name := range scaled[0].Metrics {
			big := 0.0
			for k := range c.Hosts() {
				_, f, iv := c.Host(k)
				for row, ts := range f.Times {
					if ts-iv-c.SkewMs() < app.End && app.Start < ts+c.SkewMs() {
						if v := f.Value(row, model.NodeMetricIndex(name)); !isNaN(v) {
							big = math.Max(big, math.Abs(float64(v)))
						}
					}
				}
			}
			if scaled[0].Scale[j] != big {
				t.Fatalf("%s %s: scale %v, want the largest value %v", app.ID, name, scaled[0].Scale[j], big)
			}
		}
		served := c.StageViews(StageOptions{DropSynonyms: true, DropSends: true})
		picky := c.StageViews(StageOptions{DropSynonyms: true, MinRowShare: 0.5})
		for si, v := range served {
			st := app.Stages[si]
			tx := v.Column("net_tx_bytes_per_s")
			n := 0
			for _, w := range v.Work {
				if w.ServedBytes > 0 {
					n++
				}
			}
			for i, w := range v.Work {
				want := base[si].X[i][tx]
				if n > 0 {
					want = math.NaN()
				}
				if got := v.X[i][tx]; math.IsNaN(got) != math.IsNaN(want) || (!math.IsNaN(got) && got != want) {
					t.Fatalf("%s stage %d host %s: sends %v, want %v (%d hosts served it)", app.ID, st.ID, v.Hosts[i], got, want, n)
				}
				if p := picky[si].Work[i]; p.Rows > p.AllRows || p.OwnMs != w.OwnMs {
					t.Fatalf("%s stage %d host %s: MinRowShare kept %d of %d rows, own %v vs %v", app.ID, st.ID, v.Hosts[i], p.Rows, p.AllRows, p.OwnMs, w.OwnMs)
				}
			}
			// Served bytes: the parents' shuffle output on each host.
			parents := map[int32]bool{}
			for _, id := range st.ParentIDs {
				parents[id] = true
			}
			var tm model.TaskMetrics
			for i, host := range v.Hosts {
				var held float64
				for _, p := range app.Stages {
					if !parents[p.ID] && (st.Kind != model.StageReduce || p.Kind != model.StageMap) {
						continue
					}
					for ti := range p.Tasks {
						if app.Hosts[p.Tasks[ti].Host] == host {
							p.TaskMetrics(ti, &tm)
							held += float64(max(tm[model.ShuffleWriteBytes], tm[model.MapOutputBytes]))
						}
					}
				}
				if v.Work[i].ServedBytes != held {
					t.Fatalf("%s stage %d host %s: served %v, parents wrote %v there", app.ID, st.ID, host, v.Work[i].ServedBytes, held)
				}
			}
			// Task sums: the stage's attempts on each host, from the log.
			for i, host := range v.Hosts {
				var fetch, write float64
				tasks := 0
				for ti := range st.Tasks {
					if app.Hosts[st.Tasks[ti].Host] != host {
						continue
					}
					st.TaskMetrics(ti, &tm)
					tasks++
					fetch += float64(tm[model.ShuffleRemoteBytesRead])
					write += float64(tm[model.ShuffleWriteBytes])
				}
				w := v.Work[i]
				if w.Tasks != tasks || w.FetchBytes != fetch || (app.Engine != model.MapReduce && w.WriteBytes != write) {
					t.Fatalf("%s stage %d host %s: tasks %d fetch %v write %v, log %d %v %v", app.ID, st.ID, host, w.Tasks, w.FetchBytes, w.WriteBytes, tasks, fetch, write)
				}
			}
			if st.Kind == model.StageReduce && n > 0 {
				reduces++
			}
		}
	}
	if reduces == 0 {
		t.Fatal("no MapReduce reduce stage with served bytes")
	}
}
