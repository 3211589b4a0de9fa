package eventlog

import (
	"hash/maphash"
	"strings"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/model"
)

// planInfo is a SparkPlanInfo as logged: one operator and its children.
type planInfo struct {
	name, desc string
	children   []*planInfo
	metrics    []model.SQLPlanMetric
	hash       uint64 // of name, desc and the children's hashes
}

var planSeed = maphash.MakeSeed()

// decodePlanGraph reads a sparkPlanInfo tree and returns its graph and
// the metrics of its operators, one per accumulator id.
func (d *Decoder) decodePlanGraph(s *jsonscan.Scanner) (*model.SQLPlan, []model.SQLPlanMetric) {
	root := d.decodePlanInfo(s)
	if root == nil {
		return nil, nil
	}
	b := graphBuilder{plan: &model.SQLPlan{}, reused: map[uint64][]reusable{}}
	b.add(root, -1, -1)
	// planGraph.allNodes.flatMap(_.metrics).map(m => m.accumulatorId -> m).toMap:
	// one per accumulator id, the last one read.
	var ms []model.SQLPlanMetric
	at := map[int64]int{}
	for _, n := range b.plan.Nodes {
		for _, m := range n.Metrics {
			if i, ok := at[m.AccumID]; ok {
				ms[i] = m
				continue
			}
			at[m.AccumID] = len(ms)
			ms = append(ms, m)
		}
	}
	return b.plan, ms
}

func (d *Decoder) decodePlanInfo(s *jsonscan.Scanner) *planInfo {
	if !s.Object() {
		return nil
	}
	p := &planInfo{}
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "nodeName":
			p.name = d.sq.intern(s.Bytes())
		case "simpleString":
			p.desc = s.String()
		case "children":
			if s.Array() {
				for s.Next() {
					if c := d.decodePlanInfo(s); c != nil {
						p.children = append(p.children, c)
					}
				}
			}
		case "metrics":
			if s.Array() {
				for s.Next() {
					p.metrics = append(p.metrics, d.decodePlanMetric(s))
				}
			}
		default:
			s.Skip()
		}
	}
	var h maphash.Hash
	h.SetSeed(planSeed)
	h.WriteString(p.name)
	h.WriteByte(0)
	h.WriteString(p.desc)
	for _, c := range p.children {
		var b [8]byte
		for i := range b {
			b[i] = byte(c.hash >> (8 * i))
		}
		h.Write(b[:])
	}
	p.hash = h.Sum64()
	return p
}

// decodePlanMetric reads a SQLPlanMetric ({name, accumulatorId, metricType}).
func (d *Decoder) decodePlanMetric(s *jsonscan.Scanner) model.SQLPlanMetric {
	var m model.SQLPlanMetric
	if !s.Object() {
		return m
	}
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "name":
			m.Name = d.sq.intern(s.Bytes())
		case "accumulatorId":
			m.AccumID = s.Int()
		case "metricType":
			m.Type = model.ParseSQLMetricType(string(s.Bytes()))
		default:
			s.Skip()
		}
	}
	return m
}

// equal is SparkPlanInfo.equals: same name, description and children.
func (p *planInfo) equal(o *planInfo) bool {
	if p == o {
		return true
	}
	if p.hash != o.hash || p.name != o.name || p.desc != o.desc || len(p.children) != len(o.children) {
		return false
	}
	for i := range p.children {
		if !p.children[i].equal(o.children[i]) {
			return false
		}
	}
	return true
}

// graphBuilder is SparkPlanGraph.buildSparkPlanGraphNode (Spark 4.0: a
// ResultQueryStage, SPARK-51008, is skipped as a TableCacheQueryStage is).
type graphBuilder struct {
	plan   *model.SQLPlan
	reused map[uint64][]reusable // exchanges and subqueries by plan
}

type reusable struct {
	info *planInfo
	id   int32
}

func (b *graphBuilder) find(p *planInfo) (int32, bool) {
	for _, r := range b.reused[p.hash] {
		if r.info.equal(p) {
			return r.id, true
		}
	}
	return 0, false
}

func (b *graphBuilder) edge(from, to int32) {
	if to >= 0 {
		b.plan.Edges = append(b.plan.Edges, model.SQLEdge{From: from, To: to})
	}
}

// add places p under parent (a node id, -1 for none) inside cluster (the
// WholeStageCodegen node id, -1 for none).
func (b *graphBuilder) add(p *planInfo, parent, cluster int32) {
	var head *planInfo
	if len(p.children) > 0 {
		head = p.children[0]
	}
	switch {
	case strings.HasPrefix(p.name, "WholeStageCodegen"):
		id := b.newNode(p, -1)
		b.plan.Nodes[id].IsCluster = true
		if head != nil {
			b.add(head, parent, id)
		}
	case p.name == "InputAdapter", p.name == "TableCacheQueryStage", p.name == "ResultQueryStage":
		if head != nil {
			b.add(head, parent, -1)
		}
	case p.name == "BroadcastQueryStage", p.name == "ShuffleQueryStage":
		if head == nil {
			return
		}
		if id, ok := b.find(head); ok {
			b.edge(id, parent)
		} else {
			b.add(head, parent, -1)
		}
	case p.name == "Subquery" && cluster >= 0:
		b.add(p, parent, -1)
	case p.name == "Subquery" && b.has(p):
		id, _ := b.find(p)
		b.edge(id, parent)
	case p.name == "ReusedSubquery":
		if head != nil {
			b.add(head, parent, cluster)
		}
	case p.name == "ReusedExchange" && head != nil && b.has(head):
		id, _ := b.find(head)
		b.edge(id, parent)
	default:
		id := b.newNode(p, cluster)
		if strings.Contains(p.name, "Exchange") || p.name == "Subquery" {
			b.register(p, id)
		}
		b.edge(id, parent)
		for _, c := range p.children {
			b.add(c, id, cluster)
		}
	}
}

// register keeps id as the node of p's plan: Spark's map of exchanges is
// keyed by the plan, so an equal plan met later takes the key over.
func (b *graphBuilder) register(p *planInfo, id int32) {
	rs := b.reused[p.hash]
	for i := range rs {
		if rs[i].info.equal(p) {
			rs[i].id = id
			return
		}
	}
	b.reused[p.hash] = append(rs, reusable{p, id})
}

func (b *graphBuilder) has(p *planInfo) bool {
	_, ok := b.find(p)
	return ok
}

func (b *graphBuilder) newNode(p *planInfo, cluster int32) int32 {
	id := int32(len(b.plan.Nodes))
	b.plan.Nodes = append(b.plan.Nodes, model.SQLNode{ID: id, Name: p.name, Desc: p.desc, Cluster: cluster, Metrics: p.metrics})
	return id
}
