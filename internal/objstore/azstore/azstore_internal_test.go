package azstore

import (
	"context"
	"testing"
)

// TestAuthority checks the blob endpoint derived from URL authorities.
func TestAuthority(t *testing.T) {
	t.Setenv("AZURE_STORAGE_CONNECTION_STRING", "")
	t.Setenv("AZURE_STORAGE_KEY", "a2V5") // so that no credential chain is tried
	for in, want := range map[string]string{
		"logs@acct.dfs.core.windows.net":      "https://acct.blob.core.windows.net",
		"logs@acct.blob.core.windows.net":     "https://acct.blob.core.windows.net",
		"logs@acct.dfs.core.chinacloudapi.cn": "https://acct.blob.core.chinacloudapi.cn",
		"logs@acct":                           "https://acct.blob.core.windows.net",
	} {
		c, err := New(context.Background(), in, Options{})
		if err != nil || c.endpoint != want || c.container != "logs" || c.account != "acct" {
			t.Errorf("New(%s): endpoint %q, container %q, account %q, %v; want %s", in, c.endpoint, c.container, c.account, err, want)
		}
	}
	for _, bad := range []string{"acct.dfs.core.windows.net", "@acct", "logs@"} {
		if _, err := New(context.Background(), bad, Options{}); err == nil {
			t.Errorf("New(%s): no error", bad)
		}
	}
}
