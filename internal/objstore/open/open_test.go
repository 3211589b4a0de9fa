package open

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/objstore"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Location
		err  string
	}{
		{in: "s3://bucket/logs/", want: Location{"s3", "bucket", "logs"}},
		{in: "S3A://bucket", want: Location{"s3a", "bucket", "."}},
		{in: "gs://b/a//b/../c", want: Location{"gs", "b", "a/c"}},
		{in: "s3://b/app-?.zst#1%20", want: Location{"s3", "b", "app-?.zst#1%20"}},
		{in: "abfss://logs@acct.dfs.core.windows.net/spark/app-*", want: Location{"abfss", "logs@acct.dfs.core.windows.net", "spark/app-*"}},
		{in: "s3:///key", err: "no bucket"},
		{in: "http://host/x", err: "not an object-store URL"},
		{in: "/local/path", err: "not an object-store URL"},
	} {
		got, err := Parse(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Parse(%q) = %+v, %v; want an error saying %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"s3://b/k", "gs://b", "abfss://c@a.dfs.core.windows.net/p", "s3://b/../../x", "wasb://", "hdfs://nn:8020/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		loc, err := Parse(s)
		if err != nil {
			return
		}
		if _, ok := objstore.Schemes[loc.Scheme]; !ok || loc.Authority == "" || !fs.ValidPath(loc.Path) {
			t.Fatalf("Parse(%q) = %+v: want a known scheme, an authority and a valid fs path", s, loc)
		}
	})
}

func TestHDFSRefused(t *testing.T) {
	for _, u := range []string{"hdfs://namenode:8020/spark-logs", "webhdfs://namenode:9870/spark-logs"} {
		_, _, err := Open(context.Background(), u, objstore.Options{})
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), u) || !strings.Contains(err.Error(), "hdfs dfs -get") {
			t.Errorf("Open(%s): %v, want ErrUnsupported naming the URL and a way around", u, err)
		}
	}
}
