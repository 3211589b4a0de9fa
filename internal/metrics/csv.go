package metrics

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/model"
)

// ReadCSV streams samples from CSV with the columns
// timestamp_ms,host,metric,value (an optional header line naming them is
// skipped), calling fn for each. name labels errors, which give the line and
// what was expected. The Sample passed to fn is reused: copy it to keep it.
// ReadCSVFile opens compressed files.
func ReadCSV(r io.Reader, name string, fn func(*model.Sample) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var s model.Sample
	var hosts, types csvInterner
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimRight(sc.Bytes(), "\r")
		if len(b) == 0 {
			continue
		}
		n := bytes.Count(b, []byte{','}) + 1
		if n != 4 {
			return fmt.Errorf("%s:%d: want 4 fields timestamp_ms,host,metric,value, got %d", name, line, n)
		}
		var f [4][]byte
		rest := b
		for i := range 3 {
			j := bytes.IndexByte(rest, ',')
			f[i], rest = rest[:j], rest[j+1:]
		}
		f[3] = rest
		t, ok := csvInt(f[0])
		if !ok {
			if line == 1 && string(f[0]) == "timestamp_ms" {
				continue
			}
			return fmt.Errorf("%s:%d: timestamp_ms: want integer milliseconds, got %q", name, line, f[0])
		}
		v, ok := csvFloat(f[3])
		if !ok {
			return fmt.Errorf("%s:%d: value: want a number, got %q", name, line, f[3])
		}
		if len(f[1]) == 0 || len(f[2]) == 0 {
			return fmt.Errorf("%s:%d: want a host and a metric name", name, line)
		}
		s = model.Sample{Time: t, Host: hosts.intern(f[1]), Type: types.intern(f[2]), Value: v}
		if err := fn(&s); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// csvInterner returns one string per distinct byte sequence, remembering
// the last one asked for (rows come in runs of one host and metric).
type csvInterner struct {
	m    map[string]string
	last string
}

func (c *csvInterner) intern(b []byte) string {
	if string(b) == c.last && c.m != nil {
		return c.last
	}
	if v, ok := c.m[string(b)]; ok {
		c.last = v
		return v
	}
	if c.m == nil {
		c.m = map[string]string{}
	}
	v := string(b)
	c.m[v] = v
	c.last = v
	return v
}

// csvInt parses a decimal integer as strconv.ParseInt(s, 10, 64) does,
// without allocating for up to 18 digits.
func csvInt(b []byte) (int64, bool) {
	d := b
	neg := false
	if len(d) > 0 && (d[0] == '-' || d[0] == '+') {
		neg, d = d[0] == '-', d[1:]
	}
	if len(d) == 0 || len(d) > 18 {
		v, err := strconv.ParseInt(string(b), 10, 64)
		return v, err == nil
	}
	var n int64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// csvPow10 are the powers of ten a float64 holds exactly.
var csvPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// csvFloat parses a number as strconv.ParseFloat(s, 64) does. Plain
// decimals ("-12.34") of at most 15 digits take Clinger's fast path: the
// digits and the power of ten are exact in a float64, so one division
// rounds correctly. Anything else goes to strconv.
func csvFloat(b []byte) (float64, bool) {
	d := b
	neg := false
	if len(d) > 0 && (d[0] == '-' || d[0] == '+') {
		neg, d = d[0] == '-', d[1:]
	}
	var m uint64
	digits, frac, dot := 0, 0, false
	for _, c := range d {
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			digits = 99 // not a plain decimal
		}
	}
	if digits == 0 || digits > 15 {
		v, err := strconv.ParseFloat(string(b), 64)
		return v, err == nil
	}
	v := float64(m) / csvPow10[frac]
	if neg {
		v = -v
	}
	return v, true
}
