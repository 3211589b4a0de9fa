package cli

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/peer"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// nmonFolder simulates scenario at seed and writes every node's samples as
// an nmon recording (nmonOf) into a folder of its own, the run's logs
// beside; it returns the folder, the logs and the ground truth.
func nmonFolder(t *testing.T, scenario string, seed uint64) (dir, logs string, truth *sim.Truth) {
	t.Helper()
	out := t.TempDir()
	sc, err := sim.Named(scenario)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(sc, seed, out, encoders())
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, sim.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, _, err := codec.Open(f.Name(), f)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	for _, n := range res.Truth.Nodes {
		writeFile(t, filepath.Join(dir, n.Host+".nmon"), []byte(nmonOf(t, n.Host, plain)))
	}
	return dir, out, res.Truth
}

// TestPeerNmon runs the peer diagnosis on nmon recordings, which lack some
// of Ganesha's metrics (no load average, no process count; this writer
// records no paging either): train and baseline use the metrics the
// recordings have and name the ones they lack, the diagnosis with the
// run's logs finds the CPU hog with its resource, and training inputs
// given twice are said with their counts and kept once.
func TestPeerNmon(t *testing.T) {
	clean1, _, _ := nmonFolder(t, "clean", 11)
	clean2, _, _ := nmonFolder(t, "clean", 12)
	hog, hogLogs, truth := nmonFolder(t, "cpu-hog", 3)
	prof := filepath.Join(t.TempDir(), "profile.json")
	code, out, errs := run(t, "peer", "train", "--out", prof, clean1, clean2)
	if code != ExitOK || !strings.Contains(errs, "the sources record no") || !strings.Contains(errs, "procs_total") || !strings.Contains(errs, "load1") {
		t.Fatalf("train on nmon: exit %d: %s%s", code, out, errs)
	}
	p, err := peer.LoadProfileFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.Metrics()); n >= len(peer.GaneshaMetrics) || n < 8 {
		t.Errorf("profile over %d metrics %v: want the ones nmon records", n, p.Metrics())
	}
	code, out, errs = run(t, "peer", "diagnose", "--profile", prof, "--logs", hogLogs, "--format", "json", hog)
	if code != ExitOK {
		t.Fatalf("diagnose on nmon: exit %d: %s", code, errs)
	}
	var rep struct {
		Verdicts []struct{ Host, Role, Resource string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var culprits []string
	for _, v := range rep.Verdicts {
		if v.Role == "culprit" {
			culprits = append(culprits, v.Host+" "+v.Resource)
		}
	}
	if want := truth.Faults[0].Host + " cpu"; len(culprits) != 1 || culprits[0] != want {
		t.Errorf("nmon: culprits %v, want [%s]", culprits, want)
	}
	// The same recordings twice: said, with the count, and kept once.
	code, _, errs = run(t, "peer", "baseline", "--out", filepath.Join(t.TempDir(), "b.json"), "--min-vectors", "100", clean1, clean1)
	if code != ExitOK || !strings.Contains(errs, "the training inputs overlap in host and time") || !strings.Contains(errs, "samples given more than once") {
		t.Errorf("baseline on the same input twice: exit %d: %s", code, errs)
	}
	// Too little history: named with the counts.
	code, _, errs = run(t, "peer", "baseline", "--out", filepath.Join(t.TempDir(), "b.json"), "--min-vectors", "100000", clean1)
	if code == ExitOK || !strings.Contains(errs, "too little history") || !strings.Contains(errs, "100000 complete vectors") {
		t.Errorf("baseline with too little history: exit %d: %s", code, errs)
	}
	// A profile of all 14 metrics on nmon: the missing ones are named.
	full := filepath.Join(t.TempDir(), "full.json")
	cleanCSV := t.TempDir()
	if code, _, errs := run(t, "simulate", "--scenario", "clean", "--seed", "11", "--out", cleanCSV); code != ExitOK {
		t.Fatal(errs)
	}
	if code, _, errs := run(t, "peer", "train", "--out", full, cleanCSV); code != ExitOK {
		t.Fatal(errs)
	}
	code, _, errs = run(t, "peer", "diagnose", "--profile", full, hog)
	if code == ExitOK || !strings.Contains(errs, "missing") || !strings.Contains(errs, "load1") {
		t.Errorf("14-metric profile on nmon: exit %d: %s", code, errs)
	}
}
