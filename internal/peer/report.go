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
}
