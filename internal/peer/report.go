package peer

// Report is a peer diagnosis over a window: the vectors compared, the
// indictments, the verdicts (Attribute) and every node's state.
type Report struct {
	Vectors     int64        `json:"vectors"`
	Unknown     int64        `json:"unknownVectors"`
	Dropped     int64        `json:"droppedVectors"`
	Params      Params       `json:"params"`
	Indictments []Indictment `json:"indictments"`
	Verdicts    []Verdict    `json:"verdicts,omitempty"`
	Nodes       []NodeStatus `json:"nodes"`
	// Wide are the cluster-wide periods (with a baseline): the cluster as
	// a whole left its history, no node's fault.
	Wide []WidePeriod `json:"clusterWide,omitempty"`
	// BaselineOverlap is, per host, how many seconds of the data judged
	// its own baseline was trained on: it is then compared with itself.
	BaselineOverlap map[string]int64 `json:"baselineOverlapS,omitempty"`
	// Overlaps are what the source gave twice (kept once).
	Overlaps []Overlap `json:"overlaps,omitempty"`
}
