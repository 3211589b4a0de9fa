package anomaly

import (
	"bytes"
	"math"
	"testing"
)

// FuzzSMDMatrix: any input gives rows or an error, never a panic, and
// every row has the header's width.
func FuzzSMDMatrix(f *testing.F) {
	f.Add([]byte("m1,m2,m3\n0.1,0.2,0\n1,0,0.5\n"))
	f.Add([]byte("m1\n\n0.5\r\n"))
	f.Add([]byte("m1,m2\n1\n"))
	f.Add([]byte("m1,m2\nNaN,1\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := readSMDMatrix(bytes.NewReader(b), "fuzz.csv")
		if err != nil {
			return
		}
		for i := 1; i < len(rows); i++ {
			if len(rows[i]) != len(rows[0]) {
				t.Fatalf("row %d has %d values, row 0 %d", i, len(rows[i]), len(rows[0]))
			}
		}
	})
}

// FuzzSMDLabels: any input gives labels or an error, never a panic.
func FuzzSMDLabels(f *testing.F) {
	f.Add([]byte("label\n0\n1\n0\n"))
	f.Add([]byte("label\n2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = readSMDLabels(bytes.NewReader(b), "fuzz_label.csv")
	})
}

// FuzzSMDSegments: parsed segments are well formed (0 ≤ start < end,
// metrics within 0..37).
func FuzzSMDSegments(f *testing.F) {
	f.Add([]byte("246-252:1,2,3,4,6\n2884-2888:6\n"))
	f.Add([]byte("5-3:1\n"))
	f.Add([]byte("1-2:0,39\n"))
	f.Add([]byte("x"))
	f.Fuzz(func(t *testing.T, b []byte) {
		segs, err := parseSMDSegments(bytes.NewReader(b), "fuzz.txt", 38)
		if err != nil {
			return
		}
		for _, s := range segs {
			if s.start < 0 || s.end <= s.start || len(s.metrics) == 0 {
				t.Fatalf("bad segment %+v", s)
			}
			for _, m := range s.metrics {
				if m < 0 || m >= 38 {
					t.Fatalf("metric %d out of range in %+v", m, s)
				}
			}
		}
	})
}

// floats decodes b into values, one byte each, with a few specials.
func floats(b []byte) []float64 {
	out := make([]float64, len(b))
	for i, c := range b {
		switch c {
		case 255:
			out[i] = math.NaN()
		case 254:
			out[i] = math.Inf(1)
		case 253:
			out[i] = -1e300
		default:
			out[i] = float64(c) / 16
		}
	}
	return out
}

// FuzzAlgorithms: any shape and values give a result or an error, never a
// panic, and results are well formed (scores finite, one per host).
func FuzzAlgorithms(f *testing.F) {
	f.Add(uint8(4), uint8(3), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 200, 0, 0, 0, 1})
	f.Add(uint8(3), uint8(2), []byte{255, 1, 2, 255, 3, 4, 254})
	f.Add(uint8(5), uint8(1), []byte{0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, nh, nm uint8, b []byte) {
		n, d := int(nh%8), int(nm%6)
		v := floats(b)
		hosts := make([]string, n)
		metrics := make([]string, d)
		for i := range hosts {
			hosts[i] = string(rune('a' + i))
		}
		for j := range metrics {
			metrics[j] = string(rune('A' + j))
		}
		x := make([][]float64, n)
		series := make([][][]float64, n)
		k := 0
		next := func() float64 {
			if len(v) == 0 {
				return 0
			}
			k++
			return v[k%len(v)]
		}
		for i := range x {
			x[i] = make([]float64, d)
			series[i] = make([][]float64, d)
			for j := range x[i] {
				x[i][j] = next()
				series[i][j] = make([]float64, 1+(i+j)%4)
				for t := range series[i][j] {
					series[i][j][t] = next()
				}
			}
		}
		if scores, err := AbnormalNodes(hosts, metrics, x, DefaultNodeParams()); err == nil {
			if len(scores) != n {
				t.Fatalf("%d scores for %d hosts", len(scores), n)
			}
			for _, s := range scores {
				if math.IsNaN(s.Score) || math.IsInf(s.Score, 0) {
					t.Fatalf("%s: score %v", s.Host, s.Score)
				}
			}
		}
		if rep, err := OutlierMetrics(hosts, metrics, series, DefaultOutlierParams()); err == nil && len(rep.Nodes) != n {
			t.Fatalf("%d nodes for %d hosts", len(rep.Nodes), n)
		}
		if n >= 1 {
			// ragged rows too: the first host's series as observations
			_, _ = ScoreAgainstNormal(x, x[:1], DefaultNormalParams())
			_, _ = ScoreAgainstNormal(series[0], x[:1], DefaultNormalParams())
			_, _ = PrincipalMetrics(series[0], 0.9)
		}
	})
}
