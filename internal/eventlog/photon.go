package eventlog

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/model"
)

// Databricks' Photon engine runs a query's operators in native code and
// reports their work as SQL metrics (accumulables with "Metadata":"sql" in
// each task's "Task Info"), leaving some of Spark's task metrics at 0. The
// names below are Photon's, as NVIDIA's spark-rapids-tools reads them
// (DatabricksParseHelper: PHOTON_METRIC_PEAK_MEMORY_LABEL,
// PHOTON_METRIC_SHUFFLE_WRITE_TIME_LABEL, PHOTON_METRIC_CUMULATIVE_TIME_LABEL)
// and as Databricks' query profile names its spill. A task metric that Spark
// left at 0 is taken from them; one Spark recorded is kept.
//
//   - "peak memory usage" (bytes, one per operator): the largest becomes
//     Peak Execution Memory, a lower bound of the task's peak.
//   - "part of shuffle file write" (ns): the sum becomes Shuffle Write Time.
//   - "num bytes spilled to disk due to memory pressure": the sum becomes
//     Disk Bytes Spilled.
//   - "cumulative time" (ns, time spent in Photon operators): no Spark task
//     metric holds it; its sum is reported in the application's notes.
var photonMetrics = []photonMetric{
	{"peak memory usage", model.PeakExecutionMemory, true, []byte(`peak memory usage"`)},
	{"part of shuffle file write", model.ShuffleWriteNanos, false, []byte(`part of shuffle file write"`)},
	{"num bytes spilled to disk due to memory pressure", model.DiskBytesSpilled, false, []byte(`num bytes spilled to disk due to memory pressure"`)},
	{"cumulative time", model.NumMetrics, false, []byte(`cumulative time"`)},
}

// photonMetric is a Photon metric and what it gives.
type photonMetric struct {
	name   string
	metric model.Metric // NumMetrics: no task metric
	max    bool         // the largest entry, not the sum
	quoted []byte       // the name and its closing quote, as Spark writes it
}

// photonTask holds one task's Photon metrics, by index into photonMetrics.
type photonTask struct {
	value [4]int64
	found uint8 // bit i: photonMetrics[i] was present
}

// readPhotonMetrics reads Photon's metrics from a task's raw accumulable
// list. Spark writes each entry compact, "ID" then "Name" then "Update": an
// entry is found by its Name":"<metric>" text (searched from the rare "N")
// and parsed from the brace before it; the other entries are not parsed.
func readPhotonMetrics(raw []byte, p *photonTask) {
	*p = photonTask{}
	var e jsonscan.Scanner
	for off := 0; off < len(raw); {
		at := bytes.Index(raw[off:], nameKey)
		if at < 0 {
			return
		}
		at += off
		off = at + len(nameKey)
		i := slices.IndexFunc(photonMetrics, func(m photonMetric) bool { return bytes.HasPrefix(raw[off:], m.quoted) })
		start := bytes.LastIndexByte(raw[:at], '{')
		if i < 0 || start < 0 {
			continue
		}
		e.Reset(raw[start:])
		if !e.Object() {
			continue
		}
		var update int64
		for k := e.Key(); k != nil; k = e.Key() {
			if string(k) == "Update" {
				update = e.Int()
			} else {
				e.Skip()
			}
		}
		if e.Err() != nil {
			continue
		}
		switch m := &photonMetrics[i]; {
		case p.found&(1<<i) == 0:
			p.value[i] = update
		case m.max:
			p.value[i] = max(p.value[i], update)
		default:
			p.value[i] += update
		}
		p.found |= 1 << i
	}
}

// nameKey precedes an accumulable's name as Spark writes it.
var nameKey = []byte(`Name":"`)

// photonUse is what the decoder knows of Photon in the application: whether
// it ran (the runtime's properties, Photon operators in a plan), why, and
// what its metrics gave the tasks. Photon's metrics are read only when it
// ran: Databricks' runtime without Photon writes some of the same names
// ("cumulative time") for its own operators.
type photonUse struct {
	on         bool
	evidence   []string
	tasks      int64    // tasks that carried Photon metrics
	filled     [4]int64 // tasks whose task metric was taken from photonMetrics[i]
	cumulative int64    // sum of "cumulative time", ns
}

// enable records that Photon ran, and why.
func (u *photonUse) enable(why string) {
	u.on = true
	u.evidence = append(u.evidence, why)
}

// photonProps are the Databricks properties that say the runtime is
// Photon's, as NVIDIA spark-rapids-tools' DatabricksParseHelper.isPhotonApp
// reads them: the engine, or "-photon-" in the runtime's names.
var photonProps = []string{
	"spark.databricks.clusterUsageTags.runtimeEngine",
	"spark.databricks.clusterUsageTags.sparkVersion",
	"spark.databricks.clusterUsageTags.effectiveSparkVersion",
	"spark.databricks.clusterUsageTags.sparkImageLabel",
}

// photonEnvironment enables Photon when the Spark properties say so.
func (u *photonUse) photonEnvironment(props [][2]string) {
	for _, kv := range props {
		if !slices.Contains(photonProps, kv[0]) {
			continue
		}
		if strings.EqualFold(kv[1], "PHOTON") || strings.Contains(strings.ToLower(kv[1]), "-photon-") {
			u.enable(kv[0] + "=" + kv[1])
			return
		}
	}
}

// task fills the task metrics Spark left at 0 from the task's Photon
// metrics, read from its raw accumulables.
func (u *photonUse) task(raw []byte, m *model.TaskMetrics) {
	if !u.on || len(raw) == 0 {
		return
	}
	var p photonTask
	readPhotonMetrics(raw, &p)
	if p.found == 0 {
		return
	}
	u.tasks++
	for i, pm := range photonMetrics {
		if p.found&(1<<i) == 0 {
			continue
		}
		if pm.metric == model.NumMetrics {
			u.cumulative += p.value[i]
			continue
		}
		if m[pm.metric] == 0 && p.value[i] > 0 {
			m[pm.metric] = p.value[i]
			u.filled[i]++
		}
	}
}

// note tells, in the application's platform and data quality, that Photon
// ran and which task metrics were taken from Photon's.
func (u *photonUse) note(a *model.App) {
	if !u.on {
		return
	}
	a.Platform.Photon = true
	a.Platform.Evidence = append(a.Platform.Evidence, u.evidence...)
	if u.tasks == 0 {
		a.Quality.Note(false, "Photon ran this application ("+strings.Join(u.evidence, "; ")+") but no task carried Photon's SQL metrics: "+
			"Spark's task metrics leave out Photon operators' peak memory, spill and shuffle write time, which read 0 here")
		return
	}
	var took []string
	for i, pm := range photonMetrics {
		if u.filled[i] > 0 {
			took = append(took, fmt.Sprintf("%s from %q for %d", pm.metric, pm.name, u.filled[i]))
		}
	}
	text := fmt.Sprintf("Photon: %d tasks carried Photon's SQL metrics", u.tasks)
	if len(took) > 0 {
		text += "; task metrics Spark left at 0 were taken from them: " + strings.Join(took, ", ")
	}
	if u.cumulative > 0 {
		text += fmt.Sprintf("; time in Photon operators (%q): %.1f s", "cumulative time", float64(u.cumulative)/1e9)
	}
	a.Quality.Note(false, text)
}
