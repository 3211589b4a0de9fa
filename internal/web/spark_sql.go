package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/shs"
)

// sqlListData is the SQL tab's data.
type sqlListData struct {
	s *sparkApp
	// Queries are the executions that ran a job or are more than a
	// command; Commands those that ran none and whose plan is one command
	// (CreateViewCommand, SetCommand, ...), listed apart, by command.
	Queries  []sqlRow
	Commands []sqlRow
	ByCmd    [][2]string // command, how many
	Chart    bool
}

type sqlRow struct {
	shs.SQLSummary
	Description string
	Command     string // the plan's one command, for a command
}

// sqlListPage lists the SQL executions as the History Server's SQL tab,
// the commands that ran no job apart.
func (u *UI) sqlListPage(r *http.Request) (*page, error) {
	s, err := u.spark(r)
	if err != nil {
		return nil, err
	}
	d := &sqlListData{s: s}
	byID := map[int64]*model.SQLExecution{}
	for _, x := range s.app.SQL {
		byID[x.ID] = x
	}
	counts := map[string]int{}
	var cmds []string
	for _, sm := range s.ix.SQLSummaries(s.app) {
		x := byID[sm.ID]
		row := sqlRow{SQLSummary: sm, Description: x.Description}
		if c := commandOf(x); c != "" {
			row.Command = c
			d.Commands = append(d.Commands, row)
			if counts[c] == 0 {
				cmds = append(cmds, c)
			}
			counts[c]++
			continue
		}
		d.Queries = append(d.Queries, row)
	}
	for _, c := range cmds {
		d.ByCmd = append(d.ByCmd, [2]string{c, strconv.Itoa(counts[c])})
	}
	p := s.page("sql", "SQL", func(w *htmlw.Writer) { writeSQLList(w, d) })
	if len(d.Queries) > 1 {
		c := chart{ID: "sql-durations", Title: "Duration of each query", Kind: "bar", YUnit: "ms", Height: 220, XName: "query"}
		ser := series{Name: "duration", Color: "#2563eb"}
		for i, q := range d.Queries {
			c.XCats = append(c.XCats, strconv.FormatInt(q.ID, 10))
			ser.Data = append(ser.Data, [2]float64{float64(i), float64(max(0, q.DurationMs))})
		}
		c.Series = []series{ser}
		p.Charts, d.Chart = []chart{c}, true
	}
	return p, nil
}

// commandOf is the command of an execution that ran no job and whose plan
// is one command ("Execute CreateViewCommand", "SetCommand", ...), else "".
func commandOf(x *model.SQLExecution) string {
	if len(x.Jobs) > 0 || x.Plan == nil {
		return ""
	}
	var ops []string
	for _, n := range x.Plan.Nodes {
		if !n.IsCluster {
			ops = append(ops, n.Name)
		}
	}
	if len(ops) != 1 {
		return ""
	}
	name := strings.TrimPrefix(ops[0], "Execute ")
	if !strings.HasSuffix(name, "Command") && !strings.HasPrefix(ops[0], "Execute ") {
		return ""
	}
	return name
}

// sqlData is one SQL execution's page.
type sqlData struct {
	s      *sparkApp
	X      *model.SQLExecution
	Sum    shs.SQLSummary
	Nodes  []shs.SQLNode
	Layout *planLayout
}

// sqlPage shows one SQL execution as the History Server's execution page:
// its jobs, the plan graph with every operator's metrics, the operators
// as a table, and the physical plan.
func (u *UI) sqlPage(r *http.Request) (*page, error) {
	s, err := u.spark(r)
	if err != nil {
		return nil, err
	}
	id, err := strconv.ParseInt(r.PathValue("exec"), 10, 64)
	if err != nil {
		return nil, fmtErr(errBadRequest, "execution %q: want a number", r.PathValue("exec"))
	}
	d := &sqlData{s: s}
	for _, x := range s.app.SQL {
		if x.ID == id {
			d.X = x
		}
	}
	if d.X == nil {
		return nil, fmtErr(errNotFound, "application %s has no SQL execution %d", s.app.ID, id)
	}
	for _, sm := range s.ix.SQLSummaries(s.app) {
		if sm.ID == id {
			d.Sum = sm
		}
	}
	d.Nodes = shs.SQLNodes(d.X)
	d.Layout = layoutPlan(d.X, d.Nodes)
	return s.page("sql/exec", "Query "+strconv.FormatInt(id, 10), func(w *htmlw.Writer) { writeSQL(w, d) }), nil
}
