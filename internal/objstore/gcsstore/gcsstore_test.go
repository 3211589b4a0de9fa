package gcsstore_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/objstore"
	"github.com/clusterlens/clusterlens/internal/objstore/gcsstore"
	"github.com/clusterlens/clusterlens/internal/objstore/objstoretest"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

const bucket = "clusterlens-test"

// server points STORAGE_EMULATOR_HOST at the fake-gcs-server that
// .ci/services/gcs.sh starts, creates the test bucket and returns the
// endpoint.
func server(t testing.TB) string {
	endpoint := sharedtest.Service(t, "CLUSTERLENS_GCS_ENDPOINT")
	t.Setenv(gcsstore.EmulatorEnv, endpoint)
	resp, err := http.Post(endpoint+"/storage/v1/b", "application/json", strings.NewReader(`{"name":"`+bucket+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusConflict {
		t.Fatalf("create bucket: %s", resp.Status)
	}
	return endpoint
}

// put uploads with the JSON API's simple upload.
func put(endpoint string) objstoretest.Put {
	return func(t testing.TB, key string, r io.Reader, size int64) {
		req, err := http.NewRequest(http.MethodPost, endpoint+"/upload/storage/v1/b/"+bucket+"/o?uploadType=media&name="+url.QueryEscape(key), r)
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = size
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("put %s: %v", key, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("put %s: %s", key, resp.Status)
		}
	}
}

func store(t testing.TB) objstoretest.Store {
	endpoint := server(t)
	return objstoretest.Store{
		New: func(opt objstore.Options) *objstore.FS {
			b, err := gcsstore.New(context.Background(), bucket, gcsstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return objstore.New(b, "gs://"+bucket, opt)
		},
		Put: put(endpoint),
	}
}

func TestConformance(t *testing.T) { objstoretest.Run(t, store(t)) }

func TestLargeObjectBoundedMemory(t *testing.T) {
	objstoretest.Large(t, store(t), 64<<20, 24<<20)
}

func TestRealLogs(t *testing.T) { objstoretest.RealLogs(t, store(t).Put, "gs://"+bucket+"/") }

// TestErrors checks a missing bucket and a server that is down. The
// emulator checks no credentials, so a refusal cannot be had from it (the
// S3 and Azure tests check refusals against their servers).
func TestErrors(t *testing.T) {
	server(t)
	open := func(name string, opt gcsstore.Options, retry objstore.Retry) *objstore.FS {
		b, err := gcsstore.New(context.Background(), name, opt)
		if err != nil {
			t.Fatal(err)
		}
		return objstore.New(b, "gs://"+name, objstore.Options{Retry: retry})
	}
	missing := open("no-such-bucket", gcsstore.Options{}, objstore.Retry{})
	down := open(bucket, gcsstore.Options{Endpoint: "http://127.0.0.1:1"}, objstoretest.DownRetry)
	objstoretest.CheckErrors(t, missing, nil, down)
}

// BenchmarkRead reads a 64 MiB object: Parallel4 with objstore's defaults
// (8 MiB ranges, 4 in flight), Parallel1 one range after the other, Local
// the same bytes from a local file.
func BenchmarkRead(b *testing.B) {
	b.Run("Parallel4", func(b *testing.B) { objstoretest.BenchRead(b, store(b), objstore.Options{}) })
	b.Run("Parallel1", func(b *testing.B) { objstoretest.BenchRead(b, store(b), objstore.Options{Parallel: 1}) })
	b.Run("Local", objstoretest.BenchLocal)
}
