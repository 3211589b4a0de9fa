package peer

import (
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Workload is what the application logs say every node was doing: the
// intervals its task attempts ran (Spark tasks, MapReduce attempts), per
// host. Ganesha assumes that peers do the same work; a cluster shared by
// applications of different sizes breaks that, and the logs say where.
type Workload struct {
	hosts map[string][]span
}

type span struct{ from, to int64 }

// NewWorkload collects the attempt intervals of apps (attempts still
// running end at the application's end, or are left out when unknown).
func NewWorkload(apps []*model.App) *Workload {
	w := &Workload{hosts: map[string][]span{}}
	for _, a := range apps {
		for _, st := range a.Stages {
			for i := range st.Tasks {
				t := &st.Tasks[i]
				end := t.Finish
				if end == 0 {
					end = a.End
				}
				if int(t.Host) >= len(a.Hosts) || t.Host == 0 || end <= t.Launch {
					continue
				}
				h := a.Hosts[t.Host]
				w.hosts[h] = append(w.hosts[h], span{t.Launch, end})
			}
		}
	}
	for h, s := range w.hosts {
		slices.SortFunc(s, func(a, b span) int { return int(a.from - b.from) })
		w.hosts[h] = s
	}
	return w
}

// Load returns the mean number of attempts running on host over [from, to) (Unix ms).
func (w *Workload) Load(host string, from, to int64) float64 {
	if to <= from {
		return 0
	}
	var sum int64
	for _, s := range w.hosts[host] {
		if s.from >= to {
			break
		}
		if s.to > from {
			sum += min(s.to, to) - max(s.from, from)
		}
	}
	return float64(sum) / float64(to-from)
}

// LoadClass buckets a load for peer grouping: 0 idle (under a quarter of
// an attempt on average), then one class per factor of four.
func LoadClass(load float64) int {
	c := 0
	for l := 0.25; load >= l && c < 8; l *= 4 {
		c++
	}
	return c
}
