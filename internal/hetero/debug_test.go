package hetero

import (
	"fmt"
	"testing"

	"github.com/clusterlens/clusterlens/internal/history"
)

func TestDebugParc(t *testing.T) {
	for seed := uint64(100); seed < 110; seed++ {
		p := simulateParc(t, "parc", seed, false, nil)
		m, _ := Fit(p.hist, DefaultParams)
		if seed == 0 {
			for _, s := range m.Speeds() {
				fmt.Println(s.Host, p.classOf[s.Host], s.Tasks, s.Class, s.Factors)
			}
			for j := range m.jobs {
				fmt.Println(m.jobs[j].name, m.jobs[j].class, m.v[j*2:j*2+2], m.tau2[j])
			}
			fmt.Println("omega2", m.omega2)
		}
		for _, v := range m.Judge(p.test) {
			if _, ok := p.faulty[v.Host]; ok || v.Culprit() {
				fmt.Println(seed, v.Host, p.faulty[v.Host], p.classOf[v.Host], v.Status, v.Resource, v.Z, v.Slowdown, v.ByResource)
			}
		}
		for _, r := range p.test {
			for _, v := range m.Judge([]*history.Run{r}) {
				if _, ok := p.faulty[v.Host]; !ok && v.Culprit() {
					fmt.Println("  run", r.Name, v.Host, p.classOf[v.Host], v.Z, v.Slowdown, v.Tasks, v.ByResource)
				}
			}
		}
	}
}
