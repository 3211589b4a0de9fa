package sampler

import (
	"math"
	"strings"
	"testing"
)

func TestParseLoadavg(t *testing.T) {
	l, err := parseLoadavg([]byte("1.31 2.12 2.84 4/134 22962\n"))
	if err != nil || l.load1 != 1.31 || l.running != 4 || l.entities != 134 {
		t.Fatalf("got %+v, %v", l, err)
	}
	for _, bad := range []string{"", "1 2 3", "x 2 3 4/5 6", "NaN 1 1 1/1 1", "+Inf 1 1 1/1 1", "1 2 3 45 6", "1 2 3 a/5 6", "1 2 3 4/-5 6"} {
		if _, err := parseLoadavg([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "loadavg: ") {
			t.Errorf("parseLoadavg(%q) error %v, want a loadavg: error", bad, err)
		}
	}
}

func TestParseVmstat(t *testing.T) {
	v, err := parseVmstat([]byte("nr_free_pages 5\npgpgin 9142317\npgpgout 66550936\npgfault 218950438\npgmajfault 10888\n"))
	if err != nil || v.pgpgin != 9142317 || v.pgpgout != 66550936 || v.pgfault != 218950438 {
		t.Fatalf("got %+v, %v", v, err)
	}
	for _, bad := range []string{"", "pgpgin 1\npgpgout 2\n", "pgpgin 1\npgpgout x\npgfault 3", "pgpgin\npgpgout 2\npgfault 3"} {
		if _, err := parseVmstat([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "vmstat: ") {
			t.Errorf("parseVmstat(%q) error %v, want a vmstat: error", bad, err)
		}
	}
}

func FuzzParseLoadavg(f *testing.F) {
	f.Add([]byte("1.31 2.12 2.84 4/134 22962\n"))
	f.Add([]byte("0 0 0 0/0 0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if l, err := parseLoadavg(b); err == nil && (math.IsNaN(l.load1) || math.IsInf(l.load1, 0)) {
			t.Fatalf("load1 %v from %q", l.load1, b)
		}
	})
}

func FuzzParseVmstat(f *testing.F) {
	f.Add([]byte("pgpgin 1\npgpgout 2\npgfault 3\n"))
	f.Add([]byte("nr_free_pages 5\npgpgin 9142317\npgpgout 66550936\npgfault 218950438\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := parseVmstat(b)
		if err == nil && !strings.Contains(string(b), "pgfault") {
			t.Fatalf("parsed %+v from %q without pgfault", v, b)
		}
	})
}
