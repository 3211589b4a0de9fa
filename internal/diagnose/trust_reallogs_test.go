package diagnose

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// realRun is one real application and its findings.
type realRun struct {
	app  *model.App
	name string
	fs   []Finding
}

// diagnoseReal runs every detector on every application under
// shared/data/<sub>.
func diagnoseReal(t *testing.T, sub string) []realRun {
	t.Helper()
	root := sharedtest.Dir(t, sub)
	res, err := decodelogs.Paths([]string{root}, decodelogs.Options{Workers: 2})
	if err != nil && res == nil {
		t.Fatal(err)
	}
	out := make([]realRun, 0, len(res.Apps))
	for _, app := range res.Apps {
		name, _ := filepath.Rel(root, app.Source)
		out = append(out, realRun{app: app, name: name, fs: Run(app, Options{})})
	}
	return out
}

// worst is the highest severity of a run's findings (None for none).
func worst(fs []Finding) Severity {
	w := None
	for _, f := range fs {
		w = max(w, f.Severity)
	}
	return w
}

// TestFindingsYouCanTrust holds the findings on the 355 real applications
// to the bounds: at most 5% of the applications with a critical
// finding and 25% with one of moderate or worse, every critical finding
// costing at least 20% of its run's wall time, and every finding complete
// with its impact's numbers in its evidence.
func TestFindingsYouCanTrust(t *testing.T) {
	runs := diagnoseReal(t, "logs")
	if len(runs) < 350 {
		t.Fatalf("%d applications, want the 355 of shared/data/logs", len(runs))
	}
	var crit, modPlus int
	for _, r := range runs {
		switch w := worst(r.fs); {
		case w == Critical:
			crit++
			modPlus++
		case w >= Moderate:
			modPlus++
		}
		for _, f := range r.fs {
			if f.Severity == Critical && (f.Impact == nil || f.Impact.Share < 0.20) {
				t.Errorf("%s: critical %s with impact %+v: under 20%% of the run", r.name, f.ID, f.Impact)
			}
			if f.Severity > Low && f.Impact == nil {
				t.Errorf("%s: %s is %s without a measured impact", r.name, f.ID, f.Severity)
			}
			if f.Impact != nil && !slices.ContainsFunc(f.Evidence, func(e Evidence) bool { return e.Name == "impactShare" && len(e.Limits) == 4 }) {
				t.Errorf("%s: %s's evidence lacks the impact it was graded on", r.name, f.ID)
			}
		}
	}
	n := float64(len(runs))
	t.Logf("%d applications: worst finding critical %d (%.1f%%), moderate or worse %d (%.1f%%)", len(runs), crit, 100*float64(crit)/n, modPlus, 100*float64(modPlus)/n)
	if float64(crit) > 0.05*n || float64(modPlus) > 0.25*n {
		t.Errorf("critical %d and moderate or worse %d of %d applications: want at most 5%% and 25%%", crit, modPlus, len(runs))
	}
}

// settingInText finds "key=value" in a recommendation: a dotted
// lower-case property name and its value.
var settingInText = regexp.MustCompile(`\b((?:spark|mapreduce|mapred|yarn|dfs|io)\.[A-Za-z0-9.]+)=([^\s,;)]+)`)

// TestAdviceNeverAsksForWhatIsSet checks every recommendation on every real
// log (and its folded symptoms'): each setting it asks for, in its
// Settings and in its text, differs from the value the run already had; a
// MapReduce job is advised no Spark property and a Spark application no
// MapReduce one.
func TestAdviceNeverAsksForWhatIsSet(t *testing.T) {
	var runs []realRun
	for _, sub := range []string{"logs", "platform-logs"} {
		runs = append(runs, diagnoseReal(t, sub)...)
	}
	asked, findings := 0, 0
	var check func(r realRun, in *Input, f Finding)
	check = func(r realRun, in *Input, f Finding) {
		findings++
		want := map[string]string{}
		for _, s := range f.Settings {
			want[s.Key] = s.Value
		}
		for _, m := range settingInText.FindAllStringSubmatch(f.Recommendation, -1) {
			want[m[1]] = strings.TrimRight(m[2], ".")
		}
		for k, v := range want {
			asked++
			if cur, ok := in.conf(k); ok && sameValue(cur, v) {
				t.Errorf("%s: %s asks for %s=%s, which the run already has", r.name, f.ID, k, v)
			}
			spark := strings.HasPrefix(k, "spark.")
			if r.app.Engine == model.MapReduce && spark || r.app.Engine == model.Spark && (strings.HasPrefix(k, "mapreduce.") || strings.HasPrefix(k, "mapred.")) {
				t.Errorf("%s: %s advises %s to a %s application", r.name, f.ID, k, r.app.Engine)
			}
		}
		if r.app.Engine == model.MapReduce && strings.Contains(f.Recommendation, "spark.") {
			t.Errorf("%s: %s speaks of Spark to a MapReduce job: %q", r.name, f.ID, f.Recommendation)
		}
		if r.app.Engine == model.Spark && strings.Contains(f.Recommendation, "mapreduce.") {
			t.Errorf("%s: %s speaks of MapReduce to a Spark application: %q", r.name, f.ID, f.Recommendation)
		}
		for _, s := range f.Symptoms {
			check(r, in, s)
		}
	}
	for _, r := range runs {
		in := NewInput(r.app)
		for _, f := range r.fs {
			check(r, in, f)
		}
	}
	t.Logf("%d findings on %d applications ask for %d settings, none already set", findings, len(runs), asked)
	if asked == 0 {
		t.Error("no setting asked for: the test checks nothing")
	}
}

// TestFindingsTable prints the per-finding table of docs/FINDINGS.md
// ("Findings on the 355 real applications"): for each finding id, the
// applications it fires on by severity, the findings folded under others
// and the median impact. CLUSTERLENS_EVAL=1 runs it on the real logs;
// CLUSTERLENS_FINDINGS_JSON=FILE reads an `analyze --format json` output
// instead (an older binary's, for the table before).
func TestFindingsTable(t *testing.T) {
	if os.Getenv("CLUSTERLENS_EVAL") == "" && os.Getenv("CLUSTERLENS_FINDINGS_JSON") == "" {
		t.Skip("CLUSTERLENS_EVAL=1 prints the table of the real logs' findings")
	}
	var apps [][]Finding
	if path := os.Getenv("CLUSTERLENS_FINDINGS_JSON"); path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Applications []struct {
				Findings []Finding `json:"findings"`
			} `json:"applications"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		for _, a := range doc.Applications {
			apps = append(apps, a.Findings)
		}
	} else {
		for _, r := range diagnoseReal(t, "logs") {
			apps = append(apps, r.fs)
		}
	}
	t.Log("\n" + findingsTable(apps))
}

// findingsTable formats the table: per id, applications by severity (an
// application counts once per id, at its worst finding of that id),
// findings folded under another, and the median impact share.
func findingsTable(apps [][]Finding) string {
	type row struct {
		bySev  [5]int
		apps   int
		folded int
		shares []float64
	}
	rows := map[string]*row{}
	get := func(id string) *row {
		if rows[id] == nil {
			rows[id] = &row{}
		}
		return rows[id]
	}
	var worstN [5]int
	for _, fs := range apps {
		worstN[worst(fs)]++
		seen := map[string]Severity{}
		for _, f := range fs {
			if s, ok := seen[f.ID]; !ok || f.Severity > s {
				seen[f.ID] = f.Severity
			}
			if f.Impact != nil {
				get(f.ID).shares = append(get(f.ID).shares, f.Impact.Share)
			}
			for _, s := range f.Symptoms {
				get(s.ID).folded++
			}
		}
		for id, s := range seen {
			get(id).bySev[s]++
			get(id).apps++
		}
	}
	var ids []string
	for id := range rows {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	n := len(apps)
	fmt.Fprintf(&b, "%d applications; worst finding: none %d, low %d, moderate %d, severe %d, critical %d (%.1f%%); moderate or worse %d (%.1f%%)\n",
		n, worstN[None], worstN[Low], worstN[Moderate], worstN[Severe], worstN[Critical], 100*float64(worstN[Critical])/float64(n),
		worstN[Moderate]+worstN[Severe]+worstN[Critical], 100*float64(worstN[Moderate]+worstN[Severe]+worstN[Critical])/float64(n))
	fmt.Fprintln(&b, "| finding id | applications | low | moderate | severe | critical | folded under another | median impact (share of the run) |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|")
	for _, id := range ids {
		r := rows[id]
		med := "–"
		if len(r.shares) > 0 {
			s := slices.Clone(r.shares)
			slices.Sort(s)
			med = fmt.Sprintf("%.1f%%", 100*s[len(s)/2])
		}
		fmt.Fprintf(&b, "| `%s` | %d | %d | %d | %d | %d | %d | %s |\n", id, r.apps, r.bySev[Low], r.bySev[Moderate], r.bySev[Severe], r.bySev[Critical], r.folded, med)
	}
	return b.String()
}
