package sim

import (
	"fmt"
	"math/rand/v2"
)

// node is one machine of the simulated cluster.
type node struct {
	idx   int
	name  string
	rack  int
	class *HardwareClass
	free  int // cores not held by an executor or container
	// running counts task attempts running now (all applications), which
	// share the node's disk and network.
	running int
	faults  []*faultRun
	mem     float64 // bytes held by executors and containers
	sampled bool
	role    *RoleSpec // another role the node plays, nil for none
	drained bool      // schedulers place nothing on it
}

// cluster is the simulated hardware with its HDFS-like block placement.
type cluster struct {
	nodes     []*node
	racks     [][]int // node indexes per rack
	rackNames []string
}

func newCluster(spec *ClusterSpec, rng *rand.Rand) *cluster {
	c := &cluster{racks: make([][]int, spec.Racks)}
	width := len(fmt.Sprint(spec.Nodes))
	width = max(width, 3)
	// Classes by share, then shuffled so that racks mix hardware.
	var total float64
	for _, h := range spec.Classes {
		total += h.Share
	}
	kinds := make([]int, spec.Nodes)
	pos := 0
	for ci, h := range spec.Classes {
		n := int(h.Share/total*float64(spec.Nodes) + 0.5)
		if ci == len(spec.Classes)-1 {
			n = spec.Nodes - pos
		}
		for k := 0; k < n && pos < spec.Nodes; k++ {
			kinds[pos] = ci
			pos++
		}
	}
	rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	for r := range spec.Racks {
		c.rackNames = append(c.rackNames, fmt.Sprintf("/rack-%02d", r+1))
	}
	for i := range spec.Nodes {
		rack := i * spec.Racks / spec.Nodes
		h := &spec.Classes[kinds[i]]
		n := &node{idx: i, name: fmt.Sprintf("node%0*d.sim.local", width, i+1), rack: rack, class: h, free: h.Cores}
		c.nodes = append(c.nodes, n)
		c.racks[rack] = append(c.racks[rack], i)
	}
	for i := range spec.Roles {
		c.nodes[spec.Roles[i].Node].role = &spec.Roles[i]
	}
	for _, d := range spec.Drained {
		c.nodes[d].drained = true
	}
	return c
}

// place chooses replica nodes for n blocks like HDFS's default policy: the
// first replica on a node of the writer's choosing, the second on another
// rack, the third on the second's rack but another node. Nodes in avoid hold
// no block (uneven placement); with only set, blocks live on those nodes alone.
func (c *cluster) place(rng *rand.Rand, n, replicas int, avoid, only map[int]bool) [][]int32 {
	var allowed []int
	for _, nd := range c.nodes {
		if avoid[nd.idx] || (len(only) > 0 && !only[nd.idx]) {
			continue
		}
		allowed = append(allowed, nd.idx)
	}
	if len(allowed) == 0 {
		for _, nd := range c.nodes {
			allowed = append(allowed, nd.idx)
		}
	}
	byRack := map[int][]int{}
	var rackList []int
	for _, i := range allowed {
		r := c.nodes[i].rack
		if byRack[r] == nil {
			rackList = append(rackList, r)
		}
		byRack[r] = append(byRack[r], i)
	}
	replicas = min(replicas, len(allowed))
	out := make([][]int32, n)
	for b := range n {
		first := allowed[rng.IntN(len(allowed))]
		reps := []int32{int32(first)}
		if replicas >= 2 {
			r1 := c.nodes[first].rack
			second := -1
			if len(rackList) > 1 {
				for {
					r := rackList[rng.IntN(len(rackList))]
					if r != r1 {
						second = byRack[r][rng.IntN(len(byRack[r]))]
						break
					}
				}
			}
			if second < 0 {
				second = pickOther(rng, allowed, reps)
			}
			reps = append(reps, int32(second))
		}
		for len(reps) < replicas {
			peers := byRack[c.nodes[reps[1]].rack]
			cand := pickOther(rng, peers, reps)
			if cand < 0 {
				cand = pickOther(rng, allowed, reps)
			}
			if cand < 0 {
				break
			}
			reps = append(reps, int32(cand))
		}
		out[b] = reps
	}
	return out
}

// pickOther picks a node of from that is not in used, or -1.
func pickOther(rng *rand.Rand, from []int, used []int32) int {
	for range 16 {
		c := from[rng.IntN(len(from))]
		if !containsNode(used, c) {
			return c
		}
	}
	for _, c := range from {
		if !containsNode(used, c) {
			return c
		}
	}
	return -1
}

func containsNode(s []int32, n int) bool {
	for _, v := range s {
		if int(v) == n {
			return true
		}
	}
	return false
}
