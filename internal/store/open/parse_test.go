package open

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct{ dsn, kind, addr string }{
		{"sqlite:/var/lib/cl/metrics", KindSQLite, "/var/lib/cl/metrics"},
		{"sqlite:///abs/m.db", KindSQLite, "/abs/m.db"},
		{"sqlite:rel.data", KindSQLite, "rel.data"},
		{"metrics.db", KindSQLite, "metrics.db"},
		{"/x/y.sqlite3", KindSQLite, "/x/y.sqlite3"},
		{"clickhouse+http://127.0.0.1:8123/cl", KindClickHouse, "http://127.0.0.1:8123/cl"},
		{"clickhouse+https://u:p@h:8443/db", KindClickHouse, "https://u:p@h:8443/db"},
		{"metrics", "", ""},
		{"http://h/x.db", "", ""},
		{"sqlite:", "", ""},
	} {
		kind, addr, err := ParseDSN(c.dsn)
		if kind != c.kind || addr != c.addr || (err != nil) != (c.kind == "") {
			t.Errorf("ParseDSN(%q) = %q, %q, %v; want %q, %q", c.dsn, kind, addr, err, c.kind, c.addr)
		}
	}
}

// FuzzParse: any DSN gives a kind with a non-empty address, or an error
// naming the DSN.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"sqlite:a", "a.db", "clickhouse+http://h:1/d", "x://y.db", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		kind, addr, err := ParseDSN(dsn)
		switch {
		case err != nil:
			if kind != "" || addr != "" || !strings.Contains(err.Error(), "want") {
				t.Fatalf("ParseDSN(%q): error %v with kind %q addr %q", dsn, err, kind, addr)
			}
		case kind == KindSQLite:
			if addr == "" || !strings.HasSuffix(dsn, addr) {
				t.Fatalf("ParseDSN(%q): sqlite address %q", dsn, addr)
			}
		case kind == KindClickHouse:
			if !strings.HasPrefix(addr, "http://") && !strings.HasPrefix(addr, "https://") {
				t.Fatalf("ParseDSN(%q): clickhouse address %q", dsn, addr)
			}
		default:
			t.Fatalf("ParseDSN(%q): kind %q", dsn, kind)
		}
	})
}
