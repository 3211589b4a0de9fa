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
func ReadCSV(r io.Reader, name string, fn func(*model.Sample) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var s model.Sample
	hosts := map[string]string{}
	types := map[string]string{}
	intern := func(m map[string]string, b []byte) string {
		if v, ok := m[string(b)]; ok {
			return v
		}
		v := string(b)
		m[v] = v
		return v
	}
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimRight(sc.Bytes(), "\r")
		if len(b) == 0 {
			continue
		}
		f := bytes.Split(b, []byte{','})
		if len(f) != 4 {
			return fmt.Errorf("%s:%d: want 4 fields timestamp_ms,host,metric,value, got %d", name, line, len(f))
		}
		t, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			if line == 1 && string(f[0]) == "timestamp_ms" {
				continue
			}
			return fmt.Errorf("%s:%d: timestamp_ms: want integer milliseconds, got %q", name, line, f[0])
		}
		v, err := strconv.ParseFloat(string(f[3]), 64)
		if err != nil {
			return fmt.Errorf("%s:%d: value: want a number, got %q", name, line, f[3])
		}
		if len(f[1]) == 0 || len(f[2]) == 0 {
			return fmt.Errorf("%s:%d: want a host and a metric name", name, line)
		}
		s = model.Sample{Time: t, Host: intern(hosts, f[1]), Type: intern(types, f[2]), Value: v}
		if err := fn(&s); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
