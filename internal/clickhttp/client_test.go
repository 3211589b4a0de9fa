package clickhttp

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestLateException: an exception the server raises after it produced
// megabytes of rows is an error from Do, not text appended to a 200 answer
// (what 18.16 sends without wait_end_of_query).
func TestLateException(t *testing.T) {
	u, err := url.Parse(sharedtest.Service(t, "CLICKHOUSE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{base: u, hc: http.DefaultClient}
	body, err := c.Do(context.Background(), "SELECT number, throwIf(number = 3000000) FROM numbers(5000000) SETTINGS max_block_size = 1000 FORMAT RowBinary", nil)
	if err == nil {
		n, _ := io.Copy(io.Discard, body)
		body.Close()
		t.Fatalf("query failing after 3,000,000 rows: no error, %d bytes of answer", n)
	}
	if !strings.Contains(err.Error(), "HTTP 500") || !strings.Contains(err.Error(), "throwIf") {
		t.Fatalf("error %q, want the server's HTTP 500 naming throwIf", err)
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":           `''`,
		"a'b":        `'a\'b'`,
		`a\b`:        `'a\\b'`,
		"a\nb\x00\t": `'a\x0ab\x00\x09'`,
		"ü":          "'ü'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}
