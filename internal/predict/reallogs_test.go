package predict

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// jhistCounts are a .jhist's counters as a separate encoding/json scan
// reads them: summed over successful map and reduce attempts, and the
// job's own totals (JOB_FINISHED mapCounters and reduceCounters).
type jhistCounts struct {
	maps, reduces                     int
	mapIn, mapOut, mapRecords         int64
	reduceShuffle, reduceOut, redRecs int64
	jobMapIn, jobMapOut, jobReduceOut int64
	jobReduceShuffle                  int64
	finished                          bool
	finishedMaps, finishedReduces     int
}

func scanJhist(t *testing.T, path string) jhistCounts {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type counterGroups struct {
		Groups []struct {
			Counts []struct {
				Name  string `json:"name"`
				Value int64  `json:"value"`
			} `json:"counts"`
		} `json:"groups"`
	}
	get := func(c counterGroups, name string) int64 {
		for _, g := range c.Groups {
			for _, x := range g.Counts {
				if x.Name == name {
					return x.Value
				}
			}
		}
		return 0
	}
	var c jhistCounts
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev struct {
			Type  string                     `json:"type"`
			Event map[string]json.RawMessage `json:"event"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Event == nil {
			continue
		}
		for _, body := range ev.Event {
			var rec struct {
				TaskStatus      string        `json:"taskStatus"`
				FinishedMaps    int           `json:"finishedMaps"`
				FinishedReduces int           `json:"finishedReduces"`
				Counters        counterGroups `json:"counters"`
				MapCounters     counterGroups `json:"mapCounters"`
				ReduceCounters  counterGroups `json:"reduceCounters"`
			}
			if json.Unmarshal(body, &rec) != nil {
				continue
			}
			switch ev.Type {
			case "MAP_ATTEMPT_FINISHED":
				if rec.TaskStatus == "SUCCEEDED" {
					c.maps++
					c.mapIn += get(rec.Counters, "HDFS_BYTES_READ")
					c.mapOut += get(rec.Counters, "MAP_OUTPUT_BYTES")
					c.mapRecords += get(rec.Counters, "MAP_INPUT_RECORDS")
				}
			case "REDUCE_ATTEMPT_FINISHED":
				if rec.TaskStatus == "SUCCEEDED" {
					c.reduces++
					c.reduceShuffle += get(rec.Counters, "REDUCE_SHUFFLE_BYTES")
					c.reduceOut += get(rec.Counters, "HDFS_BYTES_WRITTEN")
					c.redRecs += get(rec.Counters, "REDUCE_INPUT_RECORDS")
				}
			case "JOB_FINISHED":
				c.finished = true
				c.finishedMaps, c.finishedReduces = rec.FinishedMaps, rec.FinishedReduces
				c.jobMapIn = get(rec.MapCounters, "HDFS_BYTES_READ")
				c.jobMapOut = get(rec.MapCounters, "MAP_OUTPUT_BYTES")
				c.jobReduceOut = get(rec.ReduceCounters, "HDFS_BYTES_WRITTEN")
				c.jobReduceShuffle = get(rec.ReduceCounters, "REDUCE_SHUFFLE_BYTES")
			}
		}
	}
	return c
}

// TestJobProfilesOfRealHistories extracts a job profile from every real
// MapReduce history in shared/data/logs (.jhist, legacy histories and
// Rumen traces) and prints it; for the .jhist files the profile's task
// counts, bytes and selectivities must equal what a separate
// encoding/json scan of the file's counters gives, and those the job's own
// JOB_FINISHED totals.
func TestJobProfilesOfRealHistories(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	res, err := decodelogs.Paths([]string{root}, decodelogs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checked, profiled := 0, 0
	for _, app := range res.Apps {
		if app.Engine != model.MapReduce {
			continue
		}
		tasks := Tasks(app, nil)
		if len(tasks) == 0 {
			continue
		}
		jp, err := ProfileJob(app.Name, []*model.App{app}, [][]Task{tasks}, nil)
		if err != nil {
			continue // no successful map: nothing to profile
		}
		profiled++
		rel, _ := filepath.Rel(root, app.Source)
		t.Logf("%-24s %-34.34s maps %5.0f reduces %4.0f split %9.0f B  map sel %.3f  reduce sel %.3f  records/B %.4f  map %s/%s reduce %s ms; phases %v",
			app.ID, rel, jp.Maps, jp.Reduces, jp.SplitBytes, jp.MapSelectivity, jp.ReduceSelectivity, jp.MapRecordsPerByte,
			fmtMs(jp.Measured.Map.Avg), fmtMs(jp.Measured.Map.Max), fmtMs(jp.Measured.Reduce.Avg), jp.Sources)
		if !strings.HasSuffix(app.Source, ".jhist") {
			continue
		}
		c := scanJhist(t, app.Source)
		if c.maps == 0 {
			continue
		}
		checked++
		if int(jp.Maps) != c.maps || int(jp.Reduces) != c.reduces {
			t.Errorf("%s: profile has %.0f maps and %.0f reduces, the file's successful attempts %d and %d", rel, jp.Maps, jp.Reduces, c.maps, c.reduces)
		}
		if got := jp.SplitBytes * jp.Maps; math.Abs(got-float64(c.mapIn)) > 0.5 {
			t.Errorf("%s: profile reads %.0f bytes, the counters say %d", rel, got, c.mapIn)
		}
		if want := ratio(float64(c.mapOut), float64(c.mapIn)); math.Abs(jp.MapSelectivity-want) > 1e-12 {
			t.Errorf("%s: map selectivity %g, the counters give %g", rel, jp.MapSelectivity, want)
		}
		if want := ratio(float64(c.reduceOut), float64(c.reduceShuffle)); math.Abs(jp.ReduceSelectivity-want) > 1e-12 {
			t.Errorf("%s: reduce selectivity %g, the counters give %g", rel, jp.ReduceSelectivity, want)
		}
		if want := ratio(float64(c.mapRecords), float64(c.mapIn)); math.Abs(jp.MapRecordsPerByte-want) > 1e-12 {
			t.Errorf("%s: records per byte %g, the counters give %g", rel, jp.MapRecordsPerByte, want)
		}
		if c.finished && (c.finishedMaps != c.maps || c.finishedReduces != c.reduces) {
			// Hadoop's own test fixture of job_1329348432655_0001 (history
			// server tests) has a second reduce added by hand: its
			// JOB_FINISHED still counts one.
			t.Logf("%s: JOB_FINISHED counts %d maps and %d reduces, the file's attempts %d and %d: totals not compared",
				rel, c.finishedMaps, c.finishedReduces, c.maps, c.reduces)
			continue
		}
		if c.finished && (c.jobMapIn != c.mapIn || c.jobMapOut != c.mapOut || c.jobReduceOut != c.reduceOut || c.jobReduceShuffle != c.reduceShuffle) {
			t.Errorf("%s: attempts sum to map in %d, out %d, reduce shuffle %d, out %d; JOB_FINISHED says %d, %d, %d, %d",
				rel, c.mapIn, c.mapOut, c.reduceShuffle, c.reduceOut, c.jobMapIn, c.jobMapOut, c.jobReduceShuffle, c.jobReduceOut)
		}
	}
	t.Logf("%d MapReduce jobs profiled, %d .jhist profiles checked against the files' counters", profiled, checked)
	if checked < 5 || profiled < 20 {
		t.Errorf("profiled %d jobs, checked %d: the shared data holds more", profiled, checked)
	}
}

func fmtMs(v float64) string {
	return strings.TrimRight(strings.TrimRight(strconvF(v), "0"), ".")
}

func strconvF(v float64) string {
	b, _ := json.Marshal(math.Round(v))
	return string(b)
}
