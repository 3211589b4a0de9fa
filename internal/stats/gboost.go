package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// BoostOptions are gradient boosting's parameters. Zero fields take
// scikit-learn's GradientBoostingRegressor defaults.
type BoostOptions struct {
	// LearningRate shrinks each tree (default 0.1); Trees is their number
	// (default 100); Depth each tree's (default 3).
	LearningRate float64
	Trees, Depth int
}

// Boosted is a fitted gradient-boosted ensemble of regression trees.
type Boosted struct {
	Init         float64 `json:"init"`
	LearningRate float64 `json:"learningRate"`
	Trees        []Tree  `json:"trees"`
}

// Tree is a regression tree: node 0 is the root; a node with Left < 0 is
// a leaf holding Value, otherwise rows with column Feature ≤ Threshold go
// Left, the others Right.
type Tree struct {
	Nodes []TreeNode `json:"nodes"`
}

// TreeNode is one node of a Tree.
type TreeNode struct {
	Feature   int     `json:"feature"`
	Threshold float64 `json:"threshold"`
	Left      int     `json:"left"`
	Right     int     `json:"right"`
	Value     float64 `json:"value"`
}

// featureThreshold is how far apart two values must be to split between
// them (scikit-learn's FEATURE_THRESHOLD).
const featureThreshold = 1e-7

// GradientBoosting fits least-squares gradient boosting (Friedman, "Greedy
// Function Approximation: A Gradient Boosting Machine", Annals of
// Statistics 29(5), 2001, Algorithm 2, LS_Boost) as scikit-learn's
// GradientBoostingRegressor does with its defaults: the initial model is
// the weighted mean of y; each step fits a regression tree of at most
// Depth levels to the residuals, splitting where Friedman's improvement
// criterion, w_l·w_r/(w_l+w_r)·(mean_l − mean_r)² (§4.2, eq. 35), is
// largest, halfway between two distinct values, with at least one row on
// each side; its leaves hold their rows' weighted mean residual, added
// times LearningRate. w are the rows' weights (nil: 1 each).
func GradientBoosting(x *Dense, y, w []float64, opt BoostOptions) (*Boosted, error) {
	if err := x.check("gradient boosting"); err != nil {
		return nil, err
	}
	if len(y) != x.N || w != nil && len(w) != x.N {
		return nil, fmt.Errorf("gradient boosting: %d rows, %d targets and %d weights", x.N, len(y), len(w))
	}
	if opt.LearningRate <= 0 {
		opt.LearningRate = 0.1
	}
	if opt.Trees <= 0 {
		opt.Trees = 100
	}
	if opt.Depth <= 0 {
		opt.Depth = 3
	}
	if w == nil {
		w = make([]float64, x.N)
		for i := range w {
			w[i] = 1
		}
	}
	b := &Boosted{LearningRate: opt.LearningRate}
	var sw float64
	for i := range y {
		b.Init += w[i] * y[i]
		sw += w[i]
	}
	if !(sw > 0) {
		return nil, fmt.Errorf("gradient boosting: the weights sum to %v, want a positive sum", sw)
	}
	b.Init /= sw
	f := make([]float64, x.N)
	for i := range f {
		f[i] = b.Init
	}
	g := &treeGrower{x: x, w: w, r: make([]float64, x.N), depth: opt.Depth, leafOf: make([]int, x.N), left: make([]bool, x.N)}
	// The rows in order of each feature, once: a node's rows keep that
	// order when split.
	byFeature := make([][]int, x.D)
	for f := range byFeature {
		byFeature[f] = make([]int, x.N)
		for i := range x.N {
			byFeature[f][i] = i
		}
		slices.SortStableFunc(byFeature[f], func(a, b int) int { return cmp.Compare(x.X[a*x.D+f], x.X[b*x.D+f]) })
	}
	work := make([][]int, x.D)
	for f := range work {
		work[f] = make([]int, x.N)
	}
	for range opt.Trees {
		for i := range g.r {
			g.r[i] = y[i] - f[i]
		}
		for k := range work {
			copy(work[k], byFeature[k])
		}
		t := g.grow(work)
		for i := range f {
			f[i] += opt.LearningRate * t.Nodes[g.leafOf[i]].Value
		}
		b.Trees = append(b.Trees, t)
	}
	return b, nil
}

// Predict is the ensemble's value at row v.
func (b *Boosted) Predict(v []float64) float64 {
	s := 0.0
	for i := range b.Trees {
		s += b.Trees[i].value(v)
	}
	return b.Init + b.LearningRate*s
}

func (t *Tree) value(v []float64) float64 {
	n := &t.Nodes[0]
	for n.Left >= 0 {
		if v[n.Feature] <= n.Threshold {
			n = &t.Nodes[n.Left]
		} else {
			n = &t.Nodes[n.Right]
		}
	}
	return n.Value
}

// treeGrower grows one regression tree on the residuals r.
type treeGrower struct {
	x      *Dense
	w, r   []float64
	depth  int
	tree   Tree
	leafOf []int  // each row's leaf in the tree grown last
	left   []bool // scratch: the rows going left at a split
}

// grow grows a tree on the rows, given in order of each feature.
func (g *treeGrower) grow(sorted [][]int) Tree {
	g.tree = Tree{}
	g.node(sorted, 0)
	return g.tree
}

// node adds the node of the rows (sorted by each feature, in place) at
// depth and returns its index.
func (g *treeGrower) node(sorted [][]int, depth int) int {
	rows := sorted[0]
	idx := len(g.tree.Nodes)
	var sw, s, ss float64
	for _, i := range rows {
		sw += g.w[i]
		s += g.w[i] * g.r[i]
		ss += g.w[i] * g.r[i] * g.r[i]
	}
	mean := s / sw
	g.tree.Nodes = append(g.tree.Nodes, TreeNode{Left: -1, Right: -1, Value: mean})
	impurity := ss/sw - mean*mean
	feature, threshold, nl, ok := -1, 0.0, 0, false
	if depth < g.depth && len(rows) >= 2 && impurity > epsilon {
		feature, threshold, nl, ok = g.bestSplit(sorted, sw, s)
	}
	if !ok {
		for _, i := range rows {
			g.leafOf[i] = idx
		}
		return idx
	}
	d := g.x.D
	for _, i := range rows {
		g.left[i] = g.x.X[i*d+feature] <= threshold
	}
	// Stable partition of each feature's order: left rows first.
	lefts, rights := make([][]int, d), make([][]int, d)
	buf := make([]int, len(rows))
	for f, order := range sorted {
		l, r := 0, 0
		for _, i := range order {
			if g.left[i] {
				order[l] = i
				l++
			} else {
				buf[r] = i
				r++
			}
		}
		copy(order[l:], buf[:r])
		lefts[f], rights[f] = order[:nl], order[nl:]
	}
	l := g.node(lefts, depth+1)
	r := g.node(rights, depth+1)
	g.tree.Nodes[idx].Feature, g.tree.Nodes[idx].Threshold = feature, threshold
	g.tree.Nodes[idx].Left, g.tree.Nodes[idx].Right = l, r
	return idx
}

// epsilon is the impurity below which a node is a leaf (scikit-learn's
// EPSILON, the machine epsilon).
var epsilon = math.Nextafter(1, 2) - 1

// bestSplit is the feature and threshold of the largest Friedman
// improvement over the node's rows (total weight sw, weighted residual
// sum s), and how many rows go left.
func (g *treeGrower) bestSplit(sorted [][]int, sw, s float64) (feature int, threshold float64, nl int, ok bool) {
	best := math.Inf(-1)
	d := g.x.D
	for f, order := range sorted {
		var wl, sl float64
		for k := 0; k < len(order)-1; k++ {
			i, j := order[k], order[k+1]
			wl += g.w[i]
			sl += g.w[i] * g.r[i]
			xi, xj := g.x.X[i*d+f], g.x.X[j*d+f]
			if xj <= xi+featureThreshold {
				continue
			}
			wr, sr := sw-wl, s-sl
			diff := wr*sl - wl*sr
			if imp := diff * diff / (wl * wr); imp > best {
				best, feature, nl, ok = imp, f, k+1, true
				threshold = xi/2 + xj/2
				if threshold == xj || math.IsInf(threshold, 0) {
					threshold = xi
				}
			}
		}
	}
	return feature, threshold, nl, ok
}
