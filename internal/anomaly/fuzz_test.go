package anomaly

import (
	"bytes"
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
