package model

import "testing"

func TestResubmitted(t *testing.T) {
	a := &App{Reasons: []Reason{{}, {Kind: "ExceptionFailure"}, {Kind: ReasonResubmitted, Message: "Resubmitted (resubmitted due to node loss)"}}}
	for _, c := range []struct {
		reason uint32
		want   bool
	}{{0, false}, {1, false}, {2, true}, {3, false}} {
		if got := a.Resubmitted(&Task{Reason: c.reason, Status: TaskSuccess}); got != c.want {
			t.Errorf("reason %d: %v, want %v", c.reason, got, c.want)
		}
	}
}
