package shs

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

func TestHandler(t *testing.T) {
	ix := NewIndex([]*model.App{testApp()})
	srv := httptest.NewServer(Handler(Static(ix), nil))
	defer srv.Close()

	cases := []struct {
		path   string
		status int
		ctype  string
		body   string
	}{
		{"/api/v1/applications", 200, "application/json", `"id": "app-1"`},
		{"/api/v1/applications/app-1/jobs?status=succeeded", 200, "application/json", `"jobId": 0`},
		{"/api/v1/applications/app-1/stages/0/0/", 200, "application/json", `"stageId": 0`},
		{"/api/v1/applications/nope", 404, "text/plain", "unknown app: nope"},
		{"/api/v1/applications/app-1/stages/0/0/taskSummary?quantiles=x", 400, "text/plain", "Bad value for parameter"},
		{"/elsewhere", 404, "text/plain", ""},
	}
	for _, c := range cases {
		resp, err := http.Get(srv.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), c.ctype) ||
			!strings.Contains(string(body), c.body) {
			t.Errorf("GET %s: %d %s %q; want %d %s containing %q", c.path, resp.StatusCode,
				resp.Header.Get("Content-Type"), body, c.status, c.ctype, c.body)
		}
		if c.status == 200 && !json.Valid(body) {
			t.Errorf("GET %s: invalid JSON", c.path)
		}
	}
	resp, err := http.Post(srv.URL+"/api/v1/applications", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
}
