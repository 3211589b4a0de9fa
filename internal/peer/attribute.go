package peer

import (
	"cmp"
	"fmt"
	"slices"
)

// Verdict is clusterlens's reading of one indicted node: culprit or the
// victim of another indicted node, the resource affected and the metrics
// that show it.
type Verdict struct {
	Host string `json:"host"`
	// Role is "culprit", or "victim" when its anomaly is explained by VictimOf.
	Role     string `json:"role"`
	VictimOf string `json:"victimOf,omitempty"`
	// Slowdown is the median ratio of its attempts' durations to their
	// stages' medians around its indictment, over Attempts attempts (0
	// without logs): evidence for people, not used to decide (on
	// heterogeneous hardware a fast node's slowed tasks may still beat the
	// median).
	Slowdown float64 `json:"slowdown,omitempty"`
	Attempts int     `json:"attempts,omitempty"`
	// AgainstModel says Slowdown is against the node's own model of speed
	// (NewWorkloadModel): a node slow by design ran at 1.
	AgainstModel bool `json:"againstModel,omitempty"`
	// Resource is cpu, disk, network, or hang (CPU, disk and network all idle).
	Resource      string `json:"resource"`
	FirstIndicted int64  `json:"firstIndictedMs"`
	// Alarms is how many steps it raised an alarm in.
	Alarms int `json:"alarms"`
	// Strength is the largest |z| of its evidence: how far from its peers it was.
	Strength      float64 `json:"strength"`
	MaxAlarmCount float64 `json:"maxAlarmCount"`
	// Evidence are the metrics farthest from the peers', largest first.
	Evidence []MetricEvidence `json:"evidence"`
}

// Attribute names, for every indicted node in st, the resource its metrics
// deviate in from its peers' while it raised alarms (resourceOf: hang when
// its load is up with its CPU and runnable processes down or it is below its peers everywhere,
// network when its kernel CPU is up alone or its traffic down, else CPU or
// disk, whichever is farther above the peers), and tells culprits from
// victims: of the nodes indicted in one episode only one is a culprit, the
// others its victims (victims), since a 50% packet loss slows every peer
// fetching from the lossy node and Ganesha indicted those peers too (§5).
// With the run's workload w (nil: none), each verdict carries how slow the
// node's tasks were; p gives the window that episodes are measured in.
func Attribute(st []NodeStatus, w *Workload, p Params) []Verdict {
	var out []Verdict
	for _, s := range st {
		if s.FirstIndicted == 0 || len(s.Evidence) == 0 {
			continue
		}
		v := Verdict{Host: s.Host, Role: "culprit", FirstIndicted: s.FirstIndicted, MaxAlarmCount: s.MaxAlarmCount, Alarms: s.Alarms}
		if w != nil {
			win := int64(p.WindowS) * 1000
			v.Slowdown, v.Attempts = w.Slowdown(s.Host, s.FirstIndicted-3*win, s.FirstIndicted+win)
			v.AgainstModel = w.Modelled()
		}
		v.Resource = resourceOf(s.Evidence)
		ev := slices.Clone(s.Evidence)
		slices.SortFunc(ev, func(a, b MetricEvidence) int { return cmp.Compare(abs(b.Z), abs(a.Z)) })
		v.Evidence = ev[:min(3, len(ev))]
		v.Strength = abs(ev[0].Z)
		out = append(out, v)
	}
	victims(out, int64(p.WindowS)*1000*EpisodeWindows)
	return out
}

// SlowdownText says how slow the node's attempts were ("" without logs):
// "its 12 attempts ran 1.45x their stages' median".
func (v *Verdict) SlowdownText() string {
	if v.Attempts == 0 {
		return ""
	}
	if v.AgainstModel {
		return fmt.Sprintf("its %d attempts ran %.2fx what its own model expects against their stages' median", v.Attempts, v.Slowdown)
	}
	return fmt.Sprintf("its %d attempts ran %.2fx their stages' median", v.Attempts, v.Slowdown)
}

// EpisodeWindows: indictments less than this many histogram windows apart
// belong to one episode.
const EpisodeWindows = 3

// victims keeps one culprit per episode of indictments (first indictments
// less than gap apart, chained): in an episode of three or more nodes a
// node whose evidence names the network first (a network fault slows every
// transfer to and from the node, so it disturbs the nodes it exchanges
// data with, where a CPU or disk hog slows its own tasks), then the node
// that raised the most alarms, then the highest alarm count; the others become its victims. Ganesha assumes a
// fault shows at few nodes; when one node's fault disturbs many, the
// culprit is the one whose fault spreads and that stayed different longest.
func victims(v []Verdict, gap int64) {
	order := make([]int, len(v))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(v[a].FirstIndicted, v[b].FirstIndicted) })
	for s := 0; s < len(order); {
		e := s + 1
		for e < len(order) && v[order[e]].FirstIndicted-v[order[e-1]].FirstIndicted < gap {
			e++
		}
		best := order[s]
		for _, i := range order[s+1 : e] {
			a, b := &v[i], &v[best]
			crowd := e-s >= 3
			an, bn := crowd && a.Resource == "network", crowd && b.Resource == "network"
			if an && !bn || an == bn && (a.Alarms > b.Alarms || a.Alarms == b.Alarms && a.MaxAlarmCount > b.MaxAlarmCount) {
				best = i
			}
		}
		for _, i := range order[s:e] {
			if i != best {
				v[i].Role, v[i].VictimOf = "victim", v[best].Host
			}
		}
		s = e
	}
}

// Thresholds of resourceOf, in normalised units (z, the profile's scale).
const (
	// HangLoadZ: a hung node's load average is at least this far above its
	// peers' while its user CPU and runnable processes are below theirs
	// (threads blocked in the kernel count in the load, not in the CPU).
	HangLoadZ = 1.0
	// KernelZ: a network culprit's system CPU is at least this far above
	// its peers' and this far above its own user-CPU deviation (time in the
	// TCP stack retransmitting), or its traffic is this far below theirs.
	KernelZ = 1.5
	// IdleZ: a node whose user CPU is this far below its peers' while no
	// metric is HangLoadZ above theirs stopped working (a hang) — its peers
	// are the nodes the logs say ran as many tasks; so did one whose user
	// CPU and runnable processes are both this far below theirs while its
	// load is above theirs at all (a hang of 20–140 s moves a one-minute
	// load average less than HangLoadZ: on the tuning seeds 500–599 the
	// hang's resource was named wrong in 8 of 123 hangs found without this
	// rule, in none with it, and no other fault's resource changed).
	IdleZ = 0.5
)

// resourceOf names the resource an indicted node's evidence points to:
// hang, network, cpu or disk.
func resourceOf(ev []MetricEvidence) string {
	z := map[string]float64{}
	for _, e := range ev {
		z[e.Metric] = e.Z
	}
	user, runnable := z["cpu_user_pct"], z["procs_runnable"]
	cpu := max(user, runnable, z["load1"], z["context_switches_per_s"])
	disk := max(z["cpu_iowait_pct"], z["disk_read_bytes_per_s"], z["disk_write_bytes_per_s"],
		z["pages_in_kb_per_s"], z["pages_out_kb_per_s"])
	if z["load1"] >= HangLoadZ && user < 0 && runnable < 0 ||
		z["load1"] > 0 && user <= -IdleZ && runnable <= -IdleZ && disk < HangLoadZ {
		// Its load above its peers' while it runs less on its CPU and
		// does not wait on its disk: the threads counted in its load are
		// blocked, not computing.
		return "hang"
	}
	above := 0.0
	for _, e := range ev {
		above = max(above, e.Z)
	}
	if above < HangLoadZ && user <= -IdleZ {
		return "hang" // below its working peers everywhere: it stopped
	}
	sys := z["cpu_system_pct"]
	if sys >= KernelZ && sys-z["cpu_user_pct"] >= KernelZ ||
		-z["net_rx_bytes_per_s"] >= KernelZ || -z["net_tx_bytes_per_s"] >= KernelZ {
		return "network"
	}
	if cpu >= disk {
		return "cpu"
	}
	return "disk"
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// Culprits returns the hosts of the verdicts that are culprits.
func Culprits(v []Verdict) []string {
	var out []string
	for _, x := range v {
		if x.Role == "culprit" {
			out = append(out, x.Host)
		}
	}
	return out
}
