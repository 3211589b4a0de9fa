package web

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/model"
)

// linkedFinding is a finding with the pages it is about.
type linkedFinding struct {
	finding.Finding
	Links [][2]string // label, URL
}

// linkFindings links each finding to the pages it is about (computed once
// per analysis: a task's stage is looked up over every task).
func linkFindings(app *model.App, fs []finding.Finding) []linkedFinding {
	s := &sparkApp{app: app}
	want := map[int64]*model.Stage{}
	for _, f := range fs {
		if f.Scope.Kind == finding.ScopeTask {
			for _, id := range f.Scope.IDs {
				if n, err := strconv.ParseInt(id, 10, 64); err == nil {
					want[n] = nil
				}
			}
		}
	}
	if len(want) > 0 {
		for _, st := range app.Stages {
			for i := range st.Tasks {
				if _, ok := want[st.Tasks[i].ID]; ok && want[st.Tasks[i].ID] == nil {
					want[st.Tasks[i].ID] = st
				}
			}
		}
	}
	out := make([]linkedFinding, len(fs))
	for i := range fs {
		out[i] = linkedFinding{Finding: fs[i], Links: findingLinks(s, &fs[i], want)}
	}
	return out
}

// findingLinks are the pages a finding is about: its stages' pages, its
// queries' plans (at the operator, for one), its jobs, its nodes, its
// tasks' stages (from tasks); at most maxLinks of them.
func findingLinks(s *sparkApp, f *finding.Finding, tasks map[int64]*model.Stage) [][2]string {
	const maxLinks = 8
	var out [][2]string
	add := func(label, url string) {
		if len(out) < maxLinks {
			out = append(out, [2]string{label, url})
		}
	}
	for _, id := range f.Scope.IDs {
		switch f.Scope.Kind {
		case finding.ScopeStage:
			stage, attempt, _ := strings.Cut(id, ".")
			if _, err := strconv.Atoi(stage); err != nil {
				continue // a MapReduce phase
			}
			add("stage "+id, s.link("stage/"+stage+"/"+or(attempt, "0"), nil))
		case finding.ScopeQuery:
			q, node, ok := strings.Cut(id, "/")
			u := s.link("sql/"+q, nil)
			label := "query " + q
			if ok {
				u += "#node-" + node
				label += " operator " + node
			}
			add(label, u)
		case finding.ScopeJob:
			add("job "+id, s.link("jobs", nil)+"#job-"+id)
		case finding.ScopeNode:
			add(id, "/node/"+id)
		case finding.ScopeTask:
			n, _ := strconv.ParseInt(id, 10, 64)
			if st := tasks[n]; st != nil {
				add("task "+id, s.link("stage/"+strconv.Itoa(int(st.ID))+"/"+strconv.Itoa(int(st.Attempt)), nil))
			}
		}
	}
	switch f.Scope.Kind {
	case finding.ScopeApplication:
		switch {
		case strings.Contains(f.ID, "executor") || strings.Contains(f.ID, "gc") || strings.Contains(f.ID, "memory"):
			add("executors", s.link("executors", nil))
		case strings.Contains(f.ID, "config"):
			add("environment", s.link("environment", nil))
		}
	}
	return out
}

// writeFindingLinks writes the application's findings, gravest first,
// each with the pages it is about; the low-severity ones folded (a large
// run's dozens of them pushed the page below the screen).
func writeFindingLinks(w *htmlw.Writer, s *sparkApp, fs []linkedFinding) {
	if len(fs) == 0 {
		return
	}
	fs = slices.Clone(fs)
	slices.SortStableFunc(fs, func(a, b linkedFinding) int { return cmp.Compare(b.Severity, a.Severity) })
	low := slices.IndexFunc(fs, func(f linkedFinding) bool { return f.Severity <= finding.Low })
	if low < 0 {
		low = len(fs)
	}
	w.Raw("<h2>Findings, and where to look</h2>\n")
	if low > 0 {
		writeFindingRows(w, fs[:low])
	}
	if low < len(fs) {
		w.Raw("<details")
		if low == 0 {
			w.Raw(" open")
		}
		w.Raw("><summary>").Int(int64(len(fs) - low)).Raw(" low-severity findings</summary>\n")
		writeFindingRows(w, fs[low:])
		w.Raw("</details>\n")
	}
}

func writeFindingRows(w *htmlw.Writer, fs []linkedFinding) {
	w.Raw("<table class=\"grid\"><tr><th>severity</th><th>finding</th><th>pages</th></tr>\n")
	for i := range fs {
		f := &fs[i]
		w.Raw(`<tr><td><span class="sev `).Text(strings.ToLower(f.Severity.String())).Raw(`">`).Text(f.Severity.String()).Raw("</span></td><td><b>").Text(f.Title).
			Raw("</b><br><span class=\"explain\">").Text(clip(f.Summary, 220)).Raw("</span></td><td>")
		for _, l := range f.Links {
			w.Raw(`<a href="`).URL(l[1]).Raw(`">`).Text(l[0]).Raw("</a> ")
		}
		w.Raw("</td></tr>\n")
	}
	w.Raw("</table>\n")
}
