package report

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/clusterlens/clusterlens/internal/peer"
)

// PeerText writes a peer diagnosis for people (`peer diagnose`).
func PeerText(w io.Writer, r *peer.Report) {
	fmt.Fprintf(w, "peer diagnosis: %d nodes, %d vectors (%d unknown, %d incomplete dropped)\n",
		len(r.Nodes), r.Vectors, r.Unknown, r.Dropped)
	if len(r.Indictments) == 0 {
		fmt.Fprintln(w, "no node indicted")
	}
	absolved, quiet, more, wide := 0, 0, 0, 0
	for _, n := range r.Nodes {
		if n.Absolved > 0 {
			absolved++
		}
		if n.QuietSteps > 0 {
			quiet++
		}
		if n.MoreWorkSteps > 0 {
			more++
		}
		if n.WideSteps > 0 {
			wide++
		}
	}
	if absolved > 0 {
		fmt.Fprintf(w, "%d nodes differed from their peers at times but not from their own history (no alarm then; %d of them quieter than their history, %d given more work than ever, %d in cluster-wide periods)\n",
			absolved, quiet, more, wide)
	}
	for _, p := range r.Wide {
		fmt.Fprintf(w, "cluster-wide %s – %s: %d of %d nodes left their own history at once (a busier period or new work than any in the history, not one node's fault)\n",
			time.UnixMilli(p.From).UTC().Format(time.RFC3339), time.UnixMilli(p.To).UTC().Format(time.RFC3339), p.Away, p.Of)
	}
	for _, h := range slices.Sorted(maps.Keys(r.BaselineOverlap)) {
		fmt.Fprintf(w, "warning: %s's baseline was trained on %d s of the data judged: it is compared with itself there\n", h, r.BaselineOverlap[h])
	}
	for _, o := range r.Overlaps {
		fmt.Fprintf(w, "warning: %s: %d samples given more than once (%d with another value), each kept once\n", o.Host, o.Samples, o.Conflicting)
	}
	for _, in := range r.Indictments {
		fmt.Fprintf(w, "indicted %s at %s (alarm count %.2f, differs from %.0f%% of peers", in.Host,
			time.UnixMilli(in.Time).UTC().Format(time.RFC3339), in.AlarmCount, 100*in.Differs)
		if in.Confidence != peer.ConfidenceLow {
			fmt.Fprintf(w, " and from itself: %.0f%% of its window unknown to its own model", 100*in.SelfUnknown)
			if in.BeyondOwnRange != "" {
				fmt.Fprintf(w, ", its %s above any window of its history", in.BeyondOwnRange)
			}
			if in.Busier != "" {
				fmt.Fprintf(w, ", its %s above its busiest", in.Busier)
			}
			fmt.Fprintf(w, ", %.1f floors out of its history", in.Strength)
		}
		fmt.Fprintf(w, "; confidence %s)\n", in.Confidence)
	}
	if r.Verdicts == nil {
		// Without logs there are no verdicts: show each indicted node's
		// metrics farthest from its peers'.
		for _, n := range r.Nodes {
			if n.FirstIndicted == 0 {
				continue
			}
			ev := slices.Clone(n.Evidence)
			slices.SortFunc(ev, func(a, b peer.MetricEvidence) int { return cmp.Compare(math.Abs(b.Z), math.Abs(a.Z)) })
			fmt.Fprintf(w, "%s: alarms in %d of %d steps\n", n.Host, n.Alarms, n.Steps)
			for _, e := range ev[:min(3, len(ev))] {
				fmt.Fprintf(w, "    %-24s %12.1f vs peers %12.1f (z %+.1f)\n", e.Metric, e.Node, e.Peers, e.Z)
			}
		}
	}
	for _, v := range r.Verdicts {
		role := v.Role
		if v.VictimOf != "" {
			role += " of " + v.VictimOf
		}
		fmt.Fprintf(w, "%s: %s, resource %s", v.Host, role, v.Resource)
		if v.Attempts > 0 {
			fmt.Fprint(w, ", "+v.SlowdownText())
		}
		fmt.Fprintln(w)
		for _, ev := range v.Evidence {
			fmt.Fprintf(w, "    %-24s %12.1f vs peers %12.1f (z %+.1f)\n", ev.Metric, ev.Node, ev.Peers, ev.Z)
		}
	}
}
