package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/peer"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// TestPeerCommands trains on two clean simulated runs, diagnoses a CPU hog
// and checks the verdict against the simulator's ground truth.
func TestPeerCommands(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []string{"11", "12"} {
		if code, _, errs := run(t, "simulate", "--scenario", "clean", "--seed", s, "--out", filepath.Join(dir, "clean"+s)); code != ExitOK {
			t.Fatalf("simulate: %s", errs)
		}
	}
	hog := filepath.Join(dir, "hog")
	if code, _, errs := run(t, "simulate", "--scenario", "cpu-hog", "--seed", "3", "--out", hog); code != ExitOK {
		t.Fatalf("simulate: %s", errs)
	}
	prof := filepath.Join(dir, "profile.json")
	code, out, errs := run(t, "peer", "train", "--out", prof, filepath.Join(dir, "clean11"), filepath.Join(dir, "clean12"))
	if code != ExitOK || !strings.Contains(out, "states") {
		t.Fatalf("train exit %d: %s%s", code, out, errs)
	}
	code, out, errs = run(t, "peer", "diagnose", "--profile", prof, "--logs", hog, "--format", "json", hog)
	if code != ExitOK {
		t.Fatalf("diagnose exit %d: %s", code, errs)
	}
	var rep struct {
		Verdicts []struct{ Host, Role, Resource string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(hog, sim.TruthFile))
	if err != nil {
		t.Fatal(err)
	}
	var truth sim.Truth
	if err := json.Unmarshal(b, &truth); err != nil {
		t.Fatal(err)
	}
	var culprits []string
	for _, v := range rep.Verdicts {
		if v.Role == "culprit" {
			culprits = append(culprits, v.Host+" "+v.Resource)
		}
	}
	want := truth.Faults[0].Host + " cpu"
	if len(culprits) != 1 || culprits[0] != want {
		t.Errorf("culprits %v, want [%s]", culprits, want)
	}
	// A log read in part among --logs: the diagnosis is made, the log named
	// on stderr, and the exit code is 3.
	writeFile(t, filepath.Join(hog, sim.SparkDir, "app-broken"), []byte(brokenLog("app-broken")))
	code, out, errs = run(t, "peer", "diagnose", "--profile", prof, "--logs", hog, "--format", "json", hog)
	if code != ExitPartial || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Verdicts) == 0 || len(warnings(errs)) != 1 {
		t.Errorf("diagnose with a broken log: exit %d, %d verdicts: %s", code, len(rep.Verdicts), errs)
	}
	// Plain Ganesha (no logs), as text: the culprit is indicted, with its CPU evidence.
	code, out, errs = run(t, "peer", "diagnose", "--profile", prof, hog)
	if code != ExitOK || !strings.Contains(out, "indicted "+truth.Faults[0].Host) ||
		!strings.Contains(out, truth.Faults[0].Host+": alarms in") || !strings.Contains(out, "cpu_user_pct") {
		t.Errorf("diagnose without logs, exit %d:\n%s%s", code, out, errs)
	}
}

func TestPeerUsage(t *testing.T) {
	for _, args := range [][]string{
		{"peer", "train", "x.csv"},
		{"peer", "diagnose", "x.csv"},
		{"peer", "diagnose", "--profile", "p.json", "--format", "xml", "x.csv"},
	} {
		if code, _, _ := run(t, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, ExitUsage)
		}
	}
	if code, _, errs := run(t, "peer", "diagnose", "--profile", filepath.Join(t.TempDir(), "none.json"), "x.csv"); code != ExitError || !strings.Contains(errs, "none.json") {
		t.Errorf("missing profile: exit %d, %q", code, errs)
	}
}

func TestCollectBadPeerProfile(t *testing.T) {
	dir := t.TempDir()
	tok := filepath.Join(dir, "token")
	if err := os.WriteFile(tok, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"kind":"other"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	err := runCollect(t.Context(), collectOptions{tokenFile: tok, store: "sqlite:" + filepath.Join(dir, "s.db"), peerProfile: bad}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Fatalf("error %v, want one naming bad.json", err)
	}
}

// TestPeerDiagnosePrometheus diagnoses this machine's last minute from a
// real Prometheus scraping node_exporter (.ci/services/prometheus.sh): the
// samples, which Prometheus answers metric by metric, must assemble into
// one vector per second for the one node.
func TestPeerDiagnosePrometheus(t *testing.T) {
	url := sharedtest.Service(t, "PROMETHEUS_URL")
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean")
	if code, _, errs := run(t, "simulate", "--scenario", "clean", "--seed", "11", "--out", clean); code != ExitOK {
		t.Fatalf("simulate: %s", errs)
	}
	prof := filepath.Join(dir, "profile.json")
	if code, _, errs := run(t, "peer", "train", "--out", prof, clean); code != ExitOK {
		t.Fatalf("train: %s", errs)
	}
	now := time.Now().UTC().Truncate(time.Second)
	code, out, errs := run(t, "peer", "diagnose", "--profile", prof, "--format", "json",
		"--from", now.Add(-time.Minute).Format(time.RFC3339), "--to", now.Format(time.RFC3339), url)
	if code != ExitOK {
		t.Fatalf("diagnose exit %d: %s", code, errs)
	}
	var rep struct {
		Vectors int64
		Nodes   []struct{ Host string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Vectors < 3 || len(rep.Nodes) != 1 {
		t.Errorf("%d vectors of %d nodes from the last minute, want at least 3 of one node\n%s", rep.Vectors, len(rep.Nodes), out)
	}
}

// TestPeerBaseline: on the 4-node asymmetric cluster (node001 also runs
// the master's daemons), plain Ganesha indicts a node on a fault-free day;
// with the nodes' own models learned by "peer baseline" from five other
// fault-free days of the same hardware no node is indicted, and a CPU hog
// is still found, with its confidence.
func TestPeerBaseline(t *testing.T) {
	dir := t.TempDir()
	day := func(name string, d int, seed, fault string, node int) string {
		t.Helper()
		sc, err := sim.Named("asymmetric")
		if err != nil {
			t.Fatal(err)
		}
		sc = sc.WithNodes(4)
		sc.Cluster.Seed = 7
		sc.StartMs = 1767225600000 - int64(d)*86_400_000
		if fault != "" {
			sc.Faults = []sim.FaultSpec{{Kind: fault, Node: node, StartS: 30, EndS: 200}}
		}
		b, err := json.Marshal(sc)
		if err != nil {
			t.Fatal(err)
		}
		file := writeFile(t, filepath.Join(dir, name+".json"), b)
		out := filepath.Join(dir, name)
		if code, _, errs := run(t, "simulate", "--scenario", file, "--seed", seed, "--out", out); code != ExitOK {
			t.Fatalf("simulate %s: %s", name, errs)
		}
		return out
	}
	var days []string
	for d := 1; d <= 5; d++ {
		days = append(days, day(fmt.Sprint("day", d), d, fmt.Sprint(7000+d), "", 0))
	}
	clean, hog := day("today", 0, "7", "", 0), day("hog", 0, "7", sim.FaultCPUHog, 2)
	prof, base := filepath.Join(dir, "profile.json"), filepath.Join(dir, "baseline.json")
	if code, out, errs := run(t, "peer", "train", "--out", prof, days[0], days[1]); code != ExitOK {
		t.Fatalf("train exit %d: %s%s", code, out, errs)
	}
	if code, out, errs := run(t, append([]string{"peer", "baseline", "--out", base}, days...)...); code != ExitOK || !strings.Contains(out, "4 nodes") {
		t.Fatalf("baseline exit %d: %s%s", code, out, errs)
	}
	if code, out, _ := run(t, "peer", "diagnose", "--profile", prof, clean); code != ExitOK || !strings.Contains(out, "indicted") {
		t.Errorf("plain Ganesha on the fault-free day, exit %d: want an indictment (its premise of alike peers fails)\n%s", code, out)
	}
	if code, out, _ := run(t, "peer", "diagnose", "--profile", prof, "--baseline", base, clean); code != ExitOK || !strings.Contains(out, "no node indicted") || !strings.Contains(out, "not from their own history") {
		t.Errorf("with the baseline on the fault-free day, exit %d:\n%s", code, out)
	}
	code, out, errs := run(t, "peer", "diagnose", "--profile", prof, "--baseline", base, "--format", "json", hog)
	var rep struct {
		Indictments []peer.Indictment
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("with the baseline on the hog day, exit %d: %s%s", code, out, errs)
	}
	if len(rep.Indictments) != 1 || rep.Indictments[0].Host != "node003.sim.local" || rep.Indictments[0].Confidence != peer.ConfidenceHigh ||
		rep.Indictments[0].Strength < peer.HighStrength {
		t.Errorf("hog day: indictments %+v, want node003 alone with confidence high", rep.Indictments)
	}
	// A disk hog writes no harder each second than the node's busiest
	// fault-free seconds, but for longer than any window of its history.
	// (On node003 of this hardware it does not: its usual work already
	// keeps its disk as busy; the evaluation misses one such node in 20.)
	disk := day("diskhog", 0, "7", sim.FaultDiskHog, 1)
	if code, out, _ := run(t, "peer", "diagnose", "--profile", prof, "--baseline", base, disk); code != ExitOK ||
		!strings.Contains(out, "indicted node002.sim.local") || !strings.Contains(out, "above any window of its history") {
		t.Errorf("with the baseline on the disk-hog day, exit %d: want node002 indicted, beyond its own range\n%s", code, out)
	}
	writeFile(t, filepath.Join(dir, "bad.json"), []byte(`{"kind":"clusterlens-peer-baseline","version":9}`))
	if code, _, errs := run(t, "peer", "diagnose", "--profile", prof, "--baseline", filepath.Join(dir, "bad.json"), hog); code == ExitOK || !strings.Contains(errs, "bad.json") {
		t.Errorf("a bad baseline: exit %d, %q", code, errs)
	}
}
