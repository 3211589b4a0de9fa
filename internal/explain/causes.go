package explain

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// what names each kind of cause in a summary.
var what = map[string]string{
	KindInput:        "more data",
	KindNode:         "slower nodes",
	KindSkew:         "data skew",
	KindPartitioning: "partitioning",
	KindSpillGC:      "garbage collection and spills",
	KindFailures:     "failed and retried tasks",
	KindExecutors:    "executors and scheduling",
	KindConfig:       "changed settings",
	KindPlan:         "a changed plan",
	KindDriver:       "the driver",
}

// causes sums the parts by kind into causes of the difference extra (ms),
// largest share first, dropping those under p.MinShare of it in either
// direction; what they leave is the unexplained rest (ms).
func (d *decomposition) causes(extra float64, p Params) ([]Cause, int64) {
	byKind := map[string]*Cause{}
	var kinds []string
	for _, k := range d.order {
		pt := d.parts[k]
		c := byKind[k.kind]
		if c == nil {
			c = &Cause{Kind: k.kind}
			byKind[k.kind] = c
			kinds = append(kinds, k.kind)
		}
		it := pt.item
		it.Seconds = pt.ms / 1000
		c.Seconds += it.Seconds
		c.Items = append(c.Items, it)
	}
	out := []Cause{}
	explained := 0.0
	for _, kind := range kinds {
		c := byKind[kind]
		c.Share = c.Seconds * 1000 / extra
		if math.Abs(c.Share) < p.MinShare {
			continue
		}
		// Items pulling with the cause first, largest first; the ones
		// smaller than MinShare of the cause are left out.
		sign := math.Copysign(1, c.Seconds)
		slices.SortStableFunc(c.Items, func(a, b Item) int { return cmp.Compare(sign*b.Seconds, sign*a.Seconds) })
		c.Items = slices.DeleteFunc(c.Items, func(it Item) bool { return sign*it.Seconds < p.MinShare*math.Abs(c.Seconds) })
		if len(c.Items) == 0 {
			continue
		}
		c.Seconds = math.Round(c.Seconds*10) / 10
		for i := range c.Items {
			c.Items[i].Seconds = math.Round(c.Items[i].Seconds*10) / 10
		}
		c.Summary = fmt.Sprintf("%s: %s", what[kind], c.Items[0].Evidence)
		if n := len(c.Items) - 1; n > 0 {
			c.Summary += fmt.Sprintf(" (and %d more)", n)
		}
		explained += c.Seconds * 1000
		out = append(out, *c)
	}
	byShare(out)
	return out, int64(math.Round(extra - explained))
}
