package hetero

import (
	"fmt"
	"testing"
)

func TestDebugParc(t *testing.T) {
	for seed := uint64(100); seed < 120; seed++ {
		p := simulateParc(t, "parc-50", seed, false, nil)
		m, _ := Fit(p.hist, DefaultParams)
		for _, v := range m.Judge(p.test) {
			if _, ok := p.faulty[v.Host]; (ok && v.Resource != p.faulty[v.Host]) || (!ok && v.Culprit()) {
				fmt.Println(seed, v.Host, p.faulty[v.Host], p.classOf[v.Host], v.Status, v.Resource, v.Z, v.Slowdown, v.Tasks, v.HistoryTasks, v.ByResource)
			}
		}
	}
}
