package anomaly

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The Server Machine Dataset (OmniAnomaly, KDD'19; README in
// shared/data/labeled/smd): per machine a train and a test CSV (header
// m1..m38, one row a minute), the test rows' 0/1 labels and the
// interpretation labels, one anomaly segment a line, "start-end:i,j,k"
// (rows [start, end) of the test file, 1-based metric indexes).

// smdSegment is one labeled anomaly segment.
type smdSegment struct {
	start, end int   // test rows [start, end)
	metrics    []int // abnormal metrics, 0-based
}

// smdMachine is one machine's data.
type smdMachine struct {
	name        string
	train, test [][]float64
	labels      []bool
	segments    []smdSegment
}

// readSMDMatrix reads an SMD data CSV: a header of column names, then rows
// of as many numbers.
func readSMDMatrix(r io.Reader, name string) ([][]float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return nil, fmt.Errorf("%s:1: want a header of metric names, got an empty file", name)
	}
	d := len(bytes.Split(sc.Bytes(), []byte{','}))
	var rows [][]float64
	for line := 2; sc.Scan(); line++ {
		b := bytes.TrimRight(sc.Bytes(), "\r")
		if len(b) == 0 {
			continue
		}
		f := bytes.Split(b, []byte{','})
		if len(f) != d {
			return nil, fmt.Errorf("%s:%d: want %d values, got %d", name, line, d, len(f))
		}
		row := make([]float64, d)
		for j, x := range f {
			v, err := strconv.ParseFloat(string(x), 64)
			if err != nil || v != v {
				return nil, fmt.Errorf("%s:%d: column %d: want a number, got %q", name, line, j+1, x)
			}
			row[j] = v
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return rows, nil
}

// readSMDLabels reads a label CSV: a header, then one 0 or 1 a line.
func readSMDLabels(r io.Reader, name string) ([]bool, error) {
	sc := bufio.NewScanner(r)
	var out []bool
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		switch {
		case line == 1 && s == "label", s == "":
		case s == "0" || s == "1":
			out = append(out, s == "1")
		default:
			return nil, fmt.Errorf("%s:%d: want 0 or 1, got %q", name, line, s)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// parseSMDSegments reads interpretation labels, "start-end:i,j,k" a line,
// checking that 0 ≤ start < end and 1 ≤ index ≤ metrics.
func parseSMDSegments(r io.Reader, name string, metrics int) ([]smdSegment, error) {
	sc := bufio.NewScanner(r)
	var out []smdSegment
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		span, list, ok := strings.Cut(s, ":")
		a, b, ok2 := strings.Cut(span, "-")
		if !ok || !ok2 {
			return nil, fmt.Errorf("%s:%d: want start-end:i,j,k, got %q", name, line, s)
		}
		start, err1 := strconv.Atoi(a)
		end, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil || start < 0 || end <= start {
			return nil, fmt.Errorf("%s:%d: want rows start-end with 0 ≤ start < end, got %q", name, line, span)
		}
		seg := smdSegment{start: start, end: end}
		for _, x := range strings.Split(list, ",") {
			i, err := strconv.Atoi(strings.TrimSpace(x))
			if err != nil || i < 1 || i > metrics {
				return nil, fmt.Errorf("%s:%d: want metric indexes 1..%d, got %q", name, line, metrics, x)
			}
			seg.metrics = append(seg.metrics, i-1)
		}
		out = append(out, seg)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// loadSMD reads machine m from the SMD folder dir and checks that its
// files agree (as many labels as test rows, segments inside the test).
func loadSMD(dir, m string) (*smdMachine, error) {
	mc := &smdMachine{name: m}
	readGz := func(file string) ([][]float64, error) {
		path := filepath.Join(dir, "data", file)
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return readSMDMatrix(zr, path)
	}
	var err error
	if mc.train, err = readGz(m + "_train.csv.gz"); err != nil {
		return nil, err
	}
	if mc.test, err = readGz(m + "_test.csv.gz"); err != nil {
		return nil, err
	}
	lp := filepath.Join(dir, "data", m+"_test_label.csv")
	lb, err := os.ReadFile(lp)
	if err != nil {
		return nil, err
	}
	if mc.labels, err = readSMDLabels(bytes.NewReader(lb), lp); err != nil {
		return nil, err
	}
	if len(mc.labels) != len(mc.test) {
		return nil, fmt.Errorf("%s: %d labels for %d test rows", lp, len(mc.labels), len(mc.test))
	}
	sp := filepath.Join(dir, "interpretation_label", m+".txt")
	sb, err := os.ReadFile(sp)
	if err != nil {
		return nil, err
	}
	if mc.segments, err = parseSMDSegments(bytes.NewReader(sb), sp, len(mc.test[0])); err != nil {
		return nil, err
	}
	for _, s := range mc.segments {
		if s.end > len(mc.test) {
			return nil, fmt.Errorf("%s: segment %d-%d beyond the %d test rows", sp, s.start, s.end, len(mc.test))
		}
	}
	return mc, nil
}
