package web

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/history"
)

func TestBinName(t *testing.T) {
	for bin, want := range map[int64]string{1000: "second", 10_000: "10 s", 60_000: "minute", 5 * 60_000: "5 minutes",
		3_600_000: "hour", 6 * 3_600_000: "6 hours", 86_400_000: "day", 7 * 86_400_000: "week", 30 * 86_400_000: "30 days", 1500: "1500 ms"} {
		if got := binName(bin); got != want {
			t.Errorf("binName(%d) = %q, want %q", bin, got, want)
		}
	}
}

// fleetIDs are the application ids of a fleet page's rows, in order.
func fleetIDs(body string) []string {
	var out []string
	for _, m := range fleetRowRE.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

var fleetRowRE = regexp.MustCompile(`<tr><td>20[^<]*</td><td>(?:<a href="/app/[^"]*">)?([^<]+)`)

// TestFleetFilterAndSort checks fleet pages against the store's own
// filtering (history.Filter, in SQL) sorted here: the user's runs with at
// least a low finding by duration, shortest first, 7 to a page;
// and a name search, newest first.
func TestFleetFilterAndSort(t *testing.T) {
	f := getFixture(t)
	ctx := t.Context()
	runs, err := f.hist.Runs(ctx, history.Filter{User: "sim", MinSeverity: finding.Low})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(runs, func(a, b *history.Run) int {
		return cmp.Or(cmp.Compare(a.DurationMs, b.DurationMs), cmp.Compare(a.Start, b.Start), strings.Compare(a.Key, b.Key))
	})
	var want []string
	for _, r := range runs {
		want = append(want, r.ID)
	}
	if len(want) < 10 {
		t.Fatalf("only %d runs of sim with a finding", len(want))
	}
	var got []string
	for page := 1; ; page++ {
		code, body := f.get(t, fmt.Sprintf("/fleet?user=sim&severity=low&sort=duration&order=asc&per=7&page=%d", page))
		if code != 200 {
			t.Fatalf("status %d", code)
		}
		ids := fleetIDs(body)
		got = append(got, ids...)
		if !strings.Contains(body, "next page") {
			break
		}
		if len(ids) != 7 || page > 100 {
			t.Fatalf("page %d: %d rows", page, len(ids))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("sim's runs by duration:\n got %v\nwant %v", got, want)
	}
	named, err := f.hist.Runs(ctx, history.Filter{Name: "TERASORT", Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	_, body := f.get(t, "/fleet?name=TERASORT&per=1000")
	got = fleetIDs(body)
	if len(named) == 0 || len(got) != len(named) || got[0] != named[0].ID || got[len(got)-1] != named[len(named)-1].ID {
		t.Errorf("name search: %d rows from %v to %v; the store: %d", len(got), first(got), last(got), len(named))
	}
	if code, _ := f.get(t, "/fleet?sort=nonsense"); code != 400 {
		t.Errorf("a bad sort: status %d, want 400", code)
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func last(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}
