package anomaly

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// refHosts and refX are a five-node stage where node004 runs hot on two
// of four metrics; the expected scores were computed with scikit-learn
// (MinMaxScaler, cosine_similarity; the max scale as X/|X|.max(0)).
var (
	refHosts   = []string{"node001", "node002", "node003", "node004", "node005"}
	refMetrics = []string{"cpu", "net", "load", "mem"}
	refX       = [][]float64{{50, 2e8, 3.0, 0.5}, {52, 2.1e8, 3.2, 0.4}, {49, 1.9e8, 2.9, 0.6}, {95, 2.0e8, 9.5, 0.5}, {51, 2.05e8, 3.1, 0.45}}
)

func TestAbnormalNodesAgainstScikitLearn(t *testing.T) {
	for _, c := range []struct {
		scale Scale
		want  []float64
	}{
		{ScaleMinMax, []float64{0.697035694435996, 0.5103117234611778, 0.33458954659835327, 0.4097764712312577, 0.6541755487519495}},
		{ScaleMax, []float64{0.9749848724735435, 0.9720339028066955, 0.9626050427920876, 0.9151515818141092, 0.9758550116758218}},
	} {
		p := DefaultNodeParams()
		p.Scale = c.scale
		p.Threshold = 0.95 // four metrics only: similarities sit higher than over the 22
		p.Gap = 0.05
		got, err := AbnormalNodes(refHosts, refMetrics, refX, p)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range got {
			if math.Abs(g.Score-c.want[i]) > 1e-12 {
				t.Errorf("%v: %s score %.15f, scikit-learn %.15f", c.scale, g.Host, g.Score, c.want[i])
			}
			if g.Similarity[i] != 1 {
				t.Errorf("%v: %s similarity to itself %v, want 1", c.scale, g.Host, g.Similarity[i])
			}
		}
		if c.scale == ScaleMax {
			for i, g := range got {
				if g.Abnormal != (i == 3) {
					t.Errorf("max scale: %s abnormal %v (score %.3f, threshold %.2f)", g.Host, g.Abnormal, g.Score, p.Threshold)
				}
			}
			ev := got[3].Differing
			if len(ev) != 3 || ev[0].Metric != "load" && ev[0].Metric != "cpu" || ev[0].Delta < 0.5 {
				t.Errorf("node004's most differing metrics %+v, want cpu and load first", ev)
			}
		}
	}
}

func TestAbnormalNodesBadInput(t *testing.T) {
	for name, c := range map[string]struct {
		hosts []string
		x     [][]float64
		want  string
	}{
		"two hosts": {refHosts[:2], refX[:2], "want at least 3"},
		"rows":      {refHosts, refX[:4], "5 hosts but 4 rows"},
		"short row": {refHosts, [][]float64{refX[0], refX[1], refX[2], refX[3], {1}}, "has 1 values, want 4"},
		"infinite":  {refHosts, [][]float64{refX[0], refX[1], refX[2], refX[3], {1, 2, math.Inf(1), 4}}, "want a finite number or NaN"},
	} {
		_, err := AbnormalNodes(c.hosts, refMetrics, c.x, DefaultNodeParams())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.want)
		}
	}
}

// pcaRows is a deterministic series of six metrics of very different
// units; the expected principal metrics were computed with scikit-learn
// (MinMaxScaler, then PCA(n_components=ccr, svd_solver="full"), argmax
// |components_| per component).
func pcaRows() [][]float64 {
	rows := make([][]float64, 200)
	for i := range rows {
		t := float64(i)
		rows[i] = []float64{math.Sin(t*0.1) * 100, math.Sin(t*0.1)*50 + math.Cos(t*0.37), math.Cos(t*0.05) * 1e6,
			math.Sin(t*1.3) * 0.01, math.Cos(t*0.21) + math.Cos(t*0.05)*0.2, float64(i % 7)}
	}
	return rows
}

func TestPrincipalMetricsAgainstScikitLearn(t *testing.T) {
	for _, c := range []struct {
		ccr  float64
		want []int
	}{
		{0.5, []int{0, 2}},
		{0.8, []int{0, 2, 3, 5}},
		{0.95, []int{0, 2, 3, 4, 5}},
		{1, []int{0, 1, 2, 3, 4, 5}},
	} {
		got, err := PrincipalMetrics(pcaRows(), c.ccr)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("ccr %.2f: principal metrics %v, scikit-learn %v", c.ccr, got, c.want)
		}
	}
	if _, err := PrincipalMetrics(pcaRows()[:1], 0.95); err == nil {
		t.Error("one observation: no error")
	}
}

func TestTransformAgainstNumpy(t *testing.T) {
	x := []float64{1, 3, 2, 5, 1, 3, 2, 5, 1, 3, 2.5}
	// np.abs(np.fft.rfft(x))[1:].max() / len(x)
	if got, want := TransformFFT.value(x), 0.7839362611621276; math.Abs(got-want) > 1e-12 {
		t.Errorf("fft value %.15f, numpy %.15f", got, want)
	}
	if got := TransformMean.value(x); math.Abs(got-28.5/11) > 1e-12 {
		t.Errorf("mean %v, want %v", got, 28.5/11)
	}
	if TransformFFT.value([]float64{4}) != 0 || TransformMean.value(nil) != 0 {
		t.Error("short series: want 0")
	}
}

func TestTwoClasses(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		rep  Rep
		want []int
		dist float64
	}{
		{[]float64{0.1, 0.0, 0.95, 0.2, 0.15}, RepMaxMin, []int{2}, 0.75},
		{[]float64{0.1, 0.0, 0.95, 0.2, 0.15}, RepMedian, []int{2}, 0.95 - 0.125},
		{[]float64{1, 0.9, 0.95, 0.0, 0.92}, RepMaxMin, []int{3}, 0.9},
		{[]float64{0, 0, 1, 1}, RepMaxMin, nil, 0},
		{[]float64{0.5, 0.5, 0.5}, RepMaxMin, nil, 0},
	} {
		got, dist := twoClasses(c.v, c.rep)
		if !slices.Equal(got, c.want) || math.Abs(dist-c.dist) > 1e-12 {
			t.Errorf("twoClasses(%v, %v) = %v, %v; want %v, %v", c.v, c.rep, got, dist, c.want, c.dist)
		}
	}
}

func TestDecades(t *testing.T) {
	if d := decades(1000, 10, 0); math.Abs(d-2) > 1e-12 {
		t.Errorf("decades(1000, 10) = %v, want 2", d)
	}
	if d := decades(0, 5, 0.05); math.Abs(d-2) > 1e-12 {
		t.Errorf("decades(0, 5, floor 0.05) = %v, want 2", d)
	}
	if d := decades(0, 0, 0); d != 0 {
		t.Errorf("decades(0, 0) = %v, want 0", d)
	}
}

// TestOutlierMetricsHandMade: four quiet nodes and one whose cpu is 20×
// theirs; every metric is principal (CCR 1) so the tests alone decide.
func TestOutlierMetricsHandMade(t *testing.T) {
	hosts := []string{"a", "b", "c", "d", "e"}
	metrics := []string{"cpu", "disk", "net"}
	series := make([][][]float64, len(hosts))
	for i := range hosts {
		cpu := []float64{2, 3, 2, 3}
		if i == 4 {
			cpu = []float64{50, 60, 50, 40}
		}
		series[i] = [][]float64{cpu, {100, 110, 90, 100 + float64(i)}, {7, 7, 8, 7}}
	}
	p := DefaultOutlierParams()
	p.CCR = 1
	rep, err := OutlierMetrics(hosts, metrics, series, p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Principal, metrics) {
		t.Errorf("principal %v, want %v", rep.Principal, metrics)
	}
	for i, n := range rep.Nodes {
		o := n.Outliers()
		if i < 4 {
			if len(o) != 0 {
				t.Errorf("%s: outliers %+v, want none", n.Host, o)
			}
			continue
		}
		if len(o) != 1 || o[0].Metric != "cpu" || !o[0].Magnitude || !o[0].Distant || o[0].Value != 50 || o[0].PeerMedian != 2.5 {
			t.Errorf("%s: outliers %+v, want cpu by both tests (value 50, peers 2.5)", n.Host, o)
		}
	}
	p.Orders = 0 // magnitude test off: only the distance test flags
	rep, err = OutlierMetrics(hosts, metrics, series, p)
	if err != nil {
		t.Fatal(err)
	}
	if o := rep.Nodes[4].Outliers(); len(o) != 1 || o[0].Magnitude || !o[0].Distant {
		t.Errorf("magnitude test off: %+v, want cpu by the distance test only", o)
	}
	if _, err := OutlierMetrics(hosts[:2], metrics, series[:2], p); err == nil {
		t.Error("two hosts: no error")
	}
	series[1] = series[1][:2]
	if _, err := OutlierMetrics(hosts, metrics, series, p); err == nil || !strings.Contains(err.Error(), `host "b" has 2 series`) {
		t.Errorf("missing series: error %v", err)
	}
}

// TestScoreAgainstNormalHandMade: a window where metric 1 jumps far above
// its normal range, metric 0 stays inside it and metric 2 was constant.
func TestScoreAgainstNormalHandMade(t *testing.T) {
	normal := [][]float64{{0.2, 0.10, 0}, {0.4, 0.12, 0}, {0.3, 0.14, 0}, {0.5, 0.11, 0}}
	window := [][]float64{{0.35, 0.9, 0}, {0.45, 0.5, 0.3}}
	got, err := ScoreAgainstNormal(normal, window, DefaultNormalParams())
	if err != nil {
		t.Fatal(err)
	}
	// metric 1: median 0.115, range 0.04, farthest window point 0.9;
	// metric 2: constant 0, so the range is 0..0.3 and a change scores 1;
	// metric 0: median 0.35, range 0.3, farthest point 0.45.
	want := []struct {
		idx   int
		score float64
	}{{1, (0.9 - 0.115) / 0.04}, {2, 1}, {0, 0.1 / 0.3}}
	for i, w := range want {
		if got[i].Index != w.idx || math.Abs(got[i].Score-w.score) > 1e-9 {
			t.Errorf("rank %d: metric %d score %v, want metric %d score %v", i, got[i].Index, got[i].Score, w.idx, w.score)
		}
	}
	if !got[0].Outlier() || !got[1].Outlier() || got[2].Outlier() {
		t.Errorf("outliers: %+v", got)
	}
	if _, err := ScoreAgainstNormal(normal[:1], window, DefaultNormalParams()); err == nil {
		t.Error("one normal observation: no error")
	}
	if _, err := ScoreAgainstNormal(normal, [][]float64{{1, 2}}, DefaultNormalParams()); err == nil {
		t.Error("short window row: no error")
	}
}

// TestMedianExcluding checks the peers' median against removing the value
// and taking the median directly.
func TestMedianExcluding(t *testing.T) {
	for _, v := range [][]float64{{3}, {1, 2}, {5, 1, 3}, {4, 4, 1, 9}, {0.5, 0.5, 0.5, 2, 7}, {2, 8, 1, 9, 3, 3}} {
		sorted := slices.Sorted(slices.Values(v))
		for i := range v {
			others := append(slices.Clone(v[:i]), v[i+1:]...)
			if got, want := medianExcluding(sorted, v[i]), median(others); got != want {
				t.Errorf("%v without %v: median %v, want %v", v, v[i], got, want)
			}
		}
	}
}

// TestMissingMetrics: a metric missing (NaN) on one host is left out, as
// if it had not been given; a missing point of a series is skipped.
func TestMissingMetrics(t *testing.T) {
	x := make([][]float64, len(refX))
	for i, r := range refX {
		x[i] = append(slices.Clone(r), float64(i))
	}
	x[2][4] = math.NaN()
	got, err := AbnormalNodes(refHosts, append(slices.Clone(refMetrics), "gone"), x, DefaultNodeParams())
	if err != nil {
		t.Fatal(err)
	}
	want, err := AbnormalNodes(refHosts, refMetrics, refX, DefaultNodeParams())
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i].Score != want[i].Score {
			t.Errorf("%s: score %v with a missing metric, %v without it", got[i].Host, got[i].Score, want[i].Score)
		}
	}
	nan := [][]float64{{math.NaN()}, {math.NaN()}, {math.NaN()}}
	if _, err := AbnormalNodes(refHosts[:3], []string{"m"}, nan, DefaultNodeParams()); err == nil {
		t.Error("every metric missing: no error")
	}

	hosts := []string{"a", "b", "c", "d"}
	series := [][][]float64{
		{{1, 2, math.NaN(), 1}, {5, 5, 5, 5}, {math.NaN(), math.NaN()}},
		{{1, 1, 2, 2}, {5, 6, 5, 6}, {1, 1}},
		{{2, 1, 2, 1}, {6, 5, 6, 5}, {2, 2}},
		{{30, 40, 30, 40}, {5, 5, 6, 6}, {3, 3}},
	}
	p := DefaultOutlierParams()
	p.CCR = 1
	rep, err := OutlierMetrics(hosts, []string{"cpu", "mem", "gone"}, series, p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Principal, []string{"cpu", "mem"}) {
		t.Errorf("principal %v, want cpu and mem (gone has no point on host a)", rep.Principal)
	}
	v := rep.Nodes[0].Metrics
	k := slices.IndexFunc(v, func(m MetricOutlier) bool { return m.Metric == "cpu" })
	if len(v) != 2 || k < 0 || math.Abs(v[k].Value-4.0/3) > 1e-12 {
		t.Errorf("host a: %+v, want cpu's mean over its three points, 4/3", v)
	}
	if o := rep.Nodes[3].Outliers(); len(o) != 1 || o[0].Metric != "cpu" {
		t.Errorf("host d: outliers %+v, want cpu", o)
	}
}
