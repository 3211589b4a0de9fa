package report

import "github.com/clusterlens/clusterlens/internal/dataflow"

// causeColors colour the causes of slot time in every chart: greens for
// work, warm colours for time lost inside tasks, greys and browns for idle
// slots.
var causeColors = [dataflow.NumCauses]string{
	dataflow.CauseBusy:           "#2e9d4f",
	dataflow.CauseSchedulerDelay: "#e5484d",
	dataflow.CauseShuffleWait:    "#f5a524",
	dataflow.CauseGC:             "#9b59d0",
	dataflow.CauseSerialization:  "#e8d44d",
	dataflow.CauseStragglerTail:  "#a0522d",
	dataflow.CauseDriver:         "#5b7186",
	dataflow.CauseAllocatedIdle:  "#b8c4ce",
}

// busyPalette tells apart the activities that count as work.
var busyPalette = []string{"#2e9d4f", "#3b82f6", "#14b8a6", "#84cc16", "#6366f1", "#0ea5e9", "#22c55e", "#a3e635"}

// causeShades tell apart further activities of one idle cause (Spark's
// deserialization and result serialization both count as serialization).
var causeShades = [dataflow.NumCauses][]string{
	dataflow.CauseSchedulerDelay: {"#f28b8e", "#b4232a"},
	dataflow.CauseShuffleWait:    {"#c77d0a", "#fcd38d"},
	dataflow.CauseGC:             {"#c39be8", "#6b2fa0"},
	dataflow.CauseSerialization:  {"#b8961e", "#f3ea9b"},
	dataflow.CauseStragglerTail:  {"#d08a5c"},
	dataflow.CauseDriver:         {"#8aa0b4"},
	dataflow.CauseAllocatedIdle:  {"#dfe6ec"},
}

// activityColors gives each activity of a reconstruction a colour: the
// colour of its cause (then shades of it for further activities of the same
// cause), or for work one of several greens and blues.
func activityColors(acts []dataflow.Activity) []string {
	out := make([]string, len(acts))
	var used [dataflow.NumCauses]int
	busy := 0
	for i, a := range acts {
		if a.Cause == dataflow.CauseBusy || a.Cause >= dataflow.NumCauses {
			out[i] = busyPalette[busy%len(busyPalette)]
			busy++
			continue
		}
		if n := used[a.Cause]; n == 0 || len(causeShades[a.Cause]) == 0 {
			out[i] = causeColors[a.Cause]
		} else {
			out[i] = causeShades[a.Cause][(n-1)%len(causeShades[a.Cause])]
		}
		used[a.Cause]++
	}
	return out
}
