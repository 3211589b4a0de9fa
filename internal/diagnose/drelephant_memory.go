package diagnose

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// DrElephantMemoryParams tune Dr. Elephant's Mapper Memory and Reducer
// Memory heuristics (mapreduce/heuristics/GenericMemoryHeuristic.java).
// The defaults are the class's; app-conf/HeuristicConf.xml's commented
// example lists container_memory_severity as 1, 1.5, 2, 2.5, but the code's
// default, which applies, starts at 1.1.
type DrElephantMemoryParams struct {
	// MemoryRatio grades the average task physical memory over the
	// container size, smaller being worse (memory_ratio_severity).
	MemoryRatio Limits
	// ContainerMemory grades the container size as multiples of
	// ContainerMemoryDefaultMB (container_memory_severity); the ratio
	// severity is lowered to it, so default-sized containers pass.
	ContainerMemory Limits
	// ContainerMemoryDefaultMB is the container size assumed when the job
	// conf does not set it (container_memory_default_mb).
	ContainerMemoryDefaultMB int64
}

// drDefaultMemoryParams are GenericMemoryHeuristic's defaults.
var drDefaultMemoryParams = DrElephantMemoryParams{
	MemoryRatio:              Limits{0.6, 0.5, 0.4, 0.3},
	ContainerMemory:          Limits{1.1, 1.5, 2.0, 2.5},
	ContainerMemoryDefaultMB: 2048,
}

// drMemory is GenericMemoryHeuristic.apply (app/com/linkedin/drelephant/mapreduce/heuristics/GenericMemoryHeuristic.java): the average PHYSICAL_MEMORY_BYTES
// of the tasks with times and counters over the container size from the job
// conf (confKey, following one "${VAR}" indirection), lowered to the grade
// of the container size. Unlike Dr. Elephant, a job whose tasks all report
// zero physical memory (the counter was not logged) is not graded.
func drMemory(in *Input, p DrElephantMemoryParams, kind model.StageKind, confKey string) []Finding {
	app := in.App
	if !mrSucceeded(app) {
		return nil
	}
	tasks := mrTasks(app, kind)
	if len(tasks) == 0 {
		return nil
	}
	containerMB, fromConf := drContainerMemoryMB(app, confKey)
	if !fromConf {
		containerMB = p.ContainerMemoryDefaultMB
	}
	container := containerMB * drMiB
	var pmem, vmem []int64
	var pmin, pmax int64
	for i := range tasks {
		t := &tasks[i]
		if !t.hasTime || !t.hasCounters {
			continue
		}
		if len(pmem) == 0 || t.pmem < pmin {
			pmin = t.pmem
		}
		pmax = max(pmax, t.pmem)
		pmem = append(pmem, t.pmem)
		vmem = append(vmem, t.vmem)
	}
	if pmax == 0 {
		// No task logged PHYSICAL_MEMORY_BYTES (Rumen traces and old
		// histories may not): the use is unknown, not zero.
		return nil
	}
	avg := drAverage(pmem)
	ratio := float64(avg) / float64(container)
	sizes := drScaled(p.ContainerMemory, float64(p.ContainerMemoryDefaultMB*drMiB))
	sev := drMin(p.MemoryRatio.Descending(ratio), sizes.Ascending(float64(container)))
	if sev == None {
		return nil
	}
	word := mrWord(kind)
	return []Finding{{
		Severity: sev,
		Scope:    mrStageScope(kind),
		Summary: fmt.Sprintf("The %s tasks used %s of physical memory on average (at most %s) in %s containers (%s).",
			word, drBytes(avg), drBytes(pmax), drBytes(container), pct(ratio)),
		Evidence: []Evidence{
			drGradedDown("memoryRatio", drFinite(ratio), "share", p.MemoryRatio),
			graded("containerBytes", float64(container), "bytes", sizes),
			fact("avgPhysicalBytes", float64(avg), "bytes"),
			fact("maxPhysicalBytes", float64(pmax), "bytes"),
			fact("minPhysicalBytes", float64(pmin), "bytes"),
			fact("avgVirtualBytes", float64(drAverage(vmem)), "bytes"),
			fact("tasks", float64(len(tasks)), "count"),
		},
		Recommendation: fmt.Sprintf("Request smaller %s containers: lower %s toward the memory the tasks use (with headroom) and the heap (mapreduce.%s.java.opts) with it.",
			word, confKey, word),
	}}
}

// drContainerMemoryMB reads the container size in MB from the job conf as
// GenericMemoryHeuristic does: a number, or "${OTHER}" naming a property
// that holds one. ok is false when neither gives a number.
func drContainerMemoryMB(app *model.App, key string) (mb int64, ok bool) {
	v, found := drConf(app, key)
	if !found {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n, n >= 0
	}
	if strings.HasPrefix(v, "$") {
		i, j := strings.Index(v, "{"), strings.Index(v, "}")
		if i >= 0 && j > i {
			if w, found := drConf(app, v[i+1:j]); found {
				if n, err := strconv.ParseInt(w, 10, 64); err == nil {
					return n, n >= 0
				}
			}
		}
	}
	return 0, false
}
