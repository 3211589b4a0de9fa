package peer

import (
	"cmp"
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
	// Resource is cpu, disk, network, or hang (CPU, disk and network all idle).
	Resource      string  `json:"resource"`
	FirstIndicted int64   `json:"firstIndictedMs"`
	MaxAlarmCount float64 `json:"maxAlarmCount"`
	// Evidence are the metrics farthest from the peers', largest first.
	Evidence []MetricEvidence `json:"evidence"`
}

// metricResource maps Ganesha's metrics to the resource they measure.
var metricResource = map[string]string{
	"cpu_user_pct": "cpu", "cpu_system_pct": "cpu", "context_switches_per_s": "cpu", "procs_runnable": "cpu",
	"load1": "cpu", "cpu_iowait_pct": "disk", "pages_in_kb_per_s": "disk", "pages_out_kb_per_s": "disk",
	"disk_read_bytes_per_s": "disk", "disk_write_bytes_per_s": "disk",
	"net_rx_bytes_per_s": "network", "net_tx_bytes_per_s": "network",
}

// Attribute names, for every indicted node in st, the resource its metrics
// deviate in while it raised alarms, and tells culprits from victims: a
// node is hung when its CPU and network are both well below its peers'
// (z < −HangZ) and its disk is not above; a CPU or disk culprit shows that
// resource above its peers; a network culprit shows less traffic than its
// peers. When several indicted nodes show a network deficit, the one with
// the largest deficit is the culprit and the others, whose traffic only
// fell while exchanging data with it, are its victims (a 50% packet loss
// slows every peer fetching from the lossy node; Ganesha indicted those
// peers too, §5.3).
func Attribute(st []NodeStatus) []Verdict {
	var out []Verdict
	for _, s := range st {
		if s.FirstIndicted == 0 || len(s.Evidence) == 0 {
			continue
		}
		v := Verdict{Host: s.Host, Role: "culprit", FirstIndicted: s.FirstIndicted, MaxAlarmCount: s.MaxAlarmCount}
		score := map[string]float64{}
		for _, e := range s.Evidence {
			r := metricResource[e.Metric]
			z := e.Z
			if r == "network" {
				z = -z
			}
			score[r] = max(score[r], z)
			if r == "cpu" || r == "network" {
				score["low-"+r] = min(score["low-"+r], e.Z)
			}
		}
		switch {
		case score["low-cpu"] < -HangZ && score["low-network"] < -HangZ && score["disk"] < HangZ:
			v.Resource = "hang"
		case score["cpu"] >= score["disk"] && score["cpu"] >= score["network"]:
			v.Resource = "cpu"
		case score["disk"] >= score["network"]:
			v.Resource = "disk"
		default:
			v.Resource = "network"
		}
		ev := slices.Clone(s.Evidence)
		slices.SortFunc(ev, func(a, b MetricEvidence) int { return cmp.Compare(abs(b.Z), abs(a.Z)) })
		v.Evidence = ev[:min(3, len(ev))]
		out = append(out, v)
	}
	// Network victims: every network-deficit node but the largest deficit.
	best, deficit := -1, 0.0
	for i, v := range out {
		if v.Resource == "network" {
			if d := netDeficit(st, v.Host); best < 0 || d > deficit {
				best, deficit = i, d
			}
		}
	}
	for i := range out {
		if out[i].Resource == "network" && i != best {
			out[i].Role, out[i].VictimOf = "victim", out[best].Host
		}
	}
	return out
}

// HangZ is how far (normalised units) below its peers a hung node's CPU and
// network must be.
const HangZ = 1.0

// netDeficit is how far below its peers host's network traffic was.
func netDeficit(st []NodeStatus, host string) float64 {
	for _, s := range st {
		if s.Host != host {
			continue
		}
		d := 0.0
		for _, e := range s.Evidence {
			if metricResource[e.Metric] == "network" {
				d = max(d, -e.Z)
			}
		}
		return d
	}
	return 0
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
