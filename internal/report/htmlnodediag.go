package report

import "github.com/clusterlens/clusterlens/internal/nodediag"

// htmlNodeDiag is the node diagnosis as the page draws it: the result,
// with the origin of its times (the timeline's start, Unix ms).
type htmlNodeDiag struct {
	Start int64 `json:"start"`
	*nodediag.Result
}
