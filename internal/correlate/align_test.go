package correlate

import (
	"hash/fnv"
	"testing"
)

// hostShift gives each host a clock offset between -12 s and +12 s in
// steps of 0.7 s, by its name's hash.
func hostShift(host string) int64 {
	h := fnv.New32a()
	h.Write([]byte(host))
	return (int64(h.Sum32()%35) - 17) * 700
}

// TestAlignClocks shifts every host's clock by a different offset (up to
// ±12 s, far beyond the tolerance): EstimateOffsets, given every
// application, recovers each within 0.5 s, and with the offsets applied no
// sample misses a stage it truly overlapped. On unshifted samples it moves
// no clock by more than 0.5 s.
func TestAlignClocks(t *testing.T) {
	r := runSim(t, "", 1)
	for _, tc := range []struct {
		name  string
		shift func(string) int64
	}{{"unshifted", noShift}, {"shifted", hostShift}} {
		fs := shifted(r.frames, tc.shift)
		est := EstimateOffsets(r.apps, fs, Options{})
		worst := int64(0)
		for _, o := range est {
			if e := abs(o.OffsetMs - tc.shift(o.SampleHost)); e > worst {
				worst = e
			}
		}
		t.Logf("%s: %d of %d hosts estimated (fit %.1f or more), worst error %d ms", tc.name, len(est), len(fs.Hosts()), AlignMinFit, worst)
		if worst > 500 || len(est) < len(fs.Hosts())*3/4 {
			t.Errorf("%s: worst offset error %d ms (want <= 500), %d of %d hosts estimated: %+v", tc.name, worst, len(est), len(fs.Hosts()), est)
		}
		wc := checkStageWindows(t, r, fs, tc.shift, Options{Offsets: Offsets(est)})
		without := checkStageWindows(t, r, fs, tc.shift, Options{})
		t.Logf("%s: aligned, %d of %d rows in a stage miss one (%d without alignment)", tc.name, wc.missed, wc.inStage, without.missed)
		if wc.missed > 0 || wc.wrong > 0 {
			t.Errorf("%s: aligned, %d rows miss a stage, %d assigned wrongly; first: %s", tc.name, wc.missed, wc.wrong, wc.firstBad)
		}
	}
}

// TestAlignClocksUnderFaults estimates offsets where nodes do work the
// logs do not show (CPU and disk hogs), stop (hang), lose packets, or
// change executors: unshifted, no clock moves by more than 1 s; shifted
// (the demo, with a CPU hog and a disk hog), each is recovered within
// 1 s or left alone.
func TestAlignClocksUnderFaults(t *testing.T) {
	for _, name := range []string{"demo", "cpu-hog", "disk-hog", "hang", "packet-loss-50", "dynamic"} {
		r := runSim(t, name, 1)
		shifts := []func(string) int64{noShift}
		if name == "demo" {
			shifts = append(shifts, hostShift)
		}
		for i, shift := range shifts {
			est := EstimateOffsets(r.apps, shifted(r.frames, shift), Options{})
			worst := int64(0)
			for _, o := range est {
				worst = max(worst, abs(o.OffsetMs-shift(o.SampleHost)))
			}
			t.Logf("%s (clocks shifted: %v): %d of %d hosts estimated, worst error %d ms", name, i > 0, len(est), len(r.frames.Hosts()), worst)
			if worst > 1000 || len(est) < len(r.frames.Hosts())*3/4 {
				t.Errorf("%s: worst error %d ms (want <= 1000), %d hosts estimated: %+v", name, worst, len(est), est)
			}
		}
	}
}

// BenchmarkEstimateOffsets estimates the clock offsets of the class mix's
// 12 hosts from its 9 applications.
func BenchmarkEstimateOffsets(b *testing.B) {
	r := runSim(b, "", 1)
	b.ReportAllocs()
	for range b.N {
		EstimateOffsets(r.apps, r.frames, Options{})
	}
}
