package correlate

import (
	"strings"
	"testing"
)

func TestMatchHosts(t *testing.T) {
	logHosts := []string{"node1.example.com", "NODE2", "10.0.0.3", "node4", "node5.a.com", "node6", "node7", "ghost"}
	samples := []string{"node1.example.com", "node2.example.com", "host3.example.com", "node4.example.com:9100",
		"node5.b.com", "node6.x.com", "node6.y.com", "node7.", "unused"}
	m, un := MatchHosts(logHosts, samples, map[string]string{"10.0.0.3": "host3.example.com"})
	got := map[string]string{}
	for _, x := range m {
		got[x.Host] = x.SampleHost + " " + x.How
	}
	want := map[string]string{
		"node1.example.com": "node1.example.com exact",
		"NODE2":             "node2.example.com short-name",
		"10.0.0.3":          "host3.example.com alias",
		"node4":             "node4.example.com:9100 short-name",
		"node5.a.com":       "node5.b.com short-name",
		"node7":             "node7. normalized",
	}
	for h, w := range want {
		if got[h] != w {
			t.Errorf("%s: matched %q, want %q", h, got[h], w)
		}
	}
	// node6 is ambiguous (two sample hosts share its short name); ghost has none.
	if strings.Join(un, ",") != "node6,ghost" || len(m) != len(want) {
		t.Errorf("unmatched %v, %d matches", un, len(m))
	}
}

// TestMatchHostsPrefersExact keeps an exact pair even when another log host
// would match the same sample host by short name.
func TestMatchHostsPrefersExact(t *testing.T) {
	m, un := MatchHosts([]string{"node1", "node1.example.com"}, []string{"node1.example.com"}, nil)
	if len(m) != 1 || m[0].Host != "node1.example.com" || m[0].How != MatchExact || len(un) != 1 {
		t.Errorf("matches %+v, unmatched %v", m, un)
	}
}

// FuzzMatchHosts: any names match without panicking, each sample host at
// most once, and every log host is either matched or unmatched.
func FuzzMatchHosts(f *testing.F) {
	f.Add("node1.example.com,10.0.0.1:8080,[::1]:9100,NODE2.", "node1,node2.example.com,::1", "10.0.0.1=node3")
	f.Add("a..b,.,:,[]", ".a,a.,a", "")
	f.Fuzz(func(t *testing.T, logs, samples, alias string) {
		aliases := map[string]string{}
		for _, kv := range strings.Split(alias, ";") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				aliases[k] = v
			}
		}
		lh := strings.Split(logs, ",")
		m, un := MatchHosts(lh, strings.Split(samples, ","), aliases)
		used := map[string]bool{}
		for _, x := range m {
			if used[x.SampleHost] {
				t.Fatalf("sample host %q matched twice", x.SampleHost)
			}
			used[x.SampleHost] = true
		}
		n := 0
		for _, h := range lh {
			if h != "" {
				n++
			}
		}
		if len(m)+len(un) != n {
			t.Fatalf("%d matched + %d unmatched of %d log hosts", len(m), len(un), n)
		}
	})
}
