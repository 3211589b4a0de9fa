package eventlog

import (
	"bufio"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/source"
)

// memberCounts are the columns of platform-logs/*/expected-counts.tsv for
// one event-log file inside an archive.
type memberCounts struct {
	FirstEvent, Version, Rollover string
	counts
}

// platformRow is one row of a platform-logs counts file.
type platformRow struct {
	archive, member string
	want            memberCounts
}

// platformRows reads every platform-logs/<source>/expected-counts.tsv there
// is: a folder added beside the ones known today is checked too.
func platformRows(t *testing.T) (map[string][]platformRow, int) {
	t.Helper()
	dir := sharedtest.Dir(t, "platform-logs")
	files, err := filepath.Glob(filepath.Join(dir, "*", "expected-counts.tsv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no platform-logs/*/expected-counts.tsv: %v", err)
	}
	byArchive := map[string][]platformRow{}
	n := 0
	for _, f := range files {
		for _, col := range sharedtest.Rows(t, f) {
			if len(col) != 15 {
				t.Fatalf("%s: row %q has %d columns, want 15", f, col, len(col))
			}
			archive, member, ok := strings.Cut(col[0], "!")
			if !ok {
				t.Fatalf("%s: %q is not archive!member", f, col[0])
			}
			atoi := func(s string) int { v, _ := strconv.Atoi(s); return v }
			r := platformRow{archive: filepath.Join(filepath.Dir(f), archive), member: member, want: memberCounts{
				FirstEvent: col[1], Version: col[2], Rollover: col[3],
				counts: counts{Jobs: atoi(col[4]), Stages: atoi(col[5]), FailedStages: atoi(col[6]), Tasks: atoi(col[7]),
					FailedTasks: atoi(col[8]), Speculative: atoi(col[9]), ExecAdded: atoi(col[10]), ExecRemoved: atoi(col[11]),
					TaskHosts: atoi(col[12]), BadLines: atoi(col[13]), Complete: col[14] == "True"}}}
			byArchive[r.archive] = append(byArchive[r.archive], r)
			n++
		}
	}
	return byArchive, n
}

// TestPlatformLogCounts matches the independent counts of every platform
// log, archive member by member: each member (a rolled part too) decoded on
// its own must give its row; a set of rolled parts joined must give the sums
// of its members' rows (the union of their hosts), its Rollover Numbers in
// order and the completeness of its last part.
func TestPlatformLogCounts(t *testing.T) {
	byArchive, n := platformRows(t)
	matched := 0
	for archive, rows := range byArchive {
		logs, _, err := source.Find([]string{archive}, source.Options{PartHeader: PartHeader, Formats: []source.Format{{Kind: source.SparkEventLog, Sniff: Sniff}}})
		if err != nil {
			t.Fatalf("%s: %v", archive, err)
		}
		parts := map[string]partRef{}
		for _, l := range logs {
			for i, p := range l.Parts {
				parts[p.Name] = partRef{l, i}
			}
		}
		for _, r := range rows {
			t.Run(filepath.Base(archive)+"!"+r.member, func(t *testing.T) {
				ref, ok := parts[archive+"!/"+r.member]
				if !ok {
					t.Fatalf("not found among the parts of %d logs", len(logs))
				}
				if got := ref.member(t); got != r.want {
					t.Errorf("\n got %+v\nwant %+v", got, r.want)
				} else {
					matched++
				}
			})
		}
		for _, l := range logs {
			if len(l.Parts) > 1 {
				checkJoined(t, l, rows)
			}
		}
	}
	t.Logf("matched %d of %d members", matched, n)
}

// partRef is a part of a log.
type partRef struct {
	log *source.Log
	i   int
}

// member decodes the part alone and counts it as the counts file does.
func (p partRef) member(t *testing.T) memberCounts {
	t.Helper()
	first := p.firstLine(t)
	event, _, _ := PartHeader(first)
	d := NewDecoder()
	r, err := p.log.Open(p.i)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := d.Feed(p.log.Parts[p.i].Name, r); err != nil {
		t.Fatal(err)
	}
	apps := d.Apps()
	if len(apps) != 1 {
		t.Fatalf("%d applications", len(apps))
	}
	a := apps[0]
	got := memberCounts{FirstEvent: event, Version: a.Version, counts: eventCounts(t, a)}
	got.counts.Version, got.AppID, got.Attempt = "", "", ""
	if len(a.Rollovers) > 0 {
		got.Rollover = strconv.FormatInt(a.Rollovers[0].Number, 10)
	}
	return got
}

// firstLine reads the part's first line.
func (p partRef) firstLine(t *testing.T) []byte {
	t.Helper()
	r, err := p.log.Open(p.i)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	line, err := bufio.NewReaderSize(r, 1<<20).ReadSlice('\n')
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// eventCounts counts a the way the counts files do (events), after checking
// that the model agrees with its events (they agree unless the log has
// events lacking required fields).
func eventCounts(t *testing.T, a *model.App) counts {
	t.Helper()
	got := countApp(a)
	ev := a.Quality.Events
	fromEvents := got
	fromEvents.Jobs, fromEvents.Stages = int(ev["SparkListenerJobStart"]), int(ev["SparkListenerStageCompleted"])
	fromEvents.Tasks = int(ev["SparkListenerTaskEnd"])
	fromEvents.ExecAdded, fromEvents.ExecRemoved = int(ev["SparkListenerExecutorAdded"]), int(ev["SparkListenerExecutorRemoved"])
	if a.Quality.Incomplete == 0 && fromEvents != got {
		t.Errorf("model counts %+v differ from event counts %+v with no incomplete events", got, fromEvents)
	}
	return fromEvents
}

// checkJoined checks a log of rolled parts read whole against its members'
// rows, when the counts file lists every one of its parts.
func checkJoined(t *testing.T, l *source.Log, rows []platformRow) {
	var members []platformRow
	for _, p := range l.Parts {
		i := slices.IndexFunc(rows, func(r platformRow) bool { return p.Name == r.archive+"!/"+r.member })
		if i < 0 {
			return
		}
		members = append(members, rows[i])
	}
	t.Run(filepath.Base(l.Name)+" joined", func(t *testing.T) {
		d := NewDecoder()
		for i, p := range l.Parts {
			r, err := l.Open(i)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Feed(p.Name, r); err != nil {
				t.Fatal(err)
			}
			r.Close()
		}
		apps := d.Apps()
		if len(apps) != 1 {
			t.Fatalf("%d applications", len(apps))
		}
		a := apps[0]
		got := eventCounts(t, a)
		got.Version, got.AppID, got.Attempt = "", "", ""
		var sum counts
		var numbers []string
		maxHosts := 0
		for _, m := range members {
			w := m.want
			sum.Jobs += w.Jobs
			sum.Stages += w.Stages
			sum.FailedStages += w.FailedStages
			sum.Tasks += w.Tasks
			sum.FailedTasks += w.FailedTasks
			sum.Speculative += w.Speculative
			sum.ExecAdded += w.ExecAdded
			sum.ExecRemoved += w.ExecRemoved
			sum.BadLines += w.BadLines
			sum.TaskHosts += w.TaskHosts
			maxHosts = max(maxHosts, w.TaskHosts)
			numbers = append(numbers, w.Rollover)
			if w.Version != members[0].want.Version {
				t.Errorf("members of one application differ in version: %q, %q", w.Version, members[0].want.Version)
			}
		}
		sum.Complete = members[len(members)-1].want.Complete
		if got.TaskHosts < maxHosts || got.TaskHosts > sum.TaskHosts {
			t.Errorf("task hosts %d, want between %d (the most of one part) and %d (their sum)", got.TaskHosts, maxHosts, sum.TaskHosts)
		}
		sum.TaskHosts = got.TaskHosts
		if got != sum {
			t.Errorf("\n got %+v\nwant %+v (the sums of the parts)", got, sum)
		}
		var read []string
		for _, r := range a.Rollovers {
			read = append(read, strconv.FormatInt(r.Number, 10))
		}
		sorted := slices.Clone(numbers)
		slices.SortFunc(sorted, func(x, y string) int { v, _ := strconv.Atoi(x); w, _ := strconv.Atoi(y); return v - w })
		if !slices.Equal(read, sorted) || !slices.Equal(numbers, sorted) {
			t.Errorf("parts read in Rollover Numbers %v (files %v), want %v", read, numbers, sorted)
		}
		if a.Version != members[0].want.Version || a.Quality.Partial() {
			t.Errorf("version %q, notes %v", a.Version, a.Quality.Notes)
		}
		t.Logf("%s: %d parts joined, %s", l.Name, len(l.Parts), fmt.Sprint(got))
	})
}
