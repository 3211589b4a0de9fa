package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// events is the History Server suite's event-log folder.
func events(t *testing.T) string {
	return filepath.Join(sharedtest.Dir(t, "shs-expectations"), "spark-events")
}

func TestAPICommand(t *testing.T) {
	dir := events(t)
	var out, errb bytes.Buffer
	code := Main([]string{"api", dir, "applications/local-1422981780767/jobs?status=succeeded"}, nil, &out, &errb)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var jobs []map[string]any
	if err := json.Unmarshal(out.Bytes(), &jobs); err != nil || len(jobs) != 2 {
		t.Fatalf("jobs = %v (%v)\n%s", jobs, err, out.String())
	}
	out.Reset()
	errb.Reset()
	code = Main([]string{"api", dir, "applications/nope"}, nil, &out, &errb)
	if code != ExitError || !strings.Contains(errb.String(), "404: unknown app: nope") {
		t.Errorf("unknown app: exit %d, stderr %q", code, errb.String())
	}
	if code := Main([]string{"api", dir}, nil, &out, &errb); code != ExitUsage {
		t.Errorf("missing request: exit %d, want %d", code, ExitUsage)
	}
}
