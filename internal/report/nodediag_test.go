package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/nodediag"
	"github.com/clusterlens/clusterlens/internal/peer"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// simNodeAnalyses analyzes a simulated run with its node metrics and the
// node diagnosis (self-trained profile, workload-aware peers), as analyze
// --metrics does, and returns the run's ground truth too.
func simNodeAnalyses(t testing.TB, scenario string, seed uint64) ([]*analysis.Analysis, *sim.Truth) {
	t.Helper()
	res, fr := simWithFrames(t, scenario, seed)
	nopt := nodediag.DefaultOptions()
	nopt.Workload = peer.NewWorkload(res.Apps)
	var as []*analysis.Analysis
	for _, app := range res.Apps {
		as = append(as, analysis.Build(app, analysis.Options{Reconstruction: true, Metrics: fr, Nodes: &nopt}))
	}
	return as, res.Truth
}

// TestAnalysisNodeDiagnosis checks the node diagnosis in text, JSON and
// the HTML data against the demo scenario's ground truth (a CPU hog on one
// node and a disk hog on another): the culprit findings name the faulty
// nodes with their resources and no other node.
func TestAnalysisNodeDiagnosis(t *testing.T) {
	as, truth := simNodeAnalyses(t, "demo", 1)
	want := map[string]string{}
	for _, f := range truth.Faults {
		want[f.Host] = f.Resource
	}
	got := map[string]string{}
	var text bytes.Buffer
	for _, a := range as {
		if a.Nodes == nil {
			t.Fatalf("%s: no node diagnosis", a.Summary.App.ID)
		}
		for _, f := range a.Findings {
			if f.ID != nodediag.IDCulprit {
				continue
			}
			h := f.Scope.IDs[0]
			if want[h] == "" {
				t.Errorf("%s: innocent node %s called culprit: %s", a.Summary.App.ID, h, f.Summary)
			}
			if !strings.Contains(strings.ToLower(f.Title), want[h]) {
				t.Errorf("%s: culprit %s titled %q, want resource %s", a.Summary.App.ID, h, f.Title, want[h])
			}
			got[h] = want[h]
		}
		if err := AnalysisText(&text, a, 15); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != len(want) {
		t.Errorf("culprits found %v, want %v", got, want)
	}
	for _, s := range []string{"Node diagnosis", "peer comparison:", "profile self-trained", "culprit, resource cpu", "culprit, resource disk", "JS distance to", "alarms at +"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text output lacks %q", s)
		}
	}

	var js bytes.Buffer
	if err := AnalysisJSON(&js, as); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Applications []struct {
			Nodes *struct {
				StagesCompared int `json:"stagesCompared"`
				Stages         []struct {
					StageID  *int32 `json:"stageId"`
					Abnormal []struct {
						Host     string   `json:"host"`
						Score    *float64 `json:"score"`
						Outliers []struct {
							Metric     string   `json:"metric"`
							PeerMedian *float64 `json:"peerMedian"`
						} `json:"outliers"`
					} `json:"abnormal"`
				} `json:"stages"`
				Peers *struct {
					Profile  string  `json:"profile"`
					Steps    []int64 `json:"steps"`
					Culprits []struct {
						Host      string    `json:"host"`
						Role      string    `json:"role"`
						Resource  string    `json:"resource"`
						Alarm     []float64 `json:"alarmCount"`
						Alarmed   []int     `json:"alarmedSteps"`
						Distances struct {
							Peers  int     `json:"peers"`
							Median float64 `json:"median"`
						} `json:"distances"`
						Evidence []struct {
							Metric string  `json:"metric"`
							Z      float64 `json:"z"`
						} `json:"evidence"`
					} `json:"culprits"`
					Innocent []json.RawMessage `json:"innocent"`
				} `json:"peers"`
			} `json:"nodes"`
			Findings []struct {
				ID string `json:"id"`
			} `json:"findings"`
		} `json:"applications"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	culprits := map[string]bool{}
	for _, a := range doc.Applications {
		n := a.Nodes
		if n == nil || n.Peers == nil || n.Peers.Profile != nodediag.SelfTrained || n.Peers.Innocent == nil {
			t.Fatalf("JSON nodes part missing or incomplete: %+v", n)
		}
		for _, s := range n.Stages {
			if s.StageID == nil || len(s.Abnormal) == 0 || s.Abnormal[0].Score == nil {
				t.Errorf("JSON stage entry incomplete: %+v", s)
			}
		}
		for _, c := range n.Peers.Culprits {
			culprits[c.Host] = true
			if c.Role != "culprit" || len(c.Alarm) != len(n.Peers.Steps) || len(c.Alarmed) == 0 || c.Distances.Peers == 0 || len(c.Evidence) == 0 {
				t.Errorf("JSON culprit incomplete: %+v", c)
			}
			// The replayed alarm count must cross the indictment threshold
			// at a step where the node alarmed.
			top := 0.0
			for _, v := range c.Alarm {
				top = max(top, v)
			}
			if top <= peer.DefaultParams().IndictThreshold {
				t.Errorf("culprit %s: replayed alarm count peaks at %.2f, not above the threshold", c.Host, top)
			}
		}
	}
	if len(culprits) != len(want) {
		t.Errorf("JSON lists culprits %v, want %d hosts", culprits, len(want))
	}

	page := buildHTMLPage(as, MaxTimelineBars)
	if page.Applications[0].Nodes == nil || page.Applications[0].Nodes.Peers == nil {
		t.Fatal("HTML data lacks the node diagnosis")
	}
}
