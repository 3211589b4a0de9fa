// Package wire is the agent's versioned wire format: the Batch an agent
// ships, its encoding and the bounded decoder the collector uses on
// untrusted bodies. The agent, the collector, the sample stores and the
// online peer diagnosis share it.
package wire

import "github.com/clusterlens/clusterlens/internal/model"

// Batch is what an agent ships in one request. Agent and Seq identify it:
// an agent numbers its batches 1, 2, 3, … and keeps the numbering across
// restarts (it is persisted beside the spool), so that a collector can
// recognise a batch it already stored when delivery is retried
// (at-least-once delivery, exactly-once storage).
type Batch struct {
	Agent   string // agent id, stable per node
	Seq     uint64 // 1-based, increasing per agent
	Samples []model.Sample
}
